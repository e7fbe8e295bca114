//! AdaRank on the real LETOR folds (skipped without the dataset mirror): 5-fold means of
//! the model selected on vali by MAP, printed, and the OHSUMED thresholds of issue 5 for
//! AdaRank-MAP (published LETOR 3.0 baseline: NDCG@10 0.4429, MAP 0.4487).

use ltr_adarank::{AdaRankMapParams, AdaRankNdcgParams};

/// The grid recommended for experiments/letor{3,4}.toml: `no_reselect = [true, false]`.
fn map_grid() -> Vec<AdaRankMapParams> {
    [true, false].map(|no_reselect| AdaRankMapParams { no_reselect, ..Default::default() }).to_vec()
}

/// The grid recommended for experiments/letor{3,4}.toml: `k = [3, 10]`.
fn ndcg_grid() -> Vec<AdaRankNdcgParams> {
    [3, 10].map(|k| AdaRankNdcgParams { k, ..Default::default() }).to_vec()
}

#[test]
fn adarank_map_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &map_grid(), 42) else { return };
    eprintln!("adarank-map OHSUMED: {cv}");
    assert!(cv.ndcg[3] >= 0.433, "NDCG@10 {:.4} < 0.433", cv.ndcg[3]);
    assert!(cv.map >= 0.439, "MAP {:.4} < 0.439", cv.map);
}

#[test]
fn adarank_ndcg_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &ndcg_grid(), 42) else { return };
    eprintln!("adarank-ndcg OHSUMED: {cv}");
}

#[test]
fn adarank_map_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &map_grid(), 42) else { return };
    eprintln!("adarank-map MQ2008: {cv}");
}

#[test]
fn adarank_ndcg_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &ndcg_grid(), 42) else { return };
    eprintln!("adarank-ndcg MQ2008: {cv}");
}
