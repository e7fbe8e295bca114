//! Installing the data compiled into `ltr` (see [`ltr_data::embedded`]) into a data cache:
//! each fold file is rebuilt from the pieces, checked against the manifest's hash, written to
//! a staging folder, flushed and renamed into place, so concurrent installers (test
//! processes, threads) never see a partial file.

use std::io::Write;
use std::path::Path;

use ltr_data::embedded::{Pieces, recipe};
use ltr_data::manifest::Manifest;
use ltr_data::resolved::DatasetInput;
use ltr_format::reader::hex;
use sha2::{Digest, Sha256};

use crate::cache::{DataCache, FileStatus};
use crate::cached::input;
use crate::error::FetchError;

/// Installs the default variant of `dataset` from the embedded pieces into the data cache
/// at `cache_dir` (files already there and verified are kept), and returns it ready to run
/// with all its folds. No network, no mirror. Safe to call from several threads or
/// processes at once on the same folder.
///
/// ```no_run
/// let dir = std::path::Path::new("/tmp/ltr-test-data");
/// let ohsumed = ltr_fetch::embedded::install(dir, "letor3", "OHSUMED")?;
/// assert_eq!(ohsumed.folds.len(), 5);
/// # Ok::<(), ltr_fetch::FetchError>(())
/// ```
pub fn install(cache_dir: &Path, collection: &str, dataset: &str) -> Result<DatasetInput, FetchError> {
    let manifest = Manifest::builtin(collection)?;
    let entry = manifest.dataset(dataset)?;
    let variant = entry.default_variant();
    let cache = DataCache::new(cache_dir);
    let unavailable = |reason: String| FetchError::Unavailable { dataset: entry.name.clone(), reason };
    if variant.pieces.is_empty() {
        return Err(unavailable(format!("{} has no embedded data", variant.path)));
    }
    let mut pieces: Option<Pieces<'_>> = None;
    for f in variant.files() {
        if recipe(variant, &f).is_none() {
            continue;
        }
        match cache.status(variant, &f)? {
            FileStatus::Verified { .. } => continue,
            FileStatus::Mismatch { .. } => cache.remove(&variant.rel_path(&f))?,
            FileStatus::Missing | FileStatus::Unknown { .. } => {}
        }
        if pieces.is_none() {
            pieces = Some(Pieces::open(variant)?);
        }
        if let Some(p) = &pieces {
            install_one(&cache, p, &f)?;
        }
    }
    let folds: Vec<u32> = (1..=variant.folds).collect();
    input(&manifest, entry, &folds, &cache).map_err(unavailable)
}

/// Rebuilds one variant file from `pieces` and installs it in `cache`. Returns whether it
/// is verified against a published hash (always, for the built-in manifests).
pub(crate) fn install_one(cache: &DataCache, pieces: &Pieces<'_>, file: &str) -> Result<bool, FetchError> {
    let variant = pieces.variant();
    let rel = variant.rel_path(file);
    let bytes = pieces.build(file)?.ok_or_else(|| FetchError::Unavailable {
        dataset: variant.path.clone(),
        reason: format!("the embedded pieces do not make {rel}"),
    })?;
    let staging = cache.staging()?;
    let staged = staging.path().join("file");
    let write_err = |source| FetchError::io(staged.clone(), source);
    let mut out = std::fs::File::create(&staged).map_err(write_err)?;
    out.write_all(&bytes).and_then(|()| out.sync_all()).map_err(write_err)?;
    drop(out);
    cache.commit(variant, file, &staged, &hex(&Sha256::digest(&bytes)))
}
