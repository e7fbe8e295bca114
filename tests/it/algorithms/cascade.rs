//! `cascade`: the cascade ranking model (boosting stages that prune).
//! Fold 1 of OHSUMED and MQ2008 exactly as reported, with the selected cascade's cost per test
//! query below the same stages' cost without pruning; floors on the reported 5-fold means.

use ltr_harness::AnyModel;
use ltr_harness::protocol::CellOutcome;
use ltr_metrics::Metric;

use super::{Collection, LETOR3, LETOR4, fold_one};

fn assert_pruning_saves(c: Collection, cell: &CellOutcome) {
    let AnyModel::Cascade(m) = &cell.model else { panic!("not a cascade model") };
    let test = &c.fold1().test;
    let cost = m.cost(test).unwrap();
    let stages = m.stages.len();
    assert!(stages >= 1, "an empty cascade was selected");
    assert_eq!(cost.per_query.len(), test.n_queries());
    for (q, &spent) in cost.per_query.iter().enumerate() {
        let docs = test.query(q).len();
        assert!(spent >= docs as f64 && spent <= (stages * docs) as f64, "query {q}: cost {spent}");
    }
    assert_eq!(cost.unpruned_mean, (stages * test.n_docs()) as f64 / test.n_queries() as f64);
    assert!(cost.mean < cost.unpruned_mean, "no saving: {cost:?}");
}

#[test]
fn ohsumed_fold1_is_the_reported_cell_and_prunes() {
    assert_pruning_saves(LETOR3, &fold_one(LETOR3, "cascade"));
}

#[test]
fn mq2008_fold1_is_the_reported_cell_and_prunes() {
    assert_pruning_saves(LETOR4, &fold_one(LETOR4, "cascade"));
}

#[test]
fn reported_means_clear_the_floors() {
    LETOR3.assert_floor("cascade", Metric::Ndcg(10), 0.40);
    LETOR4.assert_floor("cascade", Metric::Ndcg(10), 0.21);
}
