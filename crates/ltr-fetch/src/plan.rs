//! The plan behind [`Fetcher::fetch_dataset`] and [`Fetcher::fetch_all`] (described in
//! [`crate::fetcher`]): the cache, then the mirror, then the embedded data, then the official
//! archives, for every wanted file.

use ltr_data::manifest::{Manifest, Variant};

use crate::archive::Session;
use crate::cache::FileStatus;
use crate::error::FetchError;
use crate::fetcher::{DEFAULT_MAX_DOWNLOAD_BYTES, FetchReport, Fetcher, Variants};
use crate::http::Limit;
use crate::options::Mirror;
use ltr_extract::safe_relative;
use ltr_format::DataError;

/// Files still wanted, with their variant.
type Wanted<'m> = Vec<(&'m Variant, String)>;

impl Fetcher {
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
                Err(e @ (FetchError::Data(DataError::Checksum { .. }) | FetchError::Refused { .. })) => {
                    out.errors.push(e)
                }
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
