//! `adarank-ndcg`: AdaRank optimising NDCG@k.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "adarank-ndcg");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "adarank-ndcg");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("adarank-ndcg", Metric::Ndcg(10), 0.40);
    LETOR3.assert_floor("adarank-ndcg", Metric::Map, 0.42);
    LETOR4.assert_floor("adarank-ndcg", Metric::Ndcg(10), 0.21);
    LETOR4.assert_floor("adarank-ndcg", Metric::Map, 0.45);
}
