//! Compiles the data files under `datasets/embedded/` into the crate: writes
//! `$OUT_DIR/embedded.rs`, a sorted table of (path under `datasets/embedded/`, bytes).
//!
//! The table is generated from the folder, not written by hand, so the manifests stay the one
//! description of the pieces: a manifest naming a file that is not there is caught by the
//! crate's tests, and so is a file that no manifest names.

use std::path::{Path, PathBuf};

fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(base, &path, out)?;
        } else if path.is_file() {
            let rel = path.strip_prefix(base).unwrap_or(&path);
            let rel: Vec<String> =
                rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push((rel.join("/"), path.canonicalize()?));
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = manifest_dir.join("../../datasets/embedded");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    if dir.is_dir() {
        walk(&dir, &dir, &mut files)?;
    } else {
        println!("cargo:warning=no {}: no data is embedded", dir.display());
    }
    files.sort();
    let mut code = String::from("pub(crate) static FILES: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        code += &format!("    ({rel:?}, include_bytes!({:?})),\n", abs.display().to_string());
    }
    code += "];\n";
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("embedded.rs");
    std::fs::write(out, code)
}
