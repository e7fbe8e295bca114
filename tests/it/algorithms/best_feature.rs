//! `best-feature`: the single feature and sign with the best validation measure.
//! Fold 1 of OHSUMED and MQ2008 exactly as reported, with the selected feature checked against
//! every candidate measured here; floors on the reported 5-fold means.

use ltr_core::Measure;
use ltr_harness::AnyModel;
use ltr_metrics::Metric;

use super::{Collection, LETOR3, LETOR4, assert_thread_count_invariant, fold_one};

/// The fold-1 cell selects the first feature and sign, in the order (feature, then positive
/// before negated), of those with the highest validation measure, each measured here as the
/// ranking of the validation split by the feature alone.
fn assert_best_on_vali(c: Collection) {
    let cell = fold_one(c, "best-feature");
    let AnyModel::BestFeature(m) = &cell.model else { panic!("not a best-feature model") };
    let vali = &c.fold1().vali;
    let measure = &cell.criterion;
    let mut best: Option<(f64, usize, bool)> = None;
    for f in 0..vali.n_features() {
        for negated in [false, true] {
            let scores: Vec<f64> =
                vali.rows().map(|r| if negated { -f64::from(r[f]) } else { f64::from(r[f]) }).collect();
            let v = measure.mean(vali, &scores).unwrap();
            if best.is_none_or(|(b, _, _)| v > b) {
                best = Some((v, f, negated));
            }
        }
    }
    let (v, f, negated) = best.unwrap();
    assert_eq!((m.feature, m.negated), (f, negated), "{}: best {v} at feature {}", c.dataset, f + 1);
    assert_eq!(cell.vali[cell.chosen], v);
    assert_eq!(cell.model_stats.get("features_used"), Some(&1.0));
}

#[test]
fn ohsumed_fold1_is_the_reported_cell_and_the_best_feature_on_vali() {
    assert_best_on_vali(LETOR3);
}

#[test]
fn mq2008_fold1_is_the_reported_cell_and_the_best_feature_on_vali() {
    assert_best_on_vali(LETOR4);
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("best-feature", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("best-feature", Metric::Ndcg(10), 0.21);
}

#[test]
fn thread_count_invariant() {
    assert_thread_count_invariant(LETOR4, "best-feature", &[]);
}
