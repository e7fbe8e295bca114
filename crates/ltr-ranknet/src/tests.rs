use ltr_core::{Error, Grade, Ranker};
use ltr_neural::{NetScratch, Network, OptimizerKind, Standardizer};

use super::*;

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

/// A random model on `data` (standardised inputs, non-zero biases).
fn random_model(data: &Dataset, hidden: &[usize], act: Activation, seed: u64) -> NeuralModel {
    let mut rng = Rng::new(seed);
    let mut network = Network::init(data.n_features(), hidden, act, &mut rng);
    for p in &mut network.params {
        *p += 0.2 * rng.normal();
    }
    NeuralModel { standardizer: Standardizer::fit(data, "test").unwrap(), network, epoch: 0 }
}

fn query_of<'a>(labels: &'a [Grade]) -> QueryView<'a> {
    QueryView { index: 0, qid: "1", start: 0, n_features: 0, features: &[], labels }
}

/// The hand example of `ltr_metrics::lambda` through the objective: grades (2, 0, 1),
/// scores (0.5, 1, 0), sigma 1. RankNet: lambda_0 = -1/(1 + e^-0.5) - 1/(1 + e^0.5) = -1,
/// lambda_1 = 1/(1 + e^-0.5) + 1/(1 + e^-1), lambda_2 = 1/(1 + e^0.5) - 1/(1 + e^-1).
#[test]
fn three_documents_by_hand() {
    let data = ltr_core::Dataset::from_parts(
        1,
        vec![0.0, 1.0, 2.0],
        vec![2, 0, 1],
        vec![0, 3],
        vec!["1".into()],
        None,
    )
    .unwrap();
    let obj = PairObjective::new(LambdaConfig::ranknet(1.0), &data);
    let mut g = [0.0; 3];
    let mut s = Default::default();
    obj.gradient(data.query(0), &[0.5, 1.0, 0.0], &mut g, &mut s);
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    assert!((g[0] + 1.0).abs() < 1e-15);
    assert!((g[1] - (sig(0.5) + sig(1.0))).abs() < 1e-15);
    assert!((g[2] - (sig(-0.5) - sig(1.0))).abs() < 1e-15);
    // LambdaRank: ranking (doc 1, doc 0, doc 2); |delta NDCG| = |gain gap| |discount gap| /
    // ideal DCG with discounts 1, 1/log2(3), 1/2 and ideal DCG 3 + 1/log2(3).
    let obj = PairObjective::new(LambdaConfig::lambdarank(1.0, 0), &data);
    obj.gradient(data.query(0), &[0.5, 1.0, 0.0], &mut g, &mut s);
    let d2 = 1.0 / 3f64.log2();
    let idcg = 3.0 + d2;
    let (w01, w02, w21) = (3.0 * (1.0 - d2) / idcg, 2.0 * (d2 - 0.5) / idcg, 0.5 / idcg);
    assert!((g[0] - (-sig(0.5) * w01 - sig(-0.5) * w02)).abs() < 1e-15);
    assert!((g[1] - (sig(0.5) * w01 + sig(1.0) * w21)).abs() < 1e-15);
    assert!((g[2] - (sig(-0.5) * w02 - sig(1.0) * w21)).abs() < 1e-15);
}

/// NDCG (gain 2^y - 1, discount 1/log2(1 + r), whole list) of `labels` in the order
/// `ranking`, written out directly.
fn ndcg_of(labels: &[Grade], ranking: &[usize]) -> f64 {
    let dcg = |order: &[usize]| -> f64 {
        order
            .iter()
            .enumerate()
            .map(|(r, &d)| (2f64.powi(i32::from(labels[d])) - 1.0) / (r as f64 + 2.0).log2())
            .sum()
    };
    let mut ideal: Vec<usize> = (0..labels.len()).collect();
    ideal.sort_by(|&a, &b| labels[b].cmp(&labels[a]));
    dcg(ranking) / dcg(&ideal)
}

/// The unfactorised gradient: for every pair, one backward pass of each of its two
/// documents, `lambda_ij (ds_i/dw - ds_j/dw)` (Burges' equation 2), pair weights computed
/// from scratch (for LambdaRank by swapping the pair in the ranking and recomputing NDCG).
fn per_pair_gradient(data: &Dataset, model: &NeuralModel, sigma: f64, lambdarank: bool) -> Vec<f64> {
    let net = &model.network;
    let d = data.n_features();
    let x = model.standardizer.transform(data);
    let mut grad = vec![0.0; net.params.len()];
    let mut s = NetScratch::default();
    for q in data.queries() {
        let n = q.len();
        let xq = &x[q.start * d..(q.start + n) * d];
        let mut scores = vec![0.0; n];
        net.forward(xq, n, &mut s, &mut scores);
        let mut ranking: Vec<usize> = (0..n).collect();
        ranking.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let base = ndcg_of(q.labels, &ranking);
        for i in 0..n {
            for j in 0..n {
                if q.labels[i] <= q.labels[j] {
                    continue;
                }
                let mut w = 1.0;
                if lambdarank {
                    let mut swapped = ranking.clone();
                    let (pi, pj) = (
                        ranking.iter().position(|&r| r == i).unwrap(),
                        ranking.iter().position(|&r| r == j).unwrap(),
                    );
                    swapped.swap(pi, pj);
                    w = (ndcg_of(q.labels, &swapped) - base).abs();
                }
                let lambda = -sigma * w / (1.0 + (sigma * (scores[i] - scores[j])).exp());
                let mut dout = vec![0.0; n];
                dout[i] = lambda;
                dout[j] = -lambda;
                // Two documents' backward passes (the other rows carry 0).
                net.forward(xq, n, &mut s, &mut scores);
                net.backward(xq, n, &mut s, &dout, &mut grad);
            }
        }
    }
    grad
}

#[test]
fn factorised_and_per_pair_gradients_agree() {
    let data = toy(4, 7, 5);
    for (hidden, act) in
        [(vec![], Activation::Tanh), (vec![5], Activation::Tanh), (vec![4, 3], Activation::Relu)]
    {
        let model = random_model(&data, &hidden, act, 9);
        for (cfg, lambdarank) in
            [(LambdaConfig::ranknet(1.7), false), (LambdaConfig::lambdarank(1.7, 0), true)]
        {
            let obj = PairObjective::new(cfg, &data);
            let fact = ltr_neural::total_gradient(&obj, &data, &model);
            let pairs = per_pair_gradient(&data, &model, 1.7, lambdarank);
            let scale = pairs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let worst = fact.iter().zip(&pairs).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            eprintln!(
                "factorised vs per pair {hidden:?} {:?}: max difference {worst:.1e} (scale {scale:.2})",
                cfg.weight
            );
            assert!(worst <= 1e-12 * scale.max(1.0), "{hidden:?} {cfg:?}: max difference {worst:e}");
        }
    }
}

#[test]
fn gradients_match_finite_differences_through_the_network() {
    let data = toy(3, 6, 21);
    for (hidden, act) in [
        (vec![], Activation::Tanh),
        (vec![4], Activation::Tanh),
        (vec![3, 3], Activation::Tanh),
        (vec![5], Activation::Relu),
    ] {
        let model = random_model(&data, &hidden, act, 4);
        for cfg in
            [LambdaConfig::ranknet(1.0), LambdaConfig::lambdarank(1.5, 0), LambdaConfig::lambdarank(1.0, 3)]
        {
            let obj = PairObjective::new(cfg, &data);
            let worst = ltr_neural::gradient_check(&obj, &data, &model, 1e-5, 1e-3).unwrap();
            eprintln!("gradient check {hidden:?} {act:?} {:?}: worst relative error {worst:.1e}", cfg.weight);
            assert!(worst < 1e-6, "{hidden:?} {act:?} {cfg:?}: relative error {worst:e}");
        }
    }
}

/// RankNet's default network keys with `edit` applied.
fn net(edit: impl FnOnce(&mut NetworkParams<RankNetDefaults>)) -> NetworkParams<RankNetDefaults> {
    let mut n = RankNetDefaults::NETWORK;
    edit(&mut n);
    n
}

#[test]
fn inactive_queries_are_skipped() {
    let obj = PairObjective::new(LambdaConfig::ranknet(1.0), &toy(1, 3, 1));
    assert!(!obj.is_active(query_of(&[1, 1, 1])));
    assert!(obj.is_active(query_of(&[1, 0, 1])));
}

#[test]
fn defaults_tables_and_bad_values() {
    let d = RankNetParams::default();
    assert_eq!((d.network.hidden, d.network.layers, d.network.epochs, d.sigma), (10, 1, 100, 1.0));
    ltr_core::check_table::<RankNetParams>().unwrap();
    ltr_core::check_table::<LambdaRankParams>().unwrap();
    let key = |r: Result<RankNet>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    let with = |edit: fn(&mut NetworkParams<RankNetDefaults>)| {
        let mut p = d.clone();
        edit(&mut p.network);
        p.validate()
    };
    assert_eq!(key(RankNetParams { sigma: 0.0, ..d.clone() }.validate()), "sigma");
    assert_eq!(key(with(|n| n.hidden = 100_000)), "hidden");
    assert_eq!(key(with(|n| n.layers = 3)), "layers");
    assert_eq!(key(with(|n| n.learning_rate = f64::NAN)), "learning_rate");
    assert_eq!(key(with(|n| n.momentum = 1.0)), "momentum");
    assert_eq!(key(with(|n| n.epochs = 0)), "epochs");
    assert_eq!(key(with(|n| n.epochs = 1_000_000_000)), "epochs");
    assert_eq!(key(with(|n| n.batch = 0)), "batch");
    let l = LambdaRankParams::default();
    assert_eq!(
        key(LambdaRankParams { ndcg_truncation: usize::MAX, ..l.clone() }.validate()),
        "ndcg_truncation"
    );
    let p: LambdaRankParams = serde_json::from_str(r#"{"activation": "tanh", "optimizer": "sgd"}"#).unwrap();
    assert_eq!((p.network.activation, p.network.optimizer), (Activation::Tanh, OptimizerKind::Sgd));
}

/// The network keys sit flat in the parameters' JSON, with the values they had as fields of
/// each parameter type, and a key left out takes RankNet's default, not another network's.
#[test]
fn parameters_serialise_flat_with_ranknet_defaults() {
    let ranknet = r#"{"sigma":1.0,"hidden":10,"layers":1,"activation":"relu","optimizer":"adam","learning_rate":0.0005,"momentum":0.9,"epochs":100,"batch":8,"early_stopping":0}"#;
    assert_eq!(serde_json::to_string(&RankNetParams::default()).unwrap(), ranknet);
    let lambdarank = r#"{"sigma":1.0,"ndcg_truncation":0,"hidden":10,"layers":1,"activation":"relu","optimizer":"adam","learning_rate":0.0005,"momentum":0.9,"epochs":100,"batch":8,"early_stopping":0}"#;
    assert_eq!(serde_json::to_string(&LambdaRankParams::default()).unwrap(), lambdarank);
    let p: LambdaRankParams = serde_json::from_str(r#"{"hidden": 3, "ndcg_truncation": 10}"#).unwrap();
    let expected = LambdaRankParams {
        ndcg_truncation: 10,
        network: NetworkParams { hidden: 3, ..RankNetDefaults::NETWORK },
        ..Default::default()
    };
    assert_eq!(p, expected);
    assert_eq!(p.network.learning_rate, 5e-4);
    let back: RankNetParams = serde_json::from_str(ranknet).unwrap();
    assert_eq!(back, RankNetParams::default());
}

/// Byte-identical models at 1 and 2 threads (batches of several queries, so the per-query
/// gradients really run in parallel); another seed gives another model.
#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let cfg = ltr_metrics::EvalConfig::of(&vali);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Ndcg(10), cfg);
    let valid = Validation { data: &vali, measure: &measure };
    let learners = [
        RankNetParams { network: net(|n| (n.hidden, n.batch, n.epochs) = (8, 4, 15)), ..Default::default() }
            .validate()
            .unwrap(),
        LambdaRankParams {
            network: net(|n| (n.hidden, n.batch, n.epochs) = (0, 3, 15)),
            ..Default::default()
        }
        .validate()
        .unwrap(),
        LambdaRankParams {
            network: net(|n| (n.hidden, n.layers, n.batch, n.epochs) = (6, 2, 5, 10)),
            ..Default::default()
        }
        .validate()
        .unwrap(),
    ];
    for learner in learners {
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
}

#[test]
fn learns_a_toy_ranking() {
    let data = toy(40, 15, 11);
    let test = toy(20, 15, 12);
    let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
    let ndcg = |s: &[f64]| ltr_metrics::Metric::Ndcg(10).mean(&test, s, &cfg).unwrap();
    let random = ndcg(&vec![0.0; test.n_docs()]);
    for params in [
        RankNetParams { network: net(|n| (n.epochs, n.learning_rate) = (30, 0.01)), ..Default::default() },
        RankNetParams {
            network: net(|n| {
                (n.epochs, n.hidden, n.optimizer, n.learning_rate) = (30, 0, OptimizerKind::Sgd, 0.01);
            }),
            ..Default::default()
        },
    ] {
        let (model, report) =
            params.validate().unwrap().fit_with_report(&data, None, &mut Rng::new(1)).unwrap();
        assert_eq!((report.epochs_run, report.epoch), (30, 30));
        let v = ndcg(&model.score_vec(&test).unwrap());
        assert!(v > random + 0.1, "{params:?}: {v} vs {random}");
        // Round trip.
        let back: NeuralModel = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
        let (a, b) = (model.score_vec(&test).unwrap(), back.score_vec(&test).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert_eq!(model.score_row(test.row(3)).to_bits(), a[3].to_bits());
    }
    let network = net(|n| (n.epochs, n.learning_rate) = (30, 0.01));
    let lr = LambdaRankParams { network, ..Default::default() }.validate().unwrap();
    let v = ndcg(&lr.fit(&data, None, &mut Rng::new(1)).unwrap().score_vec(&test).unwrap());
    assert!(v > random + 0.1, "lambdarank: {v} vs {random}");
}

#[test]
fn no_pair_is_a_fit_error() {
    let data =
        ltr_core::Dataset::from_parts(1, vec![0.0, 1.0], vec![1, 1], vec![0, 2], vec!["1".into()], None)
            .unwrap();
    let learner = RankNetParams::default().validate().unwrap();
    assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
