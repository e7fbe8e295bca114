//! The LETOR protocol on the real folds (5-fold, `c` selected on vali by MAP, the ensemble
//! selected on vali inside each fit, test metrics under the dataset's official convention).
//! Skipped without a dataset mirror.

use ltr_ranksvm_ensemble::EnsembleParams;

/// The validation grid of `experiments/letor3.toml` and `letor4.toml`.
const GRID_C: [f64; 3] = [1e-2, 1e-1, 1.0];

fn grid() -> Vec<EnsembleParams> {
    GRID_C.into_iter().map(|c| EnsembleParams { c, ..Default::default() }).collect()
}

#[test]
fn ohsumed_and_mq2008() {
    let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    assert!(r.ndcg[3] >= 0.40, "OHSUMED NDCG@10 {:.4} < 0.40: {r}", r.ndcg[3]);
    let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    assert!(r.ndcg[3] >= 0.21, "MQ2008 NDCG@10 {:.4} < 0.21: {r}", r.ndcg[3]);
}
