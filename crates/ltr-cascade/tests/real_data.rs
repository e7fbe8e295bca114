//! The cascade on the real LETOR folds (skipped without the dataset mirror): 5-fold means of
//! the model selected on vali by MAP and its average cost per test query, printed, with the
//! acceptance floors (NDCG@10 at least 0.40 on OHSUMED, 0.21 on MQ2008).

use ltr_cascade::{CascadeParams, PruningKind};

/// The grid of experiments/letor{3,4}.toml.
fn grid() -> Vec<CascadeParams> {
    [PruningKind::Rank, PruningKind::Score]
        .map(|pruning| CascadeParams { pruning, ..Default::default() })
        .to_vec()
}

#[test]
fn cascade_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    eprintln!("cascade OHSUMED: {cv}");
    assert!(cv.ndcg[3] >= 0.40, "NDCG@10 {:.4}", cv.ndcg[3]);
}

#[test]
fn cascade_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    eprintln!("cascade MQ2008: {cv}");
    assert!(cv.ndcg[3] >= 0.21, "NDCG@10 {:.4}", cv.ndcg[3]);
}
