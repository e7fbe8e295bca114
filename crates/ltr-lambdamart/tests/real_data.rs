//! LambdaMART on the real LETOR folds (skipped without a dataset mirror).
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use ltr_core::{Learner, Params, Ranker, Rng, Validation, derive_seed};
use ltr_lambdamart::{LambdaMartModel, LambdaMartParams};
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric, evaluate_dataset};

/// The LETOR protocol with NDCG@10 (the dataset's convention) selecting the number of trees
/// on vali, as the harness runs LambdaMART. Returns the 5-fold means of test NDCG@1/3/5/10
/// and MAP under each of `report` conventions.
fn run_ndcg10(collection: &str, dataset: &str, report: &[Convention]) -> Option<Vec<[f64; 5]>> {
    let (folds, convention) = ltr_testkit::folds(collection, dataset)?;
    let select = Criterion::new(Metric::Ndcg(10), EvalConfig::official(convention));
    let learner = LambdaMartParams::default().validate().unwrap();
    let mut sums = vec![[0.0; 5]; report.len()];
    let mut secs = 0.0;
    let mut trees = Vec::new();
    for f in &folds {
        let valid = Validation { data: &f.vali, measure: &select };
        let mut rng = Rng::new(derive_seed(42, &[dataset, &f.fold.to_string()]));
        let t = Instant::now();
        let model = learner.fit(&f.train, Some(&valid), &mut rng).unwrap();
        secs += t.elapsed().as_secs_f64();
        trees.push(model.ensemble.trees.len());
        let scores = model.score_vec(&f.test).unwrap();
        for (sum, &c) in sums.iter_mut().zip(report) {
            let s = evaluate_dataset(&f.test, &scores, &EvalConfig::official(c)).unwrap().summary;
            for (k, v) in [s.ndcg[0], s.ndcg[2], s.ndcg[4], s.ndcg[9], s.map].into_iter().enumerate() {
                sum[k] += v / folds.len() as f64;
            }
        }
    }
    for (m, c) in sums.iter().zip(report) {
        eprintln!(
            "{collection}/{dataset} lambdamart, NDCG@10 selection, test under {c}: NDCG@1 {:.4} @3 {:.4} @5 {:.4} @10 {:.4} MAP {:.4}",
            m[0], m[1], m[2], m[3], m[4]
        );
    }
    eprintln!("  trees kept {trees:?}, fit {:.3} s/fold", secs / folds.len() as f64);
    Some(sums)
}

#[test]
fn mq2008_ndcg10_selection() {
    let Some(m) = run_ndcg10("letor4", "MQ2008", &[Convention::Letor4, Convention::Standard]) else {
        return;
    };
    // LightGBM 4.7 lambdarank at the same settings, 100 trees (scripts/compare_lightgbm.py,
    // evaluated by our metrics): NDCG@10 letor4 0.2273, standard 0.7759. The bar
    // (within 0.005) is checked like for like by the comparison example; here a floor.
    assert!(m[0][3] > 0.2223, "MQ2008 letor4 NDCG@10 {}", m[0][3]);
    assert!(m[1][3] > 0.7709, "MQ2008 standard NDCG@10 {}", m[1][3]);
}

#[test]
fn ohsumed_ndcg10_selection() {
    let Some(m) = run_ndcg10("letor3", "OHSUMED", &[Convention::Letor3]) else { return };
    assert!(m[0][3] > 0.40, "OHSUMED letor3 NDCG@10 {}", m[0][3]);
}

#[test]
fn testkit_protocol_with_map_selection() {
    let grid = [LambdaMartParams::default()];
    if let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid, 42) {
        assert!(r.ndcg[3] > 0.40, "{r}");
    }
    if let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid, 42) {
        assert!(r.ndcg[3] > 0.21, "{r}");
    }
}

#[test]
fn json_round_trip_and_thread_count_invariance_on_mq2008() {
    let Some((folds, _)) = ltr_testkit::folds("letor4", "MQ2008") else { return };
    let f = &folds[0];
    let params =
        LambdaMartParams { trees: 30, row_subsample: 0.8, feature_subsample: 0.7, ..Default::default() };
    let learner = params.validate().unwrap();
    let fit_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| learner.fit(&f.train, None, &mut Rng::new(7)).unwrap())
    };
    let one = fit_with(1);
    let three = fit_with(3);
    let json = serde_json::to_string(&one).unwrap();
    assert_eq!(json, serde_json::to_string(&three).unwrap(), "thread count changed the model");
    let back: LambdaMartModel = serde_json::from_str(&json).unwrap();
    let (a, b) = (one.score_vec(&f.test).unwrap(), back.score_vec(&f.test).unwrap());
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
}
