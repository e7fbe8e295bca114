//! `boltzrank`: BoltzRank, the expected NDCG under a sampled Boltzmann distribution over rankings.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "boltzrank");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "boltzrank");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("boltzrank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("boltzrank", Metric::Ndcg(10), 0.21);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "boltzrank", "listnet");
    assert_not_a_wrapper(LETOR4, "boltzrank", "listnet");
}

#[test]
fn models_are_the_same_at_one_and_two_threads() {
    assert_thread_count_invariant(LETOR4, "boltzrank", &["epochs=3", "hidden=8"]);
}
