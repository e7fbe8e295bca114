//! IntervalRank on the real LETOR folds through the test kit (skipped without a mirror).
#![allow(clippy::unwrap_used)]

use ltr_intervalrank::IntervalRankParams;

#[test]
fn ohsumed() {
    let grid = [IntervalRankParams::default()];
    if let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid, 42) {
        eprintln!("intervalrank OHSUMED: {r}");
        assert!(r.ndcg[3] > 0.40, "{r}");
    }
}

#[test]
fn mq2008() {
    let grid = [IntervalRankParams::default()];
    if let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid, 42) {
        eprintln!("intervalrank MQ2008: {r}");
        assert!(r.ndcg[3] > 0.21, "{r}");
    }
}
