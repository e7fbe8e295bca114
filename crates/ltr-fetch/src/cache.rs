//! The local data cache: a folder (the CLI's `--data-dir` / `LTR_DATA_DIR`, default the
//! per-user cache folder) laid out like a collection root, holding uncompressed, verified
//! files.
//!
//! Besides the data files, the cache root holds:
//!
//! * `stamps.json`: for every verified file (relative path), its size, modification time,
//!   sha256 and when it was hashed. A file whose size and mtime still match its stamp (and
//!   whose stamped hash is the one expected) is known good without being read again, until
//!   the stamp is older than the recheck age ([`DataCache::with_rehash_after`]: bit rot or
//!   an edit that kept size and mtime is caught then); a file whose size or mtime changed
//!   is re-hashed. [`DataCache::verify_all`] re-hashes everything.
//! * `recorded-sha256.json`: hashes recorded on first success for files the manifests have
//!   no hash for (LETOR 3.0 Gov, MQ2007, MSLR-WEB). Once recorded, such a hash is used for
//!   verification exactly like a manifest hash.
//! * `.downloads/`: official archives (and their resumable `.part` files).
//! * `.staging/`: short-lived extraction and copy folders (removed when done; the folders
//!   of killed processes, named with their process id, are removed by the next fetch).
//!
//! Both JSON files are rewritten atomically (temporary file + rename), and data files only
//! ever appear by an atomic rename of a complete, checked file, so several processes may
//! fill the same cache at once: the worst a race costs is a lost stamp (a re-hash). A
//! missing or unreadable JSON file only costs re-hashing (stamps) or a fresh download
//! (records).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use ltr_data::manifest::{Manifest, Variant};
use ltr_format::DataError;
use ltr_format::reader::hex;

use crate::error::FetchError;
pub(crate) use ltr_extract::io::{CopyError, copy_bounded, remove_quietly};

/// File name of the stamp record in the cache root.
pub const STAMPS_FILE: &str = "stamps.json";
/// File name of the locally recorded hashes in the cache root.
pub const RECORDED_FILE: &str = "recorded-sha256.json";
/// Folder (in the cache root) of downloaded archives.
pub const DOWNLOADS_DIR: &str = ".downloads";
/// Folder (in the cache root) of temporary extraction and copy folders.
pub const STAGING_DIR: &str = ".staging";
const STAGING_PREFIX: &str = "fetch-";
/// Folder (in [`DOWNLOADS_DIR`]) of partial downloads from URL mirrors.
const MIRROR_PARTS_DIR: &str = "mirror";
const STALE_STAGING: Duration = Duration::from_secs(24 * 3600);

/// How long a verified file is trusted on its stamp alone by default.
pub const DEFAULT_REHASH_AFTER: Duration = Duration::from_secs(30 * 24 * 3600);

/// A cache rooted at a folder.
#[derive(Debug, Clone)]
pub struct DataCache {
    root: PathBuf,
    /// Stamps made longer ago than this are not trusted: the file is hashed again.
    rehash_after: Duration,
    /// When this handle was made (ms since the epoch): stamps made since are trusted
    /// whatever `rehash_after` says, so a file is hashed at most once per handle.
    opened_ms: u64,
}

/// What the cache knows about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Present and matching the known hash.
    Verified {
        /// Its local path.
        path: PathBuf,
        /// Whether it had to be read and hashed (no stamp, or size/mtime changed).
        rehashed: bool,
    },
    /// Not in the cache.
    Missing,
    /// Present, but no hash is known for it (neither manifest nor recorded): unverifiable.
    Unknown {
        /// Its local path.
        path: PathBuf,
    },
    /// Present, but its content does not match the known hash.
    Mismatch {
        /// Its local path.
        path: PathBuf,
        /// The known hash.
        expected: String,
        /// The hash of the file.
        actual: String,
    },
}

/// What [`DataCache::verify_all`] found for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Path relative to the cache root.
    pub rel: String,
    /// What was found.
    pub check: Check,
}

/// The state of one file of the cache after hashing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Its content matches the known hash.
    Ok,
    /// Its content does not match the known hash.
    Mismatch {
        /// The known hash (manifest or recorded).
        expected: String,
        /// The hash of the file.
        actual: String,
    },
    /// No hash is known for it (neither a manifest nor the local record has one).
    Unknown,
    /// The cache's records name it, but it is gone.
    Missing,
}

/// One stamp: what a verified file looked like when it was last hashed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    size: u64,
    mtime_ns: u64,
    sha256: String,
    /// When it was hashed (ms since the epoch); 0 in stamps written before this was kept,
    /// which are therefore hashed again.
    #[serde(default)]
    verified_ms: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stamps {
    #[serde(default)]
    files: BTreeMap<String, Stamp>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Recorded {
    #[serde(default)]
    files: BTreeMap<String, String>,
}

impl DataCache {
    /// A cache at `root` (created on first write), trusting stamps for
    /// [`DEFAULT_REHASH_AFTER`].
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into(), rehash_after: DEFAULT_REHASH_AFTER, opened_ms: now_ms() }
    }

    /// The same cache, hashing again files last hashed longer ago than `age` before they
    /// are used (zero: every file, once per handle). See [`crate::FetchOptions::rehash_after`].
    pub fn with_rehash_after(mut self, age: Duration) -> Self {
        self.rehash_after = age;
        self
    }

    /// Whether a stamp made at `verified_ms` may stand for hashing the file again.
    fn fresh(&self, verified_ms: u64) -> bool {
        let age = u128::from(now_ms().saturating_sub(verified_ms));
        verified_ms >= self.opened_ms || age < self.rehash_after.as_millis()
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Absolute path of a file relative to the collection root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The folder of downloaded archives.
    pub fn downloads_dir(&self) -> PathBuf {
        self.root.join(DOWNLOADS_DIR)
    }

    /// The partial file of a download from a URL mirror: in the cache, so that a killed run's
    /// bytes are resumed by the next one; named by a hash of the address (two mirrors never
    /// share one) and the file name.
    pub fn mirror_part(&self, url: &str) -> PathBuf {
        let id = hex(&Sha256::digest(url.as_bytes()));
        let name = url.rsplit('/').next().filter(|n| safe_name(n)).unwrap_or("file");
        self.downloads_dir().join(MIRROR_PARTS_DIR).join(format!("{}-{name}.part", &id[..16]))
    }

    /// The folder of temporary staging folders.
    pub fn staging_dir(&self) -> PathBuf {
        self.root.join(STAGING_DIR)
    }

    /// A fresh temporary folder in [`Self::staging_dir`] (same file system as the cache, so
    /// installing from it is an atomic rename); deleted when dropped. Its name carries this
    /// process's id, so that a later run can tell a killed process's folder from a live one.
    pub(crate) fn staging(&self) -> Result<tempfile::TempDir, FetchError> {
        let parent = self.staging_dir();
        create_dir_all(&parent)?;
        tempfile::Builder::new()
            .prefix(&format!("{STAGING_PREFIX}{}-", std::process::id()))
            .tempdir_in(&parent)
            .map_err(|source| FetchError::io(parent, source))
    }

    /// Deletes what killed processes left: staging folders (`fetch-<pid>-*`) and temporary
    /// record files ([`ltr_core::fs::write_atomic`]'s) whose process is gone (`/proc/<pid>`), and
    /// staging folders without a process id that are older than a day.
    pub(crate) fn sweep_staging(&self) {
        if let Ok(entries) = std::fs::read_dir(self.staging_dir()) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(rest) = name.strip_prefix(STAGING_PREFIX) else { continue };
                let stale = match rest.split_once('-').and_then(|(pid, _)| pid.parse::<u32>().ok()) {
                    Some(pid) => process_gone(pid),
                    None => e
                        .metadata()
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > STALE_STAGING),
                };
                if stale {
                    log::debug!("removing the stale staging folder {}", e.path().display());
                    if let Err(err) = std::fs::remove_dir_all(e.path()) {
                        log::warn!("cannot remove {}: {err}", e.path().display());
                    }
                }
            }
        }
        if let Err(e) = ltr_core::fs::remove_stale_temp_files(&self.root) {
            log::warn!("cannot clean {}: {e}", self.root.display());
        }
    }

    /// Local path of a variant file if it is present and verified (manifest or recorded
    /// hash, via the stamp), else `None`. Unchanged stamped files are not read; others are
    /// hashed once and stamped.
    pub fn verified_path(&self, variant: &Variant, file: &str) -> Option<PathBuf> {
        match self.status(variant, file) {
            Ok(FileStatus::Verified { path, .. }) => Some(path),
            Ok(_) => None,
            Err(e) => {
                log::warn!("{e}");
                None
            }
        }
    }

    /// The sha256 the cache knows for a variant file (manifest hash, else recorded).
    pub fn known_sha256(&self, variant: &Variant, file: &str) -> Option<String> {
        match variant.sha256_of(file) {
            Some(h) => Some(h.to_owned()),
            None => self.recorded_sha256(&variant.rel_path(file)),
        }
    }

    /// The hash recorded locally for a path relative to the collection root, if any.
    pub fn recorded_sha256(&self, rel: &str) -> Option<String> {
        self.load_recorded().files.get(rel).cloned()
    }

    /// The state of a variant file: verified (re-hashing it only if its stamp is missing or
    /// stale), missing, unverifiable or corrupt. Nothing is deleted here.
    pub fn status(&self, variant: &Variant, file: &str) -> Result<FileStatus, FetchError> {
        let expected = self.known_sha256(variant, file);
        self.status_rel(&variant.rel_path(file), expected.as_deref())
    }

    /// [`DataCache::status`] for any path relative to the root, against `expected`.
    pub fn status_rel(&self, rel: &str, expected: Option<&str>) -> Result<FileStatus, FetchError> {
        let path = self.path(rel);
        let meta = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => m,
            Ok(_) => return Ok(FileStatus::Missing),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileStatus::Missing),
            Err(source) => return Err(FetchError::io(path, source)),
        };
        let Some(expected) = expected else {
            return Ok(FileStatus::Unknown { path });
        };
        let size = meta.len();
        let mtime = mtime_ns(&meta);
        let mut stamps = self.load_stamps();
        if let (Some(stamp), Some(mtime)) = (stamps.files.get(rel), mtime)
            && stamp.size == size
            && stamp.mtime_ns == mtime
            && stamp.sha256 == expected
            && self.fresh(stamp.verified_ms)
        {
            return Ok(FileStatus::Verified { path, rehashed: false });
        }
        log::debug!("hashing {} (no valid or recent stamp)", path.display());
        let (actual, _) = sha256_file(&path)?;
        if actual == expected {
            // Re-read the metadata: the stamp describes what was hashed.
            if let Some(stamp) = stamp_of(&path, &actual) {
                stamps.files.insert(rel.to_owned(), stamp);
                if let Err(e) = self.save_stamps(&stamps) {
                    log::warn!("cannot update the stamp record: {e}");
                }
            }
            Ok(FileStatus::Verified { path, rehashed: true })
        } else {
            if stamps.files.remove(rel).is_some()
                && let Err(e) = self.save_stamps(&stamps)
            {
                log::warn!("cannot update the stamp record: {e}");
            }
            Ok(FileStatus::Mismatch { path, expected: expected.to_owned(), actual })
        }
    }

    /// Hashes every file of the cache against the hashes `manifests` publish (archives in
    /// `.downloads` included) or the local record, and reports each, sorted by path: ok,
    /// mismatch, unknown (no hash known), or missing (stamped or recorded, but gone).
    /// Stamps are renewed for good files and dropped for damaged or missing ones, so the
    /// next use of a damaged file hashes it and refuses it. Nothing else is changed.
    pub fn verify_all(&self, manifests: &[Manifest]) -> Result<Vec<Finding>, FetchError> {
        let recorded = self.load_recorded().files;
        let mut known = recorded.clone();
        for m in manifests {
            for a in &m.archives {
                if let Some(h) = &a.sha256 {
                    known.insert(format!("{DOWNLOADS_DIR}/{}", a.name), h.clone());
                }
            }
            for v in m.datasets.iter().flat_map(|d| &d.variants) {
                for (f, h) in &v.sha256 {
                    known.insert(v.rel_path(f), h.clone());
                }
            }
        }
        let mut present = Vec::new();
        self.walk(&self.root, &mut present)?;
        let mut stamps = self.load_stamps();
        let mut out = Vec::with_capacity(present.len());
        for rel in &present {
            let check = match known.get(rel) {
                None => Check::Unknown,
                Some(expected) => {
                    let path = self.path(rel);
                    log::debug!("hashing {}", path.display());
                    let (actual, _) = sha256_file(&path)?;
                    if &actual == expected {
                        match stamp_of(&path, &actual) {
                            Some(stamp) => stamps.files.insert(rel.clone(), stamp),
                            None => stamps.files.remove(rel),
                        };
                        Check::Ok
                    } else {
                        stamps.files.remove(rel);
                        Check::Mismatch { expected: expected.clone(), actual }
                    }
                }
            };
            out.push(Finding { rel: rel.clone(), check });
        }
        let gone: BTreeSet<String> = stamps
            .files
            .keys()
            .chain(recorded.keys())
            .filter(|rel| present.binary_search(rel).is_err())
            .cloned()
            .collect();
        for rel in gone {
            stamps.files.remove(&rel);
            out.push(Finding { rel, check: Check::Missing });
        }
        self.save_stamps(&stamps)?;
        out.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(out)
    }

    /// Every file under `dir` (relative to the root, `/`-separated, sorted), leaving out the
    /// cache's own records, staging folders and partial downloads. Links to files count as
    /// files; links to folders are not followed.
    fn walk(&self, dir: &Path, out: &mut Vec<String>) -> Result<(), FetchError> {
        let io = |source| FetchError::io(dir.to_owned(), source);
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && dir == self.root => return Ok(()),
            Err(e) => return Err(io(e)),
        };
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io)?;
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(&self.root) else { continue };
            let rel = rel.to_string_lossy().replace('\\', "/");
            let kind = entry.file_type().map_err(io)?;
            if kind.is_dir() {
                if rel != STAGING_DIR {
                    self.walk(&path, out)?;
                }
                continue;
            }
            let is_file = kind.is_file() || (kind.is_symlink() && path.is_file());
            let bookkeeping = rel == STAMPS_FILE
                || rel == RECORDED_FILE
                || (!rel.contains('/') && ltr_core::fs::is_temp_name(&rel))
                || (rel.starts_with(&format!("{DOWNLOADS_DIR}/")) && rel.ends_with(".part"));
            if is_file && !bookkeeping {
                found.push(rel);
            }
        }
        out.extend(found);
        out.sort();
        Ok(())
    }

    /// Deletes a cached file (relative to the root) and its stamp. A missing file is fine.
    pub fn remove(&self, rel: &str) -> Result<(), FetchError> {
        let path = self.path(rel);
        let mut stamps = self.load_stamps();
        if stamps.files.remove(rel).is_some() {
            self.save_stamps(&stamps)?;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(FetchError::io(path, source)),
        }
    }

    /// Moves a staged file (on the same file system, normally under [`Self::staging_dir`])
    /// into place as the variant file, after checking `actual` (its sha256) against the
    /// known hash. With no known hash, `actual` is recorded and the file is installed
    /// unverified (returns `false`); otherwise returns `true`. On a mismatch the staged
    /// file is deleted and [`DataError::Checksum`] names the file and both hashes.
    pub(crate) fn commit(
        &self,
        variant: &Variant,
        file: &str,
        staged: &Path,
        actual: &str,
    ) -> Result<bool, FetchError> {
        let rel = variant.rel_path(file);
        let expected = self.known_sha256(variant, file);
        let verified = match &expected {
            Some(e) if e != actual => {
                remove_quietly(staged);
                return Err(FetchError::Data(DataError::Checksum {
                    file: rel,
                    expected: e.clone(),
                    actual: actual.to_owned(),
                }));
            }
            Some(_) => true,
            None => false,
        };
        self.commit_rel(&rel, staged, actual)?;
        if !verified {
            log::warn!(
                "UNVERIFIED: {rel}: no published sha256 is known; recorded {actual} as its \
                 hash in {}",
                self.root.join(RECORDED_FILE).display()
            );
            let mut rec = self.load_recorded();
            rec.files.insert(rel, actual.to_owned());
            self.save_json(RECORDED_FILE, &rec)?;
        }
        Ok(verified)
    }

    /// Atomically moves `staged` to `rel` and stamps it with `sha256` (already checked).
    pub(crate) fn commit_rel(&self, rel: &str, staged: &Path, sha256: &str) -> Result<(), FetchError> {
        let dest = self.path(rel);
        if let Some(parent) = dest.parent() {
            create_dir_all(parent)?;
        }
        std::fs::rename(staged, &dest).map_err(|source| {
            remove_quietly(staged);
            FetchError::io(dest.clone(), source)
        })?;
        let mut stamps = self.load_stamps();
        match stamp_of(&dest, sha256) {
            Some(stamp) => {
                stamps.files.insert(rel.to_owned(), stamp);
            }
            None => {
                stamps.files.remove(rel);
            }
        }
        self.save_stamps(&stamps)
    }

    fn load_stamps(&self) -> Stamps {
        self.load_json(STAMPS_FILE)
    }

    fn save_stamps(&self, stamps: &Stamps) -> Result<(), FetchError> {
        self.save_json(STAMPS_FILE, stamps)
    }

    /// Records `sha256` as the known hash of a path relative to the root (a file or archive
    /// with no published hash, on its first use); it is verified against it from then on.
    pub(crate) fn record_sha256(&self, rel: &str, sha256: &str) -> Result<(), FetchError> {
        let mut rec = self.load_recorded();
        rec.files.insert(rel.to_owned(), sha256.to_owned());
        self.save_json(RECORDED_FILE, &rec)
    }

    fn load_recorded(&self) -> Recorded {
        self.load_json(RECORDED_FILE)
    }

    fn load_json<T: Default + serde::de::DeserializeOwned>(&self, name: &str) -> T {
        let path = self.root.join(name);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                log::warn!("{}: unreadable ({e}); starting afresh", path.display());
                T::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => T::default(),
            Err(e) => {
                log::warn!("{}: {e}", path.display());
                T::default()
            }
        }
    }

    fn save_json<T: Serialize>(&self, name: &str, value: &T) -> Result<(), FetchError> {
        let path = self.root.join(name);
        let io = |source| FetchError::io(path.clone(), source);
        create_dir_all(&self.root)?;
        let text = serde_json::to_vec_pretty(value).map_err(|e| io(std::io::Error::other(e.to_string())))?;
        ltr_core::fs::write_atomic(&path, &text).map_err(io)
    }
}

/// Whether process `pid` is known to have ended: `/proc` is there but `/proc/<pid>` is not.
/// Where `/proc` is missing nothing is known, and nothing is removed on that ground.
fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// A file name that is safe to use as is: not empty, no separator, no `..`, short.
fn safe_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 100
        && n != "."
        && n != ".."
        && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The modification time in nanoseconds since the epoch, if the platform has one.
fn mtime_ns(meta: &std::fs::Metadata) -> Option<u64> {
    let d = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    u64::try_from(d.as_nanos()).ok()
}

fn stamp_of(path: &Path, sha256: &str) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(Stamp {
        size: meta.len(),
        mtime_ns: mtime_ns(&meta)?,
        sha256: sha256.to_owned(),
        verified_ms: now_ms(),
    })
}

/// Milliseconds since the epoch (0 if the clock is before it).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The lowercase hex sha256 and the size of a file.
pub fn sha256_file(path: &Path) -> Result<(String, u64), FetchError> {
    let io = |source| FetchError::io(path.to_owned(), source);
    let mut f = File::open(path).map_err(io)?;
    sha256_reader(&mut f).map_err(io)
}

/// The lowercase hex sha256 and the length of everything a reader yields.
pub(crate) fn sha256_reader(r: &mut impl Read) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha256::new();
    match copy_bounded(r, &mut std::io::sink(), u64::MAX, |chunk| hasher.update(chunk)) {
        Ok(total) => Ok((hex(&hasher.finalize()), total)),
        Err(CopyError::Read(e) | CopyError::Write(e)) => Err(e),
        Err(CopyError::TooLarge) => Err(std::io::Error::other("more than 2^64 bytes")),
    }
}

pub(crate) fn create_dir_all(dir: &Path) -> Result<(), FetchError> {
    std::fs::create_dir_all(dir).map_err(|source| FetchError::io(dir.to_owned(), source))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn variant() -> Variant {
        let text = r#"
collection = "t"
title = "t"
homepage = "h"
citation = "c"
convention = "letor3"
[[archives]]
name = "a.zip"
urls = []
format = "zip"
[[datasets]]
name = "D"
features = 2
labels = [0, 1]
default_variant = "v"
[[datasets.variants]]
name = "v"
archive = "a.zip"
archive_root = "D"
path = "t/D"
folds = 1
train = "train.txt"
vali = "vali.txt"
test = "test.txt"
[datasets.variants.sha256]
"Fold1/train.txt" = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
"#;
        let m = ltr_data::Manifest::parse(text, Path::new("t.toml")).unwrap();
        m.datasets[0].variants[0].clone()
    }

    #[test]
    fn stamps_avoid_rehashing_and_detect_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DataCache::new(dir.path());
        let v = variant();
        assert_eq!(cache.status(&v, "Fold1/train.txt").unwrap(), FileStatus::Missing);
        let p = cache.path("t/D/Fold1/train.txt");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, b"hello").unwrap();
        assert!(matches!(
            cache.status(&v, "Fold1/train.txt").unwrap(),
            FileStatus::Verified { rehashed: true, .. }
        ));
        assert!(matches!(
            cache.status(&v, "Fold1/train.txt").unwrap(),
            FileStatus::Verified { rehashed: false, .. }
        ));
        assert_eq!(cache.verified_path(&v, "Fold1/train.txt"), Some(p.clone()));
        std::fs::write(&p, b"hellO").unwrap();
        let f = File::options().write(true).open(&p).unwrap();
        f.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(1_000_000)).unwrap();
        drop(f);
        assert!(matches!(cache.status(&v, "Fold1/train.txt").unwrap(), FileStatus::Mismatch { .. }));
        assert_eq!(cache.verified_path(&v, "Fold1/train.txt"), None);
        // No hash known at all: present but unverifiable.
        let q = cache.path("t/D/Fold1/test.txt");
        std::fs::write(&q, b"x").unwrap();
        assert!(matches!(cache.status(&v, "Fold1/test.txt").unwrap(), FileStatus::Unknown { .. }));
        assert_eq!(cache.known_sha256(&v, "Fold1/test.txt"), None);
    }

    #[test]
    fn commit_records_unknown_hashes_and_refuses_mismatches() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DataCache::new(dir.path());
        let v = variant();
        let staged = dir.path().join("staged");
        std::fs::write(&staged, b"data").unwrap();
        let (h, _) = sha256_file(&staged).unwrap();
        assert!(!cache.commit(&v, "Fold1/test.txt", &staged, &h).unwrap());
        assert_eq!(cache.known_sha256(&v, "Fold1/test.txt"), Some(h.clone()));
        assert!(cache.verified_path(&v, "Fold1/test.txt").is_some());

        std::fs::write(&staged, b"data").unwrap();
        let e = cache.commit(&v, "Fold1/train.txt", &staged, &h).unwrap_err();
        assert!(matches!(e, FetchError::Data(DataError::Checksum { .. })), "{e}");
        assert!(!staged.exists());
        assert!(!cache.path("t/D/Fold1/train.txt").exists());
    }
}
