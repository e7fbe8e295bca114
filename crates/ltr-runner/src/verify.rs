//! Checking a whole store ([`verify_store`]): every record sealed and matching its files
//! ([`crate::store::verify_cell`]), and, given the data, every sound cell re-evaluated
//! against its test file ([`reevaluate`]): the saved scores must give the recorded numbers
//! and the saved model the saved scores, bit for bit.

use std::path::Path;

use ltr_core::Dataset;
use ltr_data::folds::locate;
use ltr_data::resolved::DatasetInput;
use ltr_format::{ReadOptions, read_file};
use ltr_harness::protocol::read_options;
use ltr_metrics::evaluate_dataset;

use crate::error::Result;
use crate::runner::RunRecord;
use crate::store::{CellCheck, CellRecord, ResultStore, verify_cell};

/// Re-evaluates a sound cell ([`verify_cell`]) against its data: reads its test file under
/// `dataset.root` (which must hash to the recorded sha256), evaluates the saved scores under
/// the recorded config and compares every number of the record exactly, and scores the test
/// file again with the saved model (after the recorded normalisation), which must give the
/// saved scores bit for bit.
///
/// # Errors
/// What does not agree, in a few words.
pub fn reevaluate(store: &ResultStore, record: &CellRecord, dataset: &DatasetInput) -> Result<(), String> {
    let test = read_test(record, dataset)?;
    let scores = read_cell_scores(store, record)?;
    let evaluation = evaluate_dataset(&test, &scores, &record.eval).map_err(|e| e.to_string())?;
    if evaluation.summary != record.test {
        return Err("the saved scores evaluate to other test means than recorded".into());
    }
    if evaluation.per_query != record.per_query {
        return Err("the saved scores evaluate to other per-query metrics than recorded".into());
    }
    let model = store.load_model(&record.key).map_err(|e| e.to_string())?;
    let normalized = (!record.normalizer.is_none())
        .then(|| record.normalizer.apply(&test))
        .transpose()
        .map_err(|e| format!("the recorded normalisation does not apply to the test file: {e}"))?;
    let rescored = model
        .score_vec(normalized.as_ref().unwrap_or(&test))
        .map_err(|e| format!("the saved model cannot score the test file: {e}"))?;
    if rescored.len() != scores.len() || rescored.iter().zip(&scores).any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err("the saved model scores the test file differently from the saved scores".into());
    }
    Ok(())
}

/// The test file a cell was computed on, read under `dataset.root` as the protocol read it
/// (width, missing token, clipping, line format); it must hash to the recorded sha256.
///
/// # Errors
/// The file is not found, does not read, or is not the one the cell was computed on.
pub fn read_test(record: &CellRecord, dataset: &DatasetInput) -> Result<Dataset, String> {
    let path = locate(&dataset.root, &record.test_file).ok_or_else(|| {
        format!("test file {} not found under {}", record.test_file, dataset.root.display())
    })?;
    let opts = ReadOptions { sha256: true, ..read_options(dataset) };
    let loaded = read_file(&path, &opts).map_err(|e| e.to_string())?;
    if loaded.sha256.as_deref() != Some(record.test_sha256.as_str()) {
        return Err(format!(
            "test file {} is not the one the cell was computed on (sha256 {}, recorded {})",
            path.display(),
            loaded.sha256.unwrap_or_default(),
            record.test_sha256
        ));
    }
    Ok(loaded.dataset)
}

/// A cell's saved test scores, one per document of its test file in file order.
///
/// # Errors
/// The scores file does not read.
pub fn read_cell_scores(store: &ResultStore, record: &CellRecord) -> Result<Vec<f64>, String> {
    ltr_format::scores::read_scores(&store.scores_path(&record.key)).map_err(|e| e.to_string())
}

/// One cell of a store that is not sound, as [`verify_store`] finds it.
#[derive(Debug, Clone, PartialEq)]
pub struct BadCell {
    /// The cell key.
    pub key: String,
    /// `dataset fold N label` when the record says it, else empty.
    pub cell: String,
    /// What is wrong.
    pub problem: String,
}

/// What [`verify_store`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreVerification {
    /// Cells checked (every record in the store, and every cell the last run lists).
    pub checked: usize,
    /// Of those, sound.
    pub sound: usize,
    /// Of the sound ones, re-evaluated against their test files ([`reevaluate`]).
    pub reevaluated: usize,
    /// Sound cells that could not be re-evaluated (no run record naming their dataset, or
    /// no data found), with why: not counted as bad.
    pub not_reevaluated: Vec<(String, String)>,
    /// Cells that are missing or damaged, or disagree with their data.
    pub bad: Vec<BadCell>,
}

/// Checks a whole store: every record in `cells/` and every cell `run.json` lists
/// ([`verify_cell`]); with `reevaluate_data`, also every sound cell against its test file
/// ([`reevaluate`]), the data located through the datasets `run.json` records.
pub fn verify_store(store: &ResultStore, reevaluate_data: bool) -> Result<StoreVerification> {
    let mut keys = store.record_keys()?;
    let run: Option<RunRecord> = store.load_json("run.json").ok();
    if let Some(r) = &run {
        keys.extend(r.cells.iter().cloned());
    }
    let mut out = StoreVerification::default();
    for key in keys {
        out.checked += 1;
        let record = match verify_cell(store, &key) {
            CellCheck::Sound(r) => r,
            CellCheck::Missing => {
                let problem = "record missing (listed by run.json)".to_owned();
                let cell = run
                    .as_ref()
                    .and_then(|r| r.cells.iter().position(|k| *k == key).and_then(|i| r.cell_names.get(i)))
                    .cloned()
                    .unwrap_or_default();
                out.bad.push(BadCell { key, cell, problem });
                continue;
            }
            CellCheck::Damaged(problem) => {
                let cell = describe_file(&store.record_path(&key));
                out.bad.push(BadCell { key, cell, problem });
                continue;
            }
        };
        if reevaluate_data {
            let dataset = run.as_ref().and_then(|r| {
                r.datasets.iter().find_map(|d| match d {
                    ltr_data::resolved::DatasetStatus::Available(x)
                        if x.name == record.dataset && x.variant == record.variant =>
                    {
                        Some(x)
                    }
                    _ => None,
                })
            });
            match dataset {
                None => {
                    out.not_reevaluated.push((key.clone(), "run.json does not record its dataset".into()))
                }
                Some(d) if locate(&d.root, &record.test_file).is_none() => out.not_reevaluated.push((
                    key.clone(),
                    format!("test file {} not found under {}", record.test_file, d.root.display()),
                )),
                Some(d) => match reevaluate(store, &record, d) {
                    Ok(()) => out.reevaluated += 1,
                    Err(problem) => {
                        let cell = format!("{} fold {} {}", record.dataset, record.fold, record.label);
                        out.bad.push(BadCell { key, cell, problem });
                        continue;
                    }
                },
            }
        }
        out.sound += 1;
    }
    Ok(out)
}

/// `dataset fold N label` of a record that may be damaged, if its JSON still says so.
fn describe_file(path: &Path) -> String {
    let value: Option<serde_json::Value> =
        std::fs::read(path).ok().and_then(|b| serde_json::from_slice(&b).ok());
    match value {
        Some(v) => match (v["dataset"].as_str(), v["fold"].as_u64(), v["label"].as_str()) {
            (Some(d), Some(f), Some(l)) => format!("{d} fold {f} {l}"),
            _ => String::new(),
        },
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_data::resolved::DatasetStatus;
    use ltr_harness::ModelFile;

    use super::*;
    use crate::code::sha256_hex;
    use crate::fixture::{SPEC, dataset, options, spec};
    use crate::runner::{NoProgress, run};

    #[test]
    fn verifying_a_store_re_evaluates_saved_scores_against_the_recorded_metrics() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let store = ResultStore::open(dir.path(), "t").unwrap();
        let first = run(&spec(SPEC), &data, &store, &options(), &NoProgress).unwrap();
        let v = verify_store(&store, true).unwrap();
        assert_eq!((v.checked, v.sound, v.reevaluated, v.bad.len()), (4, 4, 4, 0), "{v:?}");

        // A record whose metric was changed and resealed passes the hash check, but not the
        // re-evaluation of its scores.
        let key = &first.cells[1];
        let CellCheck::Sound(mut forged) = verify_cell(&store, key) else { panic!() };
        forged.test.map += 0.01;
        forged.record_sha256 = String::new();
        forged.record_sha256 = forged.seal().unwrap();
        std::fs::write(store.record_path(key), serde_json::to_vec(&forged).unwrap()).unwrap();
        assert!(matches!(verify_cell(&store, key), CellCheck::Sound(_)));
        let d = match &data[0] {
            DatasetStatus::Available(d) => d,
            DatasetStatus::Unavailable { .. } => unreachable!(),
        };
        let e = reevaluate(&store, &forged, d).unwrap_err();
        assert!(e.contains("test means"), "{e}");

        // A record the run lists that is gone, and a damaged one, each named once.
        std::fs::remove_file(store.record_path(&first.cells[0])).unwrap();
        std::fs::write(store.scores_path(&first.cells[2]), "1\n").unwrap();
        let v = verify_store(&store, true).unwrap();
        assert_eq!((v.checked, v.sound, v.bad.len()), (4, 1, 3), "{v:?}");
        let problems: Vec<(&str, &str)> =
            v.bad.iter().map(|b| (b.key.as_str(), b.problem.as_str())).collect();
        assert!(
            problems.contains(&(first.cells[0].as_str(), "record missing (listed by run.json)")),
            "{problems:?}"
        );
        assert_eq!(v.bad.iter().find(|b| b.key == first.cells[0]).unwrap().cell, "D fold 1 regression");
        assert!(
            problems.contains(&(first.cells[2].as_str(), "scores file changed (its sha256 does not match)"))
        );
        let forged_bad = v.bad.iter().find(|b| b.key == *key).unwrap();
        assert!(
            forged_bad.cell.starts_with("D fold ") && forged_bad.problem.contains("test means"),
            "{forged_bad:?}"
        );
        // Without the data, only the hashes are checked.
        let v = verify_store(&store, false).unwrap();
        assert_eq!((v.sound, v.reevaluated, v.bad.len()), (2, 0, 2));
    }

    /// A cell's model is stored as the model file `ltr train` writes, with the selected grid
    /// point's parameters; a store of the earlier layout (the bare model, its sha256 in the
    /// record) still verifies, re-evaluates and loads.
    #[test]
    fn models_are_stored_as_model_files_and_bare_models_of_older_stores_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let store = ResultStore::open(dir.path(), "t").unwrap();
        let run = run(&spec(SPEC), &data, &store, &options(), &NoProgress).unwrap();
        for key in &run.cells {
            let record = store.load(key).unwrap();
            let file = ModelFile::from_json(&std::fs::read(store.model_path(key)).unwrap()).unwrap();
            assert_eq!(file.config, record.grid[record.chosen].config, "{}", record.label);
            assert_eq!(file.n_features, 3);
        }
        let check = verify_store(&store, true).unwrap();
        assert_eq!((check.sound, check.reevaluated), (4, 4), "{check:?}");

        // Every model rewritten in the earlier layout, each record resealed over it.
        for key in &run.cells {
            let file = ModelFile::from_json(&std::fs::read(store.model_path(key)).unwrap()).unwrap();
            let bare = serde_json::to_vec_pretty(&file.model).unwrap();
            std::fs::write(store.model_path(key), &bare).unwrap();
            let mut record = store.check(key);
            let CellCheck::Damaged(_) = record else { panic!("{record:?}") };
            let mut r: CellRecord =
                serde_json::from_slice(&std::fs::read(store.record_path(key)).unwrap()).unwrap();
            r.model_sha256 = sha256_hex(&bare);
            r.record_sha256 = r.seal().unwrap();
            std::fs::write(store.record_path(key), serde_json::to_vec_pretty(&r).unwrap()).unwrap();
            record = store.check(key);
            assert!(matches!(record, CellCheck::Sound(_)), "{record:?}");
            assert_eq!(store.load_model(key).unwrap().id(), file.model.id());
        }
        let check = verify_store(&store, true).unwrap();
        assert_eq!((check.sound, check.reevaluated), (4, 4), "{check:?}");
    }
}
