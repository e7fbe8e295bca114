//! The LETOR protocol on the real folds (5-fold, `c` selected on vali by MAP, test metrics under
//! the dataset's official convention), for both losses. Skipped without a dataset mirror.

use ltr_ranksvm::{RankSvmLoss, RankSvmParams};

/// The validation grid recommended for `experiments/letor3.toml` and `letor4.toml`.
const GRID_C: [f64; 5] = [1e-3, 1e-2, 1e-1, 1.0, 10.0];

fn grid(loss: RankSvmLoss) -> Vec<RankSvmParams> {
    GRID_C.into_iter().map(|c| RankSvmParams { loss, c, ..Default::default() }).collect()
}

fn per_fold(r: &ltr_testkit::CvResult) -> String {
    r.folds
        .iter()
        .map(|f| format!("fold{} c={} {:.3}s", f.fold, GRID_C[f.chosen], f.fit_seconds))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn ohsumed_hinge_reaches_the_published_ranksvm() {
    let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(RankSvmLoss::Hinge), 42) else {
        return;
    };
    eprintln!("OHSUMED hinge: {}", per_fold(&r));
    // Issue 4: NDCG@10 >= 0.404 and MAP >= 0.423 (published RankSVM: 0.4140 / 0.4334).
    assert!(r.ndcg[3] >= 0.404, "NDCG@10 {:.4} < 0.404: {r}", r.ndcg[3]);
    assert!(r.map >= 0.423, "MAP {:.4} < 0.423: {r}", r.map);
}

#[test]
fn ohsumed_squared_hinge_reaches_the_published_ranksvm() {
    let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(RankSvmLoss::SquaredHinge), 42)
    else {
        return;
    };
    eprintln!("OHSUMED squared hinge: {}", per_fold(&r));
    assert!(r.ndcg[3] >= 0.404, "NDCG@10 {:.4} < 0.404: {r}", r.ndcg[3]);
    assert!(r.map >= 0.423, "MAP {:.4} < 0.423: {r}", r.map);
}

#[test]
fn mq2008_hinge() {
    let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(RankSvmLoss::Hinge), 42) else {
        return;
    };
    eprintln!("MQ2008 hinge: {}", per_fold(&r));
    // No threshold in the issue; LETOR 4.0 publishes RankSVM on MQ2008 at NDCG@10 0.2306,
    // MAP 0.4696. A sanity floor only.
    assert!(r.ndcg[3] > 0.21 && r.map > 0.45, "{r}");
}

#[test]
fn mq2008_squared_hinge() {
    let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(RankSvmLoss::SquaredHinge), 42)
    else {
        return;
    };
    eprintln!("MQ2008 squared hinge: {}", per_fold(&r));
    assert!(r.ndcg[3] > 0.21 && r.map > 0.45, "{r}");
}
