//! `listnet`: ListNet on the scoring network.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; the published LETOR 3.0 ListNet reached,
//! within 0.01, by the reported means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "listnet");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "listnet");
}

#[test]
fn reported_means_reach_the_published_listnet() {
    // Published ListNet on OHSUMED: NDCG@10 0.4410, MAP 0.4457.
    LETOR3.assert_published_baseline("listnet");
    LETOR4.assert_floor("listnet", Metric::Ndcg(10), 0.21);
}
