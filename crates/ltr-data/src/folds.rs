//! Folds: the LETOR rotation that builds them from subsets, and loading the splits of a fold
//! from a collection root (the data cache or a mirror).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ltr_core::Dataset;

use ltr_format::{DataError, ReadOptions, read_file};

use crate::manifest::Manifest;
use crate::resolved::{DataFile, FoldFiles};
use crate::rotation::{Split, rotation};

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

/// The subsets of folds that are the LETOR rotation of their test files
/// ([`crate::manifest::Variant::rotation`]): entry `s` is subset S(s+1), the test file of the
/// fold whose rotation tests it. `None` unless all `n` folds (n >= 3) are given, once each,
/// and every fold's validation file has, by its hash, the subset its rotation names.
pub fn rotation_subsets(folds: &[FoldFiles], n: u32) -> Option<Vec<&DataFile>> {
    if n < 3 || u32::try_from(folds.len()).ok()? != n {
        return None;
    }
    let mut subsets: Vec<Option<&DataFile>> = vec![None; folds.len()];
    for f in folds {
        let slot = subsets.get_mut(rotation(f.fold, n)?.test)?;
        if slot.replace(&f.test).is_some() {
            return None;
        }
    }
    let subsets: Vec<&DataFile> = subsets.into_iter().collect::<Option<_>>()?;
    folds
        .iter()
        .all(|f| rotation(f.fold, n).is_some_and(|r| subsets[r.vali].sha256 == f.vali.sha256))
        .then_some(subsets)
}

/// The query ids of `test` that `other` has too, in `test`'s order. A test split sharing
/// queries with the split a model was trained or selected on measures queries it has seen
/// (LETOR's folds are query-disjoint; a user's own may not be).
pub fn shared_query_ids<'a>(test: &'a Dataset, other: &Dataset) -> Vec<&'a str> {
    let seen: HashSet<&str> = other.query_ids().iter().map(String::as_str).collect();
    test.query_ids().iter().map(String::as_str).filter(|q| seen.contains(q)).collect()
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
        format: v.line_format(),
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

    fn fold_files(k: u32, train: &str, vali: &str, test: &str) -> FoldFiles {
        let f = |split: &str, h: &str| DataFile { rel: format!("Fold{k}/{split}.txt"), sha256: h.into() };
        FoldFiles { fold: k, train: f("train", train), vali: f("vali", vali), test: f("test", test) }
    }

    #[test]
    fn subsets_are_the_test_files_in_rotation_order() {
        // Fold k tests S(k+4) and validates on S(k+3) (mod 5), as in LETOR.
        let s = ["s1", "s2", "s3", "s4", "s5"];
        let folds: Vec<FoldFiles> = (1..=5u32)
            .map(|k| {
                let r = rotation(k, 5).unwrap();
                fold_files(k, "t", s[r.vali], s[r.test])
            })
            .collect();
        let got = rotation_subsets(&folds, 5).unwrap();
        assert_eq!(got.iter().map(|f| f.sha256.as_str()).collect::<Vec<_>>(), s);
        assert_eq!(got[0].rel, "Fold2/test.txt");
        // A validation file that is not the subset its rotation names, a missing fold, a
        // fold given twice: no subsets.
        let mut bad = folds.clone();
        bad[2].vali.sha256 = "other".into();
        assert!(rotation_subsets(&bad, 5).is_none());
        assert!(rotation_subsets(&folds[..4], 5).is_none());
        let mut twice = folds.clone();
        twice[1] = folds[0].clone();
        assert!(rotation_subsets(&twice, 5).is_none());
        assert!(rotation_subsets(&[], 0).is_none());
        assert!(rotation_subsets(&folds[..3], 3).is_none());
    }

    #[test]
    fn shared_query_ids_are_listed_in_test_order() {
        let split = |qids: &[&str]| {
            let n = qids.len();
            Dataset::from_parts(
                1,
                vec![0.0; n],
                vec![0; n],
                (0..=n).collect(),
                qids.iter().map(|q| (*q).to_owned()).collect(),
                None,
            )
            .unwrap()
        };
        let test = split(&["9", "2", "40", "1"]);
        assert_eq!(shared_query_ids(&test, &split(&["1", "2", "3", "9"])), ["9", "2", "1"]);
        assert!(shared_query_ids(&test, &split(&["5"])).is_empty());
    }
}
