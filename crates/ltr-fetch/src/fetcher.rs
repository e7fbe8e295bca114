//! The plan: for every wanted file of a dataset, the first source that has it.
//!
//! ```no_run
//! use std::sync::Arc;
//! use ltr_data::Manifest;
//! use ltr_fetch::{FetchOptions, Fetcher, NoProgress, Variants};
//!
//! let manifest = Manifest::builtin("letor3")?;
//! let fetcher = Fetcher::new(FetchOptions::new("/tmp/ltr-data"), Arc::new(NoProgress));
//! for (name, result) in fetcher.fetch_all(&manifest, &["OHSUMED".to_string()], Variants::Default) {
//!     match result {
//!         Ok(report) => println!("{name}: {} installed", report.installed.len()),
//!         Err(e) => eprintln!("{name}: {e}"),
//!     }
//! }
//! # Ok::<(), ltr_fetch::FetchError>(())
//! ```
//!
//! For every file of the wanted variants ([`Variants`], [`Variant::files`]):
//!
//! 1. **Cache.** A file whose stamp (size, mtime, sha256 in `stamps.json`) matches, whose
//!    hash is the known one (manifest, else recorded locally) and which was last hashed less
//!    than [`FetchOptions::rehash_after`] ago is used as is: no network, no hashing. Any
//!    other file is hashed once; a corrupt one is deleted and fetched again.
//! 2. **Mirror** ([`FetchOptions::mirror`]): `<mirror>/<rel>.gz`, else `<rel>`. A file the mirror does not
//!    have (or a mirror that cannot be reached) goes on to the next source; a file the mirror
//!    has with the wrong content is refused ([`FetchError::Checksum`]), and so is one larger
//!    than its bound or a damaged `.gz` ([`FetchError::Refused`]), without fallback.
//! 3. **Embedded data** (OHSUMED QueryLevelNorm, MQ2008), see [`crate::embedded`]: rebuilt
//!    from the pieces compiled into `ltr`, verified, installed.
//! 4. **Official archive**: downloaded once per call (resumable, with retries of stalled
//!    transfers, none for an unreachable host; never past its size, else the collection's
//!    `max_download_bytes`), checked, extracted, each file checked.
//!
//! Files with no published hash are installed with an `UNVERIFIED` warning and their hash is
//! recorded in `recorded-sha256.json`; from then on they are verified against it.
//!
//! Failures are per dataset: [`Fetcher::fetch_all`] reports each dataset's result and goes
//! on with the others. Within a dataset, all files that can be installed are installed, and
//! the first error is returned (the others are logged).

use std::collections::HashMap;
use std::sync::Arc;

use ltr_data::manifest::{Manifest, Variant};

use crate::archive::Extracted;
use crate::cache::{DataCache, FileStatus};
use crate::error::FetchError;
use crate::extract::safe_relative;
use crate::http::{Http, Limit};
use crate::options::{FetchOptions, Mirror};
use crate::progress::Progress;

/// The bound of a download whose size is not published, when its manifest sets none
/// (`max_download_bytes`).
pub const DEFAULT_MAX_DOWNLOAD_BYTES: u64 = 8 << 30;

/// Which variants of a dataset to fetch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Variants {
    /// The default variant only: what experiments read.
    #[default]
    Default,
    /// Every variant the manifest lists (`Feature-min`, ... of OHSUMED).
    All,
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
    /// Where the installed files came from (`cache` when nothing was installed; `mirror
    /// <mirror>`; `embedded`; the address of the archive), comma-separated.
    pub source: String,
}

/// Fetches datasets into a [`DataCache`]. Cheap to share (`&self` everywhere).
pub struct Fetcher {
    pub(crate) opts: FetchOptions,
    pub(crate) cache: DataCache,
    pub(crate) http: Http,
    pub(crate) progress: Arc<dyn Progress>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("opts", &self.opts).finish_non_exhaustive()
    }
}

/// What one `fetch_*` call has learnt: archives downloaded and extracted (or failed) by
/// name, so an archive serving several datasets is tried once; hosts found unreachable; a
/// URL mirror that is down.
#[derive(Default)]
pub(crate) struct Session {
    pub(crate) archives: HashMap<String, Result<Extracted, String>>,
    /// Unreachable hosts (`host:port`) and why.
    pub(crate) unreachable: HashMap<String, String>,
    /// The URL mirror failed (beyond a 404): skip it for the rest of the call.
    mirror_down: bool,
}

/// Files still wanted, with their variant.
type Wanted<'m> = Vec<(&'m Variant, String)>;

impl Fetcher {
    /// A fetcher with its own HTTP client (see [`FetchOptions`]).
    pub fn new(opts: FetchOptions, progress: Arc<dyn Progress>) -> Self {
        Self {
            cache: DataCache::new(opts.data_dir.clone()).with_rehash_after(opts.rehash_after),
            http: Http::new(&opts, Arc::clone(&progress)),
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

    /// Makes every file of the wanted variants of `dataset` present and verified in the
    /// cache. Files already verified cost no network and no re-hash (see
    /// [`FetchReport::rehashed`]).
    pub fn fetch_dataset(
        &self,
        manifest: &Manifest,
        dataset: &str,
        variants: Variants,
    ) -> Result<FetchReport, FetchError> {
        self.cache.sweep_staging();
        let mut session = Session::default();
        self.fetch_in(manifest, dataset, variants, &mut session)
    }

    /// [`Fetcher::fetch_dataset`] for several datasets, in order; each is independent (a
    /// failure is reported in its slot and the others go on). An archive serving several of
    /// them is downloaded and extracted once, and an unreachable host is tried once.
    pub fn fetch_all(
        &self,
        manifest: &Manifest,
        datasets: &[String],
        variants: Variants,
    ) -> Vec<(String, Result<FetchReport, FetchError>)> {
        self.cache.sweep_staging();
        let mut session = Session::default();
        datasets
            .iter()
            .map(|name| {
                let r = self.fetch_in(manifest, name, variants, &mut session);
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
        variants: Variants,
        session: &mut Session,
    ) -> Result<FetchReport, FetchError> {
        let ds = manifest.dataset(dataset)?;
        let chosen: Vec<&Variant> = match variants {
            Variants::Default => vec![ds.default_variant()],
            Variants::All => ds.variants.iter().collect(),
        };
        let mut report = FetchReport { dataset: ds.name.clone(), ..FetchReport::default() };
        let needed = self.via_cache(&ds.name, &chosen, &mut report)?;
        if needed.is_empty() {
            report.source = "cache".into();
            self.derive_files(&chosen, &mut report)?;
            return Ok(report);
        }
        let mut errors: Vec<FetchError> = Vec::new();
        let mut sources: Vec<String> = Vec::new();
        let mut out = Outcome { report: &mut report, errors: &mut errors, sources: &mut sources };
        let cap = Limit::cap(
            manifest.max_download_bytes.unwrap_or(DEFAULT_MAX_DOWNLOAD_BYTES),
            &manifest.collection,
        );
        let needed = match &self.opts.mirror {
            Some(Mirror::Dir(d)) if !d.is_dir() => {
                return Err(FetchError::Mirror {
                    mirror: d.display().to_string(),
                    reason: "not a folder".into(),
                });
            }
            Some(mirror) => self.via_mirror(mirror, needed, &cap, session, &mut out),
            None => needed,
        };
        let needed = self.via_embedded(needed, &mut out);
        self.via_archives(manifest, &ds.name, needed, &cap, session, &mut out);

        report.source = sources.join(", ");
        if errors.is_empty() {
            self.derive_files(&chosen, &mut report)?;
        }
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

    /// Step 1: what the cache has (verified) is reported present; the rest is returned.
    fn via_cache<'m>(
        &self,
        dataset: &str,
        variants: &[&'m Variant],
        report: &mut FetchReport,
    ) -> Result<Wanted<'m>, FetchError> {
        let mut needed = Vec::new();
        for &v in variants {
            for f in v.fetched_files() {
                let rel = v.rel_path(&f);
                if !matches!(safe_relative(&rel), Ok(Some(_))) {
                    return Err(FetchError::Unavailable {
                        dataset: dataset.to_owned(),
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
        Ok(needed)
    }

    /// Step 2: the mirror. Returns what it does not have (or could not serve).
    fn via_mirror<'m>(
        &self,
        mirror: &Mirror,
        needed: Wanted<'m>,
        cap: &Limit,
        session: &mut Session,
        out: &mut Outcome<'_>,
    ) -> Wanted<'m> {
        let mut rest = Vec::new();
        for (v, f) in needed {
            let rel = v.rel_path(&f);
            if session.mirror_down {
                rest.push((v, f));
                continue;
            }
            match self.fetch_from_mirror(mirror, v, &f, cap) {
                Ok(Some(verified)) => out.installed(rel, verified, format!("mirror {mirror}")),
                Ok(None) => {
                    log::info!("{rel}: not on the mirror");
                    rest.push((v, f));
                }
                Err(e @ (FetchError::Checksum { .. } | FetchError::Refused { .. })) => out.errors.push(e),
                Err(e) => {
                    if matches!(e, FetchError::Download { .. }) {
                        // Unreachable: do not pay for it again for every file.
                        session.mirror_down = true;
                        log::warn!("mirror {mirror}: {e}; not using it any more in this run");
                    } else {
                        log::warn!("mirror {mirror}: {e}");
                    }
                    rest.push((v, f));
                }
            }
        }
        rest
    }

    /// Step 3: files rebuilt from the embedded pieces. Returns the files they do not make.
    fn via_embedded<'m>(&self, needed: Wanted<'m>, out: &mut Outcome<'_>) -> Wanted<'m> {
        let mut rest = Vec::new();
        let mut opened: Vec<(&Variant, Result<ltr_data::embedded::Pieces<'m>, String>)> = Vec::new();
        for (v, f) in needed {
            if ltr_data::embedded::recipe(v, &f).is_none() {
                rest.push((v, f));
                continue;
            }
            let slot = match opened.iter().position(|(w, _)| std::ptr::eq(*w, v)) {
                Some(i) => i,
                None => {
                    opened.push((v, ltr_data::embedded::Pieces::open(v).map_err(|e| e.to_string())));
                    opened.len() - 1
                }
            };
            let result = match &opened[slot].1 {
                Ok(pieces) => crate::embedded::install_one(&self.cache, pieces, &f),
                Err(why) => Err(FetchError::Unavailable { dataset: v.path.clone(), reason: why.clone() }),
            };
            match result {
                Ok(verified) => out.installed(v.rel_path(&f), verified, "embedded".into()),
                Err(e) => {
                    // Only a damaged build gets here; the official archive may still help.
                    log::warn!("{}: cannot be rebuilt from the embedded data: {e}", v.rel_path(&f));
                    rest.push((v, f));
                }
            }
        }
        rest
    }

    /// Step 4: the official archives, grouped (in order of first use).
    fn via_archives(
        &self,
        manifest: &Manifest,
        dataset: &str,
        needed: Wanted<'_>,
        cap: &Limit,
        session: &mut Session,
        out: &mut Outcome<'_>,
    ) {
        let mut groups: Vec<(&str, Wanted<'_>)> = Vec::new();
        for (v, f) in needed {
            match groups.iter_mut().find(|(a, _)| *a == v.archive) {
                Some((_, files)) => files.push((v, f)),
                None => groups.push((&v.archive, vec![(v, f)])),
            }
        }
        for (archive_name, files) in groups {
            let archive = match manifest.archive(archive_name) {
                Ok(a) => a,
                Err(e) => {
                    out.errors.push(e.into());
                    continue;
                }
            };
            match self.extracted(archive, dataset, cap, session) {
                Ok(ex) => {
                    note(out.sources, ex.source.clone());
                    self.install_from(archive, ex, &files, out.report, out.errors);
                }
                Err(e) => out.errors.push(e),
            }
        }
    }
}

/// Where the steps of one dataset's fetch record what they did.
struct Outcome<'a> {
    report: &'a mut FetchReport,
    errors: &'a mut Vec<FetchError>,
    sources: &'a mut Vec<String>,
}

impl Outcome<'_> {
    fn installed(&mut self, rel: String, verified: bool, source: String) {
        note(self.sources, source);
        if !verified {
            self.report.unverified.push(rel.clone());
        }
        self.report.installed.push(rel);
    }
}

fn note(sources: &mut Vec<String>, s: String) {
    if !sources.contains(&s) {
        sources.push(s);
    }
}
