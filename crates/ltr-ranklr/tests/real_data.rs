//! The LETOR protocol on the real folds (5-fold, `c` selected on vali by MAP, test metrics under
//! the dataset's official convention). Skipped without a dataset mirror.

use ltr_ranklr::{Pairs, RankLrParams};

/// The validation grid of `experiments/letor3.toml` and `letor4.toml`.
const GRID_C: [f64; 5] = [1e-3, 1e-2, 1e-1, 1.0, 10.0];

fn grid(pairs: Pairs) -> Vec<RankLrParams> {
    GRID_C.into_iter().map(|c| RankLrParams { c, pairs, ..Default::default() }).collect()
}

#[test]
fn ohsumed_and_mq2008() {
    for pairs in [Pairs::All, Pairs::Approximate] {
        let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid(pairs), 42) else { return };
        eprintln!("{pairs:?}");
        if pairs == Pairs::All {
            assert!(r.ndcg[3] >= 0.40, "OHSUMED NDCG@10 {:.4} < 0.40: {r}", r.ndcg[3]);
        }
        let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid(pairs), 42) else { return };
        if pairs == Pairs::All {
            assert!(r.ndcg[3] >= 0.21, "MQ2008 NDCG@10 {:.4} < 0.21: {r}", r.ndcg[3]);
        }
    }
}
