//! The bounded copy and the quiet clean-up that extraction needs; `ltr-fetch`'s downloads,
//! mirror copies and hashing use the same ones.

use std::io::Read;
use std::path::Path;

/// How a [`copy_bounded`] failed.
#[derive(Debug)]
pub enum CopyError {
    /// Reading failed.
    Read(std::io::Error),
    /// Writing failed.
    Write(std::io::Error),
    /// More than the limit arrived; nothing past it was written.
    TooLarge,
}

/// Copies `reader` into `out`, showing each chunk to `seen` before it is written, and stops
/// (with [`CopyError::TooLarge`]) before writing a chunk that would take the copy past `max`
/// bytes. Returns the bytes copied.
pub fn copy_bounded(
    mut reader: impl Read,
    out: &mut impl std::io::Write,
    max: u64,
    mut seen: impl FnMut(&[u8]),
) -> Result<u64, CopyError> {
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        total = total.saturating_add(n as u64);
        if total > max {
            return Err(CopyError::TooLarge);
        }
        seen(&buf[..n]);
        out.write_all(&buf[..n]).map_err(CopyError::Write)?;
    }
}

/// Deletes a file, logging (not failing) if that is impossible.
pub fn remove_quietly(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => log::warn!("cannot delete {}: {e}", path.display()),
    }
}
