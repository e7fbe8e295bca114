//! `bayesrank`: BayesRank (the Bayes risk of NDCG@k under Plackett-Luce) on the scoring network.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means, within
//! 0.02 NDCG@10 of ListMLE on one collection at least; rankings neither ListMLE's nor a single
//! feature's; the same model at 1 and 2 threads on real data.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "bayesrank");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "bayesrank");
}

#[test]
fn reported_means_clear_the_floors_and_meet_listmle() {
    LETOR3.assert_floor("bayesrank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("bayesrank", Metric::Ndcg(10), 0.21);
    let gap = |c: super::Collection| {
        (c.reported_mean("bayesrank", Metric::Ndcg(10)) - c.reported_mean("listmle", Metric::Ndcg(10))).abs()
    };
    assert!(gap(LETOR3).min(gap(LETOR4)) <= 0.02, "OHSUMED {}, MQ2008 {}", gap(LETOR3), gap(LETOR4));
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "bayesrank", "listmle");
    assert_not_a_wrapper(LETOR4, "bayesrank", "listmle");
}

#[test]
fn models_do_not_depend_on_the_thread_count() {
    assert_thread_count_invariant(LETOR4, "bayesrank", &["epochs=5", "batch=8", "hidden=8"]);
}
