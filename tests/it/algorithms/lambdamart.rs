//! `lambdamart`: LambdaMART on the histogram trees.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported; floors on the reported 5-fold means; the
//! default parameters against LightGBM; models independent of the thread count.

use ltr_metrics::{Convention, EvalConfig, Metric, evaluate_dataset};

use super::{LETOR3, LETOR4, assert_thread_count_invariant, fold_one};

#[test]
fn ohsumed_fold1_is_the_reported_cell() {
    fold_one(LETOR3, "lambdamart");
}

#[test]
fn mq2008_fold1_is_the_reported_cell() {
    fold_one(LETOR4, "lambdamart");
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("lambdamart", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("lambdamart", Metric::Ndcg(10), 0.21);
}

#[test]
fn default_parameters_reach_lightgbm_on_mq2008() {
    // LightGBM 4.7 lambdarank at the same settings, 100 trees, NDCG@10 selecting the number of
    // trees on vali (crates/ltr-lambdamart/scripts/compare_lightgbm.py, evaluated by our
    // metrics): 5-fold NDCG@10 0.2273 under letor4, 0.7759 under the standard convention. The
    // like-for-like comparison is the script's; here floors 0.005 below.
    let folds = LETOR4.all_folds(&LETOR4.custom_entry("lambdamart", &[Vec::<&str>::new()]));
    let standard = EvalConfig::official(Convention::Standard);
    let n = folds.len() as f64;
    let letor4 = folds.iter().map(|(cell, _)| cell.evaluation.summary.ndcg[9]).sum::<f64>() / n;
    let std = folds
        .iter()
        .map(|(cell, splits)| evaluate_dataset(&splits.test, &cell.test_scores, &standard).unwrap().summary.ndcg[9])
        .sum::<f64>()
        / n;
    assert!(letor4 > 0.2223, "MQ2008 letor4 NDCG@10 {letor4:.4}");
    assert!(std > 0.7709, "MQ2008 standard NDCG@10 {std:.4}");
}

#[test]
fn models_do_not_depend_on_the_thread_count_on_mq2008() {
    // Row and feature subsampling on, so the random draws are exercised too.
    assert_thread_count_invariant(
        LETOR4,
        "lambdamart",
        &["trees=30", "row_subsample=0.8", "feature_subsample=0.7"],
    );
}
