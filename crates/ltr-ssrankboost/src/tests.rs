use super::*;
use ltr_boosting::PairWeighting;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
use ltr_rankboost::RankBoostParams;
use ltr_testkit::dataset;

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 4..14, 0.3, 2)
}

fn rounds(rounds: usize) -> PairLoopParams {
    PairLoopParams { rounds, ..Default::default() }
}

fn learner(p: SsRankBoostParams) -> SsRankBoost {
    p.validate().unwrap()
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: SsRankBoostParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, SsRankBoostParams::default());
    assert_eq!(
        (p.hidden_fraction, p.unlabeled, p.unlabeled_weight, p.neighbours),
        (0.5, Unlabeled::Used, 1.0, 1)
    );
    let p: SsRankBoostParams = serde_json::from_str(r#"{"unlabeled": "dropped"}"#).unwrap();
    assert_eq!(p.unlabeled, Unlabeled::Dropped);
    assert!(serde_json::from_str::<SsRankBoostParams>(r#"{"unlabeled": "labelled"}"#).is_err());
    for bad in [
        SsRankBoostParams { hidden_fraction: 1.0, ..Default::default() },
        SsRankBoostParams { hidden_fraction: -0.1, ..Default::default() },
        SsRankBoostParams { unlabeled_weight: 0.0, ..Default::default() },
        SsRankBoostParams { neighbours: 0, ..Default::default() },
        SsRankBoostParams {
            pair_loop: PairLoopParams { thresholds: 1, ..Default::default() },
            ..Default::default()
        },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<SsRankBoostParams>().unwrap();
    ltr_core::check_readme::<SsRankBoostParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(SsRankBoostParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

/// `round(f n)` per query, from one permutation per query: nested in the fraction, a function
/// of the seed alone.
#[test]
fn hidden_documents_per_query() {
    let d = random_data(5, 12, 2);
    for f in [0.0, 0.3, 0.5, 0.9] {
        let h = hidden_documents(&d, f, 7);
        for q in d.queries() {
            let hid = q.range().filter(|&i| h[i]).count();
            assert_eq!(hid, (f * q.len() as f64).round() as usize);
        }
    }
    let (small, large) = (hidden_documents(&d, 0.3, 7), hidden_documents(&d, 0.6, 7));
    assert!(small.iter().zip(&large).all(|(&s, &l)| !s || l), "a larger fraction hides a superset");
    assert_eq!(hidden_documents(&d, 0.5, 7), hidden_documents(&d, 0.5, 7));
    assert_ne!(hidden_documents(&d, 0.5, 7), hidden_documents(&d, 0.5, 8));
}

/// One query on a line: labelled L1 (grade 2) at 0 and L2 (grade 0) at 10, hidden H1..H4 at
/// 1, 9, 4, 6. One neighbour: L1 gives its grade to H1, L2 to H2; H3 and H4 stay unlabelled.
/// Two: L1 also to H3 (distance^2 16), L2 to H4. Three: both claim H3 and H4; H3 is nearer L1
/// (16 < 36) and H4 nearer L2.
#[test]
fn neighbours_give_their_grades_by_hand() {
    let d = dataset(1, &[(&[2, 0, 1, 1, 1, 1], &[[0.0], [10.0], [1.0], [9.0], [4.0], [6.0]])]);
    let hidden = [false, false, true, true, true, true];
    assert_eq!(pseudo_grades(&d, &hidden, 1), [None, None, Some(2), Some(0), None, None]);
    assert_eq!(pseudo_grades(&d, &hidden, 2), [None, None, Some(2), Some(0), Some(2), Some(0)]);
    assert_eq!(pseudo_grades(&d, &hidden, 3), [None, None, Some(2), Some(0), Some(2), Some(0)]);
    // H3 at 5 is equally far from both: the lower labelled index (L1) wins.
    let d = dataset(1, &[(&[2, 0, 1], &[[0.0], [10.0], [5.0]])]);
    assert_eq!(pseudo_grades(&d, &[false, false, true], 1), [None, None, Some(2)]);
    // Nothing hidden, nothing labelled by neighbours.
    assert_eq!(pseudo_grades(&d, &[false; 3], 2), [None; 3]);
}

/// The supervised special case by hand: no grade hidden, one query, grades [1, 0, 0] (A, B, C)
/// and one feature x = [0.5, 0.0, 1.0]. There is no automatically labelled pair, so the loss is
/// RankBoost's on (A, B) and (A, C), D_1 = (1/2, 1/2), potentials (1, -1/2, -1/2). Cut 0.0
/// (above: A, C) has r = 1/2, cut 0.5 (above: C) r = -1/2; the tie goes to the lower cut:
/// alpha = 1/2 ln 3. It orders (A, B) and ties (A, C): D_2 = (1/sqrt 3, 1) / (1/sqrt 3 + 1).
/// Cut 0.0 then has r = D_2(A, B) and cut 0.5 has r = -D_2(A, C), the larger: the second round
/// takes cut 0.5 with a negative weight, as RankBoost does.
#[test]
fn no_hidden_grade_is_rankboost_by_hand() {
    let d = dataset(1, &[(&[1, 0, 0], &[[0.5], [0.0], [1.0]])]);
    let ss = learner(SsRankBoostParams {
        pair_loop: PairLoopParams { thresholds: 0, rounds: 2, ..Default::default() },
        hidden_fraction: 0.0,
        ..Default::default()
    });
    let m = ss.fit(&d, None, &mut Rng::new(0)).unwrap();
    assert_eq!((m.hidden_fraction, m.pseudo_labelled_fraction), (0.0, 0.0));
    let r = &m.ensemble.rounds;
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].weak, ThresholdRanker { feature: 0, threshold: 0.0 });
    assert!((r[0].alpha - 0.5 * 3f64.ln()).abs() < 1e-15);
    let s3 = 3f64.sqrt();
    let d2 = [(1.0 / s3) / (1.0 / s3 + 1.0), 1.0 / (1.0 / s3 + 1.0)];
    assert_eq!(r[1].weak, ThresholdRanker { feature: 0, threshold: 0.5 });
    let r2 = -d2[1];
    assert!((r[1].alpha - 0.5 * ((1.0 + r2) / (1.0 - r2)).ln()).abs() < 1e-14);
    let rb = RankBoostParams { pair_loop: PairLoopParams { thresholds: 0, rounds: 2, ..Default::default() } };
    assert_eq!(m.ensemble, rb.validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap());
}

/// The paper's special case: with no hidden grades there is no unlabelled pair, and SSRankBoost
/// is RankBoost (same cuts, same distribution, same rounds: the same model, bit for bit), used
/// or dropped alike. With grades hidden and dropped, it is RankBoost on the labelled documents.
#[test]
fn no_hidden_grades_is_rankboost() {
    let train = random_data(21, 20, 4);
    let vali = random_data(22, 8, 4);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    for (thresholds, weighting) in [(10, PairWeighting::Pairs), (0, PairWeighting::Queries)] {
        let pair_loop =
            PairLoopParams { rounds: 60, thresholds, pair_weighting: weighting, ..Default::default() };
        let want = RankBoostParams { pair_loop }
            .validate()
            .unwrap()
            .fit(&train, Some(&valid), &mut Rng::new(0))
            .unwrap();
        for unlabeled in [Unlabeled::Used, Unlabeled::Dropped] {
            let ss = learner(SsRankBoostParams {
                pair_loop,
                hidden_fraction: 0.0,
                unlabeled,
                ..Default::default()
            });
            let got = ss.fit(&train, Some(&valid), &mut Rng::new(3)).unwrap();
            assert_eq!(got.ensemble, want, "{unlabeled:?}");
            assert_eq!((got.hidden_fraction, got.pseudo_labelled_fraction), (0.0, 0.0));
        }
    }
    let ss = learner(SsRankBoostParams {
        pair_loop: rounds(60),
        unlabeled: Unlabeled::Dropped,
        ..Default::default()
    });
    let part = ss.partition(&train, 99);
    let got = ss.fit_partition(&train, &part, None).unwrap();
    let labelled = labelled_only(&train, &part.hidden).unwrap();
    assert!(labelled.n_docs() < train.n_docs());
    let rb = RankBoostParams { pair_loop: rounds(60) }.validate().unwrap();
    assert_eq!(got.ensemble, rb.fit(&labelled, None, &mut Rng::new(0)).unwrap());
    assert!(
        (got.hidden_fraction - part.hidden_fraction()).abs() < 1e-15 && got.pseudo_labelled_fraction == 0.0
    );
}

/// One query, one feature x = [1.0, 0.0, 0.1, 0.9] for A (grade 1), B (grade 0), C and D
/// (hidden; their neighbours gave C grade 1 and D grade 0), lambda = 1/2. Labelled pairs:
/// (A, B); unlabelled: (C, D); each term normalised by its one pair, so the loss is
/// e^{F_B - F_A} + 1/2 e^{F_D - F_C}, Z = 3/2, and the potentials are
/// (1, -1, 1/2, -1/2) / (3/2) = (2/3, -2/3, 1/3, -1/3).
/// Cuts 0.0 (above: A, C, D), 0.1 (A, D), 0.9 (A): r = 2/3, 1/3, 2/3: cut 0.0 (lowest on the
/// tie), alpha = 1/2 ln 5. It orders (A, B) and leaves (C, D) tied: D_2(A, B) =
/// (1/sqrt 5)/(1/sqrt 5 + 1/2) = 0.4721, D_2(C, D) = 0.5279.
#[test]
fn a_round_on_labelled_and_neighbour_labelled_pairs_by_hand() {
    let d = dataset(1, &[(&[1, 0, 0, 0], &[[1.0], [0.0], [0.1], [0.9]])]);
    let part =
        Partition { hidden: vec![false, false, true, true], pseudo: vec![None, None, Some(1), Some(0)] };
    assert_eq!((part.hidden_fraction(), part.pseudo_labelled_fraction()), (0.5, 0.5));
    let ss = learner(SsRankBoostParams {
        pair_loop: PairLoopParams { thresholds: 0, rounds: 1, ..Default::default() },
        unlabeled_weight: 0.5,
        ..Default::default()
    });
    let m = ss.fit_partition(&d, &part, None).unwrap();
    let r = &m.ensemble.rounds[0];
    assert_eq!(r.weak, ThresholdRanker { feature: 0, threshold: 0.0 });
    assert!((r.alpha - 0.5 * 5f64.ln()).abs() < 1e-15);
    // The same by the loop, with the distribution after the round.
    let grade = |i: usize| f64::from(d.labels()[i]);
    let labelled = PairSet::from_keys(&d, PairWeighting::Pairs, |i| (!part.hidden[i]).then(|| grade(i)));
    let auto = PairSet::from_keys(&d, PairWeighting::Pairs, |i| part.pseudo[i].map(f64::from));
    let loss = ExpPairLoss::new(vec![(labelled, 1.0), (auto, 0.5)], "test").unwrap();
    let cuts = ss.params.pair_loop.cuts(&d, "test").unwrap();
    let mut b = PairBooster::new(&d, cuts, loss);
    for (p, want) in b.potentials().iter().zip([2.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0, -1.0 / 3.0]) {
        assert!((p - want).abs() < 1e-15);
    }
    let first = b.step().unwrap();
    assert!((first.r - 2.0 / 3.0).abs() < 1e-15 && first.cut == 0);
    let s5 = 5f64.sqrt();
    let dist = b.rule().distribution(&d, b.scores());
    assert_eq!(dist.iter().map(|p| (p.0, p.1, p.2)).collect::<Vec<_>>(), [(0, 0, 1), (1, 2, 3)]);
    assert!((dist[0].3 - (1.0 / s5) / (1.0 / s5 + 0.5)).abs() < 1e-15);
    assert!((dist[1].3 - 0.5 / (1.0 / s5 + 0.5)).abs() < 1e-15);
}

/// The hidden documents come from the training split's seed: the same for every grid point
/// (other parameters, other `rng`) and for both modes; the `rng` is left untouched.
#[test]
fn the_hidden_documents_come_from_the_split_seed() {
    let train = random_data(31, 10, 3).with_split_seed(Some(1234));
    let mut rng = Rng::new(5);
    let seed = SsRankBoost::hiding_seed(&train, &mut rng);
    assert_eq!(rng.next_u64(), Rng::new(5).next_u64(), "rng untouched");
    let base = learner(SsRankBoostParams::default()).partition(&train, seed);
    for p in [
        SsRankBoostParams { neighbours: 3, ..Default::default() },
        SsRankBoostParams { unlabeled_weight: 0.1, pair_loop: rounds(5), ..Default::default() },
        SsRankBoostParams { unlabeled: Unlabeled::Dropped, ..Default::default() },
    ] {
        assert_eq!(
            learner(p).partition(&train, SsRankBoost::hiding_seed(&train, &mut Rng::new(9))).hidden,
            base.hidden
        );
    }
    // Without a split seed, the rng decides.
    let plain = random_data(31, 10, 3);
    assert_ne!(
        SsRankBoost::hiding_seed(&plain, &mut Rng::new(1)),
        SsRankBoost::hiding_seed(&plain, &mut Rng::new(2))
    );
    let m = learner(SsRankBoostParams { pair_loop: rounds(5), ..Default::default() })
        .fit(&train, None, &mut Rng::new(0))
        .unwrap();
    assert!((m.hidden_fraction - base.hidden_fraction()).abs() < 1e-15);
    assert!(m.pseudo_labelled_fraction > 0.0 && m.pseudo_labelled_fraction <= m.hidden_fraction);
}

#[test]
fn validation_prefix_thread_count_json_and_model_checks() {
    let train = random_data(41, 30, 5).with_split_seed(Some(77));
    let vali = random_data(42, 10, 5);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    let l = learner(SsRankBoostParams { pair_loop: rounds(40), ..Default::default() });
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
    for n in 1..=full.ensemble.rounds.len() {
        let mut m = full.clone();
        m.ensemble.truncate(n);
        assert!(valid.evaluate_model(&m).unwrap() <= kept);
    }
    let back: SsRankBoostModel = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
    assert_eq!(back.score_vec(&vali).unwrap(), one.score_vec(&vali).unwrap());
    assert!(one.check().is_ok());
    let bad = SsRankBoostModel { hidden_fraction: 1.5, ..one.clone() };
    assert!(bad.check().unwrap_err().to_string().contains("hidden_fraction"));
    let mut wide = one;
    wide.ensemble.rounds[0].weak.feature = 99;
    assert!(wide.check().is_err());
}

#[test]
fn no_crucial_pair_is_an_error() {
    let d = dataset(1, &[(&[1, 1], &[&[0.1], &[0.2]]), (&[0], &[&[0.5]])]);
    for unlabeled in [Unlabeled::Used, Unlabeled::Dropped] {
        let l = learner(SsRankBoostParams { unlabeled, ..Default::default() });
        assert!(l.fit(&d, None, &mut Rng::new(0)).is_err());
    }
}
