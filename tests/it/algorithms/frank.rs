//! `frank`: FRank, the fidelity loss on pairs, on the query-level boosting driver.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported, its test rankings neither RankBoost's nor
//! one feature's; floors on the reported 5-fold means; the same model at 1 and 2 threads.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell_and_not_rankboost() {
    fold_one(LETOR3, "frank");
    assert_not_a_wrapper(LETOR3, "frank", "rankboost");
}

#[test]
fn mq2008_fold1_is_the_reported_cell_and_not_rankboost() {
    fold_one(LETOR4, "frank");
    assert_not_a_wrapper(LETOR4, "frank", "rankboost");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("frank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("frank", Metric::Ndcg(10), 0.21);
}

#[test]
fn one_and_two_threads_fit_the_same_model() {
    assert_thread_count_invariant(LETOR4, "frank", &["rounds=30"]);
}
