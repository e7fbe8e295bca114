//! `ltr fetch` as a process, with no network and no `../shared`: the embedded data into an
//! empty cache; a folder mirror (built from the embedded pieces) used before it, once; a
//! damaged mirror file refused with both hashes.

use std::path::Path;
use std::process::{Command, Output};

use flate2::Compression;
use flate2::write::GzEncoder;
use ltr_data::Manifest;
use ltr_data::embedded::Pieces;
use sha2::{Digest, Sha256};

use crate::common::files_under;

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn fetch(data_dir: &Path, collection: &str, dataset: &str, mirror: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ltr"));
    c.args(["fetch", collection, "--datasets", dataset]);
    if let Some(m) = mirror {
        c.arg("--mirror").arg(m);
    }
    c.env("LTR_DATA_DIR", data_dir).env_remove("LTR_MIRROR").env("CI", "1").output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A folder mirror of OHSUMED QueryLevelNorm (every fold file, gzipped) rebuilt from the
/// embedded pieces. Returns (relative path, uncompressed bytes) of each file.
fn ohsumed_mirror(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let m = Manifest::builtin("letor3").unwrap();
    let v = m.dataset("OHSUMED").unwrap().default_variant();
    let pieces = Pieces::open(v).unwrap();
    v.files()
        .iter()
        .map(|f| {
            let rel = v.rel_path(f);
            let bytes = pieces.build(f).unwrap().unwrap();
            let to = dir.join(format!("{rel}.gz"));
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
            std::io::Write::write_all(&mut gz, &bytes).unwrap();
            std::fs::write(&to, gz.finish().unwrap()).unwrap();
            (rel, bytes)
        })
        .collect()
}

#[test]
fn fetch_without_a_mirror_installs_the_embedded_data() {
    let cache = tempfile::tempdir().unwrap();
    let out = fetch(cache.path(), "letor4", "MQ2008", None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("MQ2008: 20 installed, 0 already present (from embedded)"), "{}", text(&out));
    let m = Manifest::builtin("letor4").unwrap();
    let v = m.dataset("MQ2008").unwrap().default_variant();
    for f in v.files() {
        let bytes = std::fs::read(cache.path().join(v.rel_path(&f))).unwrap();
        assert_eq!(Some(sha256_hex(&bytes).as_str()), v.sha256_of(&f), "{f}");
    }
}

#[test]
fn fetch_from_a_folder_mirror_installs_once() {
    let mirror = tempfile::tempdir().unwrap();
    let files = ohsumed_mirror(mirror.path());
    let cache = tempfile::tempdir().unwrap();
    let out = fetch(cache.path(), "letor3", "OHSUMED", Some(mirror.path()));
    assert!(out.status.success(), "{}", text(&out));
    let want = format!("OHSUMED: 15 installed, 0 already present (from mirror {})", mirror.path().display());
    assert!(text(&out).contains(&want), "{}", text(&out));
    let have = files_under(cache.path());
    for (rel, bytes) in &files {
        assert!(have.contains(rel), "{rel} not installed: {have:?}");
        assert_eq!(&std::fs::read(cache.path().join(rel)).unwrap(), bytes, "{rel}");
    }

    let again = fetch(cache.path(), "letor3", "OHSUMED", Some(mirror.path()));
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("OHSUMED: 0 installed, 15 already present"), "{}", text(&again));
    assert_eq!(files_under(cache.path()), have);
}

#[test]
fn fetch_refuses_a_damaged_mirror_file() {
    let mirror = tempfile::tempdir().unwrap();
    let files = ohsumed_mirror(mirror.path());
    // One byte changed in one file (stored plain instead of .gz).
    let rel = "letor3/OHSUMED/QueryLevelNorm/Fold2/vali.txt";
    let mut bytes = files.iter().find(|(r, _)| r == rel).unwrap().1.clone();
    let expected = sha256_hex(&bytes);
    std::fs::remove_file(mirror.path().join(format!("{rel}.gz"))).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(mirror.path().join(rel), &bytes).unwrap();
    let actual = sha256_hex(&bytes);

    let cache = tempfile::tempdir().unwrap();
    let out = fetch(cache.path(), "letor3", "OHSUMED", Some(mirror.path()));
    assert!(!out.status.success(), "a damaged file was accepted: {}", text(&out));
    let msg = text(&out);
    assert!(msg.contains(rel) && msg.contains(&expected) && msg.contains(&actual), "{msg}");
    // Nothing bad (nor any partial file) is left in the cache; the good files are kept.
    let have = files_under(cache.path());
    assert!(!have.iter().any(|f| f.contains("Fold2/vali.txt")), "{have:?}");
    assert!(have.contains(&"letor3/OHSUMED/QueryLevelNorm/Fold2/train.txt".to_owned()), "{have:?}");
}
