//! RankCosine on the real LETOR folds (skipped without the dataset mirror): 5-fold means of
//! the model selected on vali by MAP, printed, with the acceptance floors (NDCG@10 at least
//! 0.40 on OHSUMED, 0.21 on MQ2008).

use ltr_rankcosine::{CosineTarget, RankCosineParams};

/// The grid of experiments/letor{3,4}.toml.
fn grid() -> Vec<RankCosineParams> {
    [CosineTarget::Gain, CosineTarget::Grade]
        .map(|target| RankCosineParams { target, ..Default::default() })
        .to_vec()
}

#[test]
fn rankcosine_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    eprintln!("rankcosine OHSUMED: {cv}");
    assert!(cv.ndcg[3] >= 0.40, "NDCG@10 {:.4}", cv.ndcg[3]);
}

#[test]
fn rankcosine_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    eprintln!("rankcosine MQ2008: {cv}");
    assert!(cv.ndcg[3] >= 0.21, "NDCG@10 {:.4}", cv.ndcg[3]);
}
