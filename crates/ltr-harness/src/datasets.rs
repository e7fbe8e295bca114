//! Turning a spec's dataset names into verified local files (fetching what is missing).

use ltr_data::cache::DataCache;
use ltr_data::fetch::Fetcher;
use ltr_data::manifest::{Manifest, Split};

use crate::runner::{DataFile, DatasetInput, DatasetStatus, FoldFiles};
use crate::spec::ExperimentSpec;

/// Resolves every dataset of the spec: fetches it into the cache when `fetcher` is given
/// (a no-op for verified files), then checks that every fold file is present and verified.
/// A dataset that cannot be had is returned as [`DatasetStatus::Unavailable`] with the reason;
/// the others are unaffected.
pub fn resolve(
    spec: &ExperimentSpec,
    manifest: &Manifest,
    fetcher: Option<&Fetcher>,
    cache: &DataCache,
) -> Vec<DatasetStatus> {
    // One batch, so that an archive serving several datasets (Gov.rar) is tried once.
    let fetched: Vec<Option<String>> = match fetcher {
        Some(f) => f
            .fetch_all(manifest, &spec.datasets)
            .into_iter()
            .map(|(_, r)| r.err().map(|e| e.reason()))
            .collect(),
        None => vec![None; spec.datasets.len()],
    };
    spec.datasets
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
            match input(spec, manifest, name, cache) {
                Ok(d) => DatasetStatus::Available(d),
                Err(reason) => unavailable(reason),
            }
        })
        .collect()
}

fn input(
    spec: &ExperimentSpec,
    manifest: &Manifest,
    name: &str,
    cache: &DataCache,
) -> Result<DatasetInput, String> {
    let entry = manifest.dataset(name).map_err(|e| e.to_string())?;
    let variant = entry.default_variant();
    let file = |fold: u32, split: Split| -> Result<DataFile, String> {
        let f = variant.fold_file(fold, split);
        cache.verified_path(variant, &f).ok_or_else(|| {
            format!(
                "{} is not in the data cache {} (run `ltr fetch`)",
                variant.rel_path(&f),
                cache.root().display()
            )
        })?;
        let sha256 = cache
            .known_sha256(variant, &f)
            .ok_or_else(|| format!("{} has no known sha256", variant.rel_path(&f)))?;
        Ok(DataFile { rel: variant.rel_path(&f), sha256 })
    };
    let folds = spec
        .folds
        .iter()
        .filter(|&&k| k <= variant.folds)
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
        root: cache.root().to_owned(),
        folds,
    })
}
