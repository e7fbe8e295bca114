//! The result store: one folder per spec name, one set of files per finished cell, keyed by
//! the sha256 of everything that determines the cell ([`cell_key`]): the code its numbers go
//! through ([`crate::code`]), the data hashes, parameters, seed, evaluation config and the
//! record format. Not the executable: a rebuild that changes no relevant source reuses cells.
//!
//! ```text
//! <results>/<name>/run.json              the last run: datasets, hashes, cells, wall time
//! <results>/<name>/cells/<key>.json      the cell record (written last), sealed by hashes
//! <results>/<name>/cells/<key>.scores    test scores, one per line, file order (ltr eval input)
//! <results>/<name>/cells/<key>.model.json  the selected model, as `ltr train` writes it
//! <results>/<name>/cells/<key>.timing.json fit times (kept apart: records stay deterministic)
//! ```
//! Every file is written to a temporary name and renamed ([`ltr_core::fs::write_atomic`]), so
//! a killed run leaves either a whole cell or none; the temporary files of killed runs are
//! removed when the store is next opened.
//!
//! A record holds the sha256 of its scores and model files and of itself
//! ([`CellRecord::record_sha256`]); a cell counts as done only when all three match
//! ([`verify_cell`]), so a deleted, truncated or edited file is recomputed, never reused.
//! `verify::reevaluate` goes further: it scores the test file again from the saved scores and
//! the saved model and compares every number with the record.

use std::path::{Path, PathBuf};

use ltr_data::normalize::{Normalization, Normalizer};
use ltr_data::resolved::{DataFile, DatasetInput, FoldFiles};
use ltr_format::LineFormat;
use ltr_harness::HarnessError;
use ltr_harness::protocol::{SeedRuns, criterion, eval_config};
use ltr_harness::registry::{AlgoConfig, AnyModel, ModelFile, crate_of};
use ltr_harness::spec::{AlgorithmEntry, ExperimentSpec};
use ltr_metrics::{Convention, Criterion, EvalConfig, QueryMetrics, Summary};
use serde::{Deserialize, Deserializer, Serialize};

use crate::code::{CellCode, CodeHashes, sha256_hex};
use crate::error::{Result, RunnerError};

/// Format version of cell records and keys; part of every key. 3: records are sealed by the
/// sha256 of their scores, their model and themselves.
pub const FORMAT: u32 = 3;

/// What determines a cell; the sha256 of its JSON is the cell key.
#[derive(Serialize)]
struct KeyMaterial<'a> {
    format: u32,
    code: CellCode<'a>,
    dataset: &'a str,
    variant: &'a str,
    features: usize,
    missing_token: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clip: Option<f32>,
    /// Left out when `none`, so that the keys of cells without normalisation are those of
    /// stores written before it existed.
    #[serde(skip_serializing_if = "Normalization::is_none")]
    normalize: Normalization,
    #[serde(skip_serializing_if = "LineFormat::is_letor")]
    line_format: LineFormat,
    convention: Convention,
    fold: u32,
    train: &'a DataFile,
    vali: &'a DataFile,
    test: &'a DataFile,
    seed: u64,
    /// Left out at 1 (one seed, the default), so that such keys are those of stores written
    /// before further seeds existed.
    #[serde(skip_serializing_if = "is_one")]
    seeds: u32,
    label: &'a str,
    grid: &'a [AlgoConfig],
    validation: &'a Criterion,
    eval: &'a EvalConfig,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The key of a cell: the sha256 of everything that determines its numbers, with the code
/// taken from `code` ([`CodeHashes::builtin`] in a run).
pub fn cell_key(
    code: &CodeHashes,
    spec: &ExperimentSpec,
    dataset: &DatasetInput,
    fold: &FoldFiles,
    entry: &AlgorithmEntry,
) -> Result<String> {
    let eval = eval_config(spec, dataset);
    let material = KeyMaterial {
        format: FORMAT,
        code: code.cell_code(&crate_of(&entry.id)?)?,
        dataset: &dataset.name,
        variant: &dataset.variant,
        features: dataset.features,
        missing_token: dataset.missing_token.as_deref(),
        clip: dataset.clip,
        normalize: spec.normalization(&dataset.name),
        line_format: dataset.format,
        convention: dataset.convention,
        fold: fold.fold,
        train: &fold.train,
        vali: &fold.vali,
        test: &fold.test,
        seed: spec.seed,
        seeds: spec.seeds,
        label: &entry.label,
        grid: &entry.grid,
        validation: &criterion(spec, dataset, entry),
        eval: &eval,
    };
    let bytes = serde_json::to_vec(&material).map_err(|e| RunnerError::Serialize {
        what: format!("the key of {} fold {} {}", dataset.name, fold.fold, entry.label),
        reason: e.to_string(),
    })?;
    Ok(sha256_hex(&bytes))
}

/// One grid point's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    /// Its parameters.
    pub config: AlgoConfig,
    /// The validation measure of its model (NaN, written `null`, when it could not be
    /// computed: the selection rule never picks it).
    #[serde(deserialize_with = "null_as_nan")]
    pub vali: f64,
    /// Why the point could not be trained (no model; `vali` is NaN and selection went on over
    /// the other points). Absent for a point that trained, so such records read, seal and
    /// verify as they did before points could fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// serde_json writes a NaN as `null`; read it back as NaN instead of failing the record.
fn null_as_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Everything a finished cell determined (no timings: records are deterministic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellRecord {
    /// Record format.
    pub format: u32,
    /// The cell key.
    pub key: String,
    /// Dataset name.
    pub dataset: String,
    /// Feature variant.
    pub variant: String,
    /// Fold.
    pub fold: u32,
    /// Spec label of the algorithm entry.
    pub label: String,
    /// Algorithm id.
    pub algorithm: String,
    /// The test split's path relative to the collection root.
    pub test_file: String,
    /// Its sha256.
    pub test_sha256: String,
    /// Selection criterion.
    pub validation: Criterion,
    /// How test metrics were computed.
    pub eval: EvalConfig,
    /// Every grid point, in grid order.
    pub grid: Vec<GridPoint>,
    /// Index of the selected point.
    pub chosen: usize,
    /// Test means of the selected model.
    pub test: Summary,
    /// Test metrics per query.
    pub per_query: Vec<QueryMetrics>,
    /// Statistics of the selected model on the test split
    /// ([`ltr_harness::protocol::model_statistics`]; empty for most algorithms).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub model_stats: std::collections::BTreeMap<String, f64>,
    /// The feature normalisation fitted on the training split, which the model's input went
    /// through (absent: none).
    #[serde(default, skip_serializing_if = "Normalizer::is_none")]
    pub normalizer: Normalizer,
    /// The selected point fitted again with the spec's further seeds (absent with one seed,
    /// so such records read and seal as before further seeds existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_runs: Option<SeedRuns>,
    /// sha256 of the executable that computed the cell: provenance only, not part of the key.
    pub binary: String,
    /// sha256 of the `.scores` file.
    pub scores_sha256: String,
    /// sha256 of the `.model.json` file.
    pub model_sha256: String,
    /// sha256 of this record itself ([`CellRecord::seal`]): its metrics and everything else
    /// it says. Set by [`ResultStore::save`].
    pub record_sha256: String,
}

impl CellRecord {
    /// The sha256 that seals the record: of its JSON with `record_sha256` empty, keys sorted
    /// and no whitespace, so that the layout of the file does not matter, only what it says.
    pub fn seal(&self) -> Result<String> {
        let bad = |e: serde_json::Error| RunnerError::Serialize {
            what: format!("the record of cell {}", self.key),
            reason: e.to_string(),
        };
        let mut value = serde_json::to_value(self).map_err(bad)?;
        value["record_sha256"] = serde_json::Value::String(String::new());
        Ok(sha256_hex(&serde_json::to_vec(&value).map_err(bad)?))
    }
}

/// What checking a stored cell found ([`verify_cell`]).
#[derive(Debug, Clone, PartialEq)]
pub enum CellCheck {
    /// Record, scores and model present, each matching its sha256.
    Sound(Box<CellRecord>),
    /// No record: never computed, or deleted.
    Missing,
    /// There but not to be trusted; why, in a few words.
    Damaged(String),
}

/// Checks the stored cell `key` without reading any data: its record parses, is of this
/// [`FORMAT`] and this key, and its own sha256, its scores' and its model's all match. Cheap
/// (three files hashed); `ltr run` and `ltr report` call it for every cell they use.
pub fn verify_cell(store: &ResultStore, key: &str) -> CellCheck {
    let path = store.record_path(key);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CellCheck::Missing,
        Err(e) => return CellCheck::Damaged(format!("record unreadable: {e}")),
    };
    let record: CellRecord = match serde_json::from_slice(&bytes) {
        Ok(r) => r,
        Err(e) => return CellCheck::Damaged(format!("record does not parse: {e}")),
    };
    if record.format != FORMAT {
        return CellCheck::Damaged(format!(
            "record of format {} (this build writes {FORMAT})",
            record.format
        ));
    }
    if record.key != key {
        return CellCheck::Damaged(format!("record of another cell ({})", record.key));
    }
    match record.seal() {
        Ok(h) if h == record.record_sha256 => {}
        Ok(_) => return CellCheck::Damaged("record edited (its sha256 does not match)".into()),
        Err(e) => return CellCheck::Damaged(e.to_string()),
    }
    for (what, path, expected) in [
        ("scores", store.scores_path(key), &record.scores_sha256),
        ("model", store.model_path(key), &record.model_sha256),
    ] {
        match std::fs::read(&path) {
            Ok(b) if sha256_hex(&b) == *expected => {}
            Ok(_) => return CellCheck::Damaged(format!("{what} file changed (its sha256 does not match)")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return CellCheck::Damaged(format!("{what} file missing"));
            }
            Err(e) => return CellCheck::Damaged(format!("{what} file unreadable: {e}")),
        }
    }
    CellCheck::Sound(Box::new(record))
}

/// Fit times of a cell (not part of the deterministic record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellTiming {
    /// Seconds fitting each grid point.
    pub fit_seconds: Vec<f64>,
    /// Seconds for the whole cell (all fits, validation, test scoring).
    pub total_seconds: f64,
    /// Rayon threads available.
    pub threads: usize,
}

/// The result store of one spec name.
#[derive(Debug, Clone)]
pub struct ResultStore {
    root: PathBuf,
}

impl ResultStore {
    /// Opens (creating) `<base>/<name>`; `name` must pass [`ltr_harness::spec::check_name`], so
    /// the store is always a direct child of `base`.
    pub fn open(base: &Path, name: &str) -> Result<Self> {
        ltr_harness::spec::check_name(name)
            .map_err(|e| RunnerError::store(base, format!("store name {name:?}: {e}")))?;
        let root = base.join(name);
        std::fs::create_dir_all(root.join("cells")).map_err(|e| RunnerError::store(&root, e))?;
        // A run killed mid-write leaves a temporary file; nothing reads it, so it goes.
        for dir in [root.clone(), root.join("cells")] {
            match ltr_core::fs::remove_stale_temp_files(&dir) {
                Ok(0) => {}
                Ok(n) => log::info!("removed {n} temporary files of ended runs from {}", dir.display()),
                Err(e) => log::warn!("{}: {e}", dir.display()),
            }
        }
        Ok(Self { root })
    }

    /// The store folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn cell_file(&self, key: &str, ext: &str) -> PathBuf {
        self.root.join("cells").join(format!("{key}.{ext}"))
    }

    /// Path of a cell's record.
    pub fn record_path(&self, key: &str) -> PathBuf {
        self.cell_file(key, "json")
    }

    /// Path of a cell's test scores.
    pub fn scores_path(&self, key: &str) -> PathBuf {
        self.cell_file(key, "scores")
    }

    /// Path of a cell's model.
    pub fn model_path(&self, key: &str) -> PathBuf {
        self.cell_file(key, "model.json")
    }

    /// The key of every record in `cells/` (sound or not), sorted.
    pub fn record_keys(&self) -> Result<std::collections::BTreeSet<String>> {
        let cells_dir = self.root.join("cells");
        let mut keys = std::collections::BTreeSet::new();
        let entries = std::fs::read_dir(&cells_dir).map_err(|e| RunnerError::store(&cells_dir, e))?;
        for e in entries {
            let name =
                e.map_err(|e| RunnerError::store(&cells_dir, e))?.file_name().to_string_lossy().into_owned();
            if let Some(key) = name.strip_suffix(".json")
                && !key.ends_with(".model")
                && !key.ends_with(".timing")
                && !name.starts_with('.')
            {
                keys.insert(key.to_owned());
            }
        }
        Ok(keys)
    }

    /// Path of a cell's timing.
    pub fn timing_path(&self, key: &str) -> PathBuf {
        self.cell_file(key, "timing.json")
    }

    /// The record of a finished, sound cell ([`verify_cell`]), if any. A damaged one (e.g.
    /// from an older format, or with a file changed since) counts as absent, with a warning.
    pub fn load(&self, key: &str) -> Option<CellRecord> {
        match verify_cell(self, key) {
            CellCheck::Sound(r) => Some(*r),
            CellCheck::Missing => None,
            CellCheck::Damaged(why) => {
                log::warn!("ignoring damaged cell {}: {why}", self.record_path(key).display());
                None
            }
        }
    }

    /// [`verify_cell`] on this store.
    pub fn check(&self, key: &str) -> CellCheck {
        verify_cell(self, key)
    }

    /// Fit times of a cell, if recorded.
    pub fn load_timing(&self, key: &str) -> Option<CellTiming> {
        serde_json::from_slice(&std::fs::read(self.timing_path(key)).ok()?).ok()
    }

    /// The selected model of a cell, read from either layout its file may have: the
    /// [`ModelFile`] this version writes (what `ltr train` writes, so `ltr predict` and
    /// `ltr explain` read it), or the bare model (`{"algorithm": .., "model": ..}`) that
    /// stores written before it hold. Both are checked as they are read; the file is not
    /// rewritten, since its record holds the sha256 of its bytes.
    pub fn load_model(&self, key: &str) -> Result<AnyModel> {
        let path = self.model_path(key);
        let bytes = std::fs::read(&path).map_err(|e| RunnerError::store(&path, e))?;
        read_model_any(&bytes).map_err(|e| RunnerError::store(&path, format!("model does not parse: {e}")))
    }

    /// Persists a finished cell: scores, model and timing first, the record last, sealed
    /// with the sha256 of the scores and model files and its own ([`CellRecord::seal`]).
    /// Returns the record as written.
    pub fn save(
        &self,
        mut record: CellRecord,
        scores: &[f64],
        model: &ModelFile,
        timing: &CellTiming,
    ) -> Result<CellRecord> {
        let key = record.key.clone();
        let scores = format_scores(scores).into_bytes();
        let model = model.to_json()?.into_bytes();
        record.scores_sha256 = sha256_hex(&scores);
        record.model_sha256 = sha256_hex(&model);
        record.record_sha256 = String::new();
        record.record_sha256 = record.seal()?;
        write_atomic(&self.scores_path(&key), &scores)?;
        write_atomic(&self.model_path(&key), &model)?;
        write_atomic(&self.timing_path(&key), &to_json(timing, &self.timing_path(&key))?)?;
        write_atomic(&self.record_path(&key), &to_json(&record, &self.record_path(&key))?)?;
        Ok(record)
    }

    /// Writes a JSON document at the store root (e.g. `run.json`).
    pub fn save_json<T: Serialize>(&self, file: &str, value: &T) -> Result<()> {
        let path = self.root.join(file);
        write_atomic(&path, &to_json(value, &path)?)
    }

    /// Reads a JSON document at the store root.
    pub fn load_json<T: serde::de::DeserializeOwned>(&self, file: &str) -> Result<T> {
        let path = self.root.join(file);
        let bytes = std::fs::read(&path).map_err(|e| RunnerError::store(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| RunnerError::store(&path, e))
    }
}

/// A model from a model file's text ([`ModelFile::from_json`], checked) or, failing that,
/// from a bare model's (`{"algorithm": .., "model": ..}`, checked as it is deserialised).
/// The error is the model file's when the text is neither.
pub fn read_model_any(bytes: &[u8]) -> Result<AnyModel> {
    match ModelFile::from_json(bytes) {
        Ok(file) => Ok(file.model),
        Err(e) => match serde_json::from_slice::<serde_json::Value>(bytes) {
            // A bare model has no `config`; anything with one is a model file and keeps its error.
            Ok(v) if v.get("config").is_none() && v.get("algorithm").is_some() => serde_json::from_value(v)
                .map_err(|b| HarnessError::from(ltr_core::Error::model(b.to_string())).into()),
            _ => Err(e.into()),
        },
    }
}

/// Scores as text: one per line, shortest representation that reads back to the same `f64`.
pub fn format_scores(scores: &[f64]) -> String {
    let mut s = String::with_capacity(scores.len() * 20);
    for x in scores {
        s += &format!("{x}\n");
    }
    s
}

fn to_json<T: Serialize>(value: &T, path: &Path) -> Result<Vec<u8>> {
    let mut v = serde_json::to_vec_pretty(value).map_err(|e| RunnerError::store(path, e))?;
    v.push(b'\n');
    Ok(v)
}

/// Writes `bytes` to `path` atomically ([`ltr_core::fs::write_atomic`]), naming the file in
/// the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    ltr_core::fs::write_atomic(path, bytes).map_err(|e| RunnerError::store(path, e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;

    use super::*;

    fn file(name: &str) -> DataFile {
        DataFile { rel: format!("D/Fold1/{name}.txt"), sha256: format!("{name:0>64}") }
    }

    fn dataset() -> DatasetInput {
        let fold = FoldFiles { fold: 1, train: file("train"), vali: file("vali"), test: file("test") };
        crate::fixture::input(PathBuf::from("/nowhere"), vec![fold])
    }

    /// label -> key of every algorithm of the letor3 spec on fold 1 of a made-up dataset.
    fn keys(code: &CodeHashes) -> Vec<(String, String)> {
        let spec = ExperimentSpec::builtin("letor3").unwrap();
        let d = dataset();
        spec.algorithms
            .iter()
            .map(|e| (e.label.clone(), cell_key(code, &spec, &d, &d.folds[0], e).unwrap()))
            .collect()
    }

    /// The labels whose keys differ after `change` alters the code table.
    fn moved(change: impl FnOnce(&mut CodeHashes)) -> Vec<String> {
        let code = CodeHashes::builtin();
        let mut altered = code.clone();
        change(&mut altered);
        keys(&code).into_iter().zip(keys(&altered)).filter(|(a, b)| a != b).map(|(a, _)| a.0).collect()
    }

    fn touch(krate: &'static str) -> impl FnOnce(&mut CodeHashes) {
        move |code| code.crates.get_mut(krate).unwrap().sources = "0".repeat(64)
    }

    fn every_label() -> Vec<String> {
        ExperimentSpec::builtin("letor3").unwrap().algorithms.into_iter().map(|a| a.label).collect()
    }

    #[test]
    fn changing_lambdamart_changes_only_lambdamart_cells() {
        assert_eq!(moved(touch("ltr-lambdamart")), ["lambdamart"]);
        // A crate shared by several algorithms moves them and nothing else: the entries whose
        // algorithm's crate depends on it, found through the registry and the graph, so that a
        // new tree algorithm needs no edit here.
        let code = CodeHashes::builtin();
        let on_trees = |id: &str| code.closure(&crate_of(id).unwrap()).unwrap().contains_key("ltr-trees");
        let expected: Vec<String> = ExperimentSpec::builtin("letor3")
            .unwrap()
            .algorithms
            .into_iter()
            .filter(|a| on_trees(&a.id))
            .map(|a| a.label)
            .collect();
        assert!(expected.iter().any(|l| l == "lambdamart"), "{expected:?}");
        assert!(expected.len() < every_label().len(), "{expected:?}");
        assert_eq!(moved(touch("ltr-trees")), expected);
    }

    #[test]
    fn changing_the_core_the_reader_or_the_metrics_changes_every_cell() {
        for krate in ["ltr-core", "ltr-data", "ltr-metrics"] {
            assert_eq!(moved(touch(krate)), every_label(), "{krate}");
        }
    }

    #[test]
    fn changing_the_numbers_crate_or_the_lock_file_changes_every_cell() {
        assert_eq!(moved(touch(crate::code::NUMBERS_CRATE)), every_label());
        assert_eq!(moved(|c| c.cargo_lock = "0".repeat(64)), every_label());
        // Keys are stable for the same inputs, and differ per fold file hash.
        let code = CodeHashes::builtin();
        assert_eq!(keys(&code), keys(&code));
    }

    #[test]
    fn changing_the_runner_or_the_report_changes_no_cell() {
        assert!(moved(touch("ltr-runner")).is_empty());
        // The report crate sits above the runner and is not in this crate's table: a table
        // that holds it (depending on the runner and the harness, as it does) keys every cell
        // the same whatever its sources.
        let report = |sources: &str| {
            let sources = sources.to_owned();
            move |c: &mut CodeHashes| {
                let deps = ["ltr-core", "ltr-harness", "ltr-metrics", "ltr-runner"];
                let deps = deps.map(str::to_owned).to_vec();
                c.crates.insert("ltr-report".into(), crate::code::CrateCode { sources, deps });
            }
        };
        assert!(moved(report(&"1".repeat(64))).is_empty());
        assert!(moved(report(&"2".repeat(64))).is_empty());
    }

    #[test]
    fn a_normalisation_changes_the_keys_of_its_dataset_and_none_leaves_them_as_they_were() {
        let code = CodeHashes::builtin();
        let mut spec = ExperimentSpec::builtin("letor3").unwrap();
        let d = dataset();
        let key =
            |spec: &ExperimentSpec| cell_key(&code, spec, &d, &d.folds[0], &spec.algorithms[0]).unwrap();
        let before = key(&spec);
        spec.set_normalization("d", Normalization::None);
        assert_eq!(key(&spec), before, "none is no key material");
        spec.set_normalization("D", Normalization::QueryMinmax);
        let minmax = key(&spec);
        spec.set_normalization("D", Normalization::Zscore);
        assert!(minmax != before && key(&spec) != minmax);
        // Another dataset's normalisation is not this dataset's key material.
        spec.set_normalization("D", Normalization::None);
        spec.set_normalization("OHSUMED", Normalization::Zscore);
        assert_eq!(key(&spec), before);
    }

    /// A spec without `seeds` and one with `seeds = 1` key a cell alike, and as stores written
    /// before further seeds existed did (the key material then has no `seeds` field at all);
    /// more seeds key another cell.
    #[test]
    fn one_seed_keys_a_cell_as_before_and_more_seeds_another() {
        let mut code = CodeHashes::builtin();
        for c in code.crates.values_mut() {
            c.sources = "0".repeat(64);
        }
        code.cargo_lock = "0".repeat(64);
        let d = dataset();
        let key = |text: &str| {
            let spec = ExperimentSpec::parse(text, std::path::Path::new("t.toml")).unwrap();
            cell_key(&code, &spec, &d, &d.folds[0], &spec.algorithms[0]).unwrap()
        };
        let base = "name = \"t\"\ncollection = \"letor3\"\ndatasets = [\"D\"]\nseed = 3\n\n\
                    [[algorithms]]\nid = \"listnet\"\ngrid = { hidden = [0, 8] }\n";
        let without = key(base);
        assert_eq!(key(&base.replace("seed = 3", "seed = 3\nseeds = 1")), without);
        assert_ne!(key(&base.replace("seed = 3", "seed = 3\nseeds = 3")), without);
    }

    #[test]
    fn concurrent_writes_to_one_path_never_share_a_temporary_file() {
        // Two threads of one process writing the same file (the same cell listed twice, or
        // two runs' `run.json`) must each write through a temporary file of their own: a
        // shared one is truncated under the other writer or renamed away before its rename.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cell.json");
        let values: Vec<Vec<u8>> = (0..8).map(|t| format!("{t}").repeat(50_000).into_bytes()).collect();
        std::thread::scope(|s| {
            for v in &values {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..40 {
                        write_atomic(path, v).unwrap();
                    }
                });
            }
        });
        let last = std::fs::read(&path).unwrap();
        assert!(values.contains(&last), "the file is a mix of writes");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 1, "temporary files left behind: {left:?}");
    }

    #[test]
    fn a_store_is_always_a_direct_child_of_its_base() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x", "", "/abs", ".x"] {
            assert!(ResultStore::open(dir.path(), bad).is_err(), "{bad:?}");
        }
        assert!(ResultStore::open(dir.path(), "ok").unwrap().root().ends_with("ok"));
    }

    #[test]
    fn a_crate_missing_from_the_table_is_an_error_not_a_silent_key() {
        let mut code = CodeHashes::builtin();
        code.crates.remove("ltr-metrics");
        let spec = ExperimentSpec::builtin("letor3").unwrap();
        let d = dataset();
        let e = cell_key(&code, &spec, &d, &d.folds[0], &spec.algorithms[0]).unwrap_err().to_string();
        assert!(e.contains("ltr-metrics"), "{e}");
    }
}
