use ltr_core::{Error, Learner, Ranker, Rng, Validation};
use ltr_neural::{Activation, Network, NeuralModel, QueryObjective, Standardizer};

use super::*;

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

/// BayesRank's default network keys with `f` applied.
fn net(f: impl FnOnce(&mut NetworkParams<BayesRankDefaults>)) -> NetworkParams<BayesRankDefaults> {
    let mut n = NetworkParams::default();
    f(&mut n);
    n
}

fn random_model(data: &Dataset, hidden: &[usize], act: Activation, seed: u64) -> NeuralModel {
    let mut rng = Rng::new(seed);
    let mut network = Network::init(data.n_features(), hidden, act, &mut rng);
    for p in &mut network.params {
        *p += 0.2 * rng.normal();
    }
    NeuralModel { standardizer: Standardizer::fit(data, "test").unwrap(), network, epoch: 0 }
}

/// Every permutation of `0..n` (Heap's algorithm).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn heap(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out);
            if k.is_multiple_of(2) { a.swap(i, k - 1) } else { a.swap(0, k - 1) }
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n).collect(), &mut out);
    out
}

/// The Plackett-Luce probability of the whole ranking `perm` (best first): each factor
/// `exp(s_c) / sum_left exp(s)` as `1 / sum_left exp(s - s_c)`, exact for any score range.
fn plackett_luce(scores: &[f64], perm: &[usize]) -> f64 {
    (0..perm.len())
        .map(|t| 1.0 / perm[t..].iter().map(|&u| (scores[u] - scores[perm[t]]).exp()).sum::<f64>())
        .product()
}

/// DCG@k of a ranking, discount 1 / log2(1 + place).
fn dcg_at(gains: &[f64], perm: &[usize], k: usize) -> f64 {
    perm.iter().take(k).enumerate().map(|(t, &c)| gains[c] / ((t + 2) as f64).log2()).sum()
}

/// `E[DCG@k]` by enumerating all `n!` rankings.
fn enumerated_expected_dcg(gains: &[f64], scores: &[f64], k: usize) -> f64 {
    permutations(scores.len()).iter().map(|p| plackett_luce(scores, p) * dcg_at(gains, p, k)).sum()
}

#[test]
fn permutations_and_their_probabilities_are_complete() {
    assert_eq!(permutations(4).len(), 24);
    let mut all = permutations(4);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 24);
    let total: f64 = permutations(5).iter().map(|p| plackett_luce(&[0.3, -1.0, 2.0, 0.0, 0.7], p)).sum();
    assert!((total - 1.0).abs() < 1e-14);
}

/// Two documents of grades (1, 0) and scores (ln 3, 0): the relevant one is first with
/// probability 3/4. Risk at k = 1: 1 - 3/4 = 1/4; at k = 2: 1 - (3/4 + 1/4 / log2 3) =
/// 0.09226756160713556. dE[DCG@1]/ds_0 = p (1 - p) = 3/16, and -3/16 for the other document.
#[test]
fn risk_of_two_documents_by_hand() {
    let data =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![1, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    let scores = [3f64.ln(), 0.0];
    let mut s = RiskScratch::default();
    let risk1 = bayes_risk_objective(&data, 1).cost(data.query(0), &scores, &mut s);
    assert!((risk1 - 0.25).abs() < 1e-15, "{risk1}");
    let risk2 = bayes_risk_objective(&data, 2).cost(data.query(0), &scores, &mut s);
    assert!((risk2 - 0.092_267_561_607_135_56).abs() < 1e-15, "{risk2}");
    let mut g = [0.0; 2];
    TopKRisk::new(1).expected_dcg::<true>(&[1.0, 0.0], &scores, &mut g, &mut s);
    assert!((g[0] - 0.1875).abs() < 1e-15 && (g[1] + 0.1875).abs() < 1e-15, "{g:?}");
}

/// The risk equals the expectation of the loss over all `n!` rankings with their
/// Plackett-Luce probabilities, for 1 to 5 documents, every `k` up to 6 (past the list too),
/// random and extreme scores (a range of 1,800, where the plain exponentials underflow).
#[test]
fn risk_equals_the_enumerated_expectation_up_to_five_documents() {
    let mut rng = Rng::new(9);
    let mut s = RiskScratch::default();
    for case in 0..40 {
        let n = 1 + case % 5;
        let mut scores: Vec<f64> = (0..n).map(|_| 1.5 * rng.normal()).collect();
        if case % 4 == 3 {
            scores[0] = 900.0;
            scores[n - 1] = -900.0;
        }
        let gains: Vec<f64> = (0..n).map(|_| (rng.uniform() * 3.0).floor().exp2() - 1.0).collect();
        for k in 1..=6 {
            let want = enumerated_expected_dcg(&gains, &scores, k);
            let got = TopKRisk::new(k).expected_dcg::<false>(&gains, &scores, &mut [], &mut s);
            assert!((got - want).abs() < 1e-13, "n={n} k={k} {scores:?}: {got} vs {want}");
        }
    }
    // Through the objective: the cost is 1 - E[DCG@k] / IDCG@k.
    let data = Dataset::from_parts(1, vec![0.0; 5], vec![2, 0, 1, 0, 1], vec![0, 5], vec!["1".into()], None)
        .unwrap();
    let scores = [0.1, 0.9, -0.4, 0.0, 1.3];
    let gains = [3.0, 0.0, 1.0, 0.0, 1.0];
    for k in 1..=3 {
        let ideal = dcg_at(&gains, &[0, 2, 4, 1, 3], k);
        let want = 1.0 - enumerated_expected_dcg(&gains, &scores, k) / ideal;
        let got = bayes_risk_objective(&data, k).cost(data.query(0), &scores, &mut s);
        assert!((got - want).abs() < 1e-14, "k={k}: {got} vs {want}");
    }
}

/// The gradient of `E[DCG@k]` against central differences, directly on the scores, for random
/// queries of up to 9 documents, `k` 1 to 3, moderate and wide score ranges.
#[test]
fn expected_dcg_gradient_matches_finite_differences() {
    let mut rng = Rng::new(4);
    let mut s = RiskScratch::default();
    let mut worst = 0.0f64;
    for case in 0..45 {
        let n = 1 + case % 9;
        let spread = [0.5, 2.0, 8.0][case % 3];
        let scores: Vec<f64> = (0..n).map(|_| spread * rng.normal()).collect();
        let gains: Vec<f64> = (0..n).map(|_| (rng.uniform() * 3.0).floor().exp2() - 1.0).collect();
        for k in 1..=3 {
            let risk = TopKRisk::new(k);
            let mut grad = vec![0.0; n];
            let value = risk.expected_dcg::<true>(&gains, &scores, &mut grad, &mut s);
            let plain = risk.expected_dcg::<false>(&gains, &scores, &mut [], &mut s);
            assert_eq!(value.to_bits(), plain.to_bits());
            let mut probe = scores.clone();
            for i in 0..n {
                let eps = 1e-5;
                probe[i] = scores[i] + eps;
                let up = risk.expected_dcg::<false>(&gains, &probe, &mut [], &mut s);
                probe[i] = scores[i] - eps;
                let dn = risk.expected_dcg::<false>(&gains, &probe, &mut [], &mut s);
                probe[i] = scores[i];
                let fd = (up - dn) / (2.0 * eps);
                worst = worst.max((fd - grad[i]).abs() / fd.abs().max(grad[i].abs()).max(1e-3));
            }
            assert!(grad.iter().sum::<f64>().abs() < 1e-12, "{grad:?}");
        }
    }
    eprintln!("expected DCG gradient: worst relative error {worst:.1e}");
    assert!(worst < 1e-6, "relative error {worst:e}");
}

/// Scores far apart: the gradient stays finite and matches differences of the enumeration.
#[test]
fn extreme_scores_keep_exact_values_and_gradients() {
    let scores = [800.0, 0.0, -3.0, 1.0];
    let gains = [0.0, 3.0, 1.0, 7.0];
    let mut s = RiskScratch::default();
    for k in 1..=4 {
        let mut grad = [0.0; 4];
        let got = TopKRisk::new(k).expected_dcg::<true>(&gains, &scores, &mut grad, &mut s);
        assert!((got - enumerated_expected_dcg(&gains, &scores, k)).abs() < 1e-13);
        for i in 1..4 {
            let mut probe = scores;
            probe[i] += 1e-5;
            let up = enumerated_expected_dcg(&gains, &probe, k);
            probe[i] -= 2e-5;
            let dn = enumerated_expected_dcg(&gains, &probe, k);
            let fd = (up - dn) / 2e-5;
            assert!((fd - grad[i]).abs() < 1e-7 * fd.abs().max(1.0), "k={k} i={i}: {fd} vs {}", grad[i]);
        }
        assert!(grad[0].abs() < 1e-300 || k == 1, "{grad:?}");
    }
}

#[test]
fn gradients_match_finite_differences_through_the_network() {
    let data = toy(3, 9, 21);
    for (hidden, act) in [
        (vec![], Activation::Tanh),
        (vec![4], Activation::Tanh),
        (vec![3, 3], Activation::Tanh),
        (vec![5], Activation::Relu),
    ] {
        let model = random_model(&data, &hidden, act, 4);
        for k in 1..=3 {
            let obj = bayes_risk_objective(&data, k);
            let worst = ltr_neural::gradient_check(&obj, &data, &model, 1e-5, 1e-3).unwrap();
            eprintln!("gradient check {hidden:?} {act:?} k={k}: worst relative error {worst:.1e}");
            assert!(worst < 1e-6, "{hidden:?} {act:?} k={k}: relative error {worst:e}");
        }
    }
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<BayesRankParams>().unwrap();
    ltr_core::check_readme::<BayesRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(BayesRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

#[test]
fn bad_values_are_refused_with_their_key() {
    let d = BayesRankParams::default();
    let key = |r: Result<BayesRank>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(key(BayesRankParams { top_k: 0, ..d.clone() }.validate()), "top_k");
    assert_eq!(key(BayesRankParams { top_k: 4, ..d.clone() }.validate()), "top_k");
    assert_eq!(key(BayesRankParams { network: net(|n| n.batch = 0), ..d.clone() }.validate()), "batch");
    assert!(serde_json::from_str::<BayesRankParams>(r#"{"top_k": -2}"#).is_err());
}

/// The network keys sit flat in the parameters' JSON, and a key left out takes BayesRank's
/// default.
#[test]
fn parameters_serialise_flat_with_bayesrank_defaults() {
    let json = serde_json::to_string(&BayesRankParams::default()).unwrap();
    assert_eq!(
        json,
        r#"{"top_k":2,"hidden":0,"layers":1,"activation":"tanh","optimizer":"adam","learning_rate":0.001,"momentum":0.9,"epochs":100,"batch":1,"early_stopping":0}"#
    );
    let p: BayesRankParams = serde_json::from_str(r#"{"hidden": 8, "top_k": 1}"#).unwrap();
    assert_eq!((p.network.hidden, p.network.batch, p.top_k), (8, 1, 1));
}

#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let learner = BayesRankParams {
        network: net(|n| (n.hidden, n.batch, n.epochs) = (6, 5, 12)),
        ..Default::default()
    }
    .validate()
    .unwrap();
    let fit = |threads: usize, seed: u64| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let m = pool.install(|| learner.fit(&data, Some(&valid), &mut Rng::new(seed)).unwrap());
        serde_json::to_string(&m).unwrap()
    };
    let one = fit(1, 7);
    assert_eq!(one, fit(2, 7), "thread count changed the model");
    assert_eq!(one, fit(3, 7), "thread count changed the model");
    assert_ne!(one, fit(2, 8), "another seed, the same model");
}

#[test]
fn learns_a_toy_ranking() {
    let data = toy(40, 15, 11);
    let test = toy(20, 15, 12);
    let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
    let ndcg = |s: &[f64]| ltr_metrics::Metric::Ndcg(10).mean(&test, s, &cfg).unwrap();
    let random = ndcg(&vec![0.0; test.n_docs()]);
    let learner =
        BayesRankParams { network: net(|n| n.epochs = 30), ..Default::default() }.validate().unwrap();
    let (model, report) = learner.fit_with_report(&data, None, &mut Rng::new(1)).unwrap();
    assert_eq!((report.epochs_run, report.epoch), (30, 30));
    let got = ndcg(&model.score_vec(&test).unwrap());
    assert!(got > random + 0.1, "{got} vs {random}");
}

#[test]
fn one_grade_everywhere_is_a_fit_error() {
    let data =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![0, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    let learner = BayesRankParams::default().validate().unwrap();
    assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
