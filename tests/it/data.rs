//! The reader and the manifests against the real LETOR files: the folds rebuilt from the
//! embedded pieces and installed in a data cache, exactly as runs read them.

use std::collections::BTreeSet;

use ltr_data::{Manifest, Split};
use ltr_format::{ReadOptions, read_file};

/// Installs a dataset from the embedded data into a fresh cache, reads every fold file,
/// checking each file's sha256 against the manifest and the resolved input, and returns
/// (queries, documents, features) over the five test splits.
fn read_all_folds(collection: &str, dataset: &str) -> (usize, usize, usize) {
    let cache = tempfile::tempdir().unwrap();
    let input = ltr_fetch::embedded::install(cache.path(), collection, dataset).unwrap();
    let manifest = Manifest::builtin(collection).unwrap();
    let entry = manifest.dataset(dataset).unwrap();
    let variant = entry.default_variant();
    assert_eq!(input.folds.len() as u32, variant.folds);
    assert_eq!(input.convention, manifest.convention_of(entry));
    let opts = ReadOptions { n_features: Some(entry.features), sha256: true, ..Default::default() };
    let (mut queries, mut docs) = (0, 0);
    let mut all_qids = BTreeSet::new();
    for fold in &input.folds {
        let mut fold_qids = BTreeSet::new();
        for (split, file) in Split::ALL.into_iter().zip([&fold.train, &fold.vali, &fold.test]) {
            let name = variant.fold_file(fold.fold, split);
            assert_eq!(file.rel, variant.rel_path(&name));
            let loaded = read_file(&input.root.join(&file.rel), &opts).unwrap();
            let hash = loaded.sha256.unwrap();
            assert_eq!(Some(hash.as_str()), variant.sha256_of(&name), "manifest hash of {}", file.rel);
            assert_eq!(hash, file.sha256, "resolved hash of {}", file.rel);
            let d = loaded.dataset;
            assert_eq!(d.n_features(), entry.features);
            assert!(d.labels().iter().all(|g| entry.labels.contains(g)), "{}: unexpected grade", file.rel);
            for q in d.query_ids() {
                assert!(
                    fold_qids.insert(q.clone()),
                    "{}: query {q} in two splits of fold {}",
                    file.rel,
                    fold.fold
                );
            }
            if split == Split::Test {
                queries += d.n_queries();
                docs += d.n_docs();
                all_qids.extend(d.query_ids().iter().cloned());
            }
        }
    }
    assert_eq!(all_qids.len(), queries, "every query is tested exactly once");
    assert_eq!(Some(queries), entry.queries);
    assert_eq!(Some(docs), entry.documents);
    (queries, docs, entry.features)
}

#[test]
fn ohsumed_query_level_norm_all_folds() {
    assert_eq!(read_all_folds("letor3", "OHSUMED"), (106, 16_140, 45));
}

#[test]
fn mq2008_all_folds() {
    assert_eq!(read_all_folds("letor4", "MQ2008"), (784, 15_211, 46));
}

#[test]
fn in_memory_folds_equal_the_installed_files() {
    let cache = tempfile::tempdir().unwrap();
    let input = ltr_fetch::embedded::install(cache.path(), "letor3", "OHSUMED").unwrap();
    let manifest = Manifest::builtin("letor3").unwrap();
    for k in [1, 5] {
        let mem = ltr_data::embedded::load_fold("letor3", "OHSUMED", k).unwrap();
        let disk = ltr_data::folds::load_fold(&input.root, &manifest, "OHSUMED", None, k).unwrap();
        assert_eq!((mem.train, mem.vali, mem.test), (disk.train, disk.vali, disk.test), "fold {k}");
    }
}

#[test]
fn feature_null_reads_with_its_missing_token() {
    // Real OHSUMED lines with one value replaced by the Feature-null variant's token.
    let m = Manifest::builtin("letor3").unwrap();
    let d = m.dataset("OHSUMED").unwrap();
    let fold = ltr_data::embedded::Pieces::open(d.default_variant()).unwrap();
    let bytes = fold.build("Fold1/test.txt").unwrap().unwrap();
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').take(3).collect();
    let v = d.variant("Feature-null").unwrap();
    let token = v.missing_token.clone().unwrap();
    let first = String::from_utf8(lines[0].to_vec()).unwrap();
    let (head, rest) = first.split_once(" 1:").unwrap();
    let (value, tail) = rest.split_once(' ').unwrap();
    assert_ne!(value.parse::<f32>().unwrap(), 0.0, "a value that visibly becomes 0");
    let nulled = format!("{head} 1:{token} {tail}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("testset.txt");
    std::fs::write(&path, [nulled.as_bytes(), lines[1], lines[2]].concat()).unwrap();

    let strict = ReadOptions { n_features: Some(45), ..Default::default() };
    let err = read_file(&path, &strict).unwrap_err().to_string();
    assert!(err.contains(&token) && err.contains("testset.txt:1:"), "{err}");
    let lenient = ReadOptions { missing_token: v.missing_token.clone(), ..strict };
    let data = read_file(&path, &lenient).unwrap().dataset;
    assert_eq!((data.n_features(), data.n_docs()), (45, 3));
    assert_eq!(data.row(0)[0], 0.0, "the missing value reads as 0");
}

/// A run over every fold parses the five LETOR subsets once and builds the folds from them:
/// each fold so built equals the fold read from its own three files (features, grades, query
/// and document ids, convention), on both collections with embedded data.
#[test]
fn folds_built_from_the_parsed_subsets_equal_the_fold_files() {
    use ltr_harness::ExperimentSpec;
    use ltr_harness::protocol::{self, Subsets};
    for (collection, dataset) in [("letor3", "OHSUMED"), ("letor4", "MQ2008")] {
        let spec = ExperimentSpec::builtin(collection).unwrap();
        let input = crate::common::installed(collection, dataset);
        assert_eq!(input.rotation, Some(5), "{dataset}: the manifest flags its folds as a rotation");
        let subsets = Subsets::read(&spec, input).unwrap().expect("all five folds are there");
        for k in 1..=5 {
            let built = subsets.fold(input, k).unwrap();
            let read = protocol::read_fold(&spec, input, k).unwrap();
            assert_eq!(built.train, read.train, "{dataset} fold {k} train");
            assert_eq!(*built.vali, *read.vali, "{dataset} fold {k} vali");
            assert_eq!(*built.test, *read.test, "{dataset} fold {k} test");
            assert!(built.train.n_docs() > 0 && built.train.convention().is_some());
        }
        // A dataset resolved with only some of its folds is read fold by fold.
        let mut some = input.clone();
        some.folds.truncate(2);
        assert!(Subsets::read(&spec, &some).unwrap().is_none());
    }
}

/// A data file edited after its dataset was resolved (its hash is then in every cell key of
/// its folds) is refused when a run reads it, naming the file and both hashes: no cell is
/// computed from content other than what its key records, and nothing is stored under the
/// original key. The folds that do not read the file run as usual.
#[test]
fn a_file_edited_after_resolution_fails_its_cells_and_nothing_is_stored_under_its_key() {
    use ltr_harness::ExperimentSpec;
    use ltr_harness::protocol::{self, Subsets};
    use ltr_runner::runner::{DatasetStatus, NoProgress, RunOptions, run};
    use ltr_runner::store::{CellCheck, ResultStore};
    use sha2::{Digest, Sha256};

    let dir = tempfile::tempdir().unwrap();
    let input = ltr_fetch::embedded::install(&dir.path().join("cache"), "letor3", "OHSUMED").unwrap();
    let spec = ExperimentSpec::parse(
        "name = \"edited\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nfolds = [1, 2]\nseed = 5\n\n\
         [[algorithms]]\nid = \"regression\"\n",
        std::path::Path::new("edited.toml"),
    )
    .unwrap();

    // Resolved above; now one grade of fold 1's test file changes (same size).
    let rel = input.folds[0].test.rel.clone();
    let path = input.root.join(&rel);
    let original = std::fs::read(&path).unwrap();
    let mut edited = original.clone();
    edited[0] = if edited[0] == b'0' { b'2' } else { b'0' };
    std::fs::write(&path, &edited).unwrap();
    let expected = input.folds[0].test.sha256.clone();
    let actual = ltr_format::reader::hex(&Sha256::digest(&edited));

    let Err(e) = protocol::read_fold(&spec, &input, 1) else { panic!("the edited file was read") };
    let e = e.to_string();
    for part in [rel.as_str(), expected.as_str(), actual.as_str()] {
        assert!(e.contains(part), "{part:?} not in: {e}");
    }
    // The same file is a subset of the rotation: parsing the subsets once refuses it too.
    assert!(Subsets::read(&spec, &input).is_err(), "the subsets were parsed from the edited file");

    let store = ResultStore::open(&dir.path().join("results"), "edited").unwrap();
    let data = [DatasetStatus::Available(input.clone())];
    let record = run(&spec, &data, &store, &RunOptions::new("test".into()), &NoProgress).unwrap();
    assert_eq!(record.cells.len(), 2);
    assert_eq!(record.failed.len(), 1, "{:?}", record.failed);
    assert_eq!(record.failed[0].fold, 1);
    assert!(record.failed[0].error.contains(&actual), "{}", record.failed[0].error);
    for (key, name) in record.cells.iter().zip(&record.cell_names) {
        match (name.contains("fold 1"), store.check(key)) {
            (true, CellCheck::Missing) | (false, CellCheck::Sound(_)) => {}
            (edited, _) => panic!("{name}: {}", if edited { "stored" } else { "not stored" }),
        }
    }

    // Restored, the file is what the keys record: the failed cell is computed now.
    std::fs::write(&path, &original).unwrap();
    let again = run(&spec, &data, &store, &RunOptions::new("test".into()), &NoProgress).unwrap();
    assert!(again.failed.is_empty(), "{:?}", again.failed);
    assert_eq!(again.computed, 1);
}
