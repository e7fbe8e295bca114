//! Getting verified files into the data cache: from a mirror (a folder or an HTTP(S) address
//! laid out like `../shared/datasets`), or from the official archives.
//!
//! ```no_run
//! use std::sync::Arc;
//! use ltr_data::Manifest;
//! use ltr_data::fetch::{FetchOptions, Fetcher, NoProgress};
//!
//! let manifest = Manifest::builtin("letor3")?;
//! let fetcher = Fetcher::new(FetchOptions::from_env(), Arc::new(NoProgress));
//! for (name, result) in fetcher.fetch_all(&manifest, &["OHSUMED".to_string()]) {
//!     match result {
//!         Ok(report) => println!("{name}: {} installed", report.installed.len()),
//!         Err(e) => eprintln!("{name}: {e}"),
//!     }
//! }
//! # Ok::<(), ltr_data::DataError>(())
//! ```
//!
//! For every file of every variant of a dataset ([`Variant::files`]):
//!
//! 1. **Cache.** A file whose stamp (size, mtime, sha256 in `stamps.json`) matches and whose
//!    hash is the known one (manifest, else recorded locally) is used as is: no network, no
//!    hashing. A file without a valid stamp is hashed once; a corrupt one is deleted and
//!    fetched again.
//! 2. **Mirror** (`--mirror` / `LTR_MIRROR`). `<mirror>/<variant.path>/<file>.gz` is preferred,
//!    then the plain `<file>`. The file is decompressed into `<cache>/.staging`, hashed on the
//!    way, checked and atomically renamed into place. A file the mirror does not have (or a
//!    mirror that cannot be reached) falls back to the official archive; a file the mirror
//!    has with the wrong content is refused ([`DataError::Checksum`]), without fallback.
//! 3. **Official archive.** The variant's archive is downloaded (its `urls` in order) to
//!    `<cache>/.downloads/<name>` through a resumable `<name>.part` (HTTP `Range`; a server
//!    that answers 200 instead of 206 restarts it from zero), with bounded retries and
//!    exponential backoff, checked against the archive hash when known, extracted into a
//!    temporary folder of `<cache>/.staging`, and each wanted file is located in the tree
//!    (`archive_root/<file>`, else the unique entry ending with the longest possible tail of
//!    those path components, else the same ignoring ASCII case), hashed, checked and renamed
//!    into place. The archive is kept in `.downloads` (an archive serves several datasets)
//!    and is downloaded and extracted at most once per [`Fetcher::fetch_all`] call.
//!
//! Files with no published hash are installed with an `UNVERIFIED` warning and their hash is
//! recorded in `recorded-sha256.json`; from then on they are verified against it.
//!
//! Failures are per dataset: [`Fetcher::fetch_all`] reports each dataset's result and goes
//! on with the others. Within a dataset, all files that can be installed are installed, and
//! the first error is returned (the others are logged).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use flate2::read::MultiGzDecoder;
use sha2::{Digest, Sha256};

use crate::cache::{
    DOWNLOADS_DIR, DataCache, FileStatus, create_dir_all, default_data_dir, remove_quietly, sha256_file,
};
use crate::error::DataError;
use crate::extract::{extract, safe_relative};
use crate::manifest::{Archive, Manifest, Variant};
use crate::reader::hex;

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

/// Where to get files before trying the official addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mirror {
    /// A local folder laid out like a collection root (`letor3/OHSUMED/...`, files `.gz` or
    /// plain).
    Dir(PathBuf),
    /// An `http://` or `https://` base address with the same layout (no trailing `/`).
    Url(String),
}

impl FromStr for Mirror {
    type Err = DataError;

    /// `http://...` or `https://...` (any case) is a [`Mirror::Url`]; anything else
    /// non-empty is a [`Mirror::Dir`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.is_empty() {
            return Err(DataError::Mirror {
                mirror: s.to_owned(),
                reason: "empty; give a folder or an http(s):// address".into(),
            });
        }
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            Ok(Self::Url(s.trim_end_matches('/').to_owned()))
        } else {
            Ok(Self::Dir(PathBuf::from(s)))
        }
    }
}

impl std::fmt::Display for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Dir(d) => write!(f, "{}", d.display()),
            Self::Url(u) => f.write_str(u),
        }
    }
}

/// How a [`Fetcher`] works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// The cache root (`LTR_DATA_DIR`).
    pub data_dir: PathBuf,
    /// A mirror tried before the official addresses (`LTR_MIRROR`, `--mirror`).
    pub mirror: Option<Mirror>,
    /// Retries of a download after a failure that made no progress (per address).
    pub retries: u32,
    /// Wait before the first retry; doubled at each further retry (capped at 5 minutes).
    pub backoff: Duration,
    /// Network stall limit: resolving, connecting, waiting for a response, each read.
    /// Zero means none.
    pub timeout: Duration,
}

impl FetchOptions {
    /// Defaults for a cache at `data_dir`: no mirror, 4 retries, 1 s backoff, 60 s timeout.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            mirror: None,
            retries: 4,
            backoff: Duration::from_secs(1),
            timeout: Duration::from_secs(60),
        }
    }

    /// The defaults with the cache at [`default_data_dir`] (`LTR_DATA_DIR`, else the per-user
    /// cache folder) and the mirror from `LTR_MIRROR` (unset or empty: none).
    pub fn from_env() -> Self {
        let mirror = std::env::var("LTR_MIRROR").ok().filter(|m| !m.trim().is_empty()).and_then(|m| {
            match m.parse::<Mirror>() {
                Ok(m) => Some(m),
                Err(e) => {
                    log::warn!("LTR_MIRROR ignored: {e}");
                    None
                }
            }
        });
        Self { mirror, ..Self::new(default_data_dir()) }
    }
}

/// What [`Fetcher::fetch_dataset`] did. File names are paths relative to the collection
/// root (`letor3/OHSUMED/QueryLevelNorm/Fold1/train.txt`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchReport {
    /// The dataset, as the manifest spells it.
    pub dataset: String,
    /// Files installed by this call.
    pub installed: Vec<String>,
    /// Files that were already present and verified.
    pub already_present: Vec<String>,
    /// Files (installed or present) that have no published hash: checked only against the
    /// hash recorded locally on first success.
    pub unverified: Vec<String>,
    /// Files already in the cache that had to be read and hashed (no stamp, or size/mtime
    /// changed). Empty when every cached file was unchanged.
    pub rehashed: Vec<String>,
    /// Where the installed files came from (`cache` when nothing was installed; the mirror;
    /// the address of the archive), comma-separated.
    pub source: String,
}

/// Fetches datasets into a [`DataCache`]. Cheap to share (`&self` everywhere).
pub struct Fetcher {
    opts: FetchOptions,
    cache: DataCache,
    agent: ureq::Agent,
    progress: Arc<dyn Progress>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("opts", &self.opts).finish_non_exhaustive()
    }
}

/// Archives downloaded and extracted during one `fetch_*` call, by archive name; failures are
/// remembered so an archive serving several datasets is tried once.
#[derive(Default)]
struct Session {
    archives: HashMap<String, Result<Extracted, String>>,
    /// The URL mirror failed (beyond a 404): skip it for the rest of the call.
    mirror_down: bool,
}

struct Extracted {
    /// The extraction folder (deleted on drop).
    dir: tempfile::TempDir,
    /// Extracted regular files, relative to `dir`.
    files: Vec<PathBuf>,
    /// The address it came from (or the download cache).
    source: String,
    /// The downloaded archive, relative to the cache root.
    download_rel: String,
}

/// Why one download attempt (or all attempts on an address) failed.
#[derive(Debug)]
enum DlError {
    /// 404 / 410: the address does not have it.
    NotFound(String),
    /// Retrying cannot help (other 4xx, a malformed address).
    Permanent(String),
    /// Worth retrying (network errors, 5xx, 408, 429, interrupted transfer).
    Transient(String),
}

impl DlError {
    fn reason(&self) -> &str {
        match self {
            Self::NotFound(r) | Self::Permanent(r) | Self::Transient(r) => r,
        }
    }
}

const MAX_BACKOFF: Duration = Duration::from_secs(300);
const STALE_STAGING: Duration = Duration::from_secs(24 * 3600);

impl Fetcher {
    /// A fetcher with its own HTTP agent (timeouts from `opts`; non-2xx statuses are
    /// handled as data; no transparent compression is requested, so byte ranges are those
    /// of the file).
    pub fn new(opts: FetchOptions, progress: Arc<dyn Progress>) -> Self {
        let t = (!opts.timeout.is_zero()).then_some(opts.timeout);
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .accept_encoding("")
            .user_agent(concat!("ltr/", env!("CARGO_PKG_VERSION")))
            .timeout_resolve(t)
            .timeout_connect(t)
            .timeout_send_request(t)
            .timeout_recv_response(t)
            .timeout_per_read(t)
            .build();
        Self {
            cache: DataCache::new(opts.data_dir.clone()),
            agent: ureq::Agent::new_with_config(config),
            opts,
            progress,
        }
    }

    /// The options.
    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// The cache it fills.
    pub fn cache(&self) -> &DataCache {
        &self.cache
    }

    /// Makes every file of every variant of `dataset` present and verified in the cache.
    /// Files already verified cost no network and no re-hash (see [`FetchReport::rehashed`]).
    pub fn fetch_dataset(&self, manifest: &Manifest, dataset: &str) -> Result<FetchReport, DataError> {
        self.sweep_staging();
        let mut session = Session::default();
        self.fetch_in(manifest, dataset, &mut session)
    }

    /// [`Fetcher::fetch_dataset`] for several datasets, in order; each is independent (a
    /// failure is reported in its slot and the others go on). An archive serving several of
    /// them is downloaded and extracted once.
    pub fn fetch_all(
        &self,
        manifest: &Manifest,
        datasets: &[String],
    ) -> Vec<(String, Result<FetchReport, DataError>)> {
        self.sweep_staging();
        let mut session = Session::default();
        datasets
            .iter()
            .map(|name| {
                let r = self.fetch_in(manifest, name, &mut session);
                if let Err(e) = &r {
                    log::warn!("skipping {name}: {}", e.reason());
                }
                (name.clone(), r)
            })
            .collect()
    }

    fn fetch_in(
        &self,
        manifest: &Manifest,
        dataset: &str,
        session: &mut Session,
    ) -> Result<FetchReport, DataError> {
        let ds = manifest.dataset(dataset)?;
        let mut report = FetchReport { dataset: ds.name.clone(), ..FetchReport::default() };
        let mut needed: Vec<(&Variant, String)> = Vec::new();
        for v in &ds.variants {
            for f in v.files() {
                let rel = v.rel_path(&f);
                if !matches!(safe_relative(&rel), Ok(Some(_))) {
                    return Err(DataError::Unavailable {
                        dataset: ds.name.clone(),
                        reason: format!("manifest path `{rel}` would leave the data folder"),
                    });
                }
                let published = v.sha256_of(&f).is_some();
                match self.cache.status(v, &f)? {
                    FileStatus::Verified { rehashed, .. } => {
                        if rehashed {
                            report.rehashed.push(rel.clone());
                        }
                        if !published {
                            report.unverified.push(rel.clone());
                        }
                        report.already_present.push(rel);
                    }
                    FileStatus::Missing => needed.push((v, f)),
                    FileStatus::Unknown { .. } => {
                        log::info!("{rel}: present but no hash is known for it; fetching it");
                        needed.push((v, f));
                    }
                    FileStatus::Mismatch { expected, actual, .. } => {
                        log::warn!(
                            "{rel}: the cached copy is damaged (sha256 expected {expected}, got \
                             {actual}); deleting it and fetching it again"
                        );
                        self.cache.remove(&rel)?;
                        report.rehashed.push(rel);
                        needed.push((v, f));
                    }
                }
            }
        }
        if needed.is_empty() {
            report.source = "cache".into();
            return Ok(report);
        }

        let mut errors: Vec<DataError> = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let mut official: Vec<(&Variant, String)> = Vec::new();
        match &self.opts.mirror {
            Some(Mirror::Dir(d)) if !d.is_dir() => {
                return Err(DataError::Mirror {
                    mirror: d.display().to_string(),
                    reason: "not a folder".into(),
                });
            }
            Some(mirror) => {
                for (v, f) in needed {
                    let rel = v.rel_path(&f);
                    if session.mirror_down {
                        official.push((v, f));
                        continue;
                    }
                    match self.fetch_from_mirror(mirror, v, &f) {
                        Ok(Some(verified)) => {
                            note(&mut sources, format!("mirror {mirror}"));
                            if !verified {
                                report.unverified.push(rel.clone());
                            }
                            report.installed.push(rel);
                        }
                        Ok(None) => {
                            log::info!("{rel}: not on the mirror; using the official archive");
                            official.push((v, f));
                        }
                        Err(e @ DataError::Checksum { .. }) => errors.push(e),
                        Err(e) => {
                            if matches!(e, DataError::Download { .. }) {
                                // Unreachable: do not pay the retries again for every file.
                                session.mirror_down = true;
                                log::warn!(
                                    "mirror {mirror}: {e}; not using it any more in this run, \
                                     trying the official archives"
                                );
                            } else {
                                log::warn!("mirror {mirror}: {e}; trying the official archive");
                            }
                            official.push((v, f));
                        }
                    }
                }
            }
            None => official = needed,
        }

        // Official archives, grouped (in order of first use).
        let mut groups: Vec<(&str, Vec<(&Variant, String)>)> = Vec::new();
        for (v, f) in official {
            match groups.iter_mut().find(|(a, _)| *a == v.archive) {
                Some((_, files)) => files.push((v, f)),
                None => groups.push((&v.archive, vec![(v, f)])),
            }
        }
        for (archive_name, files) in groups {
            let archive = match manifest.archive(archive_name) {
                Ok(a) => a,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            match self.extracted(archive, &ds.name, session) {
                Ok(ex) => {
                    note(&mut sources, ex.source.clone());
                    self.install_from(archive, ex, &files, &mut report, &mut errors);
                }
                Err(e) => errors.push(e),
            }
        }

        report.source = sources.join(", ");
        let mut errors = errors.into_iter();
        match errors.next() {
            None => Ok(report),
            Some(first) => {
                for e in errors {
                    log::warn!("{}: {e}", ds.name);
                }
                if !report.installed.is_empty() {
                    log::info!("{}: {} file(s) installed despite the error", ds.name, report.installed.len());
                }
                Err(first)
            }
        }
    }

    /// Locates, checks and installs files from an extracted archive.
    fn install_from(
        &self,
        archive: &Archive,
        ex: &Extracted,
        files: &[(&Variant, String)],
        report: &mut FetchReport,
        errors: &mut Vec<DataError>,
    ) {
        let mut archive_suspect = false;
        for (v, f) in files {
            let rel = v.rel_path(f);
            let found = match locate(&ex.files, &v.archive_root, f) {
                Ok(i) => ex.dir.path().join(&ex.files[i]),
                Err(why) => {
                    errors.push(DataError::Archive {
                        path: self.cache.path(&ex.download_rel),
                        reason: format!("{}/{f} (for {rel}): {why}", v.archive_root),
                    });
                    continue;
                }
            };
            let result = sha256_file(&found).and_then(|(actual, _)| self.cache.commit(v, f, &found, &actual));
            match result {
                Ok(verified) => {
                    if !verified {
                        report.unverified.push(rel.clone());
                    }
                    report.installed.push(rel);
                }
                Err(e) => {
                    if matches!(e, DataError::Checksum { .. }) {
                        archive_suspect = true;
                    }
                    errors.push(e);
                }
            }
        }
        if archive_suspect && archive.sha256.is_none() {
            log::warn!(
                "{}: it yielded a damaged file and has no published hash; deleting it so the \
                 next attempt downloads it again",
                archive.name
            );
            if let Err(e) = self.cache.remove(&ex.download_rel) {
                log::warn!("{e}");
            }
        }
    }

    /// The extracted archive, downloading and extracting it unless this session did already.
    fn extracted<'s>(
        &self,
        archive: &Archive,
        dataset: &str,
        session: &'s mut Session,
    ) -> Result<&'s Extracted, DataError> {
        if !session.archives.contains_key(&archive.name) {
            match self.download_and_extract(archive, dataset) {
                Ok(ex) => {
                    session.archives.insert(archive.name.clone(), Ok(ex));
                }
                Err(e) => {
                    session.archives.insert(archive.name.clone(), Err(e.to_string()));
                    return Err(e);
                }
            }
        }
        match session.archives.get(&archive.name) {
            Some(Ok(ex)) => Ok(ex),
            Some(Err(why)) => Err(DataError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive {} failed earlier in this run: {why}", archive.name),
            }),
            None => Err(DataError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive {} could not be prepared", archive.name),
            }),
        }
    }

    fn download_and_extract(&self, archive: &Archive, dataset: &str) -> Result<Extracted, DataError> {
        let single = safe_relative(&archive.name).ok().flatten().filter(|p| p.components().count() == 1);
        if single.is_none() {
            return Err(DataError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive name `{}` is not a plain file name", archive.name),
            });
        }
        let rel = format!("{DOWNLOADS_DIR}/{}", archive.name);
        let dest = self.cache.path(&rel);
        let mut have = false;
        if dest.is_file() {
            match &archive.sha256 {
                Some(h) => match self.cache.status_rel(&rel, Some(h))? {
                    FileStatus::Verified { .. } => have = true,
                    FileStatus::Mismatch { actual, .. } => {
                        log::warn!(
                            "{}: the downloaded archive is damaged (sha256 {actual}, expected \
                             {h}); downloading it again",
                            dest.display()
                        );
                        self.cache.remove(&rel)?;
                    }
                    FileStatus::Missing | FileStatus::Unknown { .. } => {}
                },
                // Complete (only finished downloads are renamed from `.part`); its files
                // are checked one by one.
                None => have = true,
            }
        }
        let source = if have {
            log::info!("using the earlier download {}", dest.display());
            dest.display().to_string()
        } else {
            if archive.urls.is_empty() {
                return Err(DataError::Unavailable {
                    dataset: dataset.to_owned(),
                    reason: format!(
                        "archive {} has no download address and no mirror has the files",
                        archive.name
                    ),
                });
            }
            let url = self.download(&archive.urls, &rel, &archive.name, archive.sha256.as_deref())?;
            if archive.sha256.is_none() {
                log::warn!(
                    "{}: no published sha256 for the archive itself; its files are checked \
                     one by one",
                    archive.name
                );
            }
            url
        };
        let dir = self.staging_dir()?;
        match extract(&dest, archive.format, dir.path(), &*self.progress) {
            Ok(files) => Ok(Extracted { dir, files, source, download_rel: rel }),
            Err(e) => {
                if archive.sha256.is_none() {
                    log::warn!(
                        "{}: cannot be extracted; deleting it so the next attempt downloads \
                         it again",
                        dest.display()
                    );
                    if let Err(e) = self.cache.remove(&rel) {
                        log::warn!("{e}");
                    }
                }
                Err(e)
            }
        }
    }

    /// A fresh temporary folder in `<cache>/.staging` (same file system as the cache, so
    /// installing is an atomic rename).
    fn staging_dir(&self) -> Result<tempfile::TempDir, DataError> {
        let parent = self.cache.staging_dir();
        create_dir_all(&parent)?;
        tempfile::Builder::new()
            .prefix("fetch-")
            .tempdir_in(&parent)
            .map_err(|source| DataError::Io { path: parent, source })
    }

    /// Deletes staging folders left by runs that were killed (older than a day).
    fn sweep_staging(&self) {
        let Ok(entries) = std::fs::read_dir(self.cache.staging_dir()) else { return };
        for e in entries.flatten() {
            let stale = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_STAGING);
            if stale && e.file_name().to_string_lossy().starts_with("fetch-") {
                log::debug!("removing the stale staging folder {}", e.path().display());
                if let Err(err) = std::fs::remove_dir_all(e.path()) {
                    log::warn!("cannot remove {}: {err}", e.path().display());
                }
            }
        }
    }

    /// Gets one file from the mirror into the cache. `Ok(None)`: the mirror does not have
    /// it. `Ok(Some(verified))`: installed (`false`: no published hash, recorded now).
    fn fetch_from_mirror(
        &self,
        mirror: &Mirror,
        variant: &Variant,
        file: &str,
    ) -> Result<Option<bool>, DataError> {
        let rel = variant.rel_path(file);
        let staging = self.staging_dir()?;
        let staged = staging.path().join("file");
        let actual = match mirror {
            Mirror::Dir(d) => {
                let gz = d.join(format!("{rel}.gz"));
                let plain = d.join(&rel);
                let (src, is_gz) = if gz.is_file() {
                    (gz, true)
                } else if plain.is_file() {
                    (plain, false)
                } else {
                    return Ok(None);
                };
                let io = |source| DataError::Io { path: src.clone(), source };
                let f = File::open(&src).map_err(io)?;
                let size = f.metadata().map(|m| m.len()).ok();
                self.progress.begin(&rel, size);
                let counted = Counting { inner: BufReader::new(f), progress: &*self.progress };
                let r = if is_gz {
                    copy_hashing(MultiGzDecoder::new(counted), &src, &staged)
                } else {
                    copy_hashing(counted, &src, &staged)
                };
                self.progress.end();
                r?
            }
            Mirror::Url(base) => {
                let dl = staging.path().join("download");
                let mut got = None;
                for (suffix, is_gz) in [(".gz", true), ("", false)] {
                    let url = format!("{base}/{rel}{suffix}");
                    match self.download_url(&url, &dl, &rel) {
                        Ok(()) => {
                            got = Some(is_gz);
                            break;
                        }
                        Err(DlError::NotFound(_)) => remove_quietly(&dl),
                        Err(e) => {
                            return Err(DataError::Download { url, reason: e.reason().to_owned() });
                        }
                    }
                }
                let Some(is_gz) = got else { return Ok(None) };
                let f = File::open(&dl).map_err(|source| DataError::Io { path: dl.clone(), source })?;
                if is_gz {
                    copy_hashing(MultiGzDecoder::new(BufReader::new(f)), &dl, &staged)?
                } else {
                    copy_hashing(BufReader::new(f), &dl, &staged)?
                }
            }
        };
        self.cache.commit(variant, file, &staged, &actual).map(Some)
    }

    /// Downloads `urls` (in order) into the cache file `rel`, through `rel.part`, checking the
    /// result against `expected`. Returns the address that served it.
    fn download(
        &self,
        urls: &[String],
        rel: &str,
        label: &str,
        expected: Option<&str>,
    ) -> Result<String, DataError> {
        let dest = self.cache.path(rel);
        let part = self.cache.path(&format!("{rel}.part"));
        if let Some(parent) = dest.parent() {
            create_dir_all(parent)?;
        }
        let mut failures: Vec<String> = Vec::new();
        let mut mismatch: Option<DataError> = None;
        for url in urls {
            log::info!("downloading {label} from {url}");
            if let Err(e) = self.download_url(url, &part, label) {
                log::warn!("{url}: {}", e.reason());
                failures.push(format!("{url}: {}", e.reason()));
                continue;
            }
            let (actual, _) = sha256_file(&part)?;
            if let Some(expected) = expected
                && expected != actual
            {
                remove_quietly(&part);
                log::warn!("{url}: sha256 of {label} is {actual}, expected {expected}");
                failures.push(format!("{url}: sha256 mismatch"));
                mismatch = Some(DataError::Checksum {
                    file: label.to_owned(),
                    expected: expected.to_owned(),
                    actual,
                });
                continue;
            }
            self.cache.commit_rel(rel, &part, &actual)?;
            return Ok(url.clone());
        }
        if let Some(e) = mismatch {
            return Err(e);
        }
        Err(DataError::Download {
            url: match urls {
                [one] => one.clone(),
                _ => format!("{label} (every address)"),
            },
            reason: match urls {
                [_] => failures
                    .iter()
                    .map(|f| f.split_once(": ").map_or(f.as_str(), |(_, r)| r))
                    .collect::<Vec<_>>()
                    .join("; "),
                _ => failures.join("; "),
            },
        })
    }

    /// Downloads one address into `part`, resuming what is there, retrying transient
    /// failures: at most `retries` retries in a row without progress, waiting `backoff`,
    /// then twice as long each time.
    fn download_url(&self, url: &str, part: &Path, label: &str) -> Result<(), DlError> {
        let mut stalled = 0u32;
        let mut delay = self.opts.backoff;
        // Also bounds servers that trickle a few bytes per connection forever.
        let mut attempts_left = 1000u32.saturating_add(self.opts.retries);
        loop {
            let before = file_len(part);
            let err = match self.attempt(url, part, label) {
                Ok(()) => return Ok(()),
                Err(DlError::Transient(why)) => why,
                Err(e) => return Err(e),
            };
            attempts_left = attempts_left.saturating_sub(1);
            if file_len(part) > before {
                stalled = 0;
                delay = self.opts.backoff;
            } else {
                stalled += 1;
            }
            if stalled > self.opts.retries || attempts_left == 0 {
                return Err(DlError::Transient(format!(
                    "{err} (gave up after {} retries)",
                    self.opts.retries
                )));
            }
            log::warn!("{url}: {err}; retrying in {delay:?}");
            std::thread::sleep(delay);
            delay = delay.saturating_mul(2).min(MAX_BACKOFF);
        }
    }

    /// One request: resumes from the size of `part` with a `Range` header.
    fn attempt(&self, url: &str, part: &Path, label: &str) -> Result<(), DlError> {
        let offset = file_len(part);
        let mut req = self.agent.get(url);
        if offset > 0 {
            req = req.header("Range", format!("bytes={offset}-"));
        }
        let mut resp = req.call().map_err(|e| match e {
            ureq::Error::BadUri(_) | ureq::Error::HostNotFound => DlError::Permanent(e.to_string()),
            other => DlError::Transient(other.to_string()),
        })?;
        let status = resp.status().as_u16();
        let content_range =
            resp.headers().get("content-range").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let start = match status {
            200 => {
                if offset > 0 {
                    log::info!("{url}: the server does not resume (HTTP 200); restarting from zero");
                }
                0
            }
            206 => match content_range.as_deref().and_then(range_start) {
                Some(s) if s == offset => offset,
                other => {
                    remove_quietly(part);
                    return Err(DlError::Transient(format!(
                        "unexpected Content-Range {other:?} for a resume at byte {offset}; \
                         restarting from zero"
                    )));
                }
            },
            416 if offset > 0 => {
                if content_range.as_deref().and_then(range_total) == Some(offset) {
                    return Ok(());
                }
                remove_quietly(part);
                return Err(DlError::Transient(
                    "the server refused to resume (HTTP 416); restarting from zero".into(),
                ));
            }
            404 | 410 => return Err(DlError::NotFound(format!("HTTP {status} (not found)"))),
            408 | 429 | 500..=599 => return Err(DlError::Transient(format!("HTTP {status}"))),
            _ => return Err(DlError::Permanent(format!("HTTP {status}"))),
        };
        let io =
            |what: &str, e: std::io::Error| DlError::Permanent(format!("{what} {}: {e}", part.display()));
        let file = if start == 0 { File::create(part) } else { File::options().append(true).open(part) }
            .map_err(|e| io("cannot write", e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let total = resp.body().content_length().map(|n| n.saturating_add(start));
        self.progress.begin(label, total);
        self.progress.advance(start);
        let mut reader = resp.body_mut().as_reader();
        let mut buf = vec![0u8; 1 << 16];
        let mut received = 0u64;
        let result = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if let Err(e) = out.write_all(&buf[..n]) {
                        break Err(io("cannot write", e));
                    }
                    received += n as u64;
                    self.progress.advance(n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    break Err(DlError::Transient(format!(
                        "transfer interrupted after {} bytes: {e}",
                        start.saturating_add(received)
                    )));
                }
            }
        };
        self.progress.end();
        // Keep what arrived, even on failure: the next attempt resumes after it.
        let flushed = out.into_inner().map_err(|e| e.into_error()).and_then(|f| f.sync_all());
        result?;
        flushed.map_err(|e| io("cannot write", e))?;
        if let (Some(total), Some(expected)) =
            (file_len_opt(part), content_range.as_deref().and_then(range_total))
            && status == 206
            && total != expected
        {
            return Err(DlError::Transient(format!("received {total} bytes of {expected}")));
        }
        Ok(())
    }
}

fn note(sources: &mut Vec<String>, s: String) {
    if !sources.contains(&s) {
        sources.push(s);
    }
}

fn file_len(path: &Path) -> u64 {
    file_len_opt(path).unwrap_or(0)
}

fn file_len_opt(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// `bytes N-M/T` → N.
fn range_start(v: &str) -> Option<u64> {
    let spec = v.trim().strip_prefix("bytes")?.trim_start();
    spec.split_once('-')?.0.trim().parse().ok()
}

/// `bytes N-M/T` or `bytes */T` → T.
fn range_total(v: &str) -> Option<u64> {
    v.rsplit_once('/')?.1.trim().parse().ok()
}

/// Copies `reader` into a new file `dest`, returning the sha256 of what was copied. Read
/// errors name `src`, write errors `dest`.
fn copy_hashing(mut reader: impl Read, src: &Path, dest: &Path) -> Result<String, DataError> {
    let mut out =
        BufWriter::new(File::create(dest).map_err(|source| DataError::Io { path: dest.to_owned(), source })?);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(DataError::Io { path: src.to_owned(), source });
            }
        };
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(|source| DataError::Io { path: dest.to_owned(), source })?;
    }
    out.flush().map_err(|source| DataError::Io { path: dest.to_owned(), source })?;
    Ok(hex(&hasher.finalize()))
}

/// A reader that reports the bytes it yields.
struct Counting<'a, R> {
    inner: R,
    progress: &'a dyn Progress,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

fn components(p: &str) -> Vec<&str> {
    p.split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".").collect()
}

/// Finds `root/file` among extracted files: the exact path; else the unique file whose path
/// ends with the longest tail of those components that matches anything (at least all of
/// `file`'s components); else the same ignoring ASCII case.
fn locate(files: &[PathBuf], root: &str, file: &str) -> Result<usize, String> {
    let want: Vec<&str> = components(root).into_iter().chain(components(file)).collect();
    let min = components(file).len().max(1);
    let have: Vec<Vec<String>> = files
        .iter()
        .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
        .collect();
    if let Some(i) = have.iter().position(|h| h.iter().eq(want.iter())) {
        return Ok(i);
    }
    for ignore_case in [false, true] {
        let same = |a: &str, b: &str| {
            if ignore_case { a.eq_ignore_ascii_case(b) } else { a == b }
        };
        for k in (min..=want.len()).rev() {
            let tail = &want[want.len() - k..];
            let hits: Vec<usize> = have
                .iter()
                .enumerate()
                .filter(|(_, h)| h.len() >= k && h[h.len() - k..].iter().zip(tail).all(|(a, b)| same(a, b)))
                .map(|(i, _)| i)
                .collect();
            match hits.as_slice() {
                [] => {}
                [one] => return Ok(*one),
                many => {
                    let shown: Vec<String> =
                        many.iter().take(3).map(|&i| files[i].display().to_string()).collect();
                    return Err(format!(
                        "ambiguous: {} entries end with `{}` ({}{})",
                        many.len(),
                        tail.join("/"),
                        shown.join(", "),
                        if many.len() > 3 { ", ..." } else { "" }
                    ));
                }
            }
        }
    }
    Err("not in the archive".into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn mirror_parses() {
        assert_eq!("https://x.org/d/".parse::<Mirror>().unwrap(), Mirror::Url("https://x.org/d".into()));
        assert_eq!("HTTP://x".parse::<Mirror>().unwrap(), Mirror::Url("HTTP://x".into()));
        assert_eq!("../shared/datasets".parse::<Mirror>().unwrap(), Mirror::Dir("../shared/datasets".into()));
        assert!(" ".parse::<Mirror>().is_err());
    }

    #[test]
    fn content_range_parses() {
        assert_eq!(range_start("bytes 100-199/200"), Some(100));
        assert_eq!(range_total("bytes 100-199/200"), Some(200));
        assert_eq!(range_total("bytes */200"), Some(200));
        assert_eq!(range_total("bytes 0-1/*"), None);
        assert_eq!(range_start("items 1-2/3"), None);
    }

    #[test]
    fn locate_prefers_exact_then_unique_tail() {
        let files: Vec<PathBuf> = [
            "Gov/QueryLevelNorm/2003_td_dataset/Fold1/train.txt",
            "Gov/QueryLevelNorm/2004_td_dataset/Fold1/train.txt",
            "LETOR/OHSUMED/QueryLevelNorm/Fold1/train.txt",
            "x/ohsumed/feature-min/fold1/TrainingSet.txt",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(locate(&files, "Gov/QueryLevelNorm/2003_td_dataset", "Fold1/train.txt"), Ok(0));
        assert_eq!(locate(&files, "Other/2004_td_dataset", "Fold1/train.txt"), Ok(1));
        assert_eq!(locate(&files, "OHSUMED/QueryLevelNorm", "Fold1/train.txt"), Ok(2));
        assert_eq!(locate(&files, "OHSUMED/Feature-min", "Fold1/trainingset.txt"), Ok(3));
        let e = locate(&files, "Gov/Feature-min/2003", "Fold1/train.txt").unwrap_err();
        assert!(e.contains("ambiguous"), "{e}");
        assert!(locate(&files, "A", "Fold2/train.txt").is_err());
    }
}
