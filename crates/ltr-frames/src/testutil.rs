//! A cell record for unit tests, here and in `ltr-report`'s.
//!
//! Compiled always rather than behind a feature: a feature that only the report's tests turn
//! on would give `cargo build` and `cargo test` two builds of this crate and of everything
//! above it.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
use ltr_runner::store::{CellRecord, FORMAT, GridPoint};

/// A cell of two queries evaluated for real, so its summary and per-query rows agree.
pub fn cell(label: &str, fold: u32, scores: &[f64]) -> CellRecord {
    let cfg = EvalConfig::official(Convention::Letor3);
    let qids = vec!["q1".to_string(), "q2".to_string()];
    let eval = ltr_metrics::evaluate(&qids, &[2, 0, 1, 0, 1], &[0, 3, 5], None, scores, &cfg).unwrap();
    let config = ltr_harness::AlgoConfig::default_for("regression").unwrap();
    CellRecord {
        format: FORMAT,
        key: format!("{label}{fold}"),
        dataset: "D".into(),
        variant: "v".into(),
        fold,
        label: label.into(),
        algorithm: "regression".into(),
        test_file: "D/test.txt".into(),
        test_sha256: "0".repeat(64),
        validation: Criterion::new(Metric::Map, cfg),
        eval: cfg,
        grid: vec![GridPoint { config, vali: 0.5, error: None }],
        chosen: 0,
        test: eval.summary,
        per_query: eval.per_query,
        model_stats: BTreeMap::new(),
        normalizer: Default::default(),
        seed_runs: None,
        binary: String::new(),
        scores_sha256: String::new(),
        model_sha256: String::new(),
        record_sha256: String::new(),
    }
}
