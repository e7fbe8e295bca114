use super::*;
use ltr_core::{Convention, Ranker};
use ltr_metrics::Criterion;
use ltr_testkit::dataset;

fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
    ltr_testkit::random_dataset(seed, queries, d, 4..19, 0.2, 3)
}

fn unit(v: &[f64]) -> Vec<f64> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| x / n).collect()
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn params_defaults_keys_and_validation() {
    let p: PcRankParams = serde_json::from_str("{}").unwrap();
    assert_eq!(p, PcRankParams::default());
    let p: PcRankParams =
        serde_json::from_str(r#"{"metric": "ndcg@5", "label_transform": "gain", "closeness": 0.5}"#).unwrap();
    assert_eq!(p.metric, Metric::Ndcg(5));
    assert_eq!(p.label_transform, LabelTransform::Gain);
    assert!(serde_json::from_str::<PcRankParams>(r#"{"lambda": 1}"#).is_err());
    for (bad, key) in [
        (PcRankParams { rounds: 0, ..Default::default() }, "`rounds`"),
        (PcRankParams { metric: Metric::Mrr, ..Default::default() }, "`metric`"),
        (PcRankParams { closeness: -1.0, ..Default::default() }, "`closeness`"),
        (PcRankParams { closeness: f64::NAN, ..Default::default() }, "`closeness`"),
        (PcRankParams { closeness: 1.0, subgradient_steps: 0, ..Default::default() }, "`subgradient_steps`"),
    ] {
        let e = bad.validate().unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }
    assert_eq!(LabelTransform::Gain.apply(2), 3.0);
}

/// Grades [2, 1, 0], x = (1, 0), (0, 1), (1, 1): n = 3, sum r = 3, beta = (3, 0, -3), so
/// w = 3 (1, 0) - 3 (1, 1) = (0, -3). The pair sum gives the same: (x0 - x1) * 1 +
/// (x0 - x2) * 2 + (x1 - x2) * 1 = (1, -1) + (0, -2) + (-1, 0) = (0, -3).
#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<PcRankParams>().unwrap();
    ltr_core::check_readme::<PcRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(PcRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
    assert!(PcRankParams { metric: Metric::Ndcg(10), ..Default::default() }.validate().is_ok());
    assert!(PcRankParams { rounds: 10_001, ..Default::default() }.validate().is_err());
}

#[test]
fn closed_form_by_hand() {
    let d = dataset(2, &[(&[2, 1, 0], &[&[1.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]])]);
    assert_eq!(closed_form(&d.query(0), f64::from), vec![0.0, -3.0]);
    let l = PcRankParams::default().validate().unwrap();
    let m = l.query_model(&d.query(0)).unwrap();
    assert_eq!(m.weights, vec![0.0, -1.0]);
    assert_eq!(m.query, "0");
}

/// The closed form equals `sum_{r_i > r_j} (x_i - x_j)(r_i - r_j)`, enumerated pair by pair.
#[test]
fn closed_form_equals_the_brute_force_pair_sum() {
    let data = random_data(5, 6, 5);
    for q in data.queries() {
        for psi in [LabelTransform::Identity, LabelTransform::Gain] {
            let mut brute = vec![0.0; 5];
            for i in 0..q.len() {
                for j in 0..q.len() {
                    let (ri, rj) = (psi.apply(q.labels[i]), psi.apply(q.labels[j]));
                    if ri > rj {
                        for (f, b) in brute.iter_mut().enumerate() {
                            *b += (f64::from(q.row(i)[f]) - f64::from(q.row(j)[f])) * (ri - rj);
                        }
                    }
                }
            }
            let fast = closed_form(&q, |g| psi.apply(g));
            assert!(close(&fast, &brute, 1e-9), "{fast:?} vs {brute:?}");
            assert!(close(&unit(&fast), &unit(&brute), 1e-12));
        }
    }
}

/// psi(r) = a r + b with a > 0 turns beta_i = n psi(r_i) - sum psi into a beta_i (the b's
/// cancel), so the direction, hence the ranking, is unchanged.
#[test]
fn affine_label_transform_leaves_the_ranking_unchanged() {
    let data = random_data(6, 5, 4);
    for q in data.queries() {
        let base = closed_form(&q, f64::from);
        for (a, b) in [(2.0, 5.0), (0.5, -3.0), (7.0, 0.0)] {
            let t = closed_form(&q, |g| a * f64::from(g) + b);
            assert!(close(&unit(&t), &unit(&base), 1e-12));
            let rank = |w: &[f64]| {
                let s: Vec<f64> = (0..q.len()).map(|i| dot(w, q.row(i))).collect();
                let mut o = Vec::new();
                ltr_metrics::rank_order(&s, &mut o);
                o
            };
            assert_eq!(rank(&unit(&t)), rank(&unit(&base)));
        }
    }
}

#[test]
fn single_grade_queries_give_zero_and_are_skipped() {
    let d = dataset(
        2,
        &[
            (&[1, 1, 1], &[&[0.3, 0.2], &[0.9, 0.1], &[0.5, 0.5]]),
            (&[0, 2, 1], &[&[0.1, 0.2], &[0.9, 0.4], &[0.5, 0.3]]),
        ],
    );
    assert_eq!(closed_form(&d.query(0), f64::from), vec![0.0, 0.0]);
    let l = PcRankParams::default().validate().unwrap();
    assert!(l.query_model(&d.query(0)).is_none());
    let out = l.fit_outcome(&d, None).unwrap();
    assert!(out.model.rounds.iter().all(|r| r.weak.query == "1"));
    let only_one_grade = dataset(1, &[(&[0, 0], &[&[0.1], &[0.2]])]);
    assert!(l.fit(&only_one_grade, None, &mut Rng::new(0)).is_err());
}

/// Grades [1, 1, 0, 0], x = (1, 0), (1, 2), (0, 0), (0, 0): beta = (2, 2, -2, -2) so
/// c = 2 (2, 2) = (4, 4). The grade-1 documents differ by (0, 2), so with phi = 1 the
/// penalty is P(w) = 2 |w_2| and J(w) = 4 w_1 + 4 w_2 - |w|^2/2 - 2 gamma |w_2|.
/// gamma = 1: the maximiser is (4, 2) (direction (2, 1)/sqrt5), and the first subgradient
/// step lands on it exactly: at w = c the subgradient of P is (0, 2), the step is
/// c - w - (0, 2) = (0, -2). gamma = 3 (> 2): the maximiser is (4, 0).
#[test]
fn closeness_variant_by_hand() {
    let d = dataset(2, &[(&[1, 1, 0, 0], &[&[1.0, 0.0], &[1.0, 2.0], &[0.0, 0.0], &[0.0, 0.0]])]);
    let q = d.query(0);
    assert_eq!(closed_form(&q, f64::from), vec![4.0, 4.0]);
    let w = closeness_solve(&q, &[4.0, 4.0], 1.0, |_| 1.0, 5);
    assert_eq!(w, vec![4.0, 2.0]);
    let w = closeness_solve(&q, &[4.0, 4.0], 3.0, |_| 1.0, 400);
    assert!(close(&unit(&w), &[1.0, 0.0], 1e-2), "{w:?}");
    // phi = psi(r) leaves grade 0 free but still pulls the grade-1 pair together.
    let p = PcRankParams { closeness: 1.0, closeness_weight: ClosenessWeight::Label, ..Default::default() };
    let m = p.validate().unwrap().query_model(&q).unwrap();
    assert!(close(&m.weights, &unit(&[2.0, 1.0]), 1e-12));
    // gamma = 0 is the closed form.
    let m = PcRankParams::default().validate().unwrap().query_model(&q).unwrap();
    assert!(close(&m.weights, &unit(&[1.0, 1.0]), 1e-15));
}

#[test]
fn fits_deterministically_and_round_trips_json() {
    let train = random_data(7, 25, 6);
    let vali = random_data(8, 10, 6);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    for p in [
        PcRankParams::default(),
        PcRankParams { metric: Metric::Ndcg(3), label_transform: LabelTransform::Gain, ..Default::default() },
        PcRankParams { closeness: 0.3, ..Default::default() },
    ] {
        let l = p.validate().unwrap();
        let fit = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| l.fit(&train, Some(&valid), &mut Rng::new(0)).unwrap())
        };
        let (one, two) = (fit(1), fit(2));
        assert_eq!(one, two);
        assert!(!one.rounds.is_empty());
        let back: PcRankModel = serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
        assert_eq!(back.score_vec(&vali).unwrap(), one.score_vec(&vali).unwrap());
        let ltr_core::FeatureWeights::Linear(w) = one.feature_weights() else {
            panic!("a PCRank model collapses to one weight vector")
        };
        let s = one.score_vec(&vali).unwrap();
        for (i, row) in vali.rows().enumerate() {
            assert!((dot(&w, row) - s[i]).abs() < 1e-9);
        }
    }
}

/// The loop's measure follows the convention the data carries. Query 0 has grades [1, 0],
/// rows (1, 0) and (0, 1): closed form beta = (1, -1), w_0 = (1, -1)/sqrt 2. Query 1 has
/// grades [2, 1], rows (0, 1) and (1, 0): beta = (1, -1), w_1 = (-1, 1)/sqrt 2.
///
/// letor3 (relevant from 1; also the default when the data names none): query 1 is all
/// relevant, so its AP cannot change and it is left out of the loop; on query 0,
/// AP(w_0) = 1 and AP(w_1) = 1/2: round 1 takes query 0's ranker and stops (W = 1). mslr
/// (relevant from 2): query 0 has no relevant document and is left out; on query 1,
/// AP(w_0) = 1/2 and AP(w_1) = 1: query 1's ranker.
#[test]
fn the_training_measure_uses_the_data_convention() {
    let d = dataset(2, &[(&[1, 0], &[[1.0, 0.0], [0.0, 1.0]]), (&[2, 1], &[[0.0, 1.0], [1.0, 0.0]])]);
    let learner = PcRankParams::default().validate().unwrap();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    for (data, query, weights) in [
        (d.clone(), 0, [h, -h]),
        (d.clone().with_convention(Some(Convention::Letor3)), 0, [h, -h]),
        (d.clone().with_convention(Some(Convention::Mslr)), 1, [-h, h]),
    ] {
        let out = learner.fit_outcome(&data, None).unwrap();
        assert_eq!(out.loop_queries, vec![query], "{:?}", data.convention());
        assert_eq!(out.stop, ltr_boosting::StopReason::Perfect);
        assert_eq!(out.model.rounds.len(), 1);
        let weak = &out.model.rounds[0].weak;
        assert_eq!(weak.query, query.to_string());
        assert!(close(&weak.weights, &weights, 1e-15), "{weak:?}");
        assert_eq!(learner.boost_config(&data).eval, EvalConfig::of(&data));
    }
}
