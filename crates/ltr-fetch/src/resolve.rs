//! Turning dataset names into verified local files (fetching what is missing), as the
//! harness consumes them.

use ltr_data::manifest::Manifest;
use ltr_data::resolved::DatasetStatus;

use crate::cache::DataCache;
use crate::cached::input;
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
