//! `svm-map`: the structural SVM bounding 1 - AP.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "svm-map");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "svm-map");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("svm-map", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("svm-map", Metric::Ndcg(10), 0.21);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "svm-map", "ranksvm");
    assert_not_a_wrapper(LETOR4, "svm-map", "ranksvm");
}
