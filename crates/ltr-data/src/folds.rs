//! Loading the splits of a fold from a collection root (the data cache or a mirror).

use std::path::{Path, PathBuf};

use ltr_core::Dataset;

use crate::error::DataError;
use crate::manifest::{Manifest, Split};
use crate::reader::{ReadOptions, read_file};

/// The three splits of one fold.
#[derive(Debug, Clone)]
pub struct Fold {
    /// Fold number (1-based).
    pub fold: u32,
    /// Training split.
    pub train: Dataset,
    /// Validation split.
    pub vali: Dataset,
    /// Test split.
    pub test: Dataset,
}

/// A file under a collection root: `<root>/<rel>` if present, else `<root>/<rel>.gz`.
pub fn locate(root: &Path, rel: &str) -> Option<PathBuf> {
    let plain = root.join(rel);
    if plain.is_file() {
        return Some(plain);
    }
    let gz = root.join(format!("{rel}.gz"));
    gz.is_file().then_some(gz)
}

/// Reads one split of a fold of a dataset (its default variant unless `variant` is given).
pub fn load_split(
    root: &Path,
    manifest: &Manifest,
    dataset: &str,
    variant: Option<&str>,
    fold: u32,
    split: Split,
) -> Result<Dataset, DataError> {
    let entry = manifest.dataset(dataset)?;
    let v = match variant {
        Some(name) => entry.variant(name)?,
        None => entry.default_variant(),
    };
    if fold == 0 || fold > v.folds {
        return Err(DataError::NotInManifest(format!("{dataset} has folds 1..={}, not {fold}", v.folds)));
    }
    let rel = v.rel_path(&v.fold_file(fold, split));
    let path = locate(root, &rel).ok_or_else(|| DataError::Unavailable {
        dataset: entry.name.clone(),
        reason: format!("{rel} is not under {}", root.display()),
    })?;
    let opts = ReadOptions {
        n_features: Some(entry.features),
        missing_token: v.missing_token.clone(),
        sha256: false,
    };
    Ok(read_file(&path, &opts)?.dataset)
}

/// Reads the three splits of a fold.
pub fn load_fold(
    root: &Path,
    manifest: &Manifest,
    dataset: &str,
    variant: Option<&str>,
    fold: u32,
) -> Result<Fold, DataError> {
    let get = |split| load_split(root, manifest, dataset, variant, fold, split);
    Ok(Fold { fold, train: get(Split::Train)?, vali: get(Split::Vali)?, test: get(Split::Test)? })
}

/// Finds a dataset mirror for tests, benches and examples: `$LTR_MIRROR` when it is a
/// folder, else the first `shared/datasets` holding a `SHA256SUMS` found beside `start` or
/// one of its ancestors (the project keeps `../shared` beside its root).
pub fn find_mirror(start: &Path) -> Option<PathBuf> {
    if let Some(m) = std::env::var_os("LTR_MIRROR").map(PathBuf::from).filter(|p| p.is_dir()) {
        return Some(m);
    }
    start.ancestors().map(|a| a.join("shared").join("datasets")).find(|p| p.join("SHA256SUMS").is_file())
}
