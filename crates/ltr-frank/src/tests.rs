use ltr_boosting::StopReason;
use ltr_boosting::WeakRanker;
use ltr_core::Ranker;
use ltr_testkit::dataset;

use super::*;

fn params(rounds: usize, thresholds: usize, query_normalisation: bool) -> FRankParams {
    FRankParams {
        threshold_loop: ThresholdLoopParams { rounds, thresholds, ..Default::default() },
        query_normalisation,
    }
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: FRankParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, FRankParams::default());
    assert_eq!(
        (p.threshold_loop.rounds, p.threshold_loop.thresholds, p.query_normalisation),
        (200, 10, true)
    );
    let p: FRankParams = serde_json::from_str(r#"{"rounds": 7, "query_normalisation": false}"#).unwrap();
    assert_eq!(p, params(7, 10, false));
    for (p, key) in [(params(0, 10, true), "`rounds`"), (params(5, 1, true), "`thresholds`")] {
        let e = p.validate().unwrap_err();
        assert!(e.to_string().contains(key), "{e}");
    }
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<FRankParams>().unwrap();
    ltr_core::check_readme::<FRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(FRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

/// Two queries, two features of values 0 and 1, each feature one threshold (at 0: the
/// quantile cuts are training values, and the largest is never a cut).
///
/// Query A, grades [1, 0]: x0 = (1, 0), x1 = (0, 1): one pair, `c_A = 1`.
/// Query B, grades [2, 1, 0]: x0 = (1, 0, 1), x1 = (1, 0, 0): three pairs, `c_B = 1/3`.
///
/// Round 1, `H = 0`: every pair has `o = 0`, loss `F(0) = 1 - 1/sqrt 2` and weight
/// `w0 = w(0) = 2^{-3/2}`; `J_0 = (1 + 3/3) F(0) = 2 - sqrt 2`.
/// * Feature 0 (`h = [x_0 > 0]`): A's pair has `h_ij = 1`; B's (0, 1) `1`, (0, 2) `0`,
///   (1, 2) `-1`: `up = (1 + 1/3) w0`, `down = w0 / 3`, `alpha = 1/2 ln 4 = ln 2`, predicted
///   decrease `1/2 w0 (sqrt(4/3) - sqrt(1/3))^2 = w0 / 6`.
/// * Feature 1: A's pair `-1`; B's (0, 1) `1`, (0, 2) `1`, (1, 2) `0`: `up = 2/3 w0`,
///   `down = w0`, decrease `1/2 w0 (sqrt(2/3) - 1)^2`, smaller: feature 0 wins.
///
/// After it, `o` is `ln 2` for A's pair and B's (0, 1) (`P = 2/3`), 0 for B's (0, 2) and
/// `-ln 2` for B's (1, 2) (`P = 1/3`): `J_1 = (1 - sqrt(2/3)) + 1/3 ((1 - sqrt(2/3)) +
/// (1 - 1/sqrt 2) + (1 - 1/sqrt 3))` = 0.483185.
///
/// Round 2: `w(ln 2) = 1/2 (3/2)^{-3/2}`, `w(-ln 2) = 2 * 3^{-3/2}`. Feature 0 again:
/// `up = (1 + 1/3) w(ln 2) = (2/3)^{5/2}`, `down = w(-ln 2) / 3 = (2/3) 3^{-3/2}`, ratio
/// `2^{3/2}`, `alpha = 3/4 ln 2`, decrease 0.029820; feature 1: `up = (w(ln 2) + w(0)) / 3`,
/// `down = w(ln 2)`, decrease 0.002112. Feature 0 wins again; `o` becomes `7/4 ln 2` for
/// A's pair and B's (0, 1) and `-7/4 ln 2` for B's (1, 2): `J_2` = 0.434099.
#[test]
fn fidelity_loss_and_weights_on_two_queries_by_hand() {
    let d = dataset(
        2,
        &[
            (&[1, 0], &[[1.0f32, 0.0], [0.0, 1.0]][..]),
            (&[2, 1, 0], &[[1.0f32, 1.0], [0.0, 0.0], [1.0, 0.0]][..]),
        ],
    );
    let p = params(2, 10, true);
    let out = p.validate().unwrap().fit_outcome(&d, None).unwrap();
    assert_eq!(out.trace.len(), 2);
    let (r1, r2) = (&out.trace[0], &out.trace[1]);
    let ln2 = 2f64.ln();
    let f = |o: f64| 1.0 - (1.0 / (1.0 + (-o).exp())).sqrt();
    let w0 = 2f64.powf(-1.5);
    let j0 = 2.0 - 2f64.sqrt();
    assert!((f(0.0) * 2.0 - j0).abs() < 1e-15);
    // Round 1.
    assert_eq!(r1.candidate, 0);
    assert!((r1.alpha - ln2).abs() < 1e-15, "{}", r1.alpha);
    assert_eq!(r1.query_weights, vec![0.5, 0.5]);
    let j1 = (1.0 - (2.0f64 / 3.0).sqrt())
        + ((1.0 - (2.0f64 / 3.0).sqrt()) + (1.0 - 0.5f64.sqrt()) + (1.0 - (1.0f64 / 3.0).sqrt())) / 3.0;
    assert!((j1 - 0.483185).abs() < 1e-6);
    assert!((j1 - (f(ln2) + (f(ln2) + f(0.0) + f(-ln2)) / 3.0)).abs() < 1e-15);
    // The trace reports 1 - J / 2 (J_max = 2 queries).
    assert!((r1.train_measure - (1.0 - j1 / 2.0)).abs() < 1e-15);
    assert!((r1.weighted_measure - (1.0 - (j0 - w0 / 6.0) / 2.0)).abs() < 1e-15);
    // Round 2.
    assert_eq!(r2.candidate, 0);
    assert!((r2.alpha - 0.75 * ln2).abs() < 1e-15, "{}", r2.alpha);
    let (wp, wm) = (0.5 * 1.5f64.powf(-1.5), 2.0 * 3f64.powf(-1.5));
    let (up, down) = ((4.0 / 3.0) * wp, wm / 3.0);
    assert!((up - (2.0f64 / 3.0).powf(2.5)).abs() < 1e-15 && (up / down - 2f64.powf(1.5)).abs() < 1e-14);
    let decrease = 0.5 * (up.sqrt() - down.sqrt()).powi(2);
    assert!((decrease - 0.029820).abs() < 1e-6);
    let (up1, down1) = ((wp + w0) / 3.0, wp);
    assert!((0.5 * (up1.sqrt() - down1.sqrt()).powi(2) - 0.002112).abs() < 1e-6);
    let o = 1.75 * ln2;
    let j2 = f(o) + (f(o) + f(0.0) + f(-o)) / 3.0;
    assert!((j2 - 0.434099).abs() < 1e-6);
    assert!((r2.train_measure - (1.0 - j2 / 2.0)).abs() < 1e-15);
    // The model: 7/4 ln 2 on [x_0 > 0].
    let scores = out.model.score_vec(&d).unwrap();
    assert!((scores[0] - 1.75 * ln2).abs() < 1e-15 && scores[1] == 0.0);
    assert_eq!(out.model.rounds[0].weak.feature, 0);
    assert_eq!(out.model.rounds[0].weak.threshold, 0.0);

    // Without the normalisation, c_q = 1: round 1 has up = 2 w0 (A's pair, B's (0, 1)),
    // down = w0, alpha = 1/2 ln 2.
    let p = params(1, 10, false);
    let out = p.validate().unwrap().fit_outcome(&d, None).unwrap();
    assert!((out.trace[0].alpha - 0.5 * ln2).abs() < 1e-15);
    assert_eq!(out.trace[0].query_weights, vec![0.25, 0.75]);
}

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 2..17, 0.3, 3)
}

/// The loss of a model by enumerating the pairs of every query.
fn brute_loss(data: &Dataset, scores: &[f64], normalise: bool) -> f64 {
    let mut total = 0.0;
    for q in data.queries() {
        let (mut sum, mut pairs) = (0.0, 0usize);
        for i in q.range() {
            for j in q.range() {
                if data.labels()[i] > data.labels()[j] {
                    sum += fidelity(scores[i] - scores[j]);
                    pairs += 1;
                }
            }
        }
        if pairs > 0 {
            total += if normalise { sum / pairs as f64 } else { sum };
        }
    }
    total
}

/// The loss falls every round (improvement test), equals its brute-force value, every weight
/// is the closed form of its candidate's enumerated sums, and the first round picks the
/// candidate with the largest predicted decrease.
#[test]
fn rounds_match_brute_force_and_lower_the_loss() {
    let data = random_data(3, 12, 4);
    for normalise in [true, false] {
        let p = params(15, 6, normalise);
        let out = p.validate().unwrap().fit_outcome(&data, None).unwrap();
        assert!(out.trace.len() >= 5, "{:?}", out.stop);
        let total =
            if normalise { 12.0 } else { brute_loss(&data, &vec![0.0; data.n_docs()], false) / f(0.0) };
        let mut scores = vec![0.0; data.n_docs()];
        let mut prev = brute_loss(&data, &scores, normalise);
        for (t, r) in out.trace.iter().enumerate() {
            let weak = &out.model.rounds[t].weak;
            // Enumerated up/down of the chosen weak ranker under the current scores.
            let (mut up, mut down) = (0.0, 0.0);
            for q in data.queries() {
                let pairs = q.range().flat_map(|i| q.range().map(move |j| (i, j)));
                let pairs: Vec<(usize, usize)> =
                    pairs.filter(|&(i, j)| data.labels()[i] > data.labels()[j]).collect();
                let c = if normalise && !pairs.is_empty() { 1.0 / pairs.len() as f64 } else { 1.0 };
                for (i, j) in pairs {
                    let w = c * pair_weight(scores[i] - scores[j]);
                    match (weak.score(data.row(i)), weak.score(data.row(j))) {
                        (1.0, 0.0) => up += w,
                        (0.0, 1.0) => down += w,
                        _ => {}
                    }
                }
            }
            // The closed form, each side floored at 1e-9 of the total (a weak ranker that
            // reverses no pair gets a finite weight).
            let floor = 1e-9 * (up + down);
            let want = 0.5 * (up.max(floor) / down.max(floor)).ln();
            assert!((r.alpha - want).abs() < 1e-10, "round {t}: {} vs {up}/{down}", r.alpha);
            Ensemble::add_round(weak, r.alpha, &data, &mut scores);
            let loss = brute_loss(&data, &scores, normalise);
            assert!((r.train_measure - (1.0 - loss / total)).abs() < 1e-12, "round {t}");
            assert!(loss < prev, "round {t}: {loss} >= {prev}");
            prev = loss;
        }
    }

    fn f(o: f64) -> f64 {
        fidelity(o)
    }
}

#[test]
fn errors_and_edge_cases() {
    let learner = FRankParams::default().validate().unwrap();
    let flat = dataset(2, &[(&[1, 1], &[[0.0f32, 1.0], [1.0, 0.0]])]);
    let e = learner.fit(&flat, None, &mut Rng::new(0)).unwrap_err();
    assert!(e.to_string().contains("two different grades"), "{e}");
    let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
    assert!(learner.fit(&nan, None, &mut Rng::new(0)).unwrap_err().to_string().contains("non-finite"));
    let constant = dataset(1, &[(&[1, 0], &[[1.0f32], [1.0]])]);
    assert!(learner.fit(&constant, None, &mut Rng::new(0)).is_err());
    // A query whose documents share a grade takes no part; the other still trains.
    let d = dataset(1, &[(&[1, 1], &[[0.0f32], [1.0]][..]), (&[1, 0], &[[1.0f32], [0.0]][..])]);
    let out = learner.fit_outcome(&d, None).unwrap();
    assert_eq!(out.loop_queries, vec![1]);
    assert_eq!(out.trace[0].query_weights, vec![0.0, 1.0]);
}

fn run_in_pool(
    threads: usize,
    f: impl FnOnce() -> BoostOutcome<ThresholdRanker> + Send,
) -> BoostOutcome<ThresholdRanker> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

/// Same model at any thread count; the kept prefix is the best validation round; the model
/// scores data as the loop did, also after a JSON round trip.
#[test]
fn deterministic_checkpointed_and_serialisable() {
    let (train, vali) = (random_data(5, 40, 6), random_data(6, 15, 6));
    let crit = ltr_metrics_criterion(&vali);
    let valid = Validation { data: &vali, measure: &crit };
    let mut p = params(40, 10, true);
    p.threshold_loop.early_stopping_rounds = 0;
    let learner = p.validate().unwrap();
    let one = run_in_pool(1, || learner.fit_outcome(&train, Some(&valid)).unwrap());
    let two = run_in_pool(2, || learner.fit_outcome(&train, Some(&valid)).unwrap());
    let four = run_in_pool(4, || learner.fit_outcome(&train, Some(&valid)).unwrap());
    assert_eq!(serde_json::to_string(&one.model).unwrap(), serde_json::to_string(&two.model).unwrap());
    assert_eq!(one.trace, two.trace);
    assert_eq!(one.trace, four.trace);
    let best = one.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
    let first = one.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
    assert_eq!(one.best_rounds, first + 1);
    assert_eq!(one.model.len(), first + 1);
    let back: FRankModel = serde_json::from_str(&serde_json::to_string(&one.model).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.model.score_vec(&vali).unwrap());
    back.check().unwrap();
    // The loop stops at the cap without validation.
    let out = learner.fit_outcome(&train, None).unwrap();
    assert!(matches!(out.stop, StopReason::RoundCap | StopReason::NoImprovement), "{:?}", out.stop);
}

/// MAP under the data's official convention, as the harness validates.
fn ltr_metrics_criterion(data: &Dataset) -> ltr_metrics::Criterion {
    ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(data))
}
