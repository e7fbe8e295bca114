use ltr_core::{Convention, Measure, Ranker};
use ltr_metrics::{Criterion, EvalConfig, Metric};
use ltr_testkit::dataset;
use proptest::prelude::*;

use super::*;
use ltr_core::Rng;

fn params(lo: u32, hi: u32) -> FenchelRankParams {
    FenchelRankParams { log2_radius_min: lo, log2_radius_max: hi, ..Default::default() }
}

/// `F(w)` over explicitly enumerated pairs.
fn brute_loss(data: &Dataset, w: &[f64]) -> f64 {
    let (mut sum, mut p) = (0.0, 0usize);
    for q in data.queries() {
        for i in q.range() {
            for j in q.range() {
                if data.labels()[i] > data.labels()[j] {
                    let m = dot(w, data.row(i)) - dot(w, data.row(j));
                    sum += (1.0 - m).max(0.0).powi(2);
                    p += 1;
                }
            }
        }
    }
    sum / p as f64
}

#[test]
fn one_pair_by_hand() {
    // x = 1 (grade 1) vs 0: F(w) = max(0, 1 - w)^2, minimised at w = min(r, 1).
    // r = 1: g(0) = -2, vertex +1, phi(t) = (1 - t)^2: t = 1, w = 1, then the gap is 0.
    // r = 2: vertex +2, phi(t) = (1 - 2t)^2: t = 1/2, w = 1.
    let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
    for e in [0, 1] {
        let (m, path) = params(e, e).validate().unwrap().fit_with_path(&data, None).unwrap();
        assert_eq!(m.linear.weights, vec![1.0], "r = 2^{e}");
        assert_eq!((path.len(), path[0].iterations, path[0].gap, path[0].loss), (1, 1, 0.0, 0.0));
        assert!(path[0].converged);
        assert_eq!(m.radius, f64::from(e).exp2());
    }
}

#[test]
fn binding_constraint_by_hand() {
    // One query: A (grade 1) at (1, 1), B and C (grade 0) at (0, 1) and (1, 0). Pairs A-B and
    // A-C differ by (1, 0) and (0, 1): F(w) = 1/2 [(1 - w1)_+^2 + (1 - w2)_+^2], r = 1.
    // Iteration 1: g(0) = (-1, -1), the first coordinate: vertex (1, 0), gap 1;
    //   phi(t) = 1/2 [(1 - t)^2 + 1]: t = 1, w = (1, 0), F = 1/2.
    // Iteration 2: g = (0, -1): vertex (0, 1), gap 0 + 1 = 1; along (1 - t, t):
    //   phi(t) = 1/2 [t^2 + (1 - t)^2]: t = 1/2, w = (1/2, 1/2), F = 1/4.
    // Then g = (-1/2, -1/2): gap = -1/2 + 1/2 = 0: the optimum of the L1 ball.
    let data = dataset(2, &[(&[1, 0, 0], &[[1.0f32, 1.0], [0.0, 1.0], [1.0, 0.0]])]);
    let (m, path) = params(0, 0).validate().unwrap().fit_with_path(&data, None).unwrap();
    assert_eq!(m.linear.weights, vec![0.5, 0.5]);
    assert_eq!((path[0].iterations, path[0].gap), (2, 0.0));
    // The pair sums centre the scores per query: the loss is exact to rounding.
    assert!((path[0].loss - 0.25).abs() < 1e-15, "{}", path[0].loss);
    assert_eq!(m.l1_norm(), 1.0);
    assert_eq!(m.sparsity_ratio(), 0.0);
    // With max_iter = 1 it stops at the sparse first iterate, gap 1.
    let one = FenchelRankParams { max_iter: 1, ..params(0, 0) }.validate().unwrap();
    let (m, path) = one.fit_with_path(&data, None).unwrap();
    assert_eq!(m.linear.weights, vec![1.0, 0.0]);
    assert_eq!((path[0].iterations, path[0].gap, path[0].converged), (1, 1.0, false));
    assert_eq!((m.nonzeros(), m.sparsity_ratio()), (1, 0.5));
}

/// Random queries: grades 0..3, feature 0 carries the grade, `d` features in `[0, 1]`.
fn random(seed: u64, d: usize, queries: usize) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
    for q in 0..queries {
        let n = 2 + (q * 5 + seed as usize) % 11;
        let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
        let rows = labels
            .iter()
            .map(|&l| {
                (0..d)
                    .map(|k| {
                        let signal = if k == 0 { f64::from(l) / 3.0 } else { 0.0 };
                        (0.6 * rng.uniform() + signal).min(1.0) as f32
                    })
                    .collect()
            })
            .collect();
        qs.push((labels, rows));
    }
    let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
    dataset(d, &refs)
}

#[test]
fn loss_matches_all_pairs_and_the_gap_bounds_the_error() {
    for seed in [1, 2, 3] {
        let data = random(seed, 5, 8);
        for e in [0, 2, 4] {
            let (m, path) = params(e, e).validate().unwrap().fit_with_path(&data, None).unwrap();
            let pt = &path[0];
            let f = brute_loss(&data, &m.linear.weights);
            assert!((f - pt.loss).abs() <= 1e-9 * f.max(1e-3), "seed {seed} r 2^{e}: {f} vs {}", pt.loss);
            // A much longer run: a better feasible point (F* <= its F).
            let long = FenchelRankParams { max_iter: 20_000, tol: 1e-6, ..params(e, e) };
            let (best, _) = long.validate().unwrap().fit_with_path(&data, None).unwrap();
            // F* <= F(best), so F - F(best) <= F - F* <= gap.
            let fbest = brute_loss(&data, &best.linear.weights);
            assert!(f - fbest <= pt.gap + 1e-12, "seed {seed}: F - F(best) = {} > gap {}", f - fbest, pt.gap);
            assert!(fbest <= f + 1e-12, "{fbest} > {f}");
            assert!(pt.converged && pt.gap <= 1e-3, "{pt:?}");
        }
    }
}

#[test]
fn radius_is_chosen_on_validation_with_warm_starts() {
    let train = random(4, 4, 10);
    let vali = random(5, 4, 6);
    let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
    let valid = Validation { data: &vali, measure: &crit };
    let (m, path) = params(0, 5).validate().unwrap().fit_with_path(&train, Some(&valid)).unwrap();
    assert_eq!(path.iter().map(|p| p.radius).collect::<Vec<_>>(), vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
    let values: Vec<f64> = path.iter().map(|p| p.value.unwrap()).collect();
    let k = ltr_core::select_best(&values).unwrap();
    assert_eq!(m, path[k].model);
    for p in &path {
        assert_eq!(p.value.unwrap(), crit.mean(&vali, &p.model.score_vec(&vali).unwrap()).unwrap());
    }
    // With patience 1 the path stops at the first radius that does not improve.
    let (m1, short) = FenchelRankParams { patience: 1, ..params(0, 5) }
        .validate()
        .unwrap()
        .fit_with_path(&train, Some(&valid))
        .unwrap();
    let stop = (1..values.len())
        .find(|&i| !ltr_core::improves(values[i], Some(values[..i].iter().copied().fold(f64::NAN, f64::max))))
        .unwrap_or(values.len() - 1);
    assert_eq!(short.len(), stop + 1, "{values:?}");
    assert_eq!(short[..], path[..=stop]);
    assert_eq!(m1, path[ltr_core::select_best(&values[..=stop]).unwrap()].model);
    // Each radius continues from the previous solution, which is feasible for the larger ball,
    // and every step decreases F: the loss never increases along the path.
    assert!(path.windows(2).all(|w| w[1].loss <= w[0].loss * (1.0 + 1e-12)), "{path:?}");
}

#[test]
fn errors_defaults_and_table() {
    let x = [[0.0f32]; 2];
    let flat = dataset(1, &[(&[1, 1], &x)]);
    let e = FenchelRankParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).unwrap_err();
    assert!(e.to_string().contains("no pairs"), "{e}");
    let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
    assert!(FenchelRankParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
    for (p, key) in [
        (params(3, 2), "`log2_radius_max`"),
        (params(21, 21), "`log2_radius_min`"),
        (FenchelRankParams { max_iter: 0, ..Default::default() }, "`max_iter`"),
        (FenchelRankParams { tol: 0.0, ..Default::default() }, "`tol`"),
        (FenchelRankParams { patience: 21, ..Default::default() }, "`patience`"),
    ] {
        assert!(p.validate().unwrap_err().to_string().contains(key), "{p:?}");
    }
    assert_eq!(
        FenchelRankParams::default(),
        FenchelRankParams { log2_radius_min: 0, log2_radius_max: 8, max_iter: 1000, tol: 0.001, patience: 0 }
    );
    let readme = include_str!("../README.md");
    ltr_core::check_table::<FenchelRankParams>().unwrap();
    ltr_core::check_readme::<FenchelRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(FenchelRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
    assert_eq!(sparsity_ratio(&[]), 0.0);
    assert_eq!(sparsity_ratio(&[0.0, 2.0, 0.0, -1.0]), 0.5);
}

#[test]
fn deterministic_and_round_trips() {
    let data = random(6, 4, 7);
    let fr = params(0, 3).validate().unwrap();
    let a = fr.fit(&data, None, &mut Rng::new(1)).unwrap();
    let b = fr.fit(&data, None, &mut Rng::new(2)).unwrap();
    assert_eq!(a, b);
    let back: FenchelRankModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(back, a);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `|w|_1 <= r` for the model of every radius, whatever the data, radius and iteration cap.
    #[test]
    fn l1_norm_never_exceeds_the_radius(
        seed in 0u64..1000,
        d in 1usize..7,
        queries in 1usize..6,
        lo in 0u32..4,
        span in 0u32..3,
        max_iter in 1usize..60,
        scale in prop::sample::select(vec![1e-3f64, 1.0, 1e3]),
    ) {
        let base = random(seed, d, queries);
        // Rescaled features (tiny or huge scores), through the builder.
        let mut b = ltr_core::DatasetBuilder::new(d);
        for q in base.queries() {
            b.start_query(q.qid);
            for i in 0..q.len() {
                let row: Vec<f32> = q.row(i).iter().map(|&x| (f64::from(x) * scale) as f32).collect();
                b.push_doc(q.labels[i], &row, None).unwrap();
            }
        }
        let data = b.finish().unwrap();
        let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
        let valid = Validation { data: &data, measure: &crit };
        let fr = FenchelRankParams { log2_radius_min: lo, log2_radius_max: lo + span, max_iter, tol: 1e-6, patience: 0 };
        match fr.validate().unwrap().fit_with_path(&data, Some(&valid)) {
            Ok((m, path)) => {
                prop_assert!(m.l1_norm() <= m.radius);
                let mut iterations = 0;
                for p in &path {
                    prop_assert!(p.model.l1_norm() <= p.radius, "{} > {}", p.model.l1_norm(), p.radius);
                    // One new non-zero weight per iteration at most.
                    iterations += p.iterations;
                    prop_assert!(p.model.nonzeros() <= iterations);
                }
            }
            Err(e) => prop_assert!(e.to_string().contains("no pairs"), "{e}"),
        }
    }
}
