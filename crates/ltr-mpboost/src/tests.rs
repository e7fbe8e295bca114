use super::*;
use ltr_boosting::PairWeighting;
use ltr_core::Ranker;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
use ltr_testkit::dataset;

fn learner(thresholds: usize, weighting: PairWeighting, ddf: Ddf) -> MpBoost {
    MpBoostParams {
        pair_loop: PairLoopParams { thresholds, pair_weighting: weighting, ..Default::default() },
        ddf,
    }
    .validate()
    .unwrap()
}

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_graded_dataset(seed, queries, d, 3..9, 4, 0.3, 2)
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: MpBoostParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, MpBoostParams::default());
    assert_eq!((p.pair_loop.rounds, p.pair_loop.thresholds, p.ddf), (300, 10, Ddf::Linear));
    let p: MpBoostParams = serde_json::from_str(r#"{"ddf": "log", "pair_weighting": "queries"}"#).unwrap();
    assert_eq!((p.ddf, p.pair_loop.pair_weighting), (Ddf::Log, PairWeighting::Queries));
    assert!(serde_json::from_str::<MpBoostParams>(r#"{"ddf": "square"}"#).is_err());
    let e = MpBoostParams {
        pair_loop: PairLoopParams { thresholds: 1, ..Default::default() },
        ..Default::default()
    }
    .validate()
    .unwrap_err();
    assert!(e.to_string().contains("`thresholds`"));
    assert!(
        MpBoostParams { pair_loop: PairLoopParams { rounds: 0, ..Default::default() }, ..Default::default() }
            .validate()
            .is_err()
    );
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<MpBoostParams>().unwrap();
    ltr_core::check_readme::<MpBoostParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(MpBoostParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

#[test]
fn directed_distances() {
    assert_eq!((Ddf::Linear.of(2.0), Ddf::Sign.of(3.0)), (2.0, 1.0));
    assert!((Ddf::Log.of(1.0) - 2f64.ln()).abs() < 1e-15);
    // Sign preserving and monotone in the grade difference (the paper's two conditions).
    for ddf in [Ddf::Linear, Ddf::Log, Ddf::Sign] {
        assert!(ddf.of(1.0) > 0.0 && ddf.of(2.0) >= ddf.of(1.0) && ddf.of(4.0) >= ddf.of(2.0));
    }
}

/// One query, grades [2, 1, 0], one feature x = [0.9, 0.1, 0.5], every value a cut (0.1 and
/// 0.5), linear DDF: pairs (0,1) d = 1, (0,2) d = 2, (1,2) d = 1, weights 1/3 each.
///
/// Round 1. Cut 0.1 (h = [1,0,1]): pair differences (1, 0, -1), S1 = (1 - 1)/3 = 0,
/// S2 = 2/3. Cut 0.5 (h = [1,0,0]): differences (1, 1, 0), S1 = (1 + 2)/3 = 1, S2 = 2/3,
/// drop S1^2/S2 = 3/2, weight a = S1/S2 = 3/2. F = (3/2, 0, 0).
///
/// Round 2: weights (e^-1.5, e^-3, 1)/W with W = e^-1.5 + e^-3 + 1. Cut 0.1: S1 =
/// (e^-1.5 - 1)/W, S2 = (e^-1.5 + 1)/W, drop 0.38763; cut 0.5: S1 = (e^-1.5 + 2 e^-3)/W,
/// S2 = (e^-1.5 + e^-3)/W, drop 0.29976. Cut 0.1 wins with a = (e^-1.5 - 1)/(e^-1.5 + 1) =
/// -0.63515: doc 2 (x = 0.5, grade 0) goes below doc 1 (x = 0.1, grade 1).
#[test]
fn rounds_by_hand() {
    let d = dataset(1, &[(&[2, 1, 0], &[&[0.9], &[0.1], &[0.5]])]);
    let mut b = learner(0, PairWeighting::Pairs, Ddf::Linear).booster(&d).unwrap();
    assert_eq!(b.cuts().cuts(0), &[f64::from(0.1f32), f64::from(0.5f32)]);
    let r1 = b.step().unwrap();
    assert_eq!(r1.cut, 1);
    assert!((r1.r - 1.0).abs() < 1e-15 && (r1.value - 1.5).abs() < 1e-15 && (r1.alpha - 1.5).abs() < 1e-15);
    assert_eq!(b.scores(), &[1.5, 0.0, 0.0]);
    let (e1, e3) = ((-1.5f64).exp(), (-3.0f64).exp());
    let w = e1 + e3 + 1.0;
    // The pair weights of each document: rho = (w01 + w02, w01 + w12, w02 + w12) / W.
    let rho = b.rule().pair_weights();
    for (got, want) in rho.iter().zip([(e1 + e3) / w, (e1 + 1.0) / w, (e3 + 1.0) / w]) {
        assert!((got - want).abs() < 1e-15);
    }
    let r2 = b.step().unwrap();
    assert_eq!(r2.cut, 0);
    let (s1, s2) = ((e1 - 1.0) / w, (e1 + 1.0) / w);
    assert!((r2.r - s1).abs() < 1e-15);
    assert!((r2.value - s1 * s1 / s2).abs() < 1e-15);
    assert!((r2.value - 0.38763).abs() < 1e-5);
    assert!((r2.alpha - (e1 - 1.0) / (e1 + 1.0)).abs() < 1e-15);
    assert!((r2.alpha + 0.63515).abs() < 1e-5);
}

/// The reference: every pair enumerated with its weight `c exp(-d (F_i - F_j))`, and for every
/// cut of every feature S1 and S2 summed pair by pair; the best drop `S1^2 / S2` wins
/// (lowest feature, then lowest cut, on ties), `a = S1 / S2`.
fn brute_force(
    data: &Dataset,
    cuts: &Cuts,
    weighting: PairWeighting,
    ddf: Ddf,
    rounds: usize,
) -> Vec<(usize, usize, f64, f64)> {
    let mut pairs = Vec::new();
    for q in data.queries() {
        let n_pairs = q
            .range()
            .flat_map(|i| q.range().map(move |j| (i, j)))
            .filter(|&(i, j)| data.labels()[i] > data.labels()[j])
            .count();
        for i in q.range() {
            for j in q.range() {
                let (yi, yj) = (data.labels()[i], data.labels()[j]);
                if yi > yj {
                    let c = match weighting {
                        PairWeighting::Pairs => 1.0,
                        PairWeighting::Queries => 1.0 / n_pairs as f64,
                    };
                    pairs.push((i, j, c, ddf.of(f64::from(yi - yj))));
                }
            }
        }
    }
    let mut f = vec![0.0; data.n_docs()];
    let mut out = Vec::new();
    for _ in 0..rounds {
        let w: Vec<f64> = pairs.iter().map(|&(i, j, c, d)| c * (-d * (f[i] - f[j])).exp()).collect();
        let total: f64 = w.iter().sum();
        let mut best: Option<(f64, usize, usize, f64, f64)> = None;
        for feat in 0..data.n_features() {
            for (k, &th) in cuts.cuts(feat).iter().enumerate() {
                let h = |i: usize| if f64::from(data.row(i)[feat]) > th { 1.0 } else { 0.0 };
                let (mut s1, mut s2) = (0.0, 0.0);
                for (p, &wp) in pairs.iter().zip(&w) {
                    let dh = h(p.0) - h(p.1);
                    s1 += wp / total * p.3 * dh;
                    s2 += wp / total * dh * dh;
                }
                if s2 <= S2_EPS {
                    continue;
                }
                let value = s1 * s1 / s2;
                if best.is_none_or(|b| value > b.0) {
                    best = Some((value, feat, k, s1, s1 / s2));
                }
            }
        }
        let (_, feat, k, s1, a) = best.unwrap();
        out.push((feat, k, s1, a));
        let th = cuts.cuts(feat)[k];
        for (i, s) in f.iter_mut().enumerate() {
            if f64::from(data.row(i)[feat]) > th {
                *s += a;
            }
        }
    }
    out
}

#[test]
fn rounds_equal_brute_force_pair_enumeration() {
    for (seed, thresholds, weighting, ddf) in [
        (1, 4, PairWeighting::Pairs, Ddf::Linear),
        (2, 0, PairWeighting::Queries, Ddf::Log),
        (3, 6, PairWeighting::Pairs, Ddf::Sign),
        (4, 0, PairWeighting::Pairs, Ddf::Linear),
    ] {
        let data = random_data(seed, 5, 3);
        let l = learner(thresholds, weighting, ddf);
        let mut b = l.booster(&data).unwrap();
        let want = brute_force(&data, b.cuts(), weighting, ddf, 12);
        for (k, w) in want.iter().enumerate() {
            let got = b.step().unwrap();
            assert_eq!((got.weak.feature, got.cut), (w.0, w.1), "seed {seed} round {k}");
            assert!((got.r - w.2).abs() < 1e-12, "seed {seed} round {k}: S1 {} vs {}", got.r, w.2);
            assert!((got.alpha - w.3).abs() < 1e-10, "seed {seed} round {k}: a {} vs {}", got.alpha, w.3);
        }
    }
}

/// The magnitude matters: grades [3, 0, 0, 1] (docs A, B, C, D) give the pairs A>B, A>C
/// (d = 3 under linear), A>D (2), D>B, D>C (1), weights 1/5. Feature 0 = [1, 0, 0, 0] lifts A
/// alone (separates A's three pairs), feature 1 = [1, 0, 0, 1] lifts A and D (four pairs).
/// Linear: S1 = 8/5 for both, S2 = 3/5 and 4/5, drops 64/15 and 16/5: feature 0 with
/// a = 8/3. Sign (RankBoost's label): S1 = S2 = 3/5 and 4/5: feature 1 with a = 1.
#[test]
fn the_grade_difference_changes_the_choice() {
    let d = dataset(2, &[(&[3, 0, 0, 1], &[&[1.0, 1.0], &[0.0, 0.0], &[0.0, 0.0], &[0.0, 1.0]])]);
    let r = learner(0, PairWeighting::Pairs, Ddf::Linear).booster(&d).unwrap().step().unwrap();
    assert_eq!(r.weak.feature, 0);
    assert!((r.value - 64.0 / 15.0).abs() < 1e-14 && (r.alpha - 8.0 / 3.0).abs() < 1e-14);
    let r = learner(0, PairWeighting::Pairs, Ddf::Sign).booster(&d).unwrap().step().unwrap();
    assert_eq!(r.weak.feature, 1);
    assert!((r.value - 0.8).abs() < 1e-15 && (r.alpha - 1.0).abs() < 1e-15);
}

#[test]
fn no_crucial_pair_is_an_error() {
    let d = dataset(1, &[(&[1, 1], &[&[0.1], &[0.2]]), (&[0], &[&[0.5]])]);
    assert!(MpBoostParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
}

#[test]
fn validation_keeps_the_best_prefix_and_results_are_thread_independent() {
    let train = random_data(11, 30, 5);
    let vali = random_data(12, 10, 5);
    let crit = Criterion::new(Metric::Ndcg(10), EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    let l = MpBoostParams {
        pair_loop: PairLoopParams { rounds: 40, ..Default::default() },
        ..Default::default()
    }
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
    let full = l.fit(&train, None, &mut Rng::new(0)).unwrap();
    assert_eq!(full.rounds[..one.rounds.len()], one.rounds[..]);
    let kept = valid.evaluate_model(&one).unwrap();
    for n in 1..=full.rounds.len() {
        let mut m = full.clone();
        m.truncate(n);
        assert!(valid.evaluate_model(&m).unwrap() <= kept);
    }
    // GentleBoost's weights are bounded by the largest pair target (3 here).
    assert!(full.rounds.iter().all(|r| r.alpha.abs() <= 3.0));
    let back: MpBoostModel = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.score_vec(&vali).unwrap());
}
