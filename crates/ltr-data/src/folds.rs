//! Folds: the LETOR rotation that builds them from subsets, and loading the splits of a fold
//! from a collection root (the data cache or a mirror).

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

/// Which subsets make up the splits of one fold: indices (0-based) into S1..Sn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// Training split: these subsets concatenated in this order.
    pub train: Vec<usize>,
    /// Validation split.
    pub vali: usize,
    /// Test split.
    pub test: usize,
}

impl Rotation {
    /// The subsets of one split, in concatenation order.
    pub fn of(&self, split: Split) -> Vec<usize> {
        match split {
            Split::Train => self.train.clone(),
            Split::Vali => vec![self.vali],
            Split::Test => vec![self.test],
        }
    }
}

/// The LETOR rotation of fold `fold` (1-based) over `subsets` subsets: train = S(k), ...,
/// S(k+n-3) concatenated in that order, vali = S(k+n-2), test = S(k+n-1), indices taken
/// mod n. For LETOR's five subsets: train = S(k), S(k+1), S(k+2); vali = S(k+3); test =
/// S(k+4). `None` when `fold` is not in `1..=subsets` or there are fewer than three subsets.
pub fn rotation(fold: u32, subsets: u32) -> Option<Rotation> {
    if subsets < 3 || fold == 0 || fold > subsets {
        return None;
    }
    let n = subsets as usize;
    let at = |offset: usize| (fold as usize - 1 + offset) % n;
    Some(Rotation { train: (0..n - 2).map(at).collect(), vali: at(n - 2), test: at(n - 1) })
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

/// Reads one split of a fold of a dataset (its default variant unless `variant` is given),
/// carrying the dataset's convention.
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
        ..ReadOptions::default()
    };
    Ok(read_file(&path, &opts)?.dataset.with_convention(Some(manifest.convention_of(entry))))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letor_rotation_of_five_subsets() {
        let r = |k| rotation(k, 5).map(|r| (r.train, r.vali, r.test));
        assert_eq!(r(1), Some((vec![0, 1, 2], 3, 4)));
        assert_eq!(r(2), Some((vec![1, 2, 3], 4, 0)));
        assert_eq!(r(4), Some((vec![3, 4, 0], 1, 2)));
        assert_eq!(r(5), Some((vec![4, 0, 1], 2, 3)));
        assert_eq!(r(0), None);
        assert_eq!(r(6), None);
        assert_eq!(rotation(1, 2), None);
        assert_eq!(rotation(2, 3), Some(Rotation { train: vec![1], vali: 2, test: 0 }));
    }

    #[test]
    fn every_subset_is_tested_once_and_validated_once() {
        for n in 3..8 {
            let all: Vec<Rotation> =
                (1..=n).map(|k| rotation(k, n).unwrap_or_else(|| panic!("{k}"))).collect();
            let mut tests: Vec<usize> = all.iter().map(|r| r.test).collect();
            let mut valis: Vec<usize> = all.iter().map(|r| r.vali).collect();
            tests.sort_unstable();
            valis.sort_unstable();
            assert_eq!(tests, (0..n as usize).collect::<Vec<_>>());
            assert_eq!(valis, tests);
            for r in &all {
                let mut used = r.of(Split::Train);
                used.extend([r.vali, r.test]);
                used.sort_unstable();
                assert_eq!(used, (0..n as usize).collect::<Vec<_>>(), "a fold uses every subset once");
            }
        }
    }
}
