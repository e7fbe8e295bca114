//! RankBoost on the real LETOR folds (skipped without the dataset mirror): 5-fold means of
//! the model selected on vali by MAP, printed, and the OHSUMED thresholds of issue 5
//! (published LETOR 3.0 RankBoost: NDCG@10 0.4302, MAP 0.4411).

use ltr_rankboost::RankBoostParams;

/// The grid recommended for experiments/letor{3,4}.toml: `thresholds = [10, 50]` (rounds
/// are chosen on vali inside each fit).
fn grid() -> Vec<RankBoostParams> {
    [10, 50].map(|thresholds| RankBoostParams { thresholds, ..Default::default() }).to_vec()
}

#[test]
fn rankboost_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    eprintln!("rankboost OHSUMED: {cv}");
    assert!(cv.ndcg[3] >= 0.420, "NDCG@10 {:.4} < 0.420", cv.ndcg[3]);
    assert!(cv.map >= 0.431, "MAP {:.4} < 0.431", cv.map);
}

#[test]
fn rankboost_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    eprintln!("rankboost MQ2008: {cv}");
}
