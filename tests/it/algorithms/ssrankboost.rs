//! `ssrankboost`: semi-supervised RankBoost, twice: as the paper does (`ssrankboost`, the
//! hidden documents labelled by their nearest labelled neighbours) and with the hidden
//! documents dropped (`ssrankboost-supervised`).
//! Both rows' fold 1 of OHSUMED and MQ2008 exactly as reported, half of the training grades
//! hidden, the same documents for both rows and every grid point (the training split's seed),
//! the model statistics showing it; neither row ranks like RankBoost or one feature, nor the
//! paper's row like the supervised one; floors on the reported 5-fold means.

use ltr_core::{Params, Rng};
use ltr_harness::protocol::{self, CellOutcome};
use ltr_harness::{AlgoConfig, AnyModel};
use ltr_metrics::Metric;

use super::{Collection, LETOR3, LETOR4, assert_not_a_wrapper, fold_one};

const ROWS: [&str; 2] = ["ssrankboost", "ssrankboost-supervised"];

/// The training documents the selected grid point of a cell hides, with the fractions hidden
/// and labelled by a neighbour, as its fit makes them (with another `rng` than the protocol's:
/// the training split's seed decides).
fn partition_of(c: Collection, label: &str, cell: &CellOutcome) -> (Vec<bool>, f64, f64) {
    let AlgoConfig::SsRankBoost(p) = &c.entry(label).grid[cell.chosen] else {
        panic!("{label}: not ssrankboost parameters")
    };
    let part = p.validate().unwrap().fit_partition_of(&c.fold1().train, &mut Rng::new(1));
    let (hidden, pseudo) = (part.hidden_fraction(), part.pseudo_labelled_fraction());
    (part.hidden, hidden, pseudo)
}

fn check_rows(c: Collection) {
    assert!(c.fold1().train.split_seed().is_some(), "the protocol gives each fold's training split a seed");
    let cells: Vec<CellOutcome> = ROWS.iter().map(|label| fold_one(c, label)).collect();
    let mut hidden = Vec::new();
    for (label, cell) in ROWS.iter().zip(&cells) {
        let AnyModel::SsRankBoost(m) = &cell.model else { panic!("{label}: not an ssrankboost model") };
        let stats = protocol::model_statistics(&cell.model, &c.fold1().test).unwrap();
        assert_eq!(stats, cell.model_stats);
        assert_eq!(stats["hidden_fraction"], m.hidden_fraction);
        assert_eq!(stats["pseudo_labelled_fraction"], m.pseudo_labelled_fraction);
        assert!((m.hidden_fraction - 0.5).abs() < 0.02, "{label}: {} hidden", m.hidden_fraction);
        let (mask, hidden_fraction, pseudo_fraction) = partition_of(c, label, cell);
        assert_eq!(hidden_fraction, m.hidden_fraction);
        assert_eq!(pseudo_fraction, m.pseudo_labelled_fraction);
        hidden.push(mask);
    }
    assert_eq!(hidden[0], hidden[1], "both rows hide the same documents");
    let AnyModel::SsRankBoost(used) = &cells[0].model else { unreachable!() };
    let AnyModel::SsRankBoost(dropped) = &cells[1].model else { unreachable!() };
    assert!(used.pseudo_labelled_fraction > 0.2 && dropped.pseudo_labelled_fraction == 0.0);
    assert_not_a_wrapper(c, "ssrankboost", "ssrankboost-supervised");
    for label in ROWS {
        assert_not_a_wrapper(c, label, "rankboost");
    }
}

#[test]
fn ohsumed_fold1_both_rows_are_the_reported_cells_and_hide_the_same_documents() {
    check_rows(LETOR3);
}

#[test]
fn mq2008_fold1_both_rows_are_the_reported_cells_and_hide_the_same_documents() {
    check_rows(LETOR4);
}

#[test]
fn reported_means_clear_the_floors() {
    for label in ROWS {
        LETOR3.assert_floor(label, Metric::Ndcg(10), 0.40);
        LETOR4.assert_floor(label, Metric::Ndcg(10), 0.21);
    }
}

#[test]
fn one_and_two_threads_fit_the_same_model() {
    super::assert_thread_count_invariant(LETOR4, "ssrankboost", &["rounds=30"]);
}
