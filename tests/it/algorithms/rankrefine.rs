//! `rankrefine`: ranking refinement, RankBoost's loop on the labelled pairs and a base ranker's
//! (the best single feature of the training split).
//! Fold 1 of OHSUMED and MQ2008 exactly as reported, its test rankings neither RankBoost's nor
//! one feature's, nor its base ranker's (a feature, possibly negated); floors on the reported
//! 5-fold means; the same model at 1 and 2 threads.

use ltr_core::Params;
use ltr_harness::protocol::CellOutcome;
use ltr_harness::{AlgoConfig, AnyModel};
use ltr_metrics::Metric;

use super::{Collection, LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

/// The selected model does not rank every test query of fold 1 as its base ranker alone does.
fn assert_not_the_base_ranker(c: Collection, cell: &CellOutcome) {
    assert!(matches!(cell.model, AnyModel::RankRefine(_)), "not a rankrefine model");
    let splits = c.fold1();
    let AlgoConfig::RankRefine(p) = &c.entry("rankrefine").grid[cell.chosen] else { panic!("not rankrefine") };
    let base = p.validate().unwrap().base_of(&splits.train).unwrap();
    let sign = if base.negated { -1.0 } else { 1.0 };
    let feature: Vec<f64> = splits.test.rows().map(|r| sign * f64::from(r[base.feature])).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let differs = splits.test.queries().any(|q| {
        ltr_core::rank_order(&cell.test_scores[q.range()], &mut a);
        ltr_core::rank_order(&feature[q.range()], &mut b);
        a != b
    });
    assert!(differs, "{}: rankrefine ranks every test query as its base ranker (feature {}) does", c.dataset, base.feature + 1);
}

#[test]
fn ohsumed_fold1_is_the_reported_cell_and_refines() {
    let cell = fold_one(LETOR3, "rankrefine");
    assert_not_the_base_ranker(LETOR3, &cell);
    assert_not_a_wrapper(LETOR3, "rankrefine", "rankboost");
}

#[test]
fn mq2008_fold1_is_the_reported_cell_and_refines() {
    let cell = fold_one(LETOR4, "rankrefine");
    assert_not_the_base_ranker(LETOR4, &cell);
    assert_not_a_wrapper(LETOR4, "rankrefine", "rankboost");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("rankrefine", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("rankrefine", Metric::Ndcg(10), 0.21);
}

#[test]
fn one_and_two_threads_fit_the_same_model() {
    assert_thread_count_invariant(LETOR4, "rankrefine", &["rounds=30"]);
}
