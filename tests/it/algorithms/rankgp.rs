//! `rankgp`: RankGP, expression trees evolved by genetic programming.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means;
//! rankings not AdaRank-MAP's nor a single feature's; models independent of the thread count.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, assert_not_a_wrapper, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "rankgp");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "rankgp");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("rankgp", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("rankgp", Metric::Ndcg(10), 0.21);
}

#[test]
fn rankings_are_its_own() {
    assert_not_a_wrapper(LETOR3, "rankgp", "adarank-map");
    assert_not_a_wrapper(LETOR4, "rankgp", "adarank-map");
}

#[test]
fn models_do_not_depend_on_the_thread_count_on_mq2008() {
    assert_thread_count_invariant(LETOR4, "rankgp", &["population=40", "generations=5"]);
}
