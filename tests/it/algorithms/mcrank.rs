//! `mcrank`: McRank, multi-class classification of the grades with boosted trees.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means;
//! models (several score columns of trees) independent of the thread count.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "mcrank");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "mcrank");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("mcrank", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("mcrank", Metric::Ndcg(10), 0.21);
}

#[test]
fn models_do_not_depend_on_the_thread_count_on_mq2008() {
    assert_thread_count_invariant(LETOR4, "mcrank", &["trees=20", "row_subsample=0.8", "feature_subsample=0.7"]);
}
