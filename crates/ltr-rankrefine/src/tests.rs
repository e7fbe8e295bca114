use super::*;
use ltr_boosting::PairWeighting;
use ltr_core::Ranker;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
use ltr_testkit::dataset;

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 3..11, 0.3, 2)
}

fn with_loop(pair_loop: PairLoopParams) -> RankRefineParams {
    RankRefineParams { pair_loop, ..Default::default() }
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: RankRefineParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, RankRefineParams::default());
    assert_eq!((p.base_feature, p.base_weight), (0, 0.1));
    let p: RankRefineParams = serde_json::from_str(r#"{"base_feature": 3, "rounds": 7}"#).unwrap();
    assert_eq!((p.base_feature, p.pair_loop.rounds), (3, 7));
    assert!(RankRefineParams { base_weight: 0.0, ..Default::default() }.validate().is_err());
    assert!(with_loop(PairLoopParams { thresholds: 1, ..Default::default() }).validate().is_err());
    assert!(RankRefineParams { base_feature: MAX_FEATURES + 1, ..Default::default() }.validate().is_err());
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<RankRefineParams>().unwrap();
    ltr_core::check_readme::<RankRefineParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(RankRefineParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

/// Grades [2, 1, 0, 0]: pairs (0,1), (0,2), (0,3), (1,2), (1,3). x = [3, 1, 2, 2] orders the
/// first three: 3/5. x = [3, 2, 2, 1] orders four and ties (1,2): 4.5/5. Negated, 1 - that.
#[test]
fn pair_accuracy_and_the_best_feature_by_hand() {
    let d = dataset(
        3,
        &[(&[2, 1, 0, 0], &[[3.0, 3.0, -3.0], [1.0, 2.0, -2.0], [2.0, 2.0, -2.0], [2.0, 1.0, -1.0]])],
    );
    let pairs = PairSet::from_grades(&d, PairWeighting::Pairs);
    assert!((pair_accuracy(&d, &pairs, 0) - 0.6).abs() < 1e-15);
    assert!((pair_accuracy(&d, &pairs, 1) - 0.9).abs() < 1e-15);
    assert!((pair_accuracy(&d, &pairs, 2) - 0.1).abs() < 1e-15);
    // Feature 2 is feature 1 negated: its negation ties feature 1, which comes first.
    assert_eq!(best_feature(&d, &pairs), Base { feature: 1, negated: false, accuracy: 0.9 });
    let d = dataset(2, &[(&[2, 1, 0, 0], &[[3.0, -3.0], [1.0, -2.0], [2.0, -2.0], [2.0, -1.0]])]);
    let best = best_feature(&d, &PairSet::from_grades(&d, PairWeighting::Pairs));
    assert_eq!((best.feature, best.negated), (1, true));
    assert!((best.accuracy - 0.9).abs() < 1e-15);
}

/// One query, grades [1, 0, 0] (docs A, B, C); the base ranker is feature 1,
/// x0 = [0.5, 0.9, 0.1]; feature 2 is x1 = [1, 0, 0]; C = 1/2.
/// Labelled pairs (A,B), (A,C): multiplier 1/2. Base pairs B>A, B>C, A>C: multiplier
/// (1/2)/3 = 1/6. At F = 0 the un-normalised potentials are, labelled, (2, -1, -1) and, base,
/// (1 - 1, 2, -2) = (0, 2, -2); mixed: (1, -1/2 + 1/3, -1/2 - 1/3) = (1, -1/6, -5/6), over
/// Z = 2/2 + 3/6 = 3/2: pi = (2/3, -1/9, -5/9).
/// x0's cuts 0.1 (above: A, B) and 0.5 (B): r = 5/9 and -1/9; x1's cut 0 (A): r = 2/3, which
/// wins with alpha = 1/2 ln 5.
#[test]
fn a_round_on_labelled_and_base_pairs_by_hand() {
    let d = dataset(2, &[(&[1, 0, 0], &[[0.5, 1.0], [0.9, 0.0], [0.1, 0.0]])]);
    let l = RankRefineParams {
        pair_loop: PairLoopParams { thresholds: 0, ..Default::default() },
        base_feature: 1,
        base_weight: 0.5,
    }
    .validate()
    .unwrap();
    let (mut b, base) = l.booster(&d).unwrap();
    assert_eq!((base.feature, base.negated), (0, false));
    assert!((base.accuracy - 0.5).abs() < 1e-15);
    for (p, want) in b.potentials().iter().zip([2.0 / 3.0, -1.0 / 9.0, -5.0 / 9.0]) {
        assert!((p - want).abs() < 1e-15, "{p} vs {want}");
    }
    let r = b.step().unwrap();
    assert_eq!((r.weak.feature, r.cut), (1, 0));
    assert!((r.r - 2.0 / 3.0).abs() < 1e-15);
    assert!((r.alpha - 0.5 * 5f64.ln()).abs() < 1e-15);
    // After it, the labelled pairs are ordered (weight e^{-alpha} = 1/sqrt 5 each) and the
    // base pairs B>A scaled by e^{alpha}, A>C by e^{-alpha}, B>C unchanged.
    let s5 = 5f64.sqrt();
    let total = 0.5 * 2.0 / s5 + (s5 + 1.0 + 1.0 / s5) / 6.0;
    let dist = b.rule().distribution(&d, b.scores());
    let want = [
        (0, 0, 1, 0.5 / s5),
        (0, 0, 2, 0.5 / s5),
        (1, 0, 2, 1.0 / (6.0 * s5)),
        (1, 1, 0, s5 / 6.0),
        (1, 1, 2, 1.0 / 6.0),
    ];
    assert_eq!(dist.len(), want.len());
    for (got, w) in dist.iter().zip(want) {
        assert_eq!((got.0, got.1, got.2), (w.0, w.1, w.2));
        assert!((got.3 - w.3 / total).abs() < 1e-15, "{got:?} vs {w:?}");
    }
    let e = RankRefineParams { base_feature: 3, ..Default::default() }.validate().unwrap().fit(
        &d,
        None,
        &mut Rng::new(0),
    );
    assert!(e.unwrap_err().to_string().contains("`base_feature`"));
}

#[test]
fn validation_prefix_thread_count_and_json() {
    let train = random_data(11, 30, 5);
    let vali = random_data(12, 10, 5);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    let l = with_loop(PairLoopParams { rounds: 40, ..Default::default() }).validate().unwrap();
    let fit = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| l.fit(&train, Some(&valid), &mut Rng::new(0)).unwrap())
    };
    let one = fit(1);
    assert_eq!(one, fit(2));
    let full = l.fit(&train, None, &mut Rng::new(0)).unwrap();
    let kept = valid.evaluate_model(&one).unwrap();
    for n in 1..=full.rounds.len() {
        let mut m = full.clone();
        m.truncate(n);
        assert!(valid.evaluate_model(&m).unwrap() <= kept);
    }
    let back: RankRefineModel = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.score_vec(&vali).unwrap());
}

#[test]
fn no_crucial_pair_is_an_error() {
    let d = dataset(1, &[(&[1, 1], &[&[0.1], &[0.2]]), (&[0], &[&[0.5]])]);
    assert!(RankRefineParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
}
