//! The reader and the manifests against the real LETOR files.

use std::collections::BTreeSet;

use ltr_data::manifest::{Manifest, Split};
use ltr_data::{ReadOptions, read_file};

use crate::common::{mirror, mirror_file, sha256sums};

/// Reads every fold file of a dataset's default variant from the mirror, checking each
/// file's sha256 against both the manifest and `SHA256SUMS`, and returns
/// (queries, documents, features) over the five test splits.
fn read_all_folds(collection: &str, dataset: &str) -> Option<(usize, usize, usize)> {
    let mirror = mirror()?;
    let sums = sha256sums(&mirror);
    let manifest = Manifest::builtin(collection).unwrap();
    let entry = manifest.dataset(dataset).unwrap();
    let variant = entry.default_variant();
    let opts = ReadOptions { n_features: Some(entry.features), sha256: true, ..Default::default() };
    let (mut queries, mut docs) = (0, 0);
    let mut all_qids = BTreeSet::new();
    for fold in 1..=variant.folds {
        let mut fold_qids = BTreeSet::new();
        for split in Split::ALL {
            let file = variant.fold_file(fold, split);
            let rel = variant.rel_path(&file);
            let loaded = read_file(&mirror_file(&mirror, &rel), &opts).unwrap();
            let hash = loaded.sha256.unwrap();
            assert_eq!(Some(hash.as_str()), variant.sha256_of(&file), "manifest hash of {rel}");
            assert_eq!(Some(&hash), sums.get(&rel), "SHA256SUMS of {rel}");
            let d = loaded.dataset;
            assert_eq!(d.n_features(), entry.features);
            assert!(d.labels().iter().all(|g| entry.labels.contains(g)), "{rel}: unexpected grade");
            for q in d.query_ids() {
                assert!(fold_qids.insert(q.clone()), "{rel}: query {q} in two splits of fold {fold}");
            }
            if split == Split::Test {
                queries += d.n_queries();
                docs += d.n_docs();
                all_qids.extend(d.query_ids().iter().cloned());
            }
        }
    }
    assert_eq!(all_qids.len(), queries, "every query is tested exactly once");
    Some((queries, docs, entry.features))
}

#[test]
fn ohsumed_query_level_norm_all_folds() {
    if let Some(counts) = read_all_folds("letor3", "OHSUMED") {
        assert_eq!(counts, (106, 16_140, 45));
    }
}

#[test]
fn mq2008_all_folds() {
    if let Some(counts) = read_all_folds("letor4", "MQ2008") {
        assert_eq!(counts, (784, 15_211, 46));
    }
}

#[test]
fn every_mirrored_file_is_in_a_manifest_with_the_same_hash() {
    let Some(mirror) = mirror() else { return };
    let mut known = std::collections::BTreeMap::new();
    for collection in ["letor3", "letor4"] {
        let m = Manifest::builtin(collection).unwrap();
        for d in &m.datasets {
            for v in &d.variants {
                for (f, h) in &v.sha256 {
                    known.insert(v.rel_path(f), h.clone());
                }
            }
        }
    }
    for (rel, hash) in sha256sums(&mirror) {
        assert_eq!(known.get(&rel), Some(&hash), "{rel}");
    }
}

#[test]
fn feature_null_reads_with_its_missing_token() {
    let Some(mirror) = mirror() else { return };
    let m = Manifest::builtin("letor3").unwrap();
    let d = m.dataset("OHSUMED").unwrap();
    let v = d.variant("Feature-null").unwrap();
    let rel = v.rel_path(&v.fold_file(1, Split::Test));
    let path = mirror_file(&mirror, &rel);
    let strict = ReadOptions { n_features: Some(45), ..Default::default() };
    let err = read_file(&path, &strict).unwrap_err().to_string();
    assert!(err.contains("NULL") && err.contains("testset.txt.gz:2:"), "{err}");
    let lenient = ReadOptions { missing_token: v.missing_token.clone(), ..strict };
    assert_eq!(read_file(&path, &lenient).unwrap().dataset.n_features(), 45);
}
