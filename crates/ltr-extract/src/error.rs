//! Errors of extraction. Every variant names the archive or the file it is about.

use std::path::PathBuf;

/// Errors of `ltr-extract`. Not `non_exhaustive`: `ltr-fetch` maps each variant onto its own,
/// and a new one should make that mapping fail to compile rather than fall into a catch-all.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// An I/O failure on a path of the destination (or on opening the archive).
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// An archive that cannot be unpacked: damaged, encrypted, an entry that would escape the
    /// destination or exceeds the size limit.
    #[error("archive {}: {reason}", path.display())]
    Archive {
        /// The archive.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}
