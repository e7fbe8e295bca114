//! The LETOR protocol on the real folds (5-fold, the radius selected on vali by MAP inside each
//! fit, test metrics under the dataset's official convention). Skipped without a dataset
//! mirror.

use ltr_fenchelrank::FenchelRankParams;

#[test]
fn ohsumed_and_mq2008() {
    // The experiments' setting.
    let grid = [FenchelRankParams { patience: 2, ..Default::default() }];
    let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid, 42) else { return };
    assert!(r.ndcg[3] >= 0.40, "OHSUMED NDCG@10 {:.4} < 0.40: {r}", r.ndcg[3]);
    let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid, 42) else { return };
    assert!(r.ndcg[3] >= 0.21, "MQ2008 NDCG@10 {:.4} < 0.21: {r}", r.ndcg[3]);
}
