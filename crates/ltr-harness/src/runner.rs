//! The runner: for each dataset x fold x algorithm, fit every grid point on train, select on
//! vali, score test, evaluate, persist at once.
//!
//! Cells run in parallel (rayon); every random decision comes from a seed derived from the
//! master seed and the cell's names before any parallel work starts, and results are
//! collected by index, so the records are identical at any thread count. Finished cells are
//! found by key and never recomputed unless forced.

use std::time::Instant;

use ltr_core::{Dataset, Rng, Validation, derive_seed};
use ltr_data::folds::locate;
use ltr_data::reader::{ReadOptions, read_file};
use ltr_metrics::{Criterion, EvalConfig, evaluate_dataset};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{HarnessError, Result};
use crate::registry::{AlgoConfig, AnyModel};
use crate::spec::{AlgorithmEntry, ExperimentSpec};
use crate::store::{CellRecord, CellTiming, FORMAT, GridPoint, ResultStore};
pub use ltr_data::resolved::{DataFile, DatasetInput, DatasetStatus, FoldFiles};

/// Run options.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Recompute cells even when a record exists.
    pub force: bool,
    /// Identity of the code that computes (the CLI passes the sha256 of its executable), part
    /// of every cell key: a rebuilt binary never reuses cells computed by another build.
    pub code: String,
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

/// What determines a cell; its sha256 is the cell key.
#[derive(Serialize)]
struct KeyMaterial<'a> {
    format: u32,
    version: &'a str,
    code: &'a str,
    dataset: &'a str,
    variant: &'a str,
    fold: u32,
    train: &'a DataFile,
    vali: &'a DataFile,
    test: &'a DataFile,
    seed: u64,
    label: &'a str,
    grid: &'a [AlgoConfig],
    validation: &'a Criterion,
    eval: &'a EvalConfig,
}

/// A planned cell.
#[derive(Debug, Clone)]
struct Cell<'a> {
    key: String,
    dataset: &'a DatasetInput,
    fold: &'a FoldFiles,
    entry: &'a AlgorithmEntry,
    eval: EvalConfig,
    criterion: Criterion,
}

/// Evaluation config of a dataset under a spec.
pub fn eval_config(spec: &ExperimentSpec, dataset: &DatasetInput) -> EvalConfig {
    EvalConfig::official(spec.convention.unwrap_or(dataset.convention))
}

/// The key of a cell.
pub fn cell_key(
    spec: &ExperimentSpec,
    dataset: &DatasetInput,
    fold: &FoldFiles,
    entry: &AlgorithmEntry,
    code: &str,
) -> String {
    let eval = eval_config(spec, dataset);
    let criterion = Criterion::new(entry.validation_metric, eval);
    let material = KeyMaterial {
        format: FORMAT,
        version: env!("CARGO_PKG_VERSION"),
        code,
        dataset: &dataset.name,
        variant: &dataset.variant,
        fold: fold.fold,
        train: &fold.train,
        vali: &fold.vali,
        test: &fold.test,
        seed: spec.seed,
        label: &entry.label,
        grid: &entry.grid,
        validation: &criterion,
        eval: &eval,
    };
    let bytes = serde_json::to_vec(&material).unwrap_or_default();
    ltr_data::reader::hex(&Sha256::digest(&bytes))
}

/// The seed of one grid point: named by dataset, variant, fold, label and the point's
/// parameters (so adding a grid point changes no other point's seed).
pub fn point_seed(master: u64, dataset: &DatasetInput, fold: u32, label: &str, config: &AlgoConfig) -> u64 {
    let params = serde_json::to_string(config).unwrap_or_default();
    derive_seed(master, &[&dataset.name, &dataset.variant, &format!("fold{fold}"), label, &params])
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
        let eval = eval_config(spec, d);
        for entry in &spec.algorithms {
            for fold in d.folds.iter().filter(|f| spec.folds.contains(&f.fold)) {
                cells.push(Cell {
                    key: cell_key(spec, d, fold, entry, &opts.code),
                    dataset: d,
                    fold,
                    entry,
                    eval,
                    criterion: Criterion::new(entry.validation_metric, eval),
                });
            }
        }
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
            let splits = match load_splits(d, fold) {
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
                    let r = run_cell(spec, c, &splits, store);
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

/// The three splits of a fold, read from the collection root.
#[derive(Debug)]
pub struct Splits {
    /// Training split.
    pub train: Dataset,
    /// Validation split.
    pub vali: Dataset,
    /// Test split.
    pub test: Dataset,
}

fn load_splits(d: &DatasetInput, fold: &FoldFiles) -> Result<Splits> {
    let opts = ReadOptions {
        n_features: Some(d.features),
        missing_token: d.missing_token.clone(),
        ..ReadOptions::default()
    };
    let read = |f: &DataFile| -> Result<Dataset> {
        let path = locate(&d.root, &f.rel).ok_or_else(|| HarnessError::Store {
            path: d.root.join(&f.rel),
            reason: "data file missing (fetch the dataset first)".into(),
        })?;
        Ok(read_file(&path, &opts)?.dataset)
    };
    let (train, (vali, test)) =
        rayon::join(|| read(&fold.train), || rayon::join(|| read(&fold.vali), || read(&fold.test)));
    Ok(Splits { train: train?, vali: vali?, test: test? })
}

fn run_cell(spec: &ExperimentSpec, c: &Cell<'_>, splits: &Splits, store: &ResultStore) -> Result<()> {
    let started = Instant::now();
    let cell_err = |e: Box<dyn std::error::Error + Send + Sync>| HarnessError::Cell {
        dataset: c.dataset.name.clone(),
        fold: c.fold.fold,
        algorithm: c.entry.label.clone(),
        source: e,
    };
    let valid = Validation { data: &splits.vali, measure: &c.criterion };
    let fitted: Vec<(f64, AnyModel, f64)> = c
        .entry
        .grid
        .par_iter()
        .map(|config| -> ltr_core::Result<(f64, AnyModel, f64)> {
            let mut rng = Rng::new(point_seed(spec.seed, c.dataset, c.fold.fold, &c.entry.label, config));
            let t = Instant::now();
            let model = config.fit(&splits.train, Some(&valid), &mut rng)?;
            let secs = t.elapsed().as_secs_f64();
            let v = valid.evaluate(&model.score_vec(&splits.vali)?)?;
            log::debug!(
                "{} fold {} {} {}: vali {} = {v:.6} ({secs:.3} s)",
                c.dataset.name,
                c.fold.fold,
                c.entry.label,
                serde_json::to_string(config).unwrap_or_default(),
                c.criterion.metric,
            );
            Ok((v, model, secs))
        })
        .collect::<ltr_core::Result<_>>()
        .map_err(|e| cell_err(Box::new(e)))?;

    // The first best point wins ties; NaN never wins.
    let mut chosen = 0;
    for (i, (v, _, _)) in fitted.iter().enumerate() {
        let best = fitted[chosen].0;
        if *v > best || (best.is_nan() && !v.is_nan()) {
            chosen = i;
        }
    }
    let model = &fitted[chosen].1;
    let scores = model.score_vec(&splits.test).map_err(|e| cell_err(Box::new(e)))?;
    let eval = evaluate_dataset(&splits.test, &scores, &c.eval).map_err(|e| cell_err(Box::new(e)))?;
    log::info!(
        "{} fold {} {}: test NDCG@10 {:.4} MAP {:.4} (fit {:.2} s)",
        c.dataset.name,
        c.fold.fold,
        c.entry.label,
        eval.summary.ndcg.get(9).copied().unwrap_or(f64::NAN),
        eval.summary.map,
        fitted[chosen].2
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
        validation: c.criterion,
        eval: c.eval,
        grid: c
            .entry
            .grid
            .iter()
            .zip(&fitted)
            .map(|(config, f)| GridPoint { config: config.clone(), vali: f.0 })
            .collect(),
        chosen,
        test: eval.summary,
        per_query: eval.per_query,
    };
    let timing = CellTiming {
        fit_seconds: fitted.iter().map(|f| f.2).collect(),
        total_seconds: started.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    };
    store.save(&record, &scores, model, &timing)
}
