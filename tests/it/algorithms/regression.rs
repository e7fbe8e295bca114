//! `regression`: ridge regression on the grades.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means; near
//! least squares, the published LETOR 3.0 Regression baseline is reproduced.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "regression");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "regression");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("regression", Metric::Ndcg(10), 0.40);
    LETOR3.assert_floor("regression", Metric::Map, 0.42);
    LETOR4.assert_floor("regression", Metric::Ndcg(10), 0.21);
    LETOR4.assert_floor("regression", Metric::Map, 0.45);
}

#[test]
fn near_least_squares_reproduces_the_published_letor_regression() {
    // LETOR 3.0 publishes Regression on OHSUMED at NDCG@1/3/5/10 0.4456 / 0.4426 / 0.4278 /
    // 0.4110, MAP 0.4220; lambda = 1e-6 (standardised) is least squares to 4 decimals.
    let entry = LETOR3.custom_entry("regression", &[["lambda=1e-6", "standardize=true"]]);
    let folds = LETOR3.all_folds(&entry);
    let metrics = [Metric::Ndcg(1), Metric::Ndcg(3), Metric::Ndcg(5), Metric::Ndcg(10), Metric::Map];
    for (metric, published) in metrics.into_iter().zip([0.4456, 0.4426, 0.4278, 0.4110, 0.4220]) {
        let mean = folds.iter().map(|(c, _)| metric.of_summary(&c.evaluation.summary).unwrap()).sum::<f64>()
            / folds.len() as f64;
        assert!((mean - published).abs() < 0.002, "{metric} {mean:.4} vs published {published}");
    }
}
