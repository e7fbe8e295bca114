use super::*;
use ltr_core::Ranker;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
use ltr_testkit::dataset;

fn learner(thresholds: usize, spacing: ThresholdSpacing, weighting: PairWeighting) -> RankBoost {
    RankBoostParams {
        pair_loop: PairLoopParams {
            thresholds,
            threshold_spacing: spacing,
            pair_weighting: weighting,
            ..Default::default()
        },
    }
    .validate()
    .unwrap()
}

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 3..9, 0.3, 2)
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: RankBoostParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, RankBoostParams::default());
    assert_eq!((p.pair_loop.rounds, p.pair_loop.thresholds), (300, 10));
    let p: RankBoostParams =
        serde_json::from_str(r#"{"threshold_spacing": "quantile", "pair_weighting": "queries"}"#).unwrap();
    assert_eq!(p.pair_loop.threshold_spacing, ThresholdSpacing::Quantile);
    assert_eq!(p.pair_loop.pair_weighting, PairWeighting::Queries);
    let e = RankBoostParams { pair_loop: PairLoopParams { rounds: 0, ..Default::default() } }
        .validate()
        .unwrap_err();
    assert!(e.to_string().contains("`rounds`"));
    let e = RankBoostParams { pair_loop: PairLoopParams { thresholds: 1, ..Default::default() } }
        .validate()
        .unwrap_err();
    assert!(e.to_string().contains("`thresholds`"));
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<RankBoostParams>().unwrap();
    ltr_core::check_readme::<RankBoostParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(RankBoostParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
    assert!(
        RankBoostParams { pair_loop: PairLoopParams { rounds: 1_000_000, ..Default::default() } }
            .validate()
            .is_err()
    );
}

/// One query, grades [2, 1, 0], one feature x = [0.9, 0.1, 0.5], every value a cut:
/// cuts 0.1 and 0.5. Crucial pairs (0,1), (0,2), (1,2), D_1 = 1/3 each, so the potentials
/// are pi = (2/3, 1/3 - 1/3, -2/3) = (2/3, 0, -2/3).
/// Cut 0.1 keeps docs 0 and 2: r = 0; cut 0.5 keeps doc 0: r = 2/3, alpha = 1/2 ln 5.
/// Update: pairs (0,1) and (0,2) have h(x1) - h(x2) = 1 and are scaled by e^-alpha = 1/sqrt5,
/// (1,2) stays: D_2 = (1, 1, sqrt5) / (2 + sqrt5).
/// Round 2: pi = (2, sqrt5 - 1, -1 - sqrt5) / (2 + sqrt5): cut 0.1 gives r = (1 - sqrt5) /
/// (2 + sqrt5) = -0.2918, cut 0.5 gives r = 2 / (2 + sqrt5) = 0.4721, which wins.
#[test]
fn rounds_by_hand() {
    let d = dataset(1, &[(&[2, 1, 0], &[&[0.9], &[0.1], &[0.5]])]);
    let l = learner(0, ThresholdSpacing::Uniform, PairWeighting::Pairs);
    let mut t = Trainer::new(&l, &d).unwrap();
    assert_eq!(t.cuts(0), &[f64::from(0.1f32), f64::from(0.5f32)]);
    let d1 = t.pair_distribution();
    assert_eq!(d1.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(), vec![(0, 1), (0, 2), (1, 2)]);
    assert!(d1.iter().all(|p| (p.2 - 1.0 / 3.0).abs() < 1e-15));
    let r1 = t.step().unwrap();
    assert_eq!((r1.weak.feature, r1.cut), (0, 1));
    assert!((r1.r - 2.0 / 3.0).abs() < 1e-15);
    assert!((r1.alpha - 0.5 * 5f64.ln()).abs() < 1e-15);
    let s5 = 5f64.sqrt();
    let want = [1.0 / (2.0 + s5), 1.0 / (2.0 + s5), s5 / (2.0 + s5)];
    for (p, w) in t.pair_distribution().iter().zip(want) {
        assert!((p.2 - w).abs() < 1e-15, "{p:?} vs {w}");
    }
    let r2 = t.step().unwrap();
    assert_eq!(r2.cut, 1);
    assert!((r2.r - 2.0 / (2.0 + s5)).abs() < 1e-15);
    assert!((r2.alpha - 0.5 * ((1.0 + r2.r) / (1.0 - r2.r)).ln()).abs() < 1e-15);
}

/// The reference: D stored per pair (renormalised explicitly each round), r summed pair by
/// pair for every candidate. Returns each round's (feature, cut, r, alpha) and the D it
/// used, pair by pair in enumeration order.
#[allow(clippy::type_complexity)]
fn brute_force(
    data: &Dataset,
    t: &Trainer<'_>,
    weighting: PairWeighting,
    rounds: usize,
    out_d: &mut Vec<Vec<f64>>,
) -> Vec<(usize, usize, f64, f64)> {
    let x = |i: usize, f: usize| f64::from(data.row(i)[f]);
    let mut pairs = Vec::new();
    let mut per_query = Vec::new();
    for q in data.queries() {
        let before = pairs.len();
        for i in q.range() {
            for j in q.range() {
                if data.labels()[i] > data.labels()[j] {
                    pairs.push((i, j, 0.0));
                }
            }
        }
        per_query.push(before..pairs.len());
    }
    let with_pairs = per_query.iter().filter(|r| !r.is_empty()).count() as f64;
    let n_pairs = pairs.len() as f64;
    for r in &per_query {
        let n = r.len() as f64;
        for p in &mut pairs[r.clone()] {
            p.2 = match weighting {
                PairWeighting::Pairs => 1.0 / n_pairs,
                PairWeighting::Queries => 1.0 / (with_pairs * n),
            };
        }
    }
    let mut out = Vec::new();
    for _ in 0..rounds {
        out_d.push(pairs.iter().map(|p| p.2).collect());
        let mut best: Option<(f64, usize, usize)> = None;
        for f in 0..data.n_features() {
            for (j, &th) in t.cuts(f).iter().enumerate() {
                let h = |i: usize| if x(i, f) > th { 1.0 } else { 0.0 };
                let r: f64 = pairs.iter().map(|&(a, b, d)| d * (h(a) - h(b))).sum();
                if best.is_none_or(|b| r.abs() > b.0.abs()) {
                    best = Some((r, f, j));
                }
            }
        }
        let (r, f, j) = best.unwrap();
        let alpha = 0.5 * ((1.0 + r) / (1.0 - r)).ln();
        out.push((f, j, r, alpha));
        let th = t.cuts(f)[j];
        let h = |i: usize| if x(i, f) > th { 1.0 } else { 0.0 };
        for p in &mut pairs {
            p.2 *= (alpha * (h(p.1) - h(p.0))).exp();
        }
        let z: f64 = pairs.iter().map(|p| p.2).sum();
        for p in &mut pairs {
            p.2 /= z;
        }
    }
    out
}

#[test]
fn rounds_equal_brute_force_pair_enumeration_and_d_stays_normalised() {
    for (seed, thresholds, spacing, weighting) in [
        (1, 4, ThresholdSpacing::Uniform, PairWeighting::Pairs),
        (2, 5, ThresholdSpacing::Quantile, PairWeighting::Queries),
        (3, 0, ThresholdSpacing::Uniform, PairWeighting::Queries),
        (4, 10, ThresholdSpacing::Uniform, PairWeighting::Pairs),
    ] {
        let data = random_data(seed, 4, 3);
        let l = learner(thresholds, spacing, weighting);
        let mut t = Trainer::new(&l, &data).unwrap();
        let rounds = 12;
        let mut want_d = Vec::new();
        let want = brute_force(&data, &t, weighting, rounds, &mut want_d);
        for (k, w) in want.iter().enumerate() {
            // D as the fast path uses it (divided by its per-grade normaliser Z) sums to 1
            // and equals the explicitly stored and renormalised D, pair by pair.
            let dist = t.pair_distribution();
            let total: f64 = dist.iter().map(|p| p.2).sum();
            assert!((total - 1.0).abs() < 1e-12, "round {k}: sum D = {total}");
            assert!(dist.iter().all(|p| p.2 > 0.0));
            assert_eq!(dist.len(), want_d[k].len());
            for (p, &d) in dist.iter().zip(&want_d[k]) {
                assert!(
                    (p.2 - d).abs() <= 1e-12 * d.max(1e-3),
                    "round {k}: D{:?} = {} vs {d}",
                    (p.0, p.1),
                    p.2
                );
            }
            let got = t.step().unwrap();
            assert_eq!((got.weak.feature, got.cut), (w.0, w.1), "seed {seed} round {k}");
            assert!((got.r - w.2).abs() < 1e-12, "seed {seed} round {k}: r {} vs {}", got.r, w.2);
            assert!((got.alpha - w.3).abs() < 1e-10, "seed {seed} round {k}: alpha {} vs {}", got.alpha, w.3);
        }
    }
}

/// Grades [1, 0] and x0 = [1, 0]: the only cut (0) orders the only pair, r = 1; the round
/// gets the capped weight 1/2 ln(2 / 1e-9) and training stops.
#[test]
fn a_perfect_weak_ranker_stops_training_with_a_finite_weight() {
    let d = dataset(2, &[(&[1, 0], &[&[1.0, 0.3], &[0.0, 0.7]])]);
    let l = learner(0, ThresholdSpacing::Uniform, PairWeighting::Pairs);
    let mut t = Trainer::new(&l, &d).unwrap();
    let r = t.step().unwrap();
    assert_eq!(r.r, 1.0);
    assert!((r.alpha - 0.5 * (2.0f64 / 1e-9).ln()).abs() < 1e-9);
    assert!(t.finished());
    assert!(t.step().is_none());
    let model = l.fit(&d, None, &mut Rng::new(0)).unwrap();
    assert_eq!(model.rounds.len(), 1);
}

#[test]
fn no_crucial_pair_is_an_error() {
    let d = dataset(1, &[(&[1, 1], &[&[0.1], &[0.2]]), (&[0], &[&[0.5]])]);
    assert!(RankBoostParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
}

#[test]
fn validation_keeps_the_best_prefix_and_results_are_thread_independent() {
    let train = random_data(11, 30, 5);
    let vali = random_data(12, 10, 5);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    let l = RankBoostParams { pair_loop: PairLoopParams { rounds: 40, ..Default::default() } }
        .validate()
        .unwrap();
    let fit = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| l.fit(&train, Some(&valid), &mut Rng::new(0)).unwrap())
    };
    let (one, three) = (fit(1), fit(3));
    assert_eq!(one, three);
    // The kept prefix is the best on vali among all prefixes.
    let full = l.fit(&train, None, &mut Rng::new(0)).unwrap();
    assert_eq!(full.rounds[..one.rounds.len()], one.rounds[..]);
    let kept = valid.evaluate_model(&one).unwrap();
    for n in 1..=full.rounds.len() {
        let mut m = full.clone();
        m.truncate(n);
        assert!(valid.evaluate_model(&m).unwrap() <= kept);
    }
    let back: RankBoostModel = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.score_vec(&vali).unwrap());
}
