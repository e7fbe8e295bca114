//! The further metrics of a report: ERR@10 (Chapelle, Metzler, Zhang and Grinspan, CIKM
//! 2009), DCG@10, recall@10 and MRR of every algorithm on every dataset, as the mean and
//! sample standard deviation over folds of the cells' test means. A small table under each
//! dataset's main one (`render`) (whose columns stay those of the official scripts) and
//! `further_metrics` in the JSON; the per-query frame carries the same metrics per query.

use ltr_core::Grade;
use ltr_metrics::Metric;
use serde::Serialize;

use crate::aggregate::mean_and_std;
use crate::{MetricValues, ReportInput};

/// The further metrics, in the order of their columns.
pub const FURTHER_METRICS: [Metric; 4] = [Metric::Err(10), Metric::Dcg(10), Metric::Recall(10), Metric::Mrr];

/// The further metrics of one algorithm on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FurtherRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Folds averaged.
    pub folds: usize,
    /// ERR's highest grade `gmax`, of its stop probability `(2^g - 1) / 2^gmax`: the
    /// convention's (absent: each test split's highest grade, `standard`'s rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub err_max_grade: Option<Grade>,
    /// Metric -> mean over folds.
    pub mean: MetricValues,
    /// Metric -> sample standard deviation over folds (0 for one fold).
    pub std: MetricValues,
}

/// The rows of every (dataset, algorithm) with cells, in report order.
pub fn rows(input: &ReportInput) -> Vec<FurtherRow> {
    let mut out: Vec<(FurtherRow, Vec<[f64; 4]>)> = Vec::new();
    for c in crate::ordered_cells(input) {
        let values = FURTHER_METRICS.map(|m| m.of_summary(&c.test).unwrap_or(f64::NAN));
        match out.iter_mut().find(|(r, _)| r.dataset == c.dataset && r.algorithm == c.label) {
            Some((_, v)) => v.push(values),
            None => out.push((
                FurtherRow {
                    dataset: c.dataset.clone(),
                    algorithm: c.label.clone(),
                    folds: 0,
                    err_max_grade: c.eval.max_grade,
                    mean: MetricValues::default(),
                    std: MetricValues::default(),
                },
                vec![values],
            )),
        }
    }
    out.into_iter()
        .map(|(mut r, folds)| {
            r.folds = folds.len();
            for (j, m) in FURTHER_METRICS.iter().enumerate() {
                let (mean, std) = mean_and_std(folds.iter().map(|v| v[j]));
                r.mean.insert(*m, mean);
                r.std.insert(*m, std);
            }
            r
        })
        .collect()
}
