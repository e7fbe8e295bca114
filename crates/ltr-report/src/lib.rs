//! Comparison reports: `reports/<name>.md`, `.json` and `.csv` from a run's result store.
//!
//! * a header with the metric convention, selection metric, master seed, code version,
//!   dataset hashes and wall time;
//! * a survey-style summary table of the algorithms (family, year, loss, optimizer, datasets,
//!   compared with);
//! * per dataset, algorithms x NDCG@1/3/5/10, P@1/3/10, MAP as mean ± standard deviation
//!   over folds, aggregated with polars from the one per-query frame
//!   ([`aggregate::query_frame`], also written as `<name>/per_query.csv`) and rendered with
//!   tabled, with significance marks and three SVG plots ([`plot`]);
//! * per dataset, the wins, ties and losses of each algorithm against the baseline by query
//!   difficulty ([`strata`]), also as columns of the per-query frame;
//! * for a report over two or more datasets, the summary across them ([`summary`]): mean
//!   rank with a bootstrap interval, significant wins and the winning number;
//! * the published reference numbers beside ours, with the difference;
//! * unavailable datasets, named with the reason, and datasets left out of the run;
//! * never a mean over fewer folds than expected without saying so: a report whose cells are
//!   missing or damaged in the store fails naming each, or (`allow_partial`) says so at the
//!   top and marks every affected mean `(n/N folds)`.
//!
//! The JSON, the CSVs and the plots carry no timings and no wall-clock data, so the same
//! cells give the same bytes; the two exceptions are the markdown (wall and fit times) and
//! the fit-time plot `<name>/<dataset>-fit-time.svg` ([`plot::Plot::timing`]), which a
//! byte-identity check must leave out.

pub mod check;
pub mod estimate;
pub mod further;
pub mod identical;
pub mod json;
pub mod plot;
pub mod published;
mod render;

// The frames and the analyses on them live below this crate; their modules keep their paths
// here (`ltr_report::aggregate`, ...).
use ltr_frames::markdown;
pub use ltr_frames::{aggregate, digest, per_query, seeds, sensitivity, significance, strata, summary};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ltr_harness::spec::ExperimentSpec;
use ltr_metrics::Convention;
use ltr_runner::CodeHashes;
use ltr_runner::runner::{DatasetStatus, RunRecord};
use ltr_runner::store::{CellCheck, CellRecord, CellTiming, ResultStore, cell_key};

pub use aggregate::{Aggregate, FoldRow, METRICS};
pub use check::{CheckOutcome, MeanRow, MeansFile, Moved, compare};
pub use ltr_frames::MetricValues;
pub use markdown::escape_markdown;
pub use published::{Published, PublishedRow};
pub use render::{describe, varied_params};
pub use significance::{Significance, SignificanceConfig};

/// Errors of the report layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A missing or unreadable input (a store file, a baseline, the published numbers).
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
    /// The report JSON could not be written or does not read back.
    #[error("report JSON: {0}")]
    Json(String),
    /// From the harness.
    #[error(transparent)]
    Harness(#[from] ltr_harness::HarnessError),
    /// The runner or the result store.
    #[error(transparent)]
    Runner(#[from] ltr_runner::RunnerError),
    /// From the per-query frame and the analyses on it (messages unchanged).
    #[error(transparent)]
    Frame(#[from] ltr_frames::FrameError),
    /// Cells the report needs are missing or damaged (and a partial report was not asked for).
    #[error("{}", missing_message(.0))]
    MissingCells(Vec<MissingCell>),
}

fn missing_message(cells: &[MissingCell]) -> String {
    let mut m = format!(
        "the result store lacks {} cell{} this report needs (`ltr run` computes them; \
         `--allow-partial` writes the report without them, marked):",
        cells.len(),
        if cells.len() == 1 { "" } else { "s" }
    );
    for c in cells {
        m += &format!("\n  {c}");
    }
    m
}

/// A cell the report expects but the store does not hold sound: one of the spec's
/// algorithms on one of its folds of a dataset the run record lists as run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MissingCell {
    /// Dataset.
    pub dataset: String,
    /// Fold.
    pub fold: u32,
    /// Algorithm label.
    pub algorithm: String,
    /// Why it is not there (no record, damaged, failed in the run, ...).
    pub reason: String,
}

impl std::fmt::Display for MissingCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} fold {} {}: {}", self.dataset, self.fold, self.algorithm, self.reason)
    }
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
    /// The sound cell records the report is made of (spec order).
    pub cells: Vec<CellRecord>,
    /// Expected cells that are not in the store, or damaged ([`ReportInput::from_store`]).
    pub missing: Vec<MissingCell>,
    /// Number of expected folds by (dataset, algorithm label): the spec's folds, for every
    /// dataset the run record lists as run.
    pub expected: BTreeMap<(String, String), usize>,
    /// Datasets of the spec the run record does not list at all (left out with
    /// `--datasets`): named as not run, expecting no cells.
    pub not_run: Vec<String>,
    /// Build the report even with missing cells ([`build`] fails otherwise).
    pub allow_partial: bool,
    /// Timings by cell key (markdown only).
    pub timings: BTreeMap<String, CellTiming>,
    /// Published numbers.
    pub published: Published,
    /// Collection title (`LETOR 3.0`).
    pub title: String,
    /// Code version string (`ltr 0.1.0 (git abc1234)`).
    pub code_version: String,
    /// The command that writes the report, as the markdown names it (`ltr report`, the
    /// default; `ltr run --data`, ...).
    pub written_by: String,
    /// The most important features of the algorithms in [`TOP_FEATURE_ALGORITHMS`], per
    /// dataset ([`ReportInput::from_store`] reads them from the stored models).
    pub top_features: Vec<TopFeatureRow>,
    /// The ideal DCG of every test query ([`strata::ideal_dcgs`]; empty: no ideal-DCG
    /// strata).
    pub ideal_dcgs: strata::IdealDcgs,
    /// The cells' stored test scores, which the convention-sensitivity section evaluates
    /// again ([`sensitivity::load`]; none when the input was not read from a store).
    pub test_scores: sensitivity::StoredScores,
    /// Cells of one fold with the same test ranking, or one feature's
    /// ([`identical::from_store`]).
    pub identical: Vec<identical::IdenticalRanking>,
}

/// The algorithms whose most important features the report lists: one tree ensemble and one
/// linear model, the two kinds whose importance is read directly off the model.
pub const TOP_FEATURE_ALGORITHMS: [&str; 2] = ["lambdamart", "ranksvm"];

/// How many features the report lists per algorithm and dataset.
pub const TOP_FEATURES: usize = 5;

/// The most important features of one algorithm entry on one dataset: each feature's share
/// of the model's importance (split gain for trees, absolute weight for linear models),
/// averaged over the folds' selected models ([`ltr_harness::importance::mean_top_features`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TopFeatureRow {
    /// Dataset name.
    pub dataset: String,
    /// Algorithm label of the spec.
    pub algorithm: String,
    /// What the importance is (`split gain` or `absolute weight`).
    pub kind: String,
    /// Number of fold models averaged.
    pub folds: usize,
    /// The features, most important first.
    pub features: Vec<ltr_harness::importance::TopFeature>,
}

/// The top-feature rows of `cells` (sound cells, report order): for each dataset and entry
/// of an algorithm in [`TOP_FEATURE_ALGORITHMS`], the selected models of its folds.
fn top_feature_rows(store: &ResultStore, cells: &[CellRecord]) -> Result<Vec<TopFeatureRow>, ReportError> {
    use ltr_harness::importance::{Importance, importance, mean_top_features};
    let mut groups: Vec<((String, String), Vec<Importance>)> = Vec::new();
    for c in cells.iter().filter(|c| TOP_FEATURE_ALGORITHMS.contains(&c.algorithm.as_str())) {
        let fit = importance(&store.load_model(&c.key)?, None)?;
        let id = (c.dataset.clone(), c.label.clone());
        match groups.iter_mut().find(|(k, _)| *k == id) {
            Some((_, fits)) => fits.push(fit),
            None => groups.push((id, vec![fit])),
        }
    }
    Ok(groups
        .into_iter()
        .filter_map(|((dataset, algorithm), fits)| {
            let kind = match fits.first()? {
                Importance::Trees { .. } => "split gain",
                Importance::Linear { .. } => "absolute weight",
                Importance::Undefined { .. } => return None,
            };
            let features = mean_top_features(&fits, TOP_FEATURES)?;
            Some(TopFeatureRow { dataset, algorithm, kind: kind.to_owned(), folds: fits.len(), features })
        })
        .collect())
}

impl ReportInput {
    /// Reads the run record and every cell the report of `spec` needs from its store.
    ///
    /// The expected cells are every algorithm of the spec on every fold of the spec, for each
    /// dataset of the spec that the run record (`run.json`) lists as run; each is found by
    /// its key under this build's code ([`ltr_runner::store::cell_key`]), exactly as
    /// `ltr run` looks for it, and checked ([`ltr_runner::store::verify_cell`]). One that is
    /// absent or damaged is listed in [`ReportInput::missing`]. A dataset recorded as
    /// unavailable expects no cells; one the record does not list is in
    /// [`ReportInput::not_run`].
    pub fn from_store(
        spec: ExperimentSpec,
        store: &ResultStore,
        published: Published,
        title: String,
        code_version: String,
    ) -> Result<Self, ReportError> {
        let run: RunRecord = store.load_json("run.json")?;
        let code = CodeHashes::builtin();
        let mut cells = Vec::new();
        let mut timings = BTreeMap::new();
        let mut missing = Vec::new();
        let mut expected = BTreeMap::new();
        let mut not_run = Vec::new();
        for name in &spec.datasets {
            let Some(status) = run.datasets.iter().find(|d| d.name().eq_ignore_ascii_case(name)) else {
                not_run.push(name.clone());
                continue;
            };
            let DatasetStatus::Available(d) = status else { continue };
            for entry in &spec.algorithms {
                *expected.entry((d.name.clone(), entry.label.clone())).or_insert(0) += spec.folds.len();
                for &fold in &spec.folds {
                    let gone = |reason: String| MissingCell {
                        dataset: d.name.clone(),
                        fold,
                        algorithm: entry.label.clone(),
                        reason,
                    };
                    let Some(files) = d.folds.iter().find(|f| f.fold == fold) else {
                        missing.push(gone(format!("fold {fold} was not part of the last run")));
                        continue;
                    };
                    let key = cell_key(&code, &spec, d, files, entry)?;
                    match store.check(&key) {
                        CellCheck::Sound(r) => {
                            if let Some(t) = store.load_timing(&key) {
                                timings.insert(key, t);
                            }
                            cells.push(*r);
                        }
                        CellCheck::Damaged(why) => {
                            missing.push(gone(format!("cell {key} is damaged: {why}")))
                        }
                        CellCheck::Missing => {
                            let failed = run
                                .failed
                                .iter()
                                .find(|f| f.dataset == d.name && f.fold == fold && f.label == entry.label);
                            missing.push(gone(match failed {
                                Some(f) => format!("failed in the last run: {}", f.error),
                                None if run.cells.contains(&key) => format!("cell {key} has no record"),
                                // The seed is part of every key: a run of another seed is
                                // other cells.
                                None if run.seed != spec.seed => format!(
                                    "cell {key} is not in the store (the last run used seed {s}, this report seed {}: `--seed {s}` reports that run)",
                                    spec.seed,
                                    s = run.seed
                                ),
                                None => format!(
                                    "cell {key} is not in the store (not computed for this code and spec)"
                                ),
                            }));
                        }
                    }
                }
            }
        }
        let top_features = top_feature_rows(store, &cells)?;
        let test_scores = sensitivity::load(store, &run, &cells);
        let ideal_dcgs = strata::ideal_dcgs(&test_scores, &cells);
        let identical = identical::from_store(&spec, &run, store, &cells);
        Ok(Self {
            spec,
            run,
            cells,
            missing,
            expected,
            not_run,
            allow_partial: false,
            timings,
            published,
            title,
            code_version,
            written_by: "ltr report".to_owned(),
            top_features,
            ideal_dcgs,
            test_scores,
            identical,
        })
    }

    /// Expected folds of an algorithm on a dataset (0: not expected).
    pub fn expected_folds(&self, dataset: &str, label: &str) -> usize {
        self.expected.get(&(dataset.to_owned(), label.to_owned())).copied().unwrap_or(0)
    }

    /// The cells' per-query frame ([`aggregate::query_frame`]), in report order.
    pub fn query_frame(&self) -> Result<polars::prelude::DataFrame, ReportError> {
        Ok(aggregate::query_frame(&ordered_cells(self))?)
    }

    /// The cells' frame ([`aggregate::cell_frame`]) reduced from the per-query frame, in
    /// report order.
    pub fn cell_frame(&self) -> Result<polars::prelude::DataFrame, ReportError> {
        Ok(aggregate::cell_frame(&aggregate::fold_rows(&self.query_frame()?)?)?)
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
    /// Every test query of every cell ([`aggregate::query_frame`]), written beside the
    /// report as parquet and CSV.
    pub per_query: polars::prelude::DataFrame,
    /// The plots, written beside the per-query data ([`plot`]).
    pub plots: Vec<plot::Plot>,
}

/// Builds the report with the significance tests its spec asks for
/// ([`SignificanceConfig::of_spec`]: by default a paired t-test against the first algorithm,
/// Holm-corrected, seeded by the spec's seed).
pub fn build(input: &ReportInput) -> Result<Report, ReportError> {
    build_with(input, &SignificanceConfig::of_spec(&input.spec))
}

/// Builds the report with the given significance configuration. Fails naming every missing
/// cell unless [`ReportInput::allow_partial`] is set; a partial report says so at its top and
/// marks every affected mean `(n/N folds)`.
pub fn build_with(input: &ReportInput, sig: &SignificanceConfig) -> Result<Report, ReportError> {
    if !input.missing.is_empty() && !input.allow_partial {
        return Err(ReportError::MissingCells(input.missing.clone()));
    }
    // Every number below comes from this frame: the fold means, their means over folds and
    // the tests.
    let per_query = input.query_frame()?;
    let folds = aggregate::fold_rows(&per_query)?;
    let aggs = aggregate::aggregate(&folds)?;
    let significance = significance::from_query_frame(&per_query, sig)?;
    let cells = ordered_cells(input);
    let strata = strata::strata(&cells, &input.ideal_dcgs, &significance.baselines);
    let summary = summary::summary(&cells, &aggs, sig, summary::RESAMPLES);
    let sensitivity = sensitivity::compute(&cells, &input.test_scores, sig)?;
    let seed_rows = seeds::compute(&cells, &aggs);
    let markdown = render::markdown(
        input,
        &aggs,
        &folds,
        Some(&significance),
        Some(&strata),
        summary.as_ref(),
        (&sensitivity, &seed_rows),
    );
    let mut doc = json::document(input, &aggs, &folds);
    doc.significance = Some(&significance);
    doc.strata = Some(&strata);
    doc.cross_dataset = summary.as_ref();
    doc.sensitivity = &sensitivity;
    doc.seed_sensitivity = &seed_rows;
    let json = json::to_text(&doc)?;
    let family: Vec<String> =
        aggs.iter().map(|a| algorithm_info(input, &a.algorithm).family.to_string()).collect();
    let conventions: Vec<String> = aggs
        .iter()
        .map(|a| {
            let parts = departures_of(input, &a.dataset).describe();
            match convention_of(input, &a.dataset) {
                Some(c) if parts.is_empty() => c.to_string(),
                Some(c) => format!("{c} ({parts})"),
                None => String::new(),
            }
        })
        .collect();
    let csv = aggregate::to_csv(&aggs, &[("family", family), ("convention", conventions)])?;
    let plots = plot::report_plots(input, &per_query, &folds)?;
    let per_query = per_query::with_strata(per_query, &strata.columns)?;
    Ok(Report { markdown, json, csv, per_query, plots })
}

/// One model statistic of one algorithm on one dataset, over the folds that have it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelStatRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Statistic name (`sparsity`, `cost_per_query`, `cost_relative`).
    pub statistic: String,
    /// Folds that have it.
    pub folds: usize,
    /// Mean over those folds.
    pub mean: f64,
    /// Sample standard deviation over those folds (0 for one fold).
    pub std: f64,
}

/// Every model statistic of the cells, in report order (dataset, algorithm, statistic name).
pub fn model_stat_rows(input: &ReportInput) -> Vec<ModelStatRow> {
    let mut rows: Vec<ModelStatRow> = Vec::new();
    let mut values: Vec<Vec<f64>> = Vec::new();
    for c in ordered_cells(input) {
        for (name, &v) in &c.model_stats {
            let at = rows
                .iter()
                .position(|r| r.dataset == c.dataset && r.algorithm == c.label && &r.statistic == name);
            let i = at.unwrap_or_else(|| {
                rows.push(ModelStatRow {
                    dataset: c.dataset.clone(),
                    algorithm: c.label.clone(),
                    statistic: name.clone(),
                    folds: 0,
                    mean: 0.0,
                    std: 0.0,
                });
                values.push(Vec::new());
                rows.len() - 1
            });
            values[i].push(v);
        }
    }
    for (r, v) in rows.iter_mut().zip(&values) {
        let n = v.len() as f64;
        r.folds = v.len();
        r.mean = v.iter().sum::<f64>() / n;
        r.std = if v.len() > 1 {
            (v.iter().map(|x| (x - r.mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
    }
    rows
}

/// The fold row of a cell among `folds` (NaN metrics when the cell has no test query, so no
/// row).
pub(crate) fn fold_of(folds: &[FoldRow], cell: &CellRecord) -> FoldRow {
    folds
        .iter()
        .find(|f| f.dataset == cell.dataset && f.algorithm == cell.label && f.fold == cell.fold)
        .cloned()
        .unwrap_or_else(|| FoldRow {
            dataset: cell.dataset.clone(),
            algorithm: cell.label.clone(),
            fold: cell.fold,
            metrics: [f64::NAN; 8],
        })
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
    optimizer: "?",
    reference: "?",
    ..ltr_core::AlgorithmInfo::DEFAULT
};

/// The convention a dataset's numbers were computed with: its cells', else the spec's
/// override (`None`: not run and no override).
pub(crate) fn convention_of(input: &ReportInput, dataset: &str) -> Option<Convention> {
    input.cells.iter().find(|c| c.dataset == dataset).map(|c| c.eval.convention).or(input.spec.convention)
}

/// The parts in which a dataset's numbers depart from its named convention: its cells',
/// else the spec's `eval` table (empty for the presets).
pub(crate) fn departures_of(input: &ReportInput, dataset: &str) -> ltr_metrics::ConventionParts {
    input.cells.iter().find(|c| c.dataset == dataset).map_or(input.spec.eval, |c| c.eval.departures())
}

/// Writes `<dir>/<name>.md`, `.json` and `.csv`, the per-query data as
/// `<dir>/<name>/per_query.parquet` and `.csv`, and the plots in `<dir>/<name>/`.
pub fn write(report: &Report, dir: &Path, name: &str) -> Result<Vec<PathBuf>, ReportError> {
    // The name is a file name in `dir`, never a path out of it.
    ltr_harness::spec::check_name(name)
        .map_err(|e| ReportError::io(dir, format!("report name {name:?}: {e}")))?;
    std::fs::create_dir_all(dir).map_err(|e| ReportError::io(dir, e))?;
    let mut written = Vec::new();
    for (ext, text) in [("md", &report.markdown), ("json", &report.json), ("csv", &report.csv)] {
        let path = dir.join(format!("{name}.{ext}"));
        ltr_runner::store::write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    written.extend(per_query::write(&report.per_query, &dir.join(name))?);
    for p in &report.plots {
        let path = dir.join(name).join(&p.file);
        ltr_runner::store::write_atomic(&path, p.svg.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_frames::testutil::cell;

    use super::*;

    #[test]
    fn model_statistics_are_averaged_per_dataset_algorithm_and_name() {
        let mut cells =
            vec![cell("f", 1, &[0.9, 0.1, 0.5, 0.2, 0.3]), cell("f", 2, &[0.1, 0.9, 0.5, 0.3, 0.2])];
        cells[0].model_stats.insert("sparsity".into(), 0.5);
        cells[1].model_stats.insert("sparsity".into(), 0.7);
        cells.push(cell("g", 1, &[0.9, 0.1, 0.5, 0.2, 0.3]));
        let input = input(cells);
        let rows = model_stat_rows(&input);
        assert_eq!(rows.len(), 1, "only the cells that have statistics");
        let r = &rows[0];
        assert_eq!(
            (r.dataset.as_str(), r.algorithm.as_str(), r.statistic.as_str(), r.folds),
            ("D", "f", "sparsity", 2)
        );
        assert!((r.mean - 0.6).abs() < 1e-15);
        assert!((r.std - 0.02f64.sqrt()).abs() < 1e-15, "sample standard deviation");
    }

    #[test]
    fn the_report_shows_the_selected_fit_time_and_the_whole_grids() {
        let mut cells = vec![
            cell("regression", 1, &[0.9, 0.1, 0.5, 0.2, 0.3]),
            cell("regression", 2, &[0.1, 0.9, 0.5, 0.3, 0.2]),
        ];
        // Keys as long as real ones (the report shows their first characters).
        for c in &mut cells {
            c.key = format!("{:0>64}", c.fold);
        }
        let mut input = input(cells);
        for (fold, fits) in [(1, vec![1.0, 2.0, 3.0]), (2, vec![3.0, 4.0, 5.0])] {
            let timing = CellTiming { fit_seconds: fits, total_seconds: 20.0, threads: 2 };
            input.timings.insert(format!("{fold:0>64}"), timing);
        }
        let md = build(&input).unwrap().markdown;
        let table = md.lines().skip_while(|l| !l.starts_with("| Algorithm")).take(3).collect::<Vec<_>>();
        assert!(table[0].ends_with("| Fit s/fold | Grid s/fold |"), "{table:?}");
        // The selected points (the first) took 1 and 3 s, the grids 6 and 12 s.
        assert!(
            table[2].starts_with("| regression ") && table[2].ends_with("| 2.000      | 9.000       |"),
            "{table:?}"
        );
    }

    /// A report input over `cells` of dataset `D` under the letor3 spec.
    fn input(cells: Vec<CellRecord>) -> ReportInput {
        let mut spec = ExperimentSpec::builtin("letor3").unwrap();
        spec.datasets = vec!["D".into()];
        ReportInput {
            run: RunRecord {
                name: "t".into(),
                spec_source: String::new(),
                collection: "letor3".into(),
                seed: 1,
                datasets: Vec::new(),
                cells: cells.iter().map(|c| c.key.clone()).collect(),
                cell_names: Vec::new(),
                failed: Vec::new(),
                computed: 0,
                wall_seconds: 0.0,
                threads: 1,
                version: String::new(),
            },
            cells,
            spec,
            missing: Vec::new(),
            expected: BTreeMap::new(),
            not_run: Vec::new(),
            allow_partial: false,
            timings: BTreeMap::new(),
            published: Published::builtin().unwrap(),
            title: "T".into(),
            code_version: "v".into(),
            written_by: "ltr report".into(),
            top_features: Vec::new(),
            ideal_dcgs: Default::default(),
            test_scores: Default::default(),
            identical: Vec::new(),
        }
    }
}
