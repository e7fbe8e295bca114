//! `adarank-map`: AdaRank optimising MAP.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; the published LETOR 3.0 AdaRank-MAP
//! reached by the reported means.

use ltr_metrics::Metric;

use super::{LETOR3, LETOR4, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "adarank-map");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "adarank-map");
}

#[test]
fn reported_means_reach_the_published_adarank_map() {
    // Published AdaRank-MAP on OHSUMED: NDCG@10 0.4429, MAP 0.4487.
    LETOR3.assert_published_baseline("adarank-map");
    LETOR4.assert_floor("adarank-map", Metric::Ndcg(10), 0.21);
    LETOR4.assert_floor("adarank-map", Metric::Map, 0.45);
}
