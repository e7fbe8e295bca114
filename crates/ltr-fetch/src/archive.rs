//! The official archives: download (its `urls` in order) to `<cache>/.downloads/<name>`
//! through a resumable `<name>.part`, never past the archive's size (else the collection's
//! cap), check against the archive hash when known, extract into a staging folder, and install
//! each wanted file after checking its hash.
//!
//! Each wanted file is located in the extracted tree as `archive_root/<file>`, else as the
//! unique entry ending with the longest possible tail of those path components, else the
//! same ignoring ASCII case. The archive is kept in `.downloads` (one archive serves several
//! datasets) and is downloaded and extracted at most once per fetch call.

use std::collections::HashMap;
use std::path::PathBuf;

use ltr_data::manifest::{Archive, Variant};

use crate::cache::{DOWNLOADS_DIR, FileStatus, create_dir_all, remove_quietly, sha256_file};
use crate::error::FetchError;
use crate::fetcher::{FetchReport, Fetcher};
use crate::http::{self, DlError, Limit, authority};
use ltr_extract::{DEFAULT_MAX_ENTRY_BYTES, extract_limited, safe_relative};
use ltr_format::DataError;

/// What one `fetch_*` call has learnt: archives downloaded and extracted (or failed) by
/// name, so an archive serving several datasets is tried once; hosts found unreachable; a
/// URL mirror that is down.
#[derive(Default)]
pub(crate) struct Session {
    pub(crate) archives: HashMap<String, Result<Extracted, String>>,
    /// Unreachable hosts (`host:port`) and why.
    pub(crate) unreachable: HashMap<String, String>,
    /// The URL mirror failed (beyond a 404): skip it for the rest of the call.
    pub(crate) mirror_down: bool,
}

/// An archive extracted for this fetch call.
pub(crate) struct Extracted {
    /// The extraction folder (deleted on drop).
    dir: tempfile::TempDir,
    /// Extracted regular files, relative to `dir`.
    files: Vec<PathBuf>,
    /// The address it came from (or the download cache).
    pub(crate) source: String,
    /// The downloaded archive, relative to the cache root.
    download_rel: String,
}

impl Fetcher {
    /// Locates, checks and installs files from an extracted archive.
    pub(crate) fn install_from(
        &self,
        archive: &Archive,
        ex: &Extracted,
        files: &[(&Variant, String)],
        report: &mut FetchReport,
        errors: &mut Vec<FetchError>,
    ) {
        let mut archive_suspect = false;
        for (v, f) in files {
            let rel = v.rel_path(f);
            let found = match locate(&ex.files, &v.archive_root, f) {
                Ok(i) => ex.dir.path().join(&ex.files[i]),
                Err(why) => {
                    errors.push(FetchError::Archive {
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
                    if matches!(e, FetchError::Data(DataError::Checksum { .. })) {
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
    /// `cap` bounds the download of an archive whose size is not published.
    pub(crate) fn extracted<'s>(
        &self,
        archive: &Archive,
        dataset: &str,
        cap: &Limit,
        session: &'s mut Session,
    ) -> Result<&'s Extracted, FetchError> {
        if !session.archives.contains_key(&archive.name) {
            match self.download_and_extract(archive, dataset, cap, session) {
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
            Some(Err(why)) => Err(FetchError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive {} failed earlier in this run: {why}", archive.name),
            }),
            None => Err(FetchError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive {} could not be prepared", archive.name),
            }),
        }
    }

    fn download_and_extract(
        &self,
        archive: &Archive,
        dataset: &str,
        cap: &Limit,
        session: &mut Session,
    ) -> Result<Extracted, FetchError> {
        let single = safe_relative(&archive.name).ok().flatten().filter(|p| p.components().count() == 1);
        if single.is_none() {
            return Err(FetchError::Unavailable {
                dataset: dataset.to_owned(),
                reason: format!("archive name `{}` is not a plain file name", archive.name),
            });
        }
        let rel = format!("{DOWNLOADS_DIR}/{}", archive.name);
        let dest = self.cache.path(&rel);
        // The expected hash: published in the manifest, else recorded on first use.
        let (expected, source_of) = match (&archive.sha256, self.cache.recorded_sha256(&rel)) {
            (Some(h), _) => {
                (Some(h.clone()), archive.sha256_source.clone().unwrap_or_else(|| "the manifest".into()))
            }
            (None, Some(h)) => (Some(h), "the local record of its first use".into()),
            (None, None) => (None, String::new()),
        };
        let mut have = false;
        if dest.is_file() {
            match &expected {
                Some(h) => match self.cache.status_rel(&rel, Some(h))? {
                    FileStatus::Verified { .. } => have = true,
                    FileStatus::Mismatch { actual, .. } if placed_by_hand(archive) => {
                        // Placed by hand: it cannot be downloaded again, so it is neither
                        // used nor deleted.
                        let from = archive
                            .license
                            .as_ref()
                            .or(archive.placement.as_ref())
                            .map(|l| format!("; get it from {l}"))
                            .unwrap_or_default();
                        return Err(FetchError::PlacedArchive {
                            path: dest,
                            expected: h.clone(),
                            actual,
                            note: format!("published by {source_of}{from}"),
                        });
                    }
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
                // Complete (only finished downloads are renamed from `.part`, and placed
                // archives are whole): its hash is recorded now and checked from then on.
                None => {
                    let (actual, _) = sha256_file(&dest)?;
                    self.record_archive(archive, &rel, &actual)?;
                    have = true;
                }
            }
        }
        let source = if have {
            log::info!("using the earlier download {}", dest.display());
            dest.display().to_string()
        } else {
            let unavailable = |why: Option<String>| FetchError::Unavailable {
                dataset: dataset.to_owned(),
                reason: match (why, placement(archive, &dest)) {
                    (Some(w), Some(p)) => format!("{w}; {p}"),
                    (Some(w), None) => w,
                    (None, Some(p)) => p,
                    (None, None) => format!(
                        "archive {} has no download address and no mirror has the files",
                        archive.name
                    ),
                },
            };
            if archive.urls.is_empty() {
                return Err(unavailable(None));
            }
            let limit = archive.size.map_or_else(|| cap.clone(), |s| Limit::exact(s, &archive.name));
            let expected = archive.sha256.as_deref();
            let (url, actual) =
                match self.download(&archive.urls, &rel, &archive.name, expected, &limit, session) {
                    Ok(done) => done,
                    Err(e @ FetchError::Download { .. }) if placed_by_hand(archive) => {
                        return Err(unavailable(Some(e.to_string())));
                    }
                    Err(e) => return Err(e),
                };
            if archive.sha256.is_none() {
                self.record_archive(archive, &rel, &actual)?;
            }
            url
        };
        let dir = self.cache.staging()?;
        let max_entry = archive.max_entry_bytes.unwrap_or(DEFAULT_MAX_ENTRY_BYTES);
        match extract_limited(&dest, archive.format, dir.path(), max_entry, &*self.progress)
            .map_err(FetchError::from)
        {
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

    /// Records the hash of an archive that has none published, on its first use.
    fn record_archive(&self, archive: &Archive, rel: &str, actual: &str) -> Result<(), FetchError> {
        log::warn!(
            "UNVERIFIED: {}: no published sha256; recorded {actual} as its hash, checked from now on",
            archive.name
        );
        self.cache.record_sha256(rel, actual)
    }

    /// Downloads `urls` (in order) into the cache file `rel`, through `rel.part`, never past
    /// `limit`, checking the result against `expected`. Returns the address that served it
    /// and the hash. Addresses on a host found unreachable earlier in the session are not
    /// tried.
    fn download(
        &self,
        urls: &[String],
        rel: &str,
        label: &str,
        expected: Option<&str>,
        limit: &Limit,
        session: &mut Session,
    ) -> Result<(String, String), FetchError> {
        let dest = self.cache.path(rel);
        let part = self.cache.path(&format!("{rel}.part"));
        if let Some(parent) = dest.parent() {
            create_dir_all(parent)?;
        }
        let mut failures: Vec<String> = Vec::new();
        // A wrong archive (hash, or past its bound) is what is reported when no address
        // serves the right one.
        let mut mismatch: Option<FetchError> = None;
        for url in urls {
            let host = authority(url);
            if let Some(why) = host.as_ref().and_then(|h| session.unreachable.get(h)) {
                log::info!("{url}: not tried, its host was unreachable earlier in this run");
                failures.push(format!("{url}: {why} (earlier in this run)"));
                continue;
            }
            log::info!("downloading {label} from {url}");
            let mut resumed = http::file_len(&part) > 0;
            let actual = loop {
                if let Err(e) = self.http.get(url, &part, label, limit) {
                    break Err(e);
                }
                let (actual, _) = sha256_file(&part)?;
                match expected {
                    Some(expected) if expected != actual && resumed => {
                        // The bytes of an earlier run may be of another version of the file.
                        log::warn!(
                            "{url}: the resumed download of {label} is not right; downloading it again"
                        );
                        remove_quietly(&part);
                        resumed = false;
                    }
                    _ => break Ok(actual),
                }
            };
            let actual = match actual {
                Ok(a) => a,
                Err(DlError::TooLarge(reason)) => {
                    log::warn!("{url}: {label} refused: {reason}");
                    failures.push(format!("{url}: refused: {reason}"));
                    mismatch = Some(FetchError::Refused { what: url.clone(), reason });
                    continue;
                }
                Err(e) => {
                    log::warn!("{url}: {}", e.reason());
                    failures.push(format!("{url}: {}", e.reason()));
                    if let (DlError::Unreachable(why), Some(h)) = (&e, host) {
                        session.unreachable.insert(h, why.clone());
                    }
                    continue;
                }
            };
            if let Some(expected) = expected
                && expected != actual
            {
                remove_quietly(&part);
                log::warn!("{url}: sha256 of {label} is {actual}, expected {expected}");
                failures.push(format!("{url}: sha256 mismatch"));
                mismatch = Some(FetchError::Data(DataError::Checksum {
                    file: label.to_owned(),
                    expected: expected.to_owned(),
                    actual,
                }));
                continue;
            }
            self.cache.commit_rel(rel, &part, &actual)?;
            return Ok((url.clone(), actual));
        }
        if let Some(e) = mismatch {
            return Err(e);
        }
        Err(FetchError::Download {
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
}

/// Whether an archive is put into the download folder by hand (license-gated, or with no
/// stable public address) rather than only downloaded.
fn placed_by_hand(archive: &Archive) -> bool {
    archive.license.is_some() || archive.placement.is_some()
}

/// Where to get an archive that is placed by hand and where to put it; `None` for other
/// archives.
fn placement(archive: &Archive, dest: &std::path::Path) -> Option<String> {
    if let Some(l) = &archive.license {
        return Some(format!(
            "{} is license-gated: get it from {l} and put it at {}, then run again",
            archive.name,
            dest.display()
        ));
    }
    archive.placement.as_ref().map(|p| {
        format!(
            "{} has no stable public address ({p}): put it at {}, then run again",
            archive.name,
            dest.display()
        )
    })
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
mod tests {
    use super::*;

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
