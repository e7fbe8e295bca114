//! `ltr fetch --mirror` as a process: install from a folder mirror into an empty data cache,
//! do no work the second time, refuse a damaged mirror file with both hashes.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

use crate::common::{mirror, sha256sums};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn fetch(data_dir: &Path, mirror: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(["fetch", "letor3", "--datasets", "OHSUMED", "--mirror"])
        .arg(mirror)
        .env("LTR_DATA_DIR", data_dir)
        .env_remove("LTR_MIRROR")
        .env("CI", "1")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fetch_from_a_folder_mirror_installs_once() {
    let Some(mirror) = mirror() else { return };
    let cache = tempfile::tempdir().unwrap();
    let out = fetch(cache.path(), &mirror);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("OHSUMED: 47 installed, 0 already present"), "{}", text(&out));
    // Every OHSUMED file of SHA256SUMS is in the cache, uncompressed, with its hash.
    let sums = sha256sums(&mirror);
    let want: Vec<&String> = sums.keys().filter(|k| k.starts_with("letor3/OHSUMED/")).collect();
    assert_eq!(want.len(), 47);
    let have = files_under(cache.path());
    for rel in &want {
        assert!(have.contains(rel), "{rel} not installed: {have:?}");
    }
    let rel = "letor3/OHSUMED/QueryLevelNorm/Fold1/train.txt";
    let (hash, _) = ltr_data::cache::sha256_file(&cache.path().join(rel)).unwrap();
    assert_eq!(hash, sums[rel]);

    let again = fetch(cache.path(), &mirror);
    assert!(again.status.success(), "{}", text(&again));
    assert!(text(&again).contains("OHSUMED: 0 installed, 47 already present"), "{}", text(&again));
    assert_eq!(files_under(cache.path()), have);
}

#[test]
fn fetch_refuses_a_damaged_mirror_file() {
    let Some(mirror) = mirror() else { return };
    let bad_mirror = tempfile::tempdir().unwrap();
    let src = mirror.join("letor3/OHSUMED");
    for rel in files_under(&src) {
        let to = bad_mirror.path().join("letor3/OHSUMED").join(&rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(&rel), &to).unwrap();
    }
    // One byte changed in one file (stored plain instead of .gz).
    let rel = "letor3/OHSUMED/QueryLevelNorm/Fold2/vali.txt";
    let gz = bad_mirror.path().join(format!("{rel}.gz"));
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&gz).unwrap()).read_to_end(&mut bytes).unwrap();
    std::fs::remove_file(&gz).unwrap();
    bytes[100] ^= 0x01;
    std::fs::write(bad_mirror.path().join(rel), &bytes).unwrap();
    let expected = &sha256sums(&mirror)[rel];
    let actual = sha256_hex(&bytes);

    let cache = tempfile::tempdir().unwrap();
    let out = fetch(cache.path(), bad_mirror.path());
    assert!(!out.status.success(), "a damaged file was accepted: {}", text(&out));
    let msg = text(&out);
    assert!(msg.contains(rel) && msg.contains(expected.as_str()) && msg.contains(&actual), "{msg}");
    // Nothing bad (nor any partial file) is left in the cache; the good files are kept.
    let have = files_under(cache.path());
    assert!(!have.iter().any(|f| f.contains("Fold2/vali.txt")), "{have:?}");
    assert!(have.contains(&"letor3/OHSUMED/QueryLevelNorm/Fold2/train.txt".to_owned()), "{have:?}");
}
