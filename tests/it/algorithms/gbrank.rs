//! `gbrank`: GBRank, boosted regression trees on the swapped targets of violated pairs.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means;
//! trees independent of the thread count.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "gbrank");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "gbrank");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("gbrank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("gbrank", Metric::Ndcg(10), 0.21);
}

#[test]
fn models_do_not_depend_on_the_thread_count_on_mq2008() {
    // GBRank draws nothing at random: the trees' parallel histograms are what is checked.
    assert_thread_count_invariant(LETOR4, "gbrank", &["trees=20"]);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "gbrank", "lambdamart");
    assert_not_a_wrapper(LETOR4, "gbrank", "lambdamart");
}
