//! Comparison reports: `reports/<name>.md`, `.json` and `.csv` from a run's result store.
//!
//! * a header with the metric convention, selection metric, master seed, code version,
//!   dataset hashes and wall time;
//! * a survey-style summary table of the algorithms (family, year, loss, optimizer, datasets,
//!   compared with);
//! * per dataset, algorithms x NDCG@1/3/5/10, P@1/3/10, MAP as mean ± standard deviation
//!   over folds (aggregated with polars, rendered with tabled);
//! * the published reference numbers beside ours, with the difference;
//! * unavailable datasets, named with the reason.
//!
//! The JSON and CSV carry no timings and no wall-clock data: the same run gives the same bytes.

pub mod aggregate;
pub mod published;
mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ltr_harness::check::{MeanRow, MeansFile};
use ltr_harness::runner::{DatasetStatus, RunRecord};
use ltr_harness::spec::ExperimentSpec;
use ltr_harness::store::{CellRecord, CellTiming, ResultStore};
use ltr_metrics::Metric;
use serde::Serialize;

pub use aggregate::{Aggregate, FoldRow, METRICS};
pub use published::{Published, PublishedRow};

/// Errors of the report layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A missing or unreadable input.
    #[error("{}: {reason}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A polars failure.
    #[error("aggregation: {0}")]
    Polars(String),
    /// From the harness.
    #[error(transparent)]
    Harness(#[from] ltr_harness::HarnessError),
}

impl ReportError {
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> Self {
        Self::Input { path: path.to_owned(), reason: e.to_string() }
    }
}

impl From<polars::prelude::PolarsError> for ReportError {
    fn from(e: polars::prelude::PolarsError) -> Self {
        Self::Polars(e.to_string())
    }
}

/// Everything a report is made of.
#[derive(Debug, Clone)]
pub struct ReportInput {
    /// The spec that was run.
    pub spec: ExperimentSpec,
    /// The run record (`run.json`).
    pub run: RunRecord,
    /// Cell records, in the run's cell order (missing cells are skipped).
    pub cells: Vec<CellRecord>,
    /// Timings by cell key (markdown only).
    pub timings: BTreeMap<String, CellTiming>,
    /// Published numbers.
    pub published: Published,
    /// Collection title (`LETOR 3.0`).
    pub title: String,
    /// Code version string (`ltr 0.1.0 (git abc1234)`).
    pub code_version: String,
}

impl ReportInput {
    /// Reads the run record and every cell of a spec from its store.
    pub fn from_store(
        spec: ExperimentSpec,
        store: &ResultStore,
        published: Published,
        title: String,
        code_version: String,
    ) -> Result<Self, ReportError> {
        let run: RunRecord = store.load_json("run.json")?;
        let mut cells = Vec::new();
        let mut timings = BTreeMap::new();
        for key in &run.cells {
            if let Some(c) = store.load(key) {
                if let Some(t) = store.load_timing(key) {
                    timings.insert(key.clone(), t);
                }
                cells.push(c);
            }
        }
        Ok(Self { spec, run, cells, timings, published, title, code_version })
    }
}

/// A rendered report.
#[derive(Debug, Clone)]
pub struct Report {
    /// Markdown.
    pub markdown: String,
    /// Deterministic JSON.
    pub json: String,
    /// Deterministic CSV (means and standard deviations).
    pub csv: String,
}

/// One row of the JSON's per-fold table.
#[derive(Debug, Clone, Serialize)]
struct FoldJson<'a> {
    dataset: &'a str,
    algorithm: &'a str,
    fold: u32,
    cell: &'a str,
    chosen_params: serde_json::Value,
    validation: f64,
    metrics: BTreeMap<&'static str, f64>,
}

/// The value of a report metric column from a fold's test summary.
pub fn metric_value(cell: &CellRecord, name: &str) -> f64 {
    name.parse::<Metric>().ok().and_then(|m| m.of_summary(&cell.test)).unwrap_or(f64::NAN)
}

/// Builds the report.
pub fn build(input: &ReportInput) -> Result<Report, ReportError> {
    let rows: Vec<FoldRow> = ordered_cells(input)
        .iter()
        .map(|c| FoldRow {
            dataset: c.dataset.clone(),
            algorithm: c.label.clone(),
            fold: c.fold,
            metrics: METRICS.map(|m| metric_value(c, m)),
        })
        .collect();
    let aggs = aggregate::aggregate(&rows)?;
    let markdown = render::markdown(input, &aggs);
    let json = json(input, &aggs)?;
    let family: Vec<String> =
        aggs.iter().map(|a| algorithm_info(input, &a.algorithm).family.to_string()).collect();
    let conventions: Vec<String> = aggs.iter().map(|a| convention_of(input, &a.dataset)).collect();
    let csv = aggregate::to_csv(&aggs, &[("family", family), ("convention", conventions)])?;
    Ok(Report { markdown, json, csv })
}

/// Cells sorted by the spec's dataset order, algorithm order, then fold.
pub(crate) fn ordered_cells(input: &ReportInput) -> Vec<&CellRecord> {
    let ds = |d: &str| input.spec.datasets.iter().position(|x| x == d).unwrap_or(usize::MAX);
    let al = |l: &str| input.spec.algorithms.iter().position(|x| x.label == l).unwrap_or(usize::MAX);
    let mut cells: Vec<&CellRecord> = input.cells.iter().collect();
    cells.sort_by_key(|c| (ds(&c.dataset), al(&c.label), c.fold));
    cells
}

pub(crate) fn algorithm_info(input: &ReportInput, label: &str) -> &'static ltr_core::AlgorithmInfo {
    let id = input.spec.algorithms.iter().find(|a| a.label == label).map_or(label, |a| a.id.as_str());
    ltr_harness::registry::info(id).unwrap_or(&UNKNOWN)
}

static UNKNOWN: ltr_core::AlgorithmInfo = ltr_core::AlgorithmInfo {
    id: "?",
    name: "?",
    family: ltr_core::Family::Regression,
    year: 0,
    loss: ltr_core::LossType::Pointwise,
    optimizer: "?",
    reference: "?",
};

pub(crate) fn convention_of(input: &ReportInput, dataset: &str) -> String {
    input
        .cells
        .iter()
        .find(|c| c.dataset == dataset)
        .map(|c| c.eval.convention.to_string())
        .unwrap_or_else(|| input.spec.convention.map(|c| c.to_string()).unwrap_or_default())
}

fn json(input: &ReportInput, aggs: &[Aggregate]) -> Result<String, ReportError> {
    let means: Vec<MeanRow> = aggs
        .iter()
        .map(|a| MeanRow {
            dataset: a.dataset.clone(),
            algorithm: a.algorithm.clone(),
            folds: a.folds,
            metrics: METRICS.iter().zip(a.mean).map(|(m, v)| ((*m).to_owned(), v)).collect(),
        })
        .collect();
    let std: Vec<serde_json::Value> = aggs
        .iter()
        .map(|a| {
            serde_json::json!({
                "dataset": a.dataset,
                "algorithm": a.algorithm,
                "metrics": METRICS.iter().zip(a.std).map(|(m, v)| ((*m).to_owned(), v)).collect::<BTreeMap<_, _>>(),
            })
        })
        .collect();
    let folds: Vec<FoldJson<'_>> = ordered_cells(input)
        .into_iter()
        .map(|c| FoldJson {
            dataset: &c.dataset,
            algorithm: &c.label,
            fold: c.fold,
            cell: &c.key,
            chosen_params: c.grid.get(c.chosen).map(|g| g.config.params_json()).unwrap_or_default(),
            validation: c.grid.get(c.chosen).map_or(f64::NAN, |g| g.vali),
            metrics: METRICS.iter().map(|m| (*m, metric_value(c, m))).collect(),
        })
        .collect();
    let conventions: BTreeMap<String, String> = input
        .spec
        .datasets
        .iter()
        .map(|d| (d.clone(), convention_of(input, d)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    let algorithms: Vec<serde_json::Value> = input
        .spec
        .algorithms
        .iter()
        .map(|a| {
            serde_json::json!({
                "label": a.label,
                "info": algorithm_info(input, &a.label),
                "validation_metric": a.validation_metric.to_string(),
                "grid": a.grid.iter().map(|g| g.params_json()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let datasets: Vec<serde_json::Value> = input
        .run
        .datasets
        .iter()
        .map(|d| match d {
            DatasetStatus::Available(x) => serde_json::json!({
                "name": x.name, "status": "available", "variant": x.variant, "convention": x.convention,
                "files": x.folds.iter().flat_map(|f| [&f.train, &f.vali, &f.test])
                    .map(|f| (f.rel.clone(), f.sha256.clone())).collect::<BTreeMap<_, _>>(),
            }),
            DatasetStatus::Unavailable { name, reason } => {
                serde_json::json!({ "name": name, "status": "unavailable", "reason": reason })
            }
        })
        .collect();
    let published: Vec<&PublishedRow> =
        input.published.results.iter().filter(|r| r.collection == input.spec.collection).collect();
    let doc = serde_json::json!({
        "name": input.spec.name,
        "collection": input.spec.collection,
        "title": input.title,
        "seed": input.spec.seed,
        "code_version": input.code_version,
        "conventions": conventions,
        "datasets": datasets,
        "algorithms": algorithms,
        "means": means,
        "std": std,
        "folds": folds,
        "published": published,
        "failed": input.run.failed,
    });
    // Sanity: the file must read back as what `ltr check` expects.
    let text = serde_json::to_string_pretty(&doc).map_err(|e| ReportError::Polars(e.to_string()))? + "\n";
    serde_json::from_str::<MeansFile>(&text).map_err(|e| ReportError::Polars(e.to_string()))?;
    Ok(text)
}

/// Writes `<dir>/<name>.md`, `.json` and `.csv`.
pub fn write(report: &Report, dir: &Path, name: &str) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportError::io(dir, e))?;
    let mut written = Vec::new();
    for (ext, text) in [("md", &report.markdown), ("json", &report.json), ("csv", &report.csv)] {
        let path = dir.join(format!("{name}.{ext}"));
        ltr_harness::store::write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}
