//! The runner: every dataset x fold x algorithm cell of a spec through the protocol
//! ([`ltr_harness::protocol`]), persisted as soon as it finishes.
//!
//! Cells run in parallel (rayon); every random decision comes from a seed derived from the
//! master seed and the cell's names before any parallel work starts, and results are
//! collected by index, so the records are identical at any thread count. Finished cells are
//! found by key and never recomputed unless forced.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use ltr_harness::protocol::{self, Splits};
use ltr_harness::registry::ModelFile;
use ltr_harness::spec::{AlgorithmEntry, ExperimentSpec};
use ltr_harness::{HarnessError, feature_scale};

use crate::code::CodeHashes;
use crate::error::{Result, RunnerError};
use crate::progress::{CellDone, Estimator};
use crate::store::{CellCheck, CellRecord, CellTiming, FORMAT, GridPoint, ResultStore, cell_key};
pub use ltr_data::resolved::{DataFile, DatasetInput, DatasetStatus, FoldFiles};

/// Run options.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Recompute cells even when a record exists.
    pub force: bool,
    /// The code hashes that key the cells ([`CodeHashes::builtin`]).
    pub code: CodeHashes,
    /// sha256 of the executable, recorded in each computed cell as provenance.
    pub binary: String,
}

impl RunOptions {
    /// Options for this build's code, recording `binary` as provenance.
    pub fn new(binary: String) -> Self {
        Self { force: false, code: CodeHashes::builtin(), binary }
    }
}

/// Progress callbacks (the CLI draws a bar).
pub trait RunProgress: Sync {
    /// Number of cells in the run and how many are already done.
    fn start(&self, _total: usize, _cached: usize) {}
    /// A cell finished (computed now, or failed), with the run's time so far and left.
    fn cell_done(&self, _cell: &CellDone<'_>) {}
    /// Where the progress inside each grid point's fit goes (rounds, epochs, iterations),
    /// if anywhere: it is set on the thread of each cell, named after the cell.
    fn fits(&self) -> Option<Arc<dyn ltr_core::progress::Progress>> {
        None
    }
}

/// No progress reporting.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl RunProgress for NoProgress {}

/// A failed cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedCell {
    /// Dataset.
    pub dataset: String,
    /// Fold.
    pub fold: u32,
    /// Algorithm label.
    pub label: String,
    /// The error.
    pub error: String,
}

/// What a run did (`run.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Spec name.
    pub name: String,
    /// Spec source.
    pub spec_source: String,
    /// Collection.
    pub collection: String,
    /// Master seed.
    pub seed: u64,
    /// Every dataset of the spec and whether it was available.
    pub datasets: Vec<DatasetStatus>,
    /// Keys of the cells of this run, ordered by dataset, algorithm, fold (spec order).
    pub cells: Vec<String>,
    /// What each of `cells` is, in the same order (`OHSUMED fold 1 regression`), so that a
    /// cell whose record is gone can still be named.
    #[serde(default)]
    pub cell_names: Vec<String>,
    /// Cells that failed.
    pub failed: Vec<FailedCell>,
    /// Cells computed by this invocation (the rest were found in the store).
    pub computed: usize,
    /// Wall time of this invocation, seconds.
    pub wall_seconds: f64,
    /// Rayon threads.
    pub threads: usize,
    /// Version of the harness that ran.
    pub version: String,
}

impl RunRecord {
    /// Cells taken from the store rather than computed.
    pub fn from_store(&self) -> usize {
        self.cells.len() - self.computed
    }
}

/// A cell of a spec: a dataset fold and an algorithm entry (its whole grid: selection on
/// vali needs every point), with its content-addressed key.
#[derive(Debug, Clone)]
pub struct PlannedCell<'a> {
    /// The cell key ([`cell_key`]).
    pub key: String,
    /// The dataset.
    pub dataset: &'a DatasetInput,
    /// The fold's files.
    pub fold: &'a FoldFiles,
    /// The algorithm entry.
    pub entry: &'a AlgorithmEntry,
}

impl PlannedCell<'_> {
    /// `OHSUMED fold 1 regression`.
    pub fn name(&self) -> String {
        format!("{} fold {} {}", self.dataset.name, self.fold.fold, self.entry.label)
    }
}

/// The most cells (datasets x algorithm entries x folds) a run or a plan lists, whatever
/// `--max-cells` allows: the list, with each cell's key and name, is kept in memory (about
/// 300 bytes a cell).
pub const MAX_RUN_CELLS: u64 = 1_000_000;

/// Every cell of `spec` over the available `datasets`, in the runner's one fixed order
/// (dataset, then algorithm, then fold, each in spec order), keyed with `code`. A fold the
/// spec asks for and a dataset lacks is the spec's error, and so are more than
/// [`MAX_RUN_CELLS`] cells (counted before the list is made); an empty list is not an error
/// here.
pub fn plan_cells<'a>(
    spec: &'a ExperimentSpec,
    datasets: &'a [DatasetStatus],
    code: &CodeHashes,
) -> Result<Vec<PlannedCell<'a>>> {
    let mut count = 0u64;
    for status in datasets {
        if let DatasetStatus::Available(d) = status {
            spec.check_folds(&d.name, &d.folds.iter().map(|f| f.fold).collect::<Vec<_>>())?;
            let folds = d.folds.iter().filter(|f| spec.folds.contains(&f.fold)).count() as u64;
            count = count.saturating_add(folds.saturating_mul(spec.algorithms.len() as u64));
        }
    }
    if count > MAX_RUN_CELLS {
        return Err(HarnessError::Spec {
            file: spec.source.clone().into(),
            reason: format!(
                "{count} cells (datasets x algorithms x folds), more than the {MAX_RUN_CELLS} a run \
                 lists: run fewer datasets or algorithms at a time"
            ),
        }
        .into());
    }
    let mut cells = Vec::with_capacity(count as usize);
    for status in datasets {
        let DatasetStatus::Available(d) = status else { continue };
        for entry in &spec.algorithms {
            for fold in d.folds.iter().filter(|f| spec.folds.contains(&f.fold)) {
                let key = cell_key(code, spec, d, fold, entry)?;
                cells.push(PlannedCell { key, dataset: d, fold, entry });
            }
        }
    }
    Ok(cells)
}

/// What [`run_cells`] did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CellsOutcome {
    /// Cells computed now.
    pub computed: usize,
    /// Cells found sound in the store and skipped.
    pub skipped: usize,
    /// Cells that failed.
    pub failed: Vec<FailedCell>,
}

/// Runs `spec`'s whole cell list over `datasets` into `store` and records the run in
/// `run.json`.
pub fn run(
    spec: &ExperimentSpec,
    datasets: &[DatasetStatus],
    store: &ResultStore,
    opts: &RunOptions,
    progress: &dyn RunProgress,
) -> Result<RunRecord> {
    let started = Instant::now();
    let cells = plan_cells(spec, datasets, &opts.code)?;
    if cells.is_empty() {
        return Err(RunnerError::NothingToRun { reason: nothing_to_run(spec, datasets) });
    }
    let selected: Vec<&PlannedCell<'_>> = cells.iter().collect();
    let outcome = run_cells(spec, datasets, &selected, store, opts, progress);
    let record = RunRecord {
        name: spec.name.clone(),
        spec_source: spec.source.clone(),
        collection: spec.collection.clone(),
        seed: spec.seed,
        datasets: datasets.to_vec(),
        cells: cells.iter().map(|c| c.key.clone()).collect(),
        cell_names: cells.iter().map(PlannedCell::name).collect(),
        failed: outcome.failed,
        computed: outcome.computed,
        wall_seconds: started.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    store.save_json("run.json", &record)?;
    Ok(record)
}

/// Runs only the given cells (a part of [`plan_cells`], e.g. one task of a cluster plan)
/// exactly as [`run`] would, without writing `run.json`: several such runs may share one
/// store, each writing only its own cells. Computes those that are not sound in the store
/// (all with `opts.force`).
pub fn run_cells(
    spec: &ExperimentSpec,
    datasets: &[DatasetStatus],
    cells: &[&PlannedCell<'_>],
    store: &ResultStore,
    opts: &RunOptions,
    progress: &dyn RunProgress,
) -> CellsOutcome {
    let pending: Vec<&PlannedCell<'_>> = cells
        .iter()
        .copied()
        .filter(|c| {
            opts.force
                || match store.check(&c.key) {
                    CellCheck::Sound(_) => false,
                    CellCheck::Missing => true,
                    CellCheck::Damaged(why) => {
                        log::warn!(
                            "{}: the stored cell {} is damaged ({why}); recomputing it",
                            c.name(),
                            c.key
                        );
                        true
                    }
                }
        })
        .collect();
    progress.start(cells.len(), cells.len() - pending.len());
    let estimator = Mutex::new(Estimator::new(
        pending.iter().map(|c| (c.key.as_str(), c.dataset.name.as_str(), c.entry.label.as_str())),
    ));
    let done = AtomicUsize::new(cells.len() - pending.len());
    let fits = progress.fits();
    log::info!(
        "{}: {} cells, {} already in {}",
        spec.name,
        cells.len(),
        cells.len() - pending.len(),
        store.root().display()
    );

    let mut failed = Vec::new();
    // Dataset by dataset, fold by fold: each fold's splits are read once and shared by all
    // algorithms; within a fold the cells run in parallel. When several folds of a dataset
    // whose folds are a rotation of subsets are pending, the subsets are parsed once for all
    // of them (and kept until the dataset is done).
    for status in datasets {
        let DatasetStatus::Available(d) = status else { continue };
        let pending_folds = d
            .folds
            .iter()
            .filter(|f| pending.iter().any(|c| c.dataset.name == d.name && c.fold.fold == f.fold));
        let mut subsets = None;
        let mut scale_checked = false;
        if pending_folds.count() > 1 {
            match protocol::Subsets::read(spec, d) {
                Ok(s) => {
                    if s.is_some() {
                        log::info!("{}: its subsets parsed once for all folds", d.name);
                    }
                    subsets = s;
                }
                Err(e) => log::warn!("{}: the subsets could not be read ({e}); reading fold by fold", d.name),
            }
        }
        for fold in &d.folds {
            let todo: Vec<&PlannedCell<'_>> = pending
                .iter()
                .copied()
                .filter(|c| c.dataset.name == d.name && c.fold.fold == fold.fold)
                .collect();
            if todo.is_empty() {
                continue;
            }
            let splits = match subsets
                .as_ref()
                .map_or_else(|| protocol::read_fold(spec, d, fold.fold), |s| s.fold(d, fold.fold))
            {
                Ok(s) => s,
                Err(e) => {
                    for c in &todo {
                        failed.push(FailedCell {
                            dataset: d.name.clone(),
                            fold: fold.fold,
                            label: c.entry.label.clone(),
                            error: e.to_string(),
                        });
                    }
                    continue;
                }
            };
            if !scale_checked {
                scale_checked = true;
                warn_unnormalised(spec, d, fold.fold, &splits);
            }
            let outcomes: Vec<Result<()>> = todo
                .par_iter()
                .map(|c| {
                    let name = c.name();
                    let lock = || estimator.lock().unwrap_or_else(PoisonError::into_inner);
                    lock().begin(&c.key);
                    let started = Instant::now();
                    let listener = fits.clone().map(|s| ltr_core::progress::Reporter::new(s, &name));
                    let r = ltr_core::progress::with(listener, || {
                        run_cell(spec, c, &splits, store, &opts.binary)
                    });
                    let seconds = started.elapsed().as_secs_f64();
                    let (elapsed, eta) = {
                        let mut e = lock();
                        e.finish(&c.key, seconds);
                        (e.elapsed(), e.estimate())
                    };
                    let cell = CellDone {
                        name: &name,
                        failed: r.is_err(),
                        seconds,
                        done: done.fetch_add(1, Ordering::Relaxed) + 1,
                        total: cells.len(),
                        elapsed,
                        eta,
                    };
                    // One line per cell, with the run's time so far and left.
                    if let Ok(summary) = &r {
                        log::info!("{name}: {summary}; {cell}");
                    }
                    progress.cell_done(&cell);
                    r.map(|_| ())
                })
                .collect();
            for (c, outcome) in todo.iter().zip(outcomes) {
                if let Err(e) = outcome {
                    log::error!("{e}");
                    // The cell is named beside the error wherever it is shown.
                    let error = match e {
                        RunnerError::Harness(HarnessError::Cell { source, .. }) => source.to_string(),
                        other => other.to_string(),
                    };
                    failed.push(FailedCell {
                        dataset: d.name.clone(),
                        fold: fold.fold,
                        label: c.entry.label.clone(),
                        error,
                    });
                }
            }
        }
    }
    CellsOutcome { computed: pending.len(), skipped: cells.len() - pending.len(), failed }
}

/// Warns, once per dataset, when it is read without normalisation, its training split's
/// features look unnormalised and the spec has algorithms that depend on feature scales.
fn warn_unnormalised(spec: &ExperimentSpec, d: &DatasetInput, fold: u32, splits: &Splits) {
    if !splits.normalizer.is_none() {
        return;
    }
    let labels: Vec<&str> = spec
        .algorithms
        .iter()
        .filter(|e| feature_scale::scale_sensitive(e))
        .map(|e| e.label.as_str())
        .collect();
    let hint = "normalise them with `normalize = \"query-minmax\"` (LETOR's QueryLevelNorm) in the \
                dataset's spec table, or `--normalize query-minmax` with `--data`";
    let what = format!("{} fold {fold}", d.name);
    if let Some(w) = feature_scale::unnormalised_warning(&what, &splits.train, &labels, hint) {
        log::warn!("{w}");
    }
}

/// Why a run has no cell: every dataset's reason, on one line.
fn nothing_to_run(spec: &ExperimentSpec, datasets: &[DatasetStatus]) -> String {
    let reasons: Vec<String> = datasets
        .iter()
        .map(|d| match d {
            DatasetStatus::Unavailable { name, reason } => format!("{name}: {reason}"),
            DatasetStatus::Available(x) => format!(
                "{}: none of folds {} (it has {})",
                x.name,
                join(&spec.folds),
                join(&x.folds.iter().map(|f| f.fold).collect::<Vec<_>>())
            ),
        })
        .collect();
    if reasons.is_empty() {
        format!("{}: no dataset to run", spec.name)
    } else {
        format!("{}: no cell could run ({})", spec.name, reasons.join("; "))
    }
}

fn join(folds: &[u32]) -> String {
    folds.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Computes and saves one cell; says what it found: `test NDCG@10 0.4473 MAP 0.4512 (fit
/// 16.70 s, all 12 grid points 366.12 s)`.
fn run_cell(
    spec: &ExperimentSpec,
    c: &PlannedCell<'_>,
    splits: &Splits,
    store: &ResultStore,
    binary: &str,
) -> Result<String> {
    let started = Instant::now();
    let out = protocol::run_on_splits(spec, c.dataset, c.fold.fold, c.entry, splits)?;
    let untrained = out.errors.iter().filter(|e| e.is_some()).count();
    if untrained > 0 {
        log::warn!(
            "{}: {untrained} of its {} grid points could not be trained, selected among the others ({})",
            c.name(),
            out.errors.len(),
            protocol::untrained_points(c.entry, &out.errors)
        );
    }
    let summary = &out.evaluation.summary;
    let said = format!(
        "test NDCG@10 {:.4} MAP {:.4} (fit {:.2} s{})",
        summary.ndcg.get(9).copied().unwrap_or(f64::NAN),
        summary.map,
        out.fit_seconds.get(out.chosen).copied().unwrap_or(f64::NAN),
        match out.fit_seconds.len() {
            0 | 1 => String::new(),
            n => format!(", all {n} grid points {:.2} s", out.fit_seconds.iter().sum::<f64>()),
        }
    );
    let record = CellRecord {
        format: FORMAT,
        key: c.key.clone(),
        dataset: c.dataset.name.clone(),
        variant: c.dataset.variant.clone(),
        fold: c.fold.fold,
        label: c.entry.label.clone(),
        algorithm: c.entry.id.clone(),
        test_file: c.fold.test.rel.clone(),
        test_sha256: c.fold.test.sha256.clone(),
        validation: out.criterion,
        eval: out.eval,
        grid: c
            .entry
            .grid
            .iter()
            .zip(&out.vali)
            .zip(out.errors)
            .map(|((config, &vali), error)| GridPoint { config: config.clone(), vali, error })
            .collect(),
        chosen: out.chosen,
        test: out.evaluation.summary,
        per_query: out.evaluation.per_query,
        model_stats: out.model_stats,
        normalizer: out.normalizer.clone(),
        seed_runs: out.seed_runs,
        binary: binary.to_owned(),
        // Set by `save`.
        scores_sha256: String::new(),
        model_sha256: String::new(),
        record_sha256: String::new(),
    };
    let timing = CellTiming {
        fit_seconds: out.fit_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    };
    // The model file `ltr train` writes, with the normalisation its data went through, so
    // that `ltr predict` scores raw data as the cell did and `ltr explain` reads it.
    let (Some(config), Some(&seed)) = (c.entry.grid.get(out.chosen), out.seeds.get(out.chosen)) else {
        return Err(HarnessError::Cell {
            dataset: c.dataset.name.clone(),
            fold: c.fold.fold,
            algorithm: c.entry.label.clone(),
            source: format!("grid point {} chosen of {}", out.chosen, c.entry.grid.len()).into(),
        }
        .into());
    };
    let model = ModelFile {
        ltr_version: env!("CARGO_PKG_VERSION").to_owned(),
        config: config.clone(),
        seed,
        n_features: out.model.n_features(),
        model: out.model,
        normalizer: out.normalizer,
    };
    store.save(record, &out.test_scores, &model, &timing).map(|_| said)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_core::progress::{Fit, Progress};

    use super::*;
    use crate::fixture::{SPEC, dataset, options, spec};

    /// Hears every fit of a run and every cell's end.
    #[derive(Default)]
    struct Listener {
        fits: Mutex<Vec<String>>,
        cells: Mutex<Vec<(usize, usize, bool, bool)>>,
    }

    impl Progress for Listener {
        fn begin(&self, fit: &Fit) {
            self.fits.lock().unwrap().push(format!("begin {} {}/{}", fit.name, fit.point + 1, fit.points));
        }
        fn tick(&self, fit: &Fit, done: u64, total: u64, unit: &'static str) {
            assert!(done <= total);
            self.fits.lock().unwrap().push(format!("tick {} {} {unit}", fit.name, fit.point + 1));
        }
        fn end(&self, fit: &Fit) {
            self.fits.lock().unwrap().push(format!("end {} {}/{}", fit.name, fit.point + 1, fit.points));
        }
    }

    struct Shown(Arc<Listener>);

    impl RunProgress for Shown {
        fn cell_done(&self, c: &CellDone<'_>) {
            self.0.cells.lock().unwrap().push((c.done, c.total, c.eta.is_some(), c.failed));
        }
        fn fits(&self) -> Option<Arc<dyn Progress>> {
            Some(Arc::clone(&self.0) as Arc<dyn Progress>)
        }
    }

    #[test]
    fn a_listener_hears_every_grid_point_of_every_cell_and_changes_no_number() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let (quiet, shown) =
            (ResultStore::open(dir.path(), "q").unwrap(), ResultStore::open(dir.path(), "s").unwrap());
        let spec = spec(SPEC);
        let a = run(&spec, &data, &quiet, &options(), &NoProgress).unwrap();
        let listener = Arc::new(Listener::default());
        let b = run(&spec, &data, &shown, &options(), &Shown(Arc::clone(&listener))).unwrap();
        assert_eq!(a.cells, b.cells);
        for k in &a.cells {
            let read = |s: &ResultStore| std::fs::read(s.record_path(k)).unwrap();
            assert!(read(&quiet) == read(&shown), "cell {k} differs when listened to");
        }
        let fits = listener.fits.lock().unwrap().clone();
        for fold in [1, 2] {
            for (label, points) in [("regression", 2), ("prank", 1)] {
                for p in 1..=points {
                    let ended = format!("end D fold {fold} {label} {p}/{points}");
                    let begun = ended.replace("end", "begin");
                    let at = |e: &str| fits.iter().position(|f| f == e).unwrap();
                    assert!(at(&begun) < at(&ended), "{fits:?}");
                }
            }
            // PRank's epochs go through the SGD loop, which ticks.
            assert!(fits.contains(&format!("tick D fold {fold} prank 1 steps")), "{fits:?}");
        }
        assert_eq!(fits.iter().filter(|f| f.starts_with("begin")).count(), 6);
        let mut cells = listener.cells.lock().unwrap().clone();
        cells.sort_by_key(|c| c.0);
        assert_eq!(cells, (1..=4).map(|n| (n, 4, true, false)).collect::<Vec<_>>());
    }

    #[test]
    fn a_fold_the_dataset_lacks_is_a_spec_error() {
        let dir = tempfile::tempdir().unwrap();
        let d = dataset(dir.path());
        let store = ResultStore::open(dir.path(), "t").unwrap();
        let spec = spec(&SPEC.replace("folds = [1, 2]", "folds = [1, 9]"));
        let e = run(&spec, &[DatasetStatus::Available(d)], &store, &options(), &NoProgress).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("t.toml:") && e.contains("fold 9") && e.contains("D"), "{e}");
        // Nothing ran.
        assert_eq!(std::fs::read_dir(store.root().join("cells")).unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_cell_is_detected_and_recomputed() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let store = ResultStore::open(dir.path(), "t").unwrap();
        let spec = spec(SPEC);
        let first = run(&spec, &data, &store, &options(), &NoProgress).unwrap();
        assert_eq!((first.cells.len(), first.computed), (4, 4));
        let read = |p: std::path::PathBuf| std::fs::read(p).unwrap();
        let records: Vec<Vec<u8>> = first.cells.iter().map(|k| read(store.record_path(k))).collect();
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| first.cells[i].as_str());

        // A truncated score file, a deleted model, an edited metric, a flipped score byte.
        let scores = read(store.scores_path(a));
        std::fs::write(store.scores_path(a), &scores[..scores.len() / 2]).unwrap();
        std::fs::remove_file(store.model_path(b)).unwrap();
        let mut record: serde_json::Value = serde_json::from_slice(&read(store.record_path(c))).unwrap();
        record["test"]["map"] = serde_json::json!(0.999);
        std::fs::write(store.record_path(c), serde_json::to_vec_pretty(&record).unwrap()).unwrap();
        let mut scores = read(store.scores_path(d));
        let digit = scores.iter().position(|x| (b'1'..=b'8').contains(x)).unwrap();
        scores[digit] += 1;
        std::fs::write(store.scores_path(d), scores).unwrap();

        let again = run(&spec, &data, &store, &options(), &NoProgress).unwrap();
        assert_eq!(again.computed, 4, "damaged cells were reused");
        // Recomputed, they are what they were.
        for (k, r) in first.cells.iter().zip(&records) {
            assert!(read(store.record_path(k)) == *r, "cell {k} differs after recomputing");
        }
        let third = run(&spec, &data, &store, &options(), &NoProgress).unwrap();
        assert_eq!(third.computed, 0);
    }

    /// AdaRank-NDCG over queries of 5 documents: NDCG@10 is 0 for any order under letor3, so
    /// `k = 10` cannot train. The cell is selected among the points that trained and records
    /// the other with its reason; a cell none of whose points trains fails, naming them.
    #[test]
    fn a_grid_point_that_cannot_train_is_recorded_and_the_others_are_selected() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let store = ResultStore::open(dir.path(), "t").unwrap();
        let text = |grid: &str| {
            format!(
                "name = \"t\"\ncollection = \"letor3\"\ndatasets = [\"D\"]\nfolds = [1, 2]\nseed = 3\n\n\
                 [[algorithms]]\nid = \"adarank-ndcg\"\ngrid = {{ k = {grid} }}\n"
            )
        };
        let record = run(&spec(&text("[3, 10]")), &data, &store, &options(), &NoProgress).unwrap();
        assert!(record.failed.is_empty(), "{:?}", record.failed);
        for key in &record.cells {
            let cell: serde_json::Value =
                serde_json::from_slice(&std::fs::read(store.record_path(key)).unwrap()).unwrap();
            assert_eq!(cell["chosen"], 0, "{cell}");
            assert!(cell["grid"][0].get("error").is_none(), "{cell}");
            let e = cell["grid"][1]["error"].as_str().unwrap_or_else(|| panic!("{cell}"));
            assert!(e.contains("no training query whose measure depends on the ranking"), "{e}");
            assert!(cell["grid"][1]["vali"].is_null(), "{cell}");
            assert!(matches!(store.check(key), CellCheck::Sound(_)));
        }

        let record = run(&spec(&text("[10, 20]")), &data, &store, &options(), &NoProgress).unwrap();
        assert_eq!(record.failed.len(), 2, "{:?}", record.failed);
        let e = &record.failed[0].error;
        assert!(e.contains("none of its 2 grid points") && e.contains("k = 10, k = 20"), "{e}");
        assert!(e.contains("no training query whose measure depends on the ranking"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }

    #[test]
    fn a_grid_point_whose_validation_is_nan_reads_back() {
        let p = GridPoint {
            config: ltr_harness::AlgoConfig::default_for("regression").unwrap(),
            vali: f64::NAN,
            error: None,
        };
        let text = serde_json::to_string(&p).unwrap();
        // A point that trained is written as records were before points could fail.
        assert!(text.ends_with("\"vali\":null}"), "{text}");
        assert!(serde_json::from_str::<GridPoint>(&text).unwrap().vali.is_nan());
    }
}
