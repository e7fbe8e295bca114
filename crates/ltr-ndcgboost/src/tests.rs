use ltr_boosting::WeakRanker;
use ltr_core::Ranker;
use ltr_testkit::dataset;

use super::objective::{Sigmoids, expected_ranks, potentials, rank_weights, relaxed_from_ranks, up_down};
use super::*;

fn params(rounds: usize, early_stopping_rounds: usize) -> NdcgBoostParams {
    NdcgBoostParams {
        threshold_loop: ThresholdLoopParams { rounds, early_stopping_rounds, ..Default::default() },
    }
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: NdcgBoostParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, NdcgBoostParams::default());
    let l = p.threshold_loop;
    assert_eq!((l.rounds, l.thresholds, l.early_stopping_rounds), (200, 10, 50));
    let p: NdcgBoostParams = serde_json::from_str(r#"{"rounds": 7, "early_stopping_rounds": 3}"#).unwrap();
    assert_eq!(p, params(7, 3));
    let e = params(0, 3).validate().unwrap_err();
    assert!(e.to_string().contains("`rounds`"), "{e}");
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<NdcgBoostParams>().unwrap();
    ltr_core::check_readme::<NdcgBoostParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(NdcgBoostParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

/// Every permutation of `0..m` (as `pi[i]` = the 1-based rank of document `i`).
fn permutations(m: usize) -> Vec<Vec<usize>> {
    if m == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(m - 1) {
        // Insert document m - 1 at every rank, shifting the ranks at and below it.
        for r in 1..=m {
            let mut q: Vec<usize> = p.iter().map(|&x| if x >= r { x + 1 } else { x }).collect();
            q.push(r);
            out.push(q);
        }
    }
    out
}

/// The expected NDCG and the rank marginals by enumerating the `m!` rankings, each with
/// probability `∝ exp(sum over its pairs (i above j) of F_i - F_j)`.
fn by_enumeration(gains: &[f64], scores: &[f64]) -> (f64, Vec<Vec<f64>>) {
    let m = scores.len();
    let ideal = ideal_dcg(gains);
    let (mut z, mut ndcg) = (0.0, 0.0);
    let mut marginals = vec![vec![0.0; m]; m];
    for pi in permutations(m) {
        let mut exponent = 0.0;
        for i in 0..m {
            for j in 0..m {
                if pi[i] < pi[j] {
                    exponent += scores[i] - scores[j];
                }
            }
        }
        let p = f64::exp(exponent);
        z += p;
        ndcg += p * (0..m).map(|i| gains[i] / ((pi[i] + 1) as f64).ln()).sum::<f64>() / ideal;
        for i in 0..m {
            marginals[i][pi[i] - 1] += p;
        }
    }
    marginals.iter_mut().flatten().for_each(|x| *x /= z);
    (ndcg / z, marginals)
}

fn random_query(rng: &mut Rng, m: usize) -> (Vec<f64>, Vec<f64>) {
    let mut grades: Vec<u8> = (0..m).map(|_| rng.index(3) as u8).collect();
    grades[rng.index(m)] = 1 + rng.index(2) as u8;
    let scores = (0..m).map(|_| 1.5 * rng.normal()).collect();
    (grades.into_iter().map(gain).collect(), scores)
}

/// The expected NDCG under the score-induced distribution of rankings equals its value by
/// enumeration of every ranking, for queries of 1 to 6 documents (and so do the rank
/// marginals it is computed from).
#[test]
fn expected_ndcg_equals_the_exact_expectation_by_enumeration() {
    let mut rng = Rng::new(11);
    for m in 1..=6 {
        for _ in 0..8 {
            let (gains, scores) = random_query(&mut rng, m);
            let (want, marginals) = by_enumeration(&gains, &scores);
            let got = exact_expected_ndcg(&gains, &scores).unwrap().unwrap();
            assert!((got - want).abs() <= 1e-12 * want, "m = {m}: {got} vs {want}");
            let ours = rank_marginals(&scores).unwrap();
            for (a, b) in ours.iter().flatten().zip(marginals.iter().flatten()) {
                assert!((a - b).abs() < 1e-12, "m = {m}: marginal {a} vs {b}");
            }
        }
    }
    // Equal scores: every ranking equally likely, E[1/ln(1 + pi(i))] the mean discount.
    let gains = [1.0, 0.0, 3.0];
    let mean = (1..=3).map(|r| 1.0 / ((r + 1) as f64).ln()).sum::<f64>() / 3.0;
    let got = exact_expected_ndcg(&gains, &[0.0; 3]).unwrap().unwrap();
    assert!((got - 4.0 * mean / ideal_dcg(&gains)).abs() < 1e-15);
    assert_eq!(exact_expected_ndcg(&[0.0, 0.0], &[1.0, 2.0]).unwrap(), None);
    assert!(rank_marginals(&[0.0; EXACT_MAX_DOCS + 1]).is_err());
}

/// The relaxation: with two documents `s_ij` is the exact probability of the order, so the
/// relaxed objective is Jensen's bound of the exact expectation; with more, Jensen's bound
/// holds with the exact expected ranks.
#[test]
fn the_relaxation_is_jensens_bound() {
    let mut rng = Rng::new(12);
    for m in 2..=6 {
        for _ in 0..8 {
            let (gains, scores) = random_query(&mut rng, m);
            let exact = exact_expected_ndcg(&gains, &scores).unwrap().unwrap();
            let marginals = rank_marginals(&scores).unwrap();
            let ranks: Vec<f64> = marginals
                .iter()
                .map(|p| p.iter().enumerate().map(|(r, p)| (r + 1) as f64 * p).sum())
                .collect();
            let jensen = relaxed_from_ranks(&gains, ideal_dcg(&gains), &ranks);
            assert!(jensen <= exact + 1e-15, "m = {m}: {jensen} > {exact}");
            let relaxed = relaxed_expected_ndcg(&gains, &scores).unwrap();
            if m == 2 {
                assert!(
                    (marginals[0][0] - 1.0 / (1.0 + (2.0 * (scores[1] - scores[0])).exp())).abs() < 1e-15
                );
                assert!((relaxed - jensen).abs() < 1e-15);
            }
            assert!(relaxed > 0.0 && relaxed <= 1.0);
        }
    }
}

/// The bound of the round: for any weight, the relaxed objective of `F + alpha h` is at least
/// `H(F) + up (1 - e^{-2 alpha}) + down (1 - e^{2 alpha})`, and its slope at `alpha = 0` is
/// `2 sum_i gamma_i h_i = 2 (up - down)`.
#[test]
fn the_bound_holds_and_touches_the_objective_at_zero() {
    let mut rng = Rng::new(13);
    for m in [2, 3, 5, 9, 17] {
        for _ in 0..5 {
            let (gains, scores) = random_query(&mut rng, m);
            let h: Vec<bool> = (0..m).map(|_| rng.index(2) == 1).collect();
            let ideal = ideal_dcg(&gains);
            let mut sig = Sigmoids::default();
            sig.set(scores.iter().copied());
            let (mut ranks, mut w, mut gamma) = (Vec::new(), Vec::new(), Vec::new());
            expected_ranks(&sig, &mut ranks);
            rank_weights(&gains, ideal, &ranks, &mut w);
            potentials(&sig, &w, &mut gamma);
            let (up, down) = up_down(&sig, &w, &h);
            let slope: f64 = gamma.iter().zip(&h).filter(|(_, h)| **h).map(|(g, _)| g).sum();
            assert!((slope - (up - down)).abs() < 1e-14, "{slope} vs {up} - {down}");
            let at = |alpha: f64| {
                let s: Vec<f64> =
                    scores.iter().zip(&h).map(|(s, &h)| s + if h { alpha } else { 0.0 }).collect();
                relaxed_expected_ndcg(&gains, &s).unwrap()
            };
            let h0 = at(0.0);
            for alpha in [-3.0f64, -1.0, -0.2, 0.05, 0.3, 1.0, 4.0] {
                let bound = h0 + up * (1.0 - (-2.0 * alpha).exp()) + down * (1.0 - (2.0 * alpha).exp());
                assert!(at(alpha) >= bound - 1e-13, "m = {m}, alpha = {alpha}: {} < {bound}", at(alpha));
            }
            let e = 1e-6;
            let fd = (at(e) - at(-e)) / (2.0 * e);
            assert!((fd - 2.0 * slope).abs() < 1e-7, "m = {m}: slope {fd} vs {}", 2.0 * slope);
        }
    }
}

/// Two queries, one feature of values 0 and 1 (one threshold, at 0).
///
/// A: grades [1, 0], x = (1, 0). At F = 0: s = 1/2, pibar = (3/2, 3/2), N = 1/ln 2,
/// H_A = ln 2 / ln 2.5, w_A0 = ln 2 / (2.5 ln^2 2.5), w_A1 = 0, theta = 1/4, and h = (1, 0)
/// lifts the relevant document: up_A = w_A0 / 4, down_A = 0.
/// B: grades [1, 0, 0], x = (0, 1, 0). pibar = (2, 2, 2), H_B = ln 2 / ln 3,
/// w_B0 = ln 2 / (3 ln^2 3), h = (0, 1, 0) lifts document 1 over the relevant one:
/// up_B = 0, down_B = w_B0 / 4.
/// So alpha = 1/4 ln(w_A0 / w_B0) = 0.136315, and the weighted classification score is
/// gamma_A0 + gamma_B1 = w_A0 / 4 - w_B0 / 4. After the round, H_A = ln 2 / ln(2 + s(-2 alpha))
/// and H_B = ln 2 / ln(2.5 + s(2 alpha)), `s` the logistic function.
#[test]
fn one_round_on_two_queries_by_hand() {
    let d = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]][..]), (&[1, 0, 0], &[[0.0f32], [1.0], [0.0]][..])]);
    let p = params(1, 50);
    let out = p.validate().unwrap().fit_outcome(&d, None).unwrap();
    let r = &out.trace[0];
    let ln2 = 2f64.ln();
    let (l25, l3) = (2.5f64.ln(), 3f64.ln());
    let (wa, wb) = (ln2 / (2.5 * l25 * l25), ln2 / (3.0 * l3 * l3));
    let alpha = 0.25 * (wa / wb).ln();
    assert!((alpha - 0.136315).abs() < 1e-6);
    assert!((r.alpha - alpha).abs() < 1e-14, "{} vs {alpha}", r.alpha);
    assert!((r.weighted_measure - (wa - wb) / 4.0).abs() < 1e-15);
    let s = |x: f64| 1.0 / (1.0 + (-x).exp());
    let (ha, hb) = (ln2 / (2.0 + s(-2.0 * alpha)).ln(), ln2 / (2.5 + s(2.0 * alpha)).ln());
    assert!((r.train_measure - (ha + hb) / 2.0).abs() < 1e-14);
    assert!((ha + hb) > ln2 / l25 + ln2 / l3);
    let scores = out.model.score_vec(&d).unwrap();
    assert_eq!(scores, vec![r.alpha, 0.0, 0.0, r.alpha, 0.0]);
}

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 2..17, 0.3, 3)
}

/// The relaxed objective rises every round; every weight is the bound's maximiser for the
/// chosen weak ranker; the result does not depend on the thread count; the kept prefix is
/// the best validation round; the model scores the same after a JSON round trip.
#[test]
fn rounds_rise_deterministic_and_checkpointed() {
    let (train, vali) = (random_data(5, 40, 6), random_data(6, 15, 6));
    let crit = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &crit };
    let learner = params(30, 0).validate().unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| learner.fit_outcome(&train, Some(&valid)).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(serde_json::to_string(&one.model).unwrap(), serde_json::to_string(&two.model).unwrap());
    assert_eq!(one.trace, two.trace);
    assert!(one.trace.len() > 5, "{:?}", one.stop);
    assert!(one.trace.windows(2).all(|w| w[1].train_measure > w[0].train_measure));
    let best = one.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
    let first = one.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
    assert_eq!(one.best_rounds, first + 1);
    let back: NdcgBoostModel = serde_json::from_str(&serde_json::to_string(&one.model).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.model.score_vec(&vali).unwrap());
    back.check().unwrap();
    // Every weight maximises the bound of its round: replay the rounds query by query.
    let full = learner.fit_outcome(&train, None).unwrap();
    let mut scores = vec![0.0; train.n_docs()];
    for (t, r) in full.trace.iter().enumerate() {
        let weak = &full.model.rounds[t].weak;
        let (mut up, mut down) = (0.0, 0.0);
        for q in train.queries() {
            let gains: Vec<f64> = q.labels.iter().map(|&y| gain(y)).collect();
            let ideal = ideal_dcg(&gains);
            if ideal <= 0.0 {
                continue;
            }
            let mut sig = Sigmoids::default();
            sig.set(q.range().map(|i| scores[i]));
            let (mut ranks, mut w) = (Vec::new(), Vec::new());
            expected_ranks(&sig, &mut ranks);
            rank_weights(&gains, ideal, &ranks, &mut w);
            let h: Vec<bool> = q.range().map(|i| weak.score(train.row(i)) == 1.0).collect();
            let (u, v) = up_down(&sig, &w, &h);
            up += u;
            down += v;
        }
        let floor = 1e-9 * (up + down);
        let want = 0.25 * (up.max(floor) / down.max(floor)).ln();
        assert!((r.alpha - want).abs() < 1e-10, "round {t}: {} vs {up}/{down}", r.alpha);
        Ensemble::add_round(weak, r.alpha, &train, &mut scores);
    }
}

#[test]
fn errors_and_edge_cases() {
    let learner = NdcgBoostParams::default().validate().unwrap();
    let none = dataset(1, &[(&[0, 0], &[[0.0f32], [1.0]])]);
    let e = learner.fit(&none, None, &mut Rng::new(0)).unwrap_err();
    assert!(e.to_string().contains("relevant"), "{e}");
    let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
    assert!(learner.fit(&nan, None, &mut Rng::new(0)).unwrap_err().to_string().contains("non-finite"));
    // A query without a relevant document takes no part.
    let d = dataset(1, &[(&[0, 0], &[[0.0f32], [1.0]][..]), (&[1, 0], &[[1.0f32], [0.0]][..])]);
    let out = learner.fit_outcome(&d, None).unwrap();
    assert_eq!(out.loop_queries, vec![1]);
    assert_eq!(out.trace[0].query_weights, vec![0.0, 1.0]);
    // Wide score spreads take the pair-by-pair path: the same probabilities.
    let mut fast = Sigmoids::default();
    fast.set([0.0, 1.0, -2.0].into_iter());
    let mut slow = Sigmoids::default();
    slow.set([0.0, 1.0, -2.0, 1000.0].into_iter());
    for (i, j) in [(0, 1), (1, 2), (2, 0)] {
        assert!((fast.s(i, j) - slow.s(i, j)).abs() < 1e-15);
    }
    assert_eq!(slow.s(3, 0), 0.0);
}
