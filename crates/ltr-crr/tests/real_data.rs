//! The LETOR protocol on the real folds (5-fold, grid point selected on vali by MAP, step
//! count selected on vali inside each fit, test metrics under the dataset's official
//! convention). Skipped without a dataset mirror.

use ltr_crr::{CrrLoss, CrrParams};

/// The validation grid recommended for `experiments/letor3.toml` and `letor4.toml`.
fn grid() -> Vec<CrrParams> {
    let mut g = Vec::new();
    for loss in [CrrLoss::Linear, CrrLoss::Logistic] {
        for alpha in [0.1, 0.5, 0.9] {
            for lambda in [1e-3, 1e-2, 1e-1] {
                g.push(CrrParams { loss, alpha, lambda, steps: 200_000, ..Default::default() });
            }
        }
    }
    g
}

#[test]
fn ohsumed_and_mq2008() {
    let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    // No threshold in the issue: sanity floors only.
    assert!(r.ndcg[3] > 0.40 && r.map > 0.42, "{r}");
    let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    assert!(r.ndcg[3] > 0.21 && r.map > 0.45, "{r}");
}
