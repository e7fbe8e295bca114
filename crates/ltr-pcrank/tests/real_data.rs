//! PCRank on the real LETOR folds (skipped without the dataset mirror): 5-fold means of the
//! model selected on vali by MAP, printed. Issue 4 sets no quality threshold for PCRank; the
//! tests check the numbers are sane (above a single-feature ranker's level).

use ltr_pcrank::PcRankParams;

/// The grid recommended for experiments/letor{3,4}.toml: `closeness = [0.0, 0.3]` (the
/// closed form and the subgradient variant).
fn grid() -> Vec<PcRankParams> {
    [0.0, 0.3].map(|closeness| PcRankParams { closeness, ..Default::default() }).to_vec()
}

#[test]
fn pcrank_ohsumed() {
    let Some(cv) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(), 42) else { return };
    eprintln!("pcrank OHSUMED: {cv}");
    assert!(cv.map > 0.40, "MAP {:.4}", cv.map);
}

#[test]
fn pcrank_mq2008() {
    let Some(cv) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(), 42) else { return };
    eprintln!("pcrank MQ2008: {cv}");
    assert!(cv.map > 0.40, "MAP {:.4}", cv.map);
}
