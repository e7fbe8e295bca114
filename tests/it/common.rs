//! Shared helpers: locating the mirror and the golden files.

use std::path::{Path, PathBuf};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `../shared` folder beside the project.
pub fn shared() -> PathBuf {
    root().join("..").join("shared")
}

/// The dataset mirror (`$LTR_MIRROR` if it is a folder, else `../shared/datasets`), if present.
pub fn mirror() -> Option<PathBuf> {
    let from_env = std::env::var_os("LTR_MIRROR").map(PathBuf::from).filter(|p| p.is_dir());
    let p = from_env.unwrap_or_else(|| shared().join("datasets"));
    if p.join("SHA256SUMS").is_file() {
        Some(p)
    } else {
        eprintln!("note: no dataset mirror at {}; skipping", p.display());
        None
    }
}

/// A mirror file, `.gz` or plain.
pub fn mirror_file(mirror: &Path, rel: &str) -> PathBuf {
    let gz = mirror.join(format!("{rel}.gz"));
    if gz.is_file() { gz } else { mirror.join(rel) }
}
