//! `qbrank`: QBRank, boosting on a quadratic upper bound of pairwise plus grade losses.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means;
//! trees independent of the thread count.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "qbrank");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "qbrank");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("qbrank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("qbrank", Metric::Ndcg(10), 0.21);
}

#[test]
fn models_do_not_depend_on_the_thread_count_on_mq2008() {
    // Row and feature subsampling on, so the random draws are exercised too.
    assert_thread_count_invariant(LETOR4, "qbrank", &["trees=20", "row_subsample=0.8", "feature_subsample=0.7"]);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "qbrank", "gbrank");
    assert_not_a_wrapper(LETOR4, "qbrank", "gbrank");
}
