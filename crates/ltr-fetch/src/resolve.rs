//! Turning dataset names into verified local files (fetching what is missing), as the
//! harness consumes them.

use ltr_data::manifest::{DatasetEntry, Manifest, Split};
use ltr_data::resolved::{DataFile, DatasetInput, DatasetStatus, FoldFiles};

use crate::cache::{DataCache, FileStatus};
use crate::fetcher::{Fetcher, Variants};

/// Where [`resolve`] may get files from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Fetch what is missing into the fetcher's cache (a no-op for verified files).
    Fetch(&'a Fetcher),
    /// Use only what the cache already holds.
    Cache(&'a DataCache),
}

/// Resolves datasets of a collection for the given folds: fetches their default variant
/// into the cache when allowed, then checks that every fold file is present and verified. A
/// dataset that cannot be had is returned as [`DatasetStatus::Unavailable`] with the reason;
/// the others are unaffected. Folds beyond a dataset's fold count are left out.
pub fn resolve(
    manifest: &Manifest,
    datasets: &[String],
    folds: &[u32],
    source: Source<'_>,
) -> Vec<DatasetStatus> {
    // One batch, so that an archive serving several datasets (Gov.rar) is tried once.
    let (cache, fetched): (&DataCache, Vec<Option<String>>) = match source {
        Source::Fetch(f) => (
            f.cache(),
            f.fetch_all(manifest, datasets, Variants::Default)
                .into_iter()
                .map(|(_, r)| r.err().map(|e| e.reason()))
                .collect(),
        ),
        Source::Cache(c) => (c, vec![None; datasets.len()]),
    };
    datasets
        .iter()
        .zip(fetched)
        .map(|(name, fetch_error)| {
            let unavailable = |reason: String| {
                log::warn!("{name} is unavailable: {reason}");
                DatasetStatus::Unavailable { name: name.clone(), reason }
            };
            if let Some(e) = fetch_error {
                return unavailable(e);
            }
            let found = manifest.dataset(name).map_err(|e| e.to_string());
            match found.and_then(|entry| input(manifest, entry, folds, cache)) {
                Ok(d) => DatasetStatus::Available(d),
                Err(reason) => unavailable(reason),
            }
        })
        .collect()
}

/// The files of the given folds of a dataset's default variant, all present and verified in
/// `cache`, or why not.
pub(crate) fn input(
    manifest: &Manifest,
    entry: &DatasetEntry,
    folds: &[u32],
    cache: &DataCache,
) -> Result<DatasetInput, String> {
    let variant = entry.default_variant();
    let file = |fold: u32, split: Split| -> Result<DataFile, String> {
        let f = variant.fold_file(fold, split);
        let rel = variant.rel_path(&f);
        let root = cache.root().display();
        match cache.status(variant, &f).map_err(|e| e.to_string())? {
            FileStatus::Verified { .. } => {}
            FileStatus::Missing => {
                return Err(format!("{rel} is not in the data cache {root} (run `ltr fetch`)"));
            }
            FileStatus::Unknown { .. } => {
                return Err(format!(
                    "{rel} is in the data cache {root} but no sha256 is known for it, so it \
                     cannot be verified (run `ltr fetch` to replace it)"
                ));
            }
            FileStatus::Mismatch { expected, actual, .. } => {
                return Err(format!(
                    "{rel} is in the data cache {root} but fails its sha256 check (expected \
                     {expected}, got {actual}); run `ltr fetch` to replace it"
                ));
            }
        }
        let sha256 = cache.known_sha256(variant, &f).ok_or_else(|| format!("{rel} has no known sha256"))?;
        Ok(DataFile { rel, sha256 })
    };
    let folds = folds
        .iter()
        .filter(|&&k| k >= 1 && k <= variant.folds)
        .map(|&k| {
            Ok(FoldFiles {
                fold: k,
                train: file(k, Split::Train)?,
                vali: file(k, Split::Vali)?,
                test: file(k, Split::Test)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(DatasetInput {
        name: entry.name.clone(),
        variant: variant.name.clone(),
        convention: manifest.convention_of(entry),
        features: entry.features,
        missing_token: variant.missing_token.clone(),
        clip: variant.clip,
        format: variant.line_format(),
        rotation: variant.rotation.then_some(variant.folds),
        root: cache.root().to_owned(),
        folds,
    })
}
