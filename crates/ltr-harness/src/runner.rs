//! The runner: every dataset x fold x algorithm cell of a spec through the protocol
//! ([`crate::protocol`]), persisted as soon as it finishes.
//!
//! Cells run in parallel (rayon); every random decision comes from a seed derived from the
//! master seed and the cell's names before any parallel work starts, and results are
//! collected by index, so the records are identical at any thread count. Finished cells are
//! found by key and never recomputed unless forced.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::code::CodeHashes;
use crate::error::{HarnessError, Result};
use crate::protocol::{self, Splits};
use crate::spec::{AlgorithmEntry, ExperimentSpec};
use crate::store::{CellRecord, CellTiming, FORMAT, GridPoint, ResultStore, cell_key};
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
    /// A cell finished (computed now).
    fn cell_done(&self, _dataset: &str, _fold: u32, _label: &str) {}
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

/// A planned cell.
#[derive(Debug, Clone)]
struct Cell<'a> {
    key: String,
    dataset: &'a DatasetInput,
    fold: &'a FoldFiles,
    entry: &'a AlgorithmEntry,
}

/// Runs a spec over the given datasets (unavailable ones are carried into the record).
pub fn run(
    spec: &ExperimentSpec,
    datasets: &[DatasetStatus],
    store: &ResultStore,
    opts: &RunOptions,
    progress: &dyn RunProgress,
) -> Result<RunRecord> {
    let started = Instant::now();
    let mut cells = Vec::new();
    for status in datasets {
        let DatasetStatus::Available(d) = status else { continue };
        for entry in &spec.algorithms {
            for fold in d.folds.iter().filter(|f| spec.folds.contains(&f.fold)) {
                let key = cell_key(&opts.code, spec, d, fold, entry)?;
                cells.push(Cell { key, dataset: d, fold, entry });
            }
        }
    }
    if cells.is_empty() {
        return Err(HarnessError::NothingToRun { reason: nothing_to_run(spec, datasets) });
    }
    let pending: Vec<&Cell<'_>> =
        cells.iter().filter(|c| opts.force || store.load(&c.key).is_none()).collect();
    progress.start(cells.len(), cells.len() - pending.len());
    log::info!(
        "{}: {} cells, {} already in {}",
        spec.name,
        cells.len(),
        cells.len() - pending.len(),
        store.root().display()
    );

    let mut failed = Vec::new();
    // Dataset by dataset, fold by fold: each fold's splits are read once and shared by all
    // algorithms; within a fold the cells run in parallel.
    for status in datasets {
        let DatasetStatus::Available(d) = status else { continue };
        for fold in &d.folds {
            let todo: Vec<&Cell<'_>> = pending
                .iter()
                .copied()
                .filter(|c| c.dataset.name == d.name && c.fold.fold == fold.fold)
                .collect();
            if todo.is_empty() {
                continue;
            }
            let splits = match protocol::read_fold(spec, d, fold.fold) {
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
            let outcomes: Vec<Result<()>> = todo
                .par_iter()
                .map(|c| {
                    let r = run_cell(spec, c, &splits, store, &opts.binary);
                    progress.cell_done(&c.dataset.name, c.fold.fold, &c.entry.label);
                    r
                })
                .collect();
            for (c, outcome) in todo.iter().zip(outcomes) {
                if let Err(e) = outcome {
                    log::error!("{e}");
                    failed.push(FailedCell {
                        dataset: d.name.clone(),
                        fold: fold.fold,
                        label: c.entry.label.clone(),
                        error: e.to_string(),
                    });
                }
            }
        }
    }
    let record = RunRecord {
        name: spec.name.clone(),
        spec_source: spec.source.clone(),
        collection: spec.collection.clone(),
        seed: spec.seed,
        datasets: datasets.to_vec(),
        cells: cells.iter().map(|c| c.key.clone()).collect(),
        failed,
        computed: pending.len(),
        wall_seconds: started.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    store.save_json("run.json", &record)?;
    Ok(record)
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

fn run_cell(
    spec: &ExperimentSpec,
    c: &Cell<'_>,
    splits: &Splits,
    store: &ResultStore,
    binary: &str,
) -> Result<()> {
    let started = Instant::now();
    let out = protocol::run_on_splits(spec, c.dataset, c.fold.fold, c.entry, splits)?;
    let summary = &out.evaluation.summary;
    log::info!(
        "{} fold {} {}: test NDCG@10 {:.4} MAP {:.4} (fit {:.2} s)",
        c.dataset.name,
        c.fold.fold,
        c.entry.label,
        summary.ndcg.get(9).copied().unwrap_or(f64::NAN),
        summary.map,
        out.fit_seconds.get(out.chosen).copied().unwrap_or(f64::NAN)
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
            .map(|(config, &vali)| GridPoint { config: config.clone(), vali })
            .collect(),
        chosen: out.chosen,
        test: out.evaluation.summary,
        per_query: out.evaluation.per_query,
        model_stats: out.model_stats,
        binary: binary.to_owned(),
    };
    let timing = CellTiming {
        fit_seconds: out.fit_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    };
    store.save(&record, &out.test_scores, &out.model, &timing)
}
