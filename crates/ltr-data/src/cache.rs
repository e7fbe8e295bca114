//! The local data cache: `$LTR_DATA_DIR` (default: the per-user cache folder), laid out like
//! a collection root, holding uncompressed, verified files.

use std::path::{Path, PathBuf};

/// The default cache root: `$LTR_DATA_DIR`, else `$XDG_CACHE_HOME/ltr`, else `~/.cache/ltr`.
pub fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LTR_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("ltr");
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => PathBuf::from(home).join(".cache").join("ltr"),
        None => PathBuf::from(".ltr-data"),
    }
}

/// A cache rooted at a folder.
#[derive(Debug, Clone)]
pub struct DataCache {
    root: PathBuf,
}

impl DataCache {
    /// A cache at `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Absolute path of a file relative to the collection root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}
