use ltr_core::{Error, Grade};
use ltr_neural::{Activation, Network, QueryObjective};

use super::*;
use crate::sampler::{Sweeps, energy, mode, position_coefficients, sample};

/// Every permutation of `0..m`, lexicographic.
fn permutations(m: usize) -> Vec<Vec<u32>> {
    if m == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(m - 1) {
        for at in 0..m {
            let mut q = p.clone();
            q.insert(at, (m - 1) as u32);
            out.push(q);
        }
    }
    out.sort();
    out
}

/// `E[pi | s]` by the paper's definition, a sum over the pairs of positions.
fn energy_by_pairs(perm: &[u32], scores: &[f64], alpha: f64) -> f64 {
    let m = perm.len();
    let mut e = 0.0;
    for u in 0..m {
        for v in u + 1..m {
            e += alpha * (v - u) as f64 * (scores[perm[v] as usize] - scores[perm[u] as usize]);
        }
    }
    2.0 * e / (m * (m - 1)) as f64
}

/// Every permutation with its Boltzmann probability, by enumeration.
fn boltzmann(scores: &[f64], alpha: f64) -> Vec<(Vec<u32>, f64)> {
    let perms = permutations(scores.len());
    let weights: Vec<f64> = perms.iter().map(|p| (-energy_by_pairs(p, scores, alpha)).exp()).collect();
    let z: f64 = weights.iter().sum();
    perms.into_iter().zip(weights).map(|(p, w)| (p, w / z)).collect()
}

/// NDCG of `labels` in the order `perm` over the whole list (gain 2^y - 1, discount
/// 1 / log2(1 + r)).
fn ndcg(perm: &[u32], labels: &[Grade]) -> f64 {
    let dcg = |order: &mut dyn Iterator<Item = Grade>| -> f64 {
        order.enumerate().map(|(r, y)| (f64::from(y).exp2() - 1.0) / ((r + 2) as f64).log2()).sum()
    };
    let mut ideal = labels.to_vec();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    dcg(&mut perm.iter().map(|&d| labels[d as usize])) / dcg(&mut ideal.into_iter())
}

fn one_query(labels: &[Grade]) -> Dataset {
    let rows: Vec<f32> = (0..labels.len()).map(|i| i as f32).collect();
    Dataset::from_parts(1, rows, labels.to_vec(), vec![0, labels.len()], vec!["1".into()], None).unwrap()
}

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

/// m = 3, alpha = 1, pi = (0, 1, 2): E = 2/6 [1 (s1 - s0) + 2 (s2 - s0) + 1 (s2 - s1)]
/// = s2 - s0, so kappa = (-1, 0, 1); m = 4: kappa = alpha (2r - 3) / 3 = (-1, -1/3, 1/3, 1).
/// The coefficient form equals the pair sum on every permutation of up to 6 documents.
#[test]
fn energy_is_linear_in_the_scores_by_position() {
    let mut kappa = Vec::new();
    position_coefficients(3, 1.0, &mut kappa);
    assert_eq!(kappa, [-1.0, 0.0, 1.0]);
    position_coefficients(4, 3.0, &mut kappa);
    for (a, b) in kappa.iter().zip([-3.0, -1.0, 1.0, 3.0]) {
        assert!((a - b).abs() < 1e-15, "{kappa:?}");
    }
    let s = [0.3, -1.2, 2.0];
    assert!((energy(&[0, 1, 2], &s, &[-1.0, 0.0, 1.0]) - (2.0 - 0.3)).abs() < 1e-15);
    let mut rng = Rng::new(1);
    for m in 2..=6 {
        let scores: Vec<f64> = (0..m).map(|_| rng.normal()).collect();
        position_coefficients(m, 1.7, &mut kappa);
        for p in permutations(m) {
            let (a, b) = (energy(&p, &scores, &kappa), energy_by_pairs(&p, &scores, 1.7));
            assert!((a - b).abs() < 1e-12, "m {m} {p:?}: {a} vs {b}");
        }
    }
    // The most probable ranking is by decreasing score.
    let dist = boltzmann(&[0.1, 2.0, -1.0, 0.5], 2.0);
    let best = dist.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(best.0, [1, 3, 0, 2]);
}

/// Pearson's chi-square of observed counts against probabilities.
fn chi_square(counts: &[f64], probs: &[f64]) -> f64 {
    let n: f64 = counts.iter().sum();
    counts.iter().zip(probs).map(|(c, p)| (c - n * p) * (c - n * p) / (n * p)).sum()
}

/// The sampler's frequencies on 3 documents against the Boltzmann probabilities by
/// enumeration: Pearson's statistic with 5 degrees of freedom stays below 20.52, its 0.999
/// quantile (samples 10 sweeps apart, so nearly independent); also for equal scores (the
/// uniform distribution) and for another order.
#[test]
fn sampler_draws_the_boltzmann_frequencies() {
    for (scores, alpha) in
        [(vec![1.0, 0.3, -0.5], 2.0), (vec![0.0, 0.0, 0.0], 1.0), (vec![2.0, -1.0, 0.5], 1.0)]
    {
        let dist = boltzmann(&scores, alpha);
        let mut kappa = Vec::new();
        position_coefficients(3, alpha, &mut kappa);
        let mut rng = Rng::new(17);
        let mut out = Vec::new();
        let n = 30_000;
        let mut chain = mode(&scores, &mut rng);
        sample(&mut chain, &scores, &kappa, n, Sweeps { burn_in: 10, thin: 10 }, &mut rng, &mut out);
        let mut counts = vec![0.0; dist.len()];
        for p in out.chunks_exact(3) {
            counts[dist.iter().position(|(q, _)| q == p).unwrap()] += 1.0;
        }
        let probs: Vec<f64> = dist.iter().map(|(_, p)| *p).collect();
        let chi2 = chi_square(&counts, &probs);
        eprintln!("sampler {scores:?} alpha {alpha}: chi-square {chi2:.2} (5 dof), counts {counts:?}");
        assert!(chi2 < 20.52, "{scores:?}: chi-square {chi2}");
    }
}

/// The objective's estimates converge to the enumerated values: with many rankings drawn
/// from the model's distribution at the current scores and from the grades' distribution Q,
/// `-cost` with `lambda = 0` is `E_P[NDCG]` and the divergence term is `KL(Q || P)`, both
/// computed over all 24 rankings of 4 documents. (The scores are near the grades' order:
/// importance weights `P / Q` of distributions far apart have heavy tails, and the KL
/// estimate then needs far more draws.)
#[test]
fn estimates_match_the_enumerated_expectations() {
    let labels = [2, 0, 1, 0];
    let data = one_query(&labels);
    let scores = [1.2, -0.3, 0.9, 0.4];
    let alpha = 2.0;
    let p = boltzmann(&scores, alpha);
    let targets: Vec<f64> = labels.iter().map(|&y| f64::from(y)).collect();
    let q = boltzmann(&targets, alpha);
    let expected: f64 = p.iter().map(|(pi, pr)| pr * ndcg(pi, &labels)).sum();
    let kl: f64 = q.iter().zip(&p).map(|((_, a), (_, b))| a * (a / b).ln()).sum();
    let n = 40_000;
    let settings = |kl_weight| ObjectiveSettings { alpha, kl_weight, samples: n, ndcg_truncation: 0 };
    // Nearly independent draws (10 sweeps apart), as the sampler test checks them.
    let mut kappa = Vec::new();
    position_coefficients(4, alpha, &mut kappa);
    let mut rng = Rng::new(3);
    let mut draw = |s: &[f64]| {
        let mut chain = mode(s, &mut rng);
        let mut out = Vec::new();
        sample(&mut chain, s, &kappa, n, Sweeps { burn_in: 10, thin: 10 }, &mut rng, &mut out);
        out
    };
    let (from_p, from_q) = (draw(&scores), draw(&targets));
    let mut scratch = objective::Scratch::default();
    let mut gain_only = BoltzObjective::new(&data, settings(0.0));
    gain_only.set_rankings(&from_p, &from_q, &scores);
    let est = -gain_only.cost(data.query(0), &scores, &mut scratch);
    eprintln!("E_P[NDCG]: enumerated {expected:.5}, estimated {est:.5}");
    assert!((est - expected).abs() < 0.003, "{est} vs {expected}");
    // Drawn at other scores, the importance weights correct for the move.
    let moved = [1.0, -0.1, 1.0, 0.2];
    let mut gain_moved = BoltzObjective::new(&data, settings(0.0));
    gain_moved.set_rankings(&draw(&moved), &from_q, &moved);
    let est_moved = -gain_moved.cost(data.query(0), &scores, &mut scratch);
    eprintln!("E_P[NDCG] from draws at other scores: {est_moved:.5}");
    assert!((est_moved - expected).abs() < 0.003, "{est_moved} vs {expected}");
    let mut with_kl = BoltzObjective::new(&data, settings(1.0));
    with_kl.set_rankings(&from_p, &from_q, &scores);
    let kl_est = with_kl.cost(data.query(0), &scores, &mut scratch) + est;
    eprintln!("KL(Q || P): enumerated {kl:.5}, estimated {kl_est:.5}");
    assert!((kl_est - kl).abs() < 0.01, "{kl_est} vs {kl}");
}

/// Two hand-picked rankings of 2 documents, grades (1, 0), alpha = 1, lambda = 1/2:
/// kappa = (-1, 1). pi_1 = (0, 1): E_y = -1, NDCG 1; pi_2 = (1, 0): E_y = 1, NDCG
/// g = 1 / log2(3); both drawn from the model at s' = (0, 0) and from Q. At s = (0, 0) the
/// model's weights are (1/2, 1/2) and the target's u ~ exp(E_y - E_s) = (e^-1, e); the mean
/// energy difference is 0 and the log of the mean exponentiated difference
/// log((e^-1 + e) / 2): C = -(1 + g)/2 + lambda log(cosh 1). Document 0 sits at position 0 of
/// pi_1 (kappa -1) and 1 of pi_2 (kappa 1):
/// dC/ds_0 = -(1/2)(1 - (1 + g)/2) + (1/2)(g - (1 + g)/2) + lambda ((1/2 - u_2) - (1/2 - u_1))
/// = -(1 - g)/2 + lambda (u_1 - u_2).
#[test]
fn two_rankings_by_hand() {
    let data = one_query(&[1, 0]);
    let lambda = 0.5;
    let mut obj = BoltzObjective::new(
        &data,
        ObjectiveSettings { alpha: 1.0, kl_weight: lambda, samples: 2, ndcg_truncation: 0 },
    );
    obj.set_rankings(&[0, 1, 1, 0], &[0, 1, 1, 0], &[0.0, 0.0]);
    let g = 1.0 / 3f64.log2();
    let e2 = 1f64.exp().powi(2);
    let u = [1.0 / (1.0 + e2), e2 / (1.0 + e2)];
    let mut scratch = objective::Scratch::default();
    let cost = obj.cost(data.query(0), &[0.0, 0.0], &mut scratch);
    let want = -(1.0 + g) / 2.0 + lambda * (1f64.cosh()).ln();
    assert!((cost - want).abs() < 1e-15, "{cost} vs {want}");
    let mut grad = [0.0; 2];
    obj.gradient(data.query(0), &[0.0, 0.0], &mut grad, &mut scratch);
    let want = -(1.0 - g) / 2.0 + lambda * (u[0] - u[1]);
    assert!((grad[0] - want).abs() < 1e-15, "{grad:?} vs {want}");
    assert!((grad[0] + grad[1]).abs() < 1e-15, "a shift of every score changes no energy");
}

fn random_model(data: &Dataset, hidden: &[usize], act: Activation, seed: u64) -> NeuralModel {
    let mut rng = Rng::new(seed);
    let mut network = Network::init(data.n_features(), hidden, act, &mut rng);
    for p in &mut network.params {
        *p += 0.3 * rng.normal();
    }
    NeuralModel { standardizer: Standardizer::fit(data, "test").unwrap(), network, epoch: 0 }
}

/// The worst relative error of `total_gradient` against the five-point central difference of
/// `total_cost` (`(-C(2h) + 8 C(h) - 8 C(-h) + C(-2h)) / 12h`, truncation error `O(h^4)`) over
/// every parameter, as `ltr_neural::gradient_check` measures it (relative to
/// `max(|fd|, |g|, floor)`). The costs sum log-sum-exps over many rankings: a two-point
/// difference is caught between rounding at small steps and truncation at large ones.
fn gradient_check<O: QueryObjective>(
    obj: &O,
    data: &Dataset,
    model: &NeuralModel,
    h: f64,
    floor: f64,
) -> f64 {
    let grad = ltr_neural::total_gradient(obj, data, model);
    let mut probe = model.clone();
    let mut worst = 0.0f64;
    for (k, &g) in grad.iter().enumerate() {
        let p = model.network.params[k];
        let mut at = |t: f64| {
            probe.network.params[k] = p + t;
            ltr_neural::total_cost(obj, data, &probe).unwrap()
        };
        let fd = (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h);
        probe.network.params[k] = p;
        worst = worst.max((fd - g).abs() / fd.abs().max(g.abs()).max(floor));
    }
    worst
}

/// The objective's gradient through the network against finite differences of its cost
/// (five-point, step 1e-3), with the epoch's rankings fixed: worst relative error at most
/// 1e-6 for linear, tanh and ReLU networks, without and with pairwise potentials (the
/// gradient pulled back through `s = M phi`), and for NDCG@3.
#[test]
fn gradient_matches_finite_differences() {
    let data = toy(4, 7, 21);
    let pairwise =
        Pairwise { standardizer: Standardizer::fit(&data, "test").unwrap(), bandwidth: 1.0, weight: 0.4 };
    let settings =
        |kl_weight, ndcg_truncation| ObjectiveSettings { alpha: 1.5, kl_weight, samples: 6, ndcg_truncation };
    for (hidden, act) in [
        (vec![], Activation::Tanh),
        (vec![4], Activation::Tanh),
        (vec![3, 3], Activation::Tanh),
        (vec![5], Activation::Relu),
    ] {
        let model = random_model(&data, &hidden, act, 4);
        for (kl_weight, k) in [(0.0, 0), (1.0, 0), (5.0, 0), (1.0, 3)] {
            let mut alone = BoltzObjective::new(&data, settings(kl_weight, k));
            alone.begin_epoch(&mut Rng::new(9));
            let mut with = WithPairwise::new(
                BoltzObjective::new(&data, settings(kl_weight, k)),
                pairwise.clone(),
                &data,
            );
            with.begin_epoch(&mut Rng::new(9));
            for (name, worst) in [
                ("individual", gradient_check(&alone, &data, &model, 1e-3, 1e-3)),
                ("pairwise", gradient_check(&with, &data, &model, 1e-3, 1e-3)),
            ] {
                eprintln!(
                    "gradient check {name} {hidden:?} {act:?} lambda {kl_weight} NDCG@{k}: worst relative error {worst:.1e}"
                );
                assert!(
                    worst < 1e-6,
                    "{name} {hidden:?} {act:?} lambda {kl_weight}: relative error {worst:e}"
                );
            }
        }
    }
}

/// Two documents of one varying feature at x~ = -1/2 and 1/2: each is the other's only
/// neighbour (a_01 = a_10 = 1), so s_0 = phi_0 + beta (phi_1 - phi_0) and the reverse; a
/// document alone keeps s = phi. Three documents at x~ = 0, 1, 3 (tau = 1, one varying
/// feature): document 0's weights are exp(-1/2) and exp(-9/2), normalised. The pull-back is
/// the transpose: `sum_j g_j s_j(phi)` differentiated by hand.
#[test]
fn pairwise_potentials_by_hand() {
    let data = ltr_testkit::dataset(2, &[(&[1, 0], &[[0.0f32, 1.0], [2.0, 1.0]]), (&[0], &[[5.0, 1.0]])]);
    let p = Pairwise {
        standardizer: Standardizer { mean: vec![1.0, 1.0], scale: vec![0.5, 0.0] },
        bandwidth: 1.0,
        weight: 0.25,
    };
    let w = p.all_weights(&data);
    assert_eq!((w[0].a.as_slice(), w[1].a.as_slice()), (&[0.0, 1.0, 1.0, 0.0][..], &[0.0][..]));
    let mut s = [2.0, -2.0, 7.0];
    p.score_data(&data, &w, &mut s);
    assert_eq!(s, [2.0 + 0.25 * (-4.0), -2.0 + 0.25 * 4.0, 7.0]);
    let three = ltr_testkit::dataset(1, &[(&[1, 0, 0], &[[0.0f32], [1.0], [3.0]])]);
    let p3 = Pairwise {
        standardizer: Standardizer { mean: vec![0.0], scale: vec![1.0] },
        bandwidth: 1.0,
        weight: 0.5,
    };
    let mut a = Vec::new();
    p3.weights(three.query(0), &mut a);
    let (w1, w2) = ((-0.5f64).exp(), (-4.5f64).exp());
    assert!((a[1] - w1 / (w1 + w2)).abs() < 1e-15 && (a[2] - w2 / (w1 + w2)).abs() < 1e-15, "{a:?}");
    for row in a.chunks(3) {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }
    // d/dphi_i of sum_j g_j s_j = g_i + beta (sum_j a_ji g_j - g_i) (rows of a sum to 1).
    let g = [0.3, -1.1, 0.5];
    let mut back = g.to_vec();
    p3.pull_back(&QueryWeights::new(a.clone(), 3), &mut back, &mut Vec::new());
    for i in 0..3 {
        let want = g[i] + 0.5 * ((0..3).map(|j| a[j * 3 + i] * g[j]).sum::<f64>() - g[i]);
        assert!((back[i] - want).abs() < 1e-15, "{back:?}");
    }
}

#[test]
fn defaults_tables_readme_and_bad_values() {
    ltr_core::check_table::<BoltzRankParams>().unwrap();
    ltr_core::check_readme::<BoltzRankParams>(include_str!("../README.md")).unwrap();
    let d = BoltzRankParams::default();
    let key = |r: Result<BoltzRank>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(key(BoltzRankParams { alpha: 0.0, ..d.clone() }.validate()), "alpha");
    assert_eq!(key(BoltzRankParams { kl_weight: f64::NAN, ..d.clone() }.validate()), "kl_weight");
    assert_eq!(key(BoltzRankParams { samples: 0, ..d.clone() }.validate()), "samples");
    assert_eq!(key(BoltzRankParams { bandwidth: -1.0, ..d.clone() }.validate()), "bandwidth");
    assert_eq!(key(BoltzRankParams { pairwise: 1.0, ..d.clone() }.validate()), "pairwise");
    assert_eq!(key(BoltzRankParams { pairwise: -0.1, ..d.clone() }.validate()), "pairwise");
    let wide = BoltzRankParams { network: NetworkParams { hidden: 5000, ..d.network }, ..d.clone() };
    assert_eq!(key(wide.validate()), "hidden");
    // The network keys are read flat, next to BoltzRank's own.
    let p: BoltzRankParams = serde_json::from_str(r#"{"samples": 3, "hidden": 8, "epochs": 5}"#).unwrap();
    assert_eq!((p.samples, p.network.hidden, p.network.epochs, p.network.learning_rate), (3, 8, 5, 1e-3));
}

#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let fit = |threads: usize, seed: u64, pairwise: f64| {
        let learner = BoltzRankParams {
            pairwise,
            network: NetworkParams { hidden: 6, batch: 5, epochs: 8, ..NetworkParams::default() },
            ..Default::default()
        }
        .validate()
        .unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let m = pool.install(|| learner.fit(&data, Some(&valid), &mut Rng::new(seed)).unwrap());
        serde_json::to_string(&m).unwrap()
    };
    for pairwise in [0.0, 0.3] {
        let one = fit(1, 7, pairwise);
        assert_eq!(one, fit(2, 7, pairwise), "thread count changed the model");
        assert_ne!(one, fit(2, 8, pairwise), "another seed, the same model");
    }
}

#[test]
fn learns_a_toy_ranking_and_scores_whole_queries() {
    let data = toy(40, 15, 11);
    let test = toy(20, 15, 12);
    let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
    let ndcg = |s: &[f64]| ltr_metrics::Metric::Ndcg(10).mean(&test, s, &cfg).unwrap();
    let random = ndcg(&vec![0.0; test.n_docs()]);
    for pairwise in [0.0, 0.3] {
        let learner = BoltzRankParams {
            pairwise,
            network: NetworkParams { epochs: 30, ..NetworkParams::default() },
            ..Default::default()
        }
        .validate()
        .unwrap();
        let (model, report) = learner.fit_with_report(&data, None, &mut Rng::new(1)).unwrap();
        assert_eq!((report.epochs_run, report.epoch), (30, 30));
        model.check().unwrap();
        let scores = model.score_vec(&test).unwrap();
        let got = ndcg(&scores);
        eprintln!("toy NDCG@10: pairwise {pairwise}: {got:.4} (all ties {random:.4})");
        assert!(got > random + 0.1, "pairwise {pairwise}: {got} vs {random}");
        // score_row is the document alone in its query.
        let alone = test.select_queries(&[0]).unwrap();
        let single = Dataset::from_parts(
            3,
            alone.row(0).to_vec(),
            vec![alone.labels()[0]],
            vec![0, 1],
            vec!["a".into()],
            None,
        )
        .unwrap();
        assert_eq!(model.score_row(alone.row(0)).to_bits(), model.score_vec(&single).unwrap()[0].to_bits());
        let json = serde_json::to_string(&model).unwrap();
        let back: BoltzRankModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back, model);
    }
}

#[test]
fn corrupt_models_are_refused() {
    let data = toy(10, 8, 1);
    let learner = BoltzRankParams {
        network: NetworkParams { epochs: 2, ..NetworkParams::default() },
        ..Default::default()
    }
    .validate()
    .unwrap();
    let model = learner.fit(&data, None, &mut Rng::new(1)).unwrap();
    assert!(model.pairwise.is_some());
    let mut bad = model.clone();
    if let Some(p) = &mut bad.pairwise {
        p.standardizer.mean.push(0.0);
        p.standardizer.scale.push(1.0);
    }
    assert!(bad.check().unwrap_err().to_string().contains("features"));
    for corrupt in [|p: &mut Pairwise| p.bandwidth = f64::NAN, |p: &mut Pairwise| p.weight = 1.5] {
        let mut bad = model.clone();
        corrupt(bad.pairwise.as_mut().unwrap());
        assert!(bad.check().is_err());
        assert!(bad.score_vec(&data).is_err());
    }
}

#[test]
fn one_grade_everywhere_is_a_fit_error() {
    let data = one_query(&[0, 0, 0]);
    let learner = BoltzRankParams::default().validate().unwrap();
    assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
