//! A dataset as the cache holds it: the files of its folds, present and verified, ready for the
//! harness. Both resolving (after a fetch) and installing the embedded data end here.

use ltr_data::Split;
use ltr_data::manifest::{DatasetEntry, Manifest};
use ltr_data::resolved::{DataFile, DatasetInput, FoldFiles};

use crate::cache::{DataCache, FileStatus};

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
