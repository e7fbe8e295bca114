use ltr_core::{Error, Learner, Ranker, Rng, Validation};
use ltr_neural::{Activation, Network, NeuralModel, QueryObjective, Standardizer};

use super::*;

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

/// SoftRank's default network keys with `f` applied.
fn net(f: impl FnOnce(&mut NetworkParams<SoftRankDefaults>)) -> NetworkParams<SoftRankDefaults> {
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

/// The distribution of the number of successes of independent Bernoulli trials with means
/// `pis`, by enumerating all `2^m` outcomes.
fn enumerated(pis: &[f64]) -> Vec<f64> {
    let m = pis.len();
    let mut out = vec![0.0; m + 1];
    for outcome in 0..1usize << m {
        let mut prob = 1.0;
        for (t, &pi) in pis.iter().enumerate() {
            prob *= if outcome >> t & 1 == 1 { pi } else { 1.0 - pi };
        }
        out[outcome.count_ones() as usize] += prob;
    }
    out
}

/// Phi(1) = 0.5 erfc(-1 / sqrt 2) = 0.8413447460685429 (tables: 0.84134474606854293). With
/// variance 1/2 the difference of two scores has variance 1, so a lead of 1 wins with Phi(1).
#[test]
fn beat_probability_by_hand() {
    assert!((beat_probability(1.0, 0.0, 0.5) - 0.841_344_746_068_542_9).abs() < 1e-15);
    assert!((beat_probability(0.0, 1.0, 0.5) - 0.158_655_253_931_457_05).abs() < 1e-15);
    assert_eq!(beat_probability(0.7, 0.7, 2.0), 0.5);
    // Variance 2: the difference has standard deviation 2, so a lead of 2 is again Phi(1).
    assert!((beat_probability(3.0, 1.0, 2.0) - 0.841_344_746_068_542_9).abs() < 1e-15);
}

/// Three documents: each one's rank distribution by the recursion equals the distribution of
/// the number of the other two that beat it, enumerated over the four outcomes, for several
/// variances and score sets (ties included); and by hand for one case: scores (1, 0, 0) at
/// variance 1/2, document 0 is beaten by each other with 1 - Phi(1) = q, so its ranks have
/// probabilities ((1 - q)^2, 2 q (1 - q), q^2).
#[test]
fn rank_distribution_equals_the_enumerated_distribution_for_three_documents() {
    let q = 0.158_655_253_931_457_05;
    let mut p = [0.0; 3];
    rank_distribution(&[1.0, 0.0, 0.0], 0, 0.5, &mut p);
    for (a, b) in p.iter().zip([(1.0 - q) * (1.0 - q), 2.0 * q * (1.0 - q), q * q]) {
        assert!((a - b).abs() < 1e-15, "{p:?}");
    }
    for scores in [[1.0, 0.0, 0.0], [0.3, -0.2, 1.1], [2.0, 2.0, -1.0], [-5.0, 0.0, 5.0]] {
        for variance in [1e-3, 0.1, 0.5, 1.0, 7.0] {
            for j in 0..3 {
                let pis: Vec<f64> = (0..3)
                    .filter(|&i| i != j)
                    .map(|i| beat_probability(scores[i], scores[j], variance))
                    .collect();
                let want = enumerated(&pis);
                let mut p = [0.0; 3];
                rank_distribution(&scores, j, variance, &mut p);
                for (a, b) in p.iter().zip(&want) {
                    assert!((a - b).abs() < 1e-15, "{scores:?} v={variance} j={j}: {p:?} vs {want:?}");
                }
                // A longer buffer holds zeros past the list; a shorter one the leading ranks.
                let mut long = [9.0; 5];
                rank_distribution(&scores, j, variance, &mut long);
                assert_eq!(&long[..3], &p);
                assert_eq!(&long[3..], &[0.0, 0.0]);
                let mut short = [0.0; 2];
                rank_distribution(&scores, j, variance, &mut short);
                assert_eq!(&short, &p[..2]);
            }
        }
    }
}

/// Variance to 0: every document sits at its hard rank with probability 1 (distinct scores),
/// both at variance exactly 0 and at the smallest positive variances; tied documents split
/// 1/2 - 1/2. Variance to infinity: every beat is a coin flip, so the ranks are binomial.
#[test]
fn small_and_large_variance_limits() {
    let scores = [0.3, -0.2, 1.1];
    let hard = [1, 2, 0];
    for variance in [0.0, 1e-300, f64::MIN_POSITIVE, 1e-12] {
        for j in 0..3 {
            let mut p = [0.0; 3];
            rank_distribution(&scores, j, variance, &mut p);
            let mut want = [0.0; 3];
            want[hard[j]] = 1.0;
            assert_eq!(p, want, "variance {variance:e}, document {j}");
        }
    }
    let mut p = [0.0; 3];
    rank_distribution(&[1.0, 1.0, 0.0], 0, 0.0, &mut p);
    assert_eq!(p, [0.5, 0.5, 0.0]);
    for j in 0..3 {
        rank_distribution(&scores, j, 1e300, &mut p);
        for (a, b) in p.iter().zip([0.25, 0.5, 0.25]) {
            assert!((a - b).abs() < 1e-12, "{p:?}");
        }
    }
    // And SoftNDCG becomes the hard NDCG (discount 1 / log2(1 + rank)): grades (1, 2, 0)
    // ranked (doc 2, doc 0, doc 1) give DCG 1 / log2 3 + 3 / log2 4 against the ideal
    // 3 + 1 / log2 3.
    let soft = SoftNdcg::new(1e-300, 0, 3);
    let mut s = SoftScratch::default();
    let dcg = soft.soft_dcg::<false>(&[1.0, 3.0, 0.0], &scores, &mut [], &mut s);
    assert!((dcg - (1.0 / 3f64.log2() + 1.5)).abs() < 1e-15, "{dcg}");
}

/// Two documents of grades (1, 0) at equal scores: the relevant one is first or second with
/// probability 1/2 each, SoftNDCG = (1/2 + 1/2 / log2 3) / 1 = 0.8154648767857288. Through the
/// objective's cost (1 - SoftNDCG).
#[test]
fn soft_ndcg_by_hand() {
    let data =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![1, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    let obj = SoftRankObjective::new(&data, 3.0, 0);
    let mut s = SoftScratch::default();
    let c = obj.cost(data.query(0), &[0.25, 0.25], &mut s);
    assert!((c - (1.0 - 0.815_464_876_785_728_8)).abs() < 1e-15, "{c}");
    // Truncated at 1: only the top counts, SoftNDCG@1 = 1/2.
    let obj = SoftRankObjective::new(&data, 3.0, 1);
    assert!((obj.cost(data.query(0), &[0.25, 0.25], &mut s) - 0.5).abs() < 1e-15);
}

/// The soft DCG's gradient against central differences, directly on the scores, for random
/// queries of up to 12 documents with and without truncation.
#[test]
fn soft_dcg_gradient_matches_finite_differences() {
    let mut rng = Rng::new(3);
    let mut worst = 0.0f64;
    let mut s = SoftScratch::default();
    for case in 0..60 {
        let n = 1 + case % 12;
        let scores: Vec<f64> = (0..n).map(|_| 2.0 * rng.normal()).collect();
        let gains: Vec<f64> = (0..n).map(|_| (rng.uniform() * 3.0).floor().exp2() - 1.0).collect();
        let variance = [0.05, 0.5, 2.0][case % 3];
        for truncation in [0, 1, 3, 5] {
            let soft = SoftNdcg::new(variance, truncation, 12);
            let mut grad = vec![0.0; n];
            let value = soft.soft_dcg::<true>(&gains, &scores, &mut grad, &mut s);
            let plain = soft.soft_dcg::<false>(&gains, &scores, &mut [], &mut s);
            assert!((value - plain).abs() <= 1e-14 * value.abs().max(1.0), "{value} vs {plain}");
            let mut probe = scores.clone();
            for i in 0..n {
                let eps = 1e-5;
                probe[i] = scores[i] + eps;
                let up = soft.soft_dcg::<false>(&gains, &probe, &mut [], &mut s);
                probe[i] = scores[i] - eps;
                let dn = soft.soft_dcg::<false>(&gains, &probe, &mut [], &mut s);
                probe[i] = scores[i];
                let fd = (up - dn) / (2.0 * eps);
                worst = worst.max((fd - grad[i]).abs() / fd.abs().max(grad[i].abs()).max(1e-3));
            }
            // The gradient of a function of score differences sums to 0.
            assert!(grad.iter().sum::<f64>().abs() < 1e-12, "{grad:?}");
        }
    }
    eprintln!("soft DCG gradient: worst relative error {worst:.1e}");
    assert!(worst < 1e-6, "relative error {worst:e}");
}

/// Large queries take the parallel path (their documents' recursions and beat probabilities
/// split into tasks); the value and the gradient are those of one thread, bit for bit, with
/// some scores far apart (certain beats, documents left out) and ties.
#[test]
fn parallel_soft_dcg_equals_one_thread_bit_for_bit() {
    let mut rng = Rng::new(11);
    for (n, spread, truncation) in [(150, 1.0, 10), (120, 30.0, 10), (90, 0.3, 0), (200, 3.0, 25)] {
        let mut scores: Vec<f64> = (0..n).map(|_| spread * rng.normal()).collect();
        scores[7] = scores[3];
        let gains: Vec<f64> = (0..n).map(|_| (rng.uniform() * 4.0).floor().exp2() - 1.0).collect();
        let soft = SoftNdcg::new(0.01, truncation, 200);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut grad = vec![0.0; n];
                let mut s = SoftScratch::default();
                let value = soft.soft_dcg::<true>(&gains, &scores, &mut grad, &mut s);
                // Again with the buffers of a larger query left in the scratch.
                let mut again = vec![0.0; n];
                assert_eq!(
                    soft.soft_dcg::<true>(&gains, &scores, &mut again, &mut s).to_bits(),
                    value.to_bits()
                );
                assert_eq!(again, grad);
                (value.to_bits(), grad.iter().map(|g| g.to_bits()).collect::<Vec<_>>())
            })
        };
        let one = run(1);
        assert_eq!(run(2), one, "n {n}");
        assert_eq!(run(3), one, "n {n}");
        let plain = soft.soft_dcg::<false>(&gains, &scores, &mut [], &mut SoftScratch::default());
        assert_eq!(plain.to_bits(), one.0, "n {n}");
    }
}

/// The soft DCG from the full rank distributions of [`rank_distribution`] (every document in the
/// recursion, no shortcut for certain beats).
fn reference_soft_dcg(gains: &[f64], scores: &[f64], variance: f64, truncation: usize) -> f64 {
    let n = scores.len();
    let k = if truncation == 0 { n } else { truncation.min(n) };
    let mut p = vec![0.0; k];
    (0..n)
        .map(|j| {
            rank_distribution(scores, j, variance, &mut p);
            gains[j] * p.iter().enumerate().map(|(r, x)| x / (2.0 + r as f64).log2()).sum::<f64>()
        })
        .sum()
}

/// Groups of scores far apart (at variance 0.05 a gap above 12.5 is a certain beat): the
/// certain beaters left out of the recursion and turned into shifted discounts give the value
/// of the full recursion, and a gradient matching its differences (zero across certain gaps,
/// and for a document pushed below the truncation by certain beaters alone).
#[test]
fn certain_beats_shift_the_discounts_exactly() {
    let scores = [0.0, 30.0, 30.4, 60.0, 60.7, 200.0, 0.3];
    let gains = [1.0, 3.0, 0.0, 1.0, 7.0, 0.0, 3.0];
    let mut s = SoftScratch::default();
    for truncation in [0, 1, 2, 3, 5] {
        let soft = SoftNdcg::new(0.05, truncation, scores.len());
        let mut grad = [0.0; 7];
        let got = soft.soft_dcg::<true>(&gains, &scores, &mut grad, &mut s);
        let want = reference_soft_dcg(&gains, &scores, 0.05, truncation);
        assert!((got - want).abs() < 1e-13, "k={truncation}: {got} vs {want}");
        for i in 0..scores.len() {
            let mut probe = scores;
            probe[i] += 1e-5;
            let up = reference_soft_dcg(&gains, &probe, 0.05, truncation);
            probe[i] -= 2e-5;
            let dn = reference_soft_dcg(&gains, &probe, 0.05, truncation);
            let fd = (up - dn) / 2e-5;
            assert!(
                (fd - grad[i]).abs() < 1e-6 * fd.abs().max(1e-3),
                "k={truncation} i={i}: {fd} vs {}",
                grad[i]
            );
        }
        // The top document is certain to lead: nothing moves it.
        assert_eq!(grad[5], 0.0);
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
        for (variance, truncation) in [(1.0, 0), (0.1, 3), (4.0, 10)] {
            let obj = SoftRankObjective::new(&data, variance, truncation);
            let worst = ltr_neural::gradient_check(&obj, &data, &model, 1e-5, 1e-3).unwrap();
            eprintln!("gradient check {hidden:?} {act:?} v={variance} k={truncation}: worst {worst:.1e}");
            assert!(worst < 1e-6, "{hidden:?} {act:?} v={variance} k={truncation}: relative error {worst:e}");
        }
    }
}

mod properties {
    use proptest::prelude::*;

    use super::{beat_probability, rank_distribution};

    proptest! {
        /// The whole distributions are probability vectors, their means are the expected number
        /// of beats `sum_i pi_ij`, and truncating them keeps their leading entries.
        #[test]
        fn rank_distributions_are_distributions(
            scores in proptest::collection::vec(-20.0f64..20.0, 1..16),
            variance in 1e-4f64..50.0,
            cut in 1usize..16,
        ) {
            let n = scores.len();
            for j in 0..n {
                let mut p = vec![0.0; n];
                rank_distribution(&scores, j, variance, &mut p);
                prop_assert!(p.iter().all(|&x| (0.0..=1.0 + 1e-15).contains(&x)));
                prop_assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                let mean: f64 = p.iter().enumerate().map(|(r, x)| r as f64 * x).sum();
                let beats: f64 = (0..n).filter(|&i| i != j).map(|i| beat_probability(scores[i], scores[j], variance)).sum();
                prop_assert!((mean - beats).abs() < 1e-10 * n as f64);
                let mut short = vec![0.0; cut.min(n)];
                rank_distribution(&scores, j, variance, &mut short);
                prop_assert_eq!(&short[..], &p[..cut.min(n)]);
            }
        }
    }
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<SoftRankParams>().unwrap();
    ltr_core::check_readme::<SoftRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(SoftRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
}

#[test]
fn bad_values_are_refused_with_their_key() {
    let d = SoftRankParams::default();
    let key = |r: Result<SoftRank>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(key(SoftRankParams { variance: 0.0, ..d.clone() }.validate()), "variance");
    assert_eq!(key(SoftRankParams { variance: f64::NAN, ..d.clone() }.validate()), "variance");
    assert_eq!(
        key(SoftRankParams { network: net(|n| n.learning_rate = -1.0), ..d.clone() }.validate()),
        "learning_rate"
    );
    assert_eq!(key(SoftRankParams { network: net(|n| n.epochs = 0), ..d.clone() }.validate()), "epochs");
    assert!(serde_json::from_str::<SoftRankParams>(r#"{"variance": "x"}"#).is_err());
}

/// The network keys sit flat in the parameters' JSON, and a key left out takes SoftRank's
/// default (four queries per update), not another network's.
#[test]
fn parameters_serialise_flat_with_softrank_defaults() {
    let json = serde_json::to_string(&SoftRankParams::default()).unwrap();
    assert_eq!(
        json,
        r#"{"variance":0.01,"ndcg_truncation":10,"hidden":0,"layers":1,"activation":"tanh","optimizer":"adam","learning_rate":0.001,"momentum":0.9,"epochs":100,"batch":4,"early_stopping":0}"#
    );
    let p: SoftRankParams = serde_json::from_str(r#"{"hidden": 8, "variance": 0.5}"#).unwrap();
    assert_eq!((p.network.hidden, p.network.batch, p.variance, p.ndcg_truncation), (8, 4, 0.5, 10));
}

#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let learner =
        SoftRankParams { network: net(|n| (n.hidden, n.batch, n.epochs) = (6, 5, 12)), ..Default::default() }
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
        SoftRankParams { network: net(|n| n.epochs = 30), ..Default::default() }.validate().unwrap();
    let (model, report) = learner.fit_with_report(&data, None, &mut Rng::new(1)).unwrap();
    assert_eq!((report.epochs_run, report.epoch), (30, 30));
    let got = ndcg(&model.score_vec(&test).unwrap());
    assert!(got > random + 0.1, "{got} vs {random}");
}

#[test]
fn one_grade_everywhere_is_a_fit_error() {
    let data =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![0, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    let learner = SoftRankParams::default().validate().unwrap();
    assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
