//! CI regression of reported metrics against checked-in baselines.
//!
//! A baseline (`reports/baselines/<name>.json`) and a report JSON (`reports/<name>.json`)
//! share the `means` rows: per dataset and algorithm label, the 5-fold mean of each metric.
//! Every baseline row must be present in the run and every metric within the tolerance.

use std::collections::BTreeMap;
use std::path::Path;

use ltr_metrics::{Convention, Metric};
use serde::{Deserialize, Serialize};

use crate::{MetricValues, ReportError};

/// Per dataset and algorithm, the mean over folds of each metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeanRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Number of folds averaged.
    pub folds: usize,
    /// Metric -> mean.
    pub metrics: MetricValues,
}

/// The largest baseline or report JSON read (1 GiB, far above any report: the shipped ones
/// are about 200 KB).
pub const MAX_MEANS_FILE_BYTES: u64 = 1 << 30;

/// The part of a report or baseline file that `ltr check` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeansFile {
    /// Spec name.
    pub name: String,
    /// Dataset -> the convention its numbers were computed with, for the record.
    #[serde(default)]
    pub conventions: BTreeMap<String, Convention>,
    /// The rows.
    pub means: Vec<MeanRow>,
    /// The run digest of a report (baselines written from means alone have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<crate::digest::RunDigest>,
}

impl MeansFile {
    /// Reads the `name`, `conventions`, `means` and `digest` of a JSON file (other keys are ignored), a
    /// regular file of at most [`MAX_MEANS_FILE_BYTES`].
    pub fn load(path: &Path) -> Result<Self, ReportError> {
        let bytes =
            ltr_core::fs::read_bounded(path, MAX_MEANS_FILE_BYTES).map_err(|e| ReportError::io(path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| ReportError::io(path, e))
    }
}

/// One number that moved beyond the tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Metric.
    pub metric: Metric,
    /// Baseline value.
    pub baseline: f64,
    /// Value in the run (NaN if the metric is missing).
    pub current: f64,
}

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CheckOutcome {
    /// Numbers beyond the tolerance.
    pub moved: Vec<Moved>,
    /// Baseline rows absent from the run (`dataset/algorithm`).
    pub missing: Vec<String>,
    /// Run rows absent from the baseline (informational).
    pub new: Vec<String>,
    /// Numbers compared.
    pub compared: usize,
    /// Datasets whose run digest differs from the baseline's (an exact check only, of
    /// datasets both digests cover).
    pub digests: Vec<String>,
}

impl CheckOutcome {
    /// Whether the run passes.
    pub fn passed(&self) -> bool {
        self.moved.is_empty() && self.missing.is_empty() && self.digests.is_empty()
    }
}

/// Compares a run's means with a baseline: |current - baseline| <= tolerance for every
/// baseline metric; at tolerance 0, also the run digests of the datasets both cover (the
/// test scores of every cell, not only the means).
pub fn compare(baseline: &MeansFile, current: &MeansFile, tolerance: f64) -> CheckOutcome {
    let key = |r: &MeanRow| format!("{}/{}", r.dataset, r.algorithm);
    let cur: BTreeMap<String, &MeanRow> = current.means.iter().map(|r| (key(r), r)).collect();
    let base_keys: std::collections::BTreeSet<String> = baseline.means.iter().map(key).collect();
    let mut out = CheckOutcome::default();
    for b in &baseline.means {
        let Some(c) = cur.get(&key(b)) else {
            out.missing.push(key(b));
            continue;
        };
        for (metric, bv) in b.metrics.iter() {
            out.compared += 1;
            let cv = c.metrics.get(metric).unwrap_or(f64::NAN);
            // A missing or NaN number counts as moved.
            let within = (cv - bv).abs() <= tolerance;
            if !within {
                out.moved.push(Moved {
                    dataset: b.dataset.clone(),
                    algorithm: b.algorithm.clone(),
                    metric,
                    baseline: bv,
                    current: cv,
                });
            }
        }
    }
    out.new = cur.keys().filter(|k| !base_keys.contains(*k)).cloned().collect();
    if tolerance == 0.0
        && let (Some(b), Some(c)) = (&baseline.digest, &current.digest)
    {
        out.digests = crate::digest::differences(b, c);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn file(v: f64) -> MeansFile {
        MeansFile {
            name: "t".into(),
            conventions: BTreeMap::new(),
            means: vec![MeanRow {
                dataset: "D".into(),
                algorithm: "a".into(),
                folds: 5,
                metrics: [(Metric::Map, v)].into_iter().collect(),
            }],
            digest: None,
        }
    }

    #[test]
    fn tolerance_is_inclusive_and_missing_rows_fail() {
        assert!(compare(&file(0.5), &file(0.505), 0.005 + 1e-12).passed());
        let out = compare(&file(0.5), &file(0.51), 0.005);
        assert_eq!(out.moved.len(), 1);
        let mut other = file(0.5);
        other.means[0].algorithm = "b".into();
        let out = compare(&file(0.5), &other, 0.005);
        assert_eq!(out.missing, vec!["D/a".to_string()]);
        assert_eq!(out.new, vec!["D/b".to_string()]);
        assert!(!out.passed());
        let mut nan = file(0.5);
        nan.means[0].metrics = MetricValues::default();
        assert!(!compare(&file(0.5), &nan, 0.005).passed());
    }

    #[test]
    fn an_exact_check_compares_the_digests_of_the_datasets_both_cover() {
        let digest = |pairs: &[(&str, &str)]| crate::digest::RunDigest {
            all: "x".into(),
            cells: 1,
            datasets: pairs.iter().map(|(d, h)| (d.to_string(), h.to_string())).collect(),
        };
        let with = |d| MeansFile { digest: Some(d), ..file(0.5) };
        let base = with(digest(&[("D", "aa"), ("E", "bb")]));
        assert!(compare(&base, &with(digest(&[("D", "aa")])), 0.0).passed());
        let out = compare(&base, &with(digest(&[("D", "ab")])), 0.0);
        assert_eq!(out.digests, vec!["D: run digest ab, expected aa".to_string()]);
        assert!(!out.passed());
        // Not compared with a tolerance, nor when either side has none.
        assert!(compare(&base, &with(digest(&[("D", "ab")])), 1e-9).passed());
        assert!(compare(&base, &file(0.5), 0.0).passed());
    }
}
