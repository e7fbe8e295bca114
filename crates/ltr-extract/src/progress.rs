//! Progress of long operations, reported to whoever shows it (the CLI draws bars).

/// Receives byte counts of long operations (downloads, copies, extraction). Every method
/// has an empty default; implementations must be cheap (`advance` is called per chunk).
pub trait Progress: Send + Sync {
    /// A new operation starts; `total_bytes` when known.
    fn begin(&self, label: &str, total_bytes: Option<u64>) {
        let _ = (label, total_bytes);
    }
    /// `bytes` more were processed.
    fn advance(&self, bytes: u64) {
        let _ = bytes;
    }
    /// The current operation ended (successfully or not).
    fn end(&self) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
