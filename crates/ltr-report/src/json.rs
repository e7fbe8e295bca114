//! The report JSON (`reports/<name>.json`), typed.
//!
//! Written with every object's keys sorted (through `serde_json::Value`, whose maps are
//! ordered), so the bytes do not depend on field declaration order. [`crate::MeansFile`] is
//! the part of it `ltr check` reads back.

use std::collections::BTreeMap;

use ltr_core::AlgorithmInfo;
use ltr_metrics::{Convention, Metric};
use ltr_runner::runner::{DatasetStatus, FailedCell};
use serde::Serialize;

use crate::aggregate::{Aggregate, FoldRow, METRICS};
use crate::check::{MeanRow, MeansFile};
use crate::{MetricValues, MissingCell, PublishedRow, ReportError, ReportInput};

/// The whole report document.
#[derive(Debug, Clone, Serialize)]
pub struct ReportJson<'a> {
    /// Spec name.
    pub name: &'a str,
    /// Collection id.
    pub collection: &'a str,
    /// Collection title (`LETOR 3.0`).
    pub title: &'a str,
    /// Master seed.
    pub seed: u64,
    /// Version of the code that wrote the report.
    pub code_version: &'a str,
    /// Dataset -> the convention its numbers were computed with (datasets run).
    pub conventions: BTreeMap<String, Convention>,
    /// Dataset -> the parts in which its numbers depart from that convention (only datasets
    /// with a departure; absent when none has one).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub convention_parts: BTreeMap<String, ltr_metrics::ConventionParts>,
    /// The sha256 over every cell's test scores, and per dataset ([`crate::digest`]).
    pub digest: crate::digest::RunDigest,
    /// Every dataset of the run: files and hashes, or why it was unavailable.
    pub datasets: Vec<DatasetJson<'a>>,
    /// Every algorithm entry of the spec.
    pub algorithms: Vec<AlgorithmJson<'a>>,
    /// Per dataset and algorithm: mean over folds of each metric.
    pub means: Vec<MeanRow>,
    /// Per dataset and algorithm: sample standard deviation over folds of each metric.
    pub std: Vec<StdRow<'a>>,
    /// Every cell: the chosen parameters, the validation value, the test metrics.
    pub folds: Vec<FoldJson<'a>>,
    /// Per dataset, algorithm and model statistic (FenchelRank's sparsity, the cascade's cost
    /// per query): mean and sample standard deviation over folds.
    pub model_statistics: Vec<crate::ModelStatRow>,
    /// Per dataset, for LambdaMART and RankSVM: the most important features of the selected
    /// models (share of split gain or of absolute weight, mean over folds).
    pub top_features: &'a [crate::TopFeatureRow],
    /// Cells of one fold whose test rankings are the same on every query, or one feature's,
    /// with each cell's validation margin over the runner-up of its grid
    /// ([`crate::identical`]).
    pub identical_rankings: &'a [crate::identical::IdenticalRanking],
    /// The published numbers of the collection.
    pub published: Vec<&'a PublishedRow>,
    /// Per dataset and algorithm: ERR@10, DCG@10, recall@10 and MRR over folds
    /// ([`crate::further`]).
    pub further_metrics: Vec<crate::further::FurtherRow>,
    /// Cells that failed.
    pub failed: &'a [FailedCell],
    /// Expected cells missing from the store (a partial report; absent when complete).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub missing: &'a [MissingCell],
    /// Significance tests against the baseline (and all pairs when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub significance: Option<&'a crate::Significance>,
    /// Per dataset: wins, ties and losses against the baseline by query difficulty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strata: Option<&'a crate::strata::Strata>,
    /// The summary across datasets (a report over two or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_dataset: Option<&'a crate::summary::Summary>,
    /// Per dataset: the algorithms' order under a panel of conventions
    /// ([`crate::sensitivity`]; absent when not computed).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub sensitivity: &'a [crate::sensitivity::DatasetSensitivity],
    /// Per dataset and algorithm: the spread over seeds beside the one over folds
    /// ([`crate::seeds`]; absent when every cell ran with one seed).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub seed_sensitivity: &'a [crate::seeds::SeedRow],
}

/// A dataset of the run.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum DatasetJson<'a> {
    /// Run.
    Available {
        /// Dataset name.
        name: &'a str,
        /// Feature variant.
        variant: &'a str,
        /// The dataset's own convention.
        convention: Convention,
        /// Its feature normalisation (absent: none).
        #[serde(skip_serializing_if = "str::is_empty")]
        normalize: &'static str,
        /// Fold file (relative path) -> sha256.
        files: BTreeMap<&'a str, &'a str>,
    },
    /// Not obtainable.
    Unavailable {
        /// Dataset name.
        name: &'a str,
        /// Why.
        reason: &'a str,
    },
    /// In the spec but not in the last run (left out with `--datasets`).
    #[serde(rename = "notrun")]
    NotRun {
        /// Dataset name.
        name: &'a str,
    },
}

/// An algorithm entry of the spec.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmJson<'a> {
    /// Spec label.
    pub label: &'a str,
    /// The algorithm's metadata.
    pub info: &'static AlgorithmInfo,
    /// Selection metric on vali.
    pub validation_metric: Metric,
    /// Every grid point's parameters.
    pub grid: Vec<serde_json::Value>,
}

/// Standard deviations of one dataset and algorithm.
#[derive(Debug, Clone, Serialize)]
pub struct StdRow<'a> {
    /// Dataset.
    pub dataset: &'a str,
    /// Algorithm label.
    pub algorithm: &'a str,
    /// Metric -> sample standard deviation over folds.
    pub metrics: MetricValues,
}

/// One cell.
#[derive(Debug, Clone, Serialize)]
pub struct FoldJson<'a> {
    /// Dataset.
    pub dataset: &'a str,
    /// Algorithm label.
    pub algorithm: &'a str,
    /// Fold.
    pub fold: u32,
    /// Cell key in the result store.
    pub cell: &'a str,
    /// Parameters of the selected grid point.
    pub chosen_params: serde_json::Value,
    /// Its validation value.
    pub validation: f64,
    /// Test metrics.
    pub metrics: MetricValues,
    /// Statistics of the selected model on the test split (absent for most algorithms).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub model_statistics: &'a BTreeMap<String, f64>,
    /// The grid points that could not be trained, with why (absent when every point trained).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_points: Vec<FailedPointJson<'a>>,
}

/// A grid point of a cell that could not be trained.
#[derive(Debug, Clone, Serialize)]
pub struct FailedPointJson<'a> {
    /// Its parameters.
    pub params: serde_json::Value,
    /// Why it could not be trained.
    pub error: &'a str,
}

fn values(v: &[f64; 8]) -> MetricValues {
    METRICS.iter().copied().zip(v.iter().copied()).collect()
}

/// The report document of `input` with its aggregates.
pub(crate) fn document<'a>(
    input: &'a ReportInput,
    aggs: &'a [Aggregate],
    folds: &[FoldRow],
) -> ReportJson<'a> {
    let cells = crate::ordered_cells(input);
    ReportJson {
        name: &input.spec.name,
        collection: &input.spec.collection,
        title: &input.title,
        seed: input.spec.seed,
        code_version: &input.code_version,
        conventions: input
            .spec
            .datasets
            .iter()
            .filter_map(|d| crate::convention_of(input, d).map(|c| (d.clone(), c)))
            .collect(),
        digest: crate::digest::run_digest(cells.iter().copied()),
        convention_parts: input
            .spec
            .datasets
            .iter()
            .map(|d| (d.clone(), crate::departures_of(input, d)))
            .filter(|(_, p)| !p.is_empty())
            .collect(),
        datasets: input
            .run
            .datasets
            .iter()
            .map(|d| match d {
                DatasetStatus::Available(x) => DatasetJson::Available {
                    name: &x.name,
                    variant: &x.variant,
                    convention: x.convention,
                    normalize: Some(input.spec.normalization(&x.name))
                        .filter(|n| !n.is_none())
                        .map_or("", |n| n.name()),
                    files: x
                        .folds
                        .iter()
                        .flat_map(|f| [&f.train, &f.vali, &f.test])
                        .map(|f| (f.rel.as_str(), f.sha256.as_str()))
                        .collect(),
                },
                DatasetStatus::Unavailable { name, reason } => DatasetJson::Unavailable { name, reason },
            })
            .chain(input.not_run.iter().map(|name| DatasetJson::NotRun { name }))
            .collect(),
        algorithms: input
            .spec
            .algorithms
            .iter()
            .map(|a| AlgorithmJson {
                label: &a.label,
                info: crate::algorithm_info(input, &a.label),
                validation_metric: a.validation_metric,
                grid: a.grid.iter().map(|g| g.params_json()).collect(),
            })
            .collect(),
        means: aggs
            .iter()
            .map(|a| MeanRow {
                dataset: a.dataset.clone(),
                algorithm: a.algorithm.clone(),
                folds: a.folds,
                metrics: values(&a.mean),
            })
            .collect(),
        std: aggs
            .iter()
            .map(|a| StdRow { dataset: &a.dataset, algorithm: &a.algorithm, metrics: values(&a.std) })
            .collect(),
        folds: cells
            .into_iter()
            .map(|c| {
                let chosen = c.grid.get(c.chosen);
                FoldJson {
                    dataset: &c.dataset,
                    algorithm: &c.label,
                    fold: c.fold,
                    cell: &c.key,
                    chosen_params: chosen.map(|g| g.config.params_json()).unwrap_or_default(),
                    validation: chosen.map_or(f64::NAN, |g| g.vali),
                    metrics: values(&crate::fold_of(folds, c).metrics),
                    model_statistics: &c.model_stats,
                    failed_points: c
                        .grid
                        .iter()
                        .filter_map(|g| {
                            let error = g.error.as_deref()?;
                            Some(FailedPointJson { params: g.config.params_json(), error })
                        })
                        .collect(),
                }
            })
            .collect(),
        model_statistics: crate::model_stat_rows(input),
        top_features: &input.top_features,
        identical_rankings: &input.identical,
        published: input.published.results.iter().filter(|r| r.collection == input.spec.collection).collect(),
        further_metrics: crate::further::rows(input),
        failed: &input.run.failed,
        missing: &input.missing,
        significance: None,
        strata: None,
        cross_dataset: None,
        sensitivity: &[],
        seed_sensitivity: &[],
    }
}

/// The document as text: sorted keys, two-space indentation, a final newline. Checked to
/// read back as the [`MeansFile`] that `ltr check` expects.
pub(crate) fn to_text(doc: &ReportJson<'_>) -> Result<String, ReportError> {
    let bad = |e: serde_json::Error| ReportError::Json(e.to_string());
    let value = serde_json::to_value(doc).map_err(bad)?;
    let text = serde_json::to_string_pretty(&value).map_err(bad)? + "\n";
    serde_json::from_str::<MeansFile>(&text).map_err(bad)?;
    Ok(text)
}
