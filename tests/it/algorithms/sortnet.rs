//! `sortnet`: SortNet's comparator network, ranking by expected wins.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "sortnet");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "sortnet");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("sortnet", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("sortnet", Metric::Ndcg(10), 0.21);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "sortnet", "ranknet");
    assert_not_a_wrapper(LETOR4, "sortnet", "ranknet");
}

#[test]
fn models_are_the_same_at_one_and_two_threads() {
    assert_thread_count_invariant(LETOR4, "sortnet", &["iterations=2", "epochs=1"]);
}
