use ltr_core::{Error, Learner, Ranker, Validation};
use ltr_neural::{Activation, Network, NeuralModel, OptimizerKind, Standardizer};

use super::*;

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

fn random_model(data: &Dataset, hidden: &[usize], act: Activation, seed: u64) -> NeuralModel {
    let mut rng = Rng::new(seed);
    let mut network = Network::init(data.n_features(), hidden, act, &mut rng);
    for p in &mut network.params {
        *p += 0.2 * rng.normal();
    }
    NeuralModel { standardizer: Standardizer::fit(data, "test").unwrap(), network, epoch: 0 }
}

fn three() -> Dataset {
    Dataset::from_parts(1, vec![0.0, 1.0, 2.0], vec![2, 0, 1], vec![0, 3], vec!["1".into()], None).unwrap()
}

/// Grades (2, 0, 1), scores (0.5, 1, 0). Gain targets (3, 0, 1):
/// P_y = (e^3, 1, e) / (e^3 + 1 + e), P_s = (e^0.5, e, 1) / (e^0.5 + e + 1), and the gradient
/// P_s - P_y = (-0.536598848762841, 0.46447032492158796, 0.07212852384125308) (evaluated in
/// Python from these closed forms). Grade targets (2, 0, 1) give
/// (-0.3580450700563235, 0.4164498178852736, -0.05840474782895008). The cost with gain
/// targets is -sum P_y log P_s = 1.2163622372669989.
#[test]
fn listnet_three_documents_by_hand() {
    let data = three();
    let scores = [0.5, 1.0, 0.0];
    for (transform, want) in [
        (LabelTransform::Gain, [-0.536598848762841, 0.46447032492158796, 0.07212852384125308]),
        (LabelTransform::Grade, [-0.3580450700563235, 0.4164498178852736, -0.05840474782895008]),
    ] {
        let obj = ListNetObjective::new(&data, transform);
        let mut g = [0.0; 3];
        obj.gradient(data.query(0), &scores, &mut g, &mut ());
        for (a, b) in g.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{transform:?}: {g:?}");
        }
    }
    let obj = ListNetObjective::new(&data, LabelTransform::Gain);
    assert!((obj.cost(data.query(0), &scores, &mut ()) - 1.2163622372669989).abs() < 1e-14);
}

/// Grades (2, 0, 1), scores (0.5, 1, 0): the only ground truth is (doc 0, doc 2, doc 1).
/// Z_1 = e^0.5 + e^0 + e^1, Z_2 = e^0 + e^1, Z_3 = e^1; cost = log Z_1 - 0.5 + log Z_2 - 0 +
/// log Z_3 - 1 = 2.4935313581599576; gradients -1 + e^0.5/Z_1 = -0.6928041142815016 (doc 0),
/// -1 + e^0 (1/Z_1 + 1/Z_2) = -0.5447348554041573 (doc 2), -1 + e (1/Z_1 + 1/Z_2 + 1/Z_3) =
/// 1.237538969685659 (doc 1).
#[test]
fn listmle_three_documents_by_hand() {
    let data = three();
    let obj = ListMleObjective::new(&data);
    assert_eq!(obj.permutation(0), &[0, 2, 1]);
    let scores = [0.5, 1.0, 0.0];
    let mut g = [0.0; 3];
    let mut s = Vec::new();
    obj.gradient(data.query(0), &scores, &mut g, &mut s);
    for (a, b) in g.iter().zip([-0.6928041142815016, 1.237538969685659, -0.5447348554041573]) {
        assert!((a - b).abs() < 1e-14, "{g:?}");
    }
    assert!((obj.cost(data.query(0), &scores, &mut s) - 2.4935313581599576).abs() < 1e-14);
    // Huge score ranges stay finite.
    obj.gradient(data.query(0), &[1e4, -1e4, 0.0], &mut g, &mut s);
    assert!(g.iter().all(|v| v.is_finite()) && g.iter().sum::<f64>().abs() < 1e-9, "{g:?}");
}

/// The seeded tie-breaking: every epoch's permutation sorts by grade, ties are shuffled, and
/// the shuffles change from epoch to epoch.
#[test]
fn listmle_breaks_ties_by_a_seeded_shuffle() {
    let labels: Vec<u8> = vec![1, 0, 2, 1, 0, 1, 0, 2, 1, 0];
    let rows: Vec<f32> = (0..labels.len()).map(|i| i as f32).collect();
    let data = Dataset::from_parts(1, rows, labels.clone(), vec![0, 10], vec!["1".into()], None).unwrap();
    let mut obj = ListMleObjective::new(&data);
    let mut rng = Rng::new(5);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..8 {
        obj.begin_epoch(&mut rng);
        let p = obj.permutation(0).to_vec();
        assert!(p.windows(2).all(|w| labels[w[0] as usize] >= labels[w[1] as usize]), "{p:?}");
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<u32>>());
        seen.insert(p);
    }
    assert!(seen.len() > 4, "ties should be reshuffled every epoch");
    let mut again = ListMleObjective::new(&data);
    let mut rng2 = Rng::new(5);
    again.begin_epoch(&mut rng2);
    let mut first = ListMleObjective::new(&data);
    first.begin_epoch(&mut Rng::new(5));
    assert_eq!(again.permutation(0), first.permutation(0));
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
        for transform in [LabelTransform::Gain, LabelTransform::Grade] {
            let obj = ListNetObjective::new(&data, transform);
            let worst = ltr_neural::gradient_check(&obj, &data, &model, 1e-5, 1e-3).unwrap();
            eprintln!(
                "gradient check listnet {hidden:?} {act:?} {transform:?}: worst relative error {worst:.1e}"
            );
            assert!(worst < 1e-6, "listnet {hidden:?} {act:?} {transform:?}: relative error {worst:e}");
        }
        let mut obj = ListMleObjective::new(&data);
        obj.begin_epoch(&mut Rng::new(3));
        let worst = ltr_neural::gradient_check(&obj, &data, &model, 1e-5, 1e-3).unwrap();
        eprintln!("gradient check listmle {hidden:?} {act:?}: worst relative error {worst:.1e}");
        assert!(worst < 1e-6, "listmle {hidden:?} {act:?}: relative error {worst:e}");
    }
}

/// ListNet's default network keys with `edit` applied.
fn net(edit: impl FnOnce(&mut NetworkParams<ListNetDefaults>)) -> NetworkParams<ListNetDefaults> {
    let mut n = ListNetDefaults::NETWORK;
    edit(&mut n);
    n
}

#[test]
fn defaults_tables_and_bad_values() {
    let d = ListNetParams::default();
    let n = &d.network;
    assert_eq!((n.hidden, d.label_transform, n.optimizer), (0, LabelTransform::Gain, OptimizerKind::Adam));
    ltr_core::check_table::<ListNetParams>().unwrap();
    ltr_core::check_table::<ListMleParams>().unwrap();
    let key = |r: Result<ListNet>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    let with = |network| ListNetParams { network, ..d.clone() }.validate();
    assert_eq!(key(with(net(|n| n.learning_rate = 0.0))), "learning_rate");
    assert_eq!(key(with(net(|n| n.hidden = 5000))), "hidden");
    assert_eq!(key(with(net(|n| n.early_stopping = 1 << 40))), "early_stopping");
    assert!(matches!(
        ListMleParams { network: net(|n| n.epochs = 0) }.validate(),
        Err(Error::InvalidParam { name: "epochs", .. })
    ));
    assert!(serde_json::from_str::<ListNetParams>(r#"{"label_transform": "exp"}"#).is_err());
}

/// The network keys sit flat in the parameters' JSON, with the values they had as fields of
/// each parameter type, and a key left out takes ListNet's default, not another network's.
#[test]
fn parameters_serialise_flat_with_listnet_defaults() {
    let network = r#""hidden":0,"layers":1,"activation":"tanh","optimizer":"adam","learning_rate":0.001,"momentum":0.9,"epochs":100,"batch":1,"early_stopping":0}"#;
    let listnet = format!(r#"{{"label_transform":"gain",{network}"#);
    assert_eq!(serde_json::to_string(&ListNetParams::default()).unwrap(), listnet);
    assert_eq!(serde_json::to_string(&ListMleParams::default()).unwrap(), format!("{{{network}"));
    let p: ListMleParams = serde_json::from_str(r#"{"hidden": 8, "batch": 2}"#).unwrap();
    assert_eq!(p.network, net(|n| (n.hidden, n.batch) = (8, 2)));
    assert_eq!((p.network.activation, p.network.learning_rate), (Activation::Tanh, 1e-3));
    let back: ListNetParams = serde_json::from_str(&listnet).unwrap();
    assert_eq!(back, ListNetParams::default());
}

#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let network = net(|n| (n.hidden, n.batch, n.epochs) = (6, 5, 12));
    let listnet = ListNetParams { network, ..Default::default() }.validate().unwrap();
    let listmle = ListMleParams { network: net(|n| (n.batch, n.epochs) = (4, 12)) }.validate().unwrap();
    let fit = |threads: usize, seed: u64, mle: bool| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let m = pool.install(|| {
            if mle {
                listmle.fit(&data, Some(&valid), &mut Rng::new(seed)).unwrap()
            } else {
                listnet.fit(&data, Some(&valid), &mut Rng::new(seed)).unwrap()
            }
        });
        serde_json::to_string(&m).unwrap()
    };
    for mle in [false, true] {
        let one = fit(1, 7, mle);
        assert_eq!(one, fit(2, 7, mle), "thread count changed the model");
        assert_eq!(one, fit(3, 7, mle), "thread count changed the model");
        assert_ne!(one, fit(2, 8, mle), "another seed, the same model");
    }
}

#[test]
fn learns_a_toy_ranking() {
    let data = toy(40, 15, 11);
    let test = toy(20, 15, 12);
    let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
    let ndcg = |s: &[f64]| ltr_metrics::Metric::Ndcg(10).mean(&test, s, &cfg).unwrap();
    let random = ndcg(&vec![0.0; test.n_docs()]);
    let listnet = ListNetParams { network: net(|n| n.epochs = 30), ..Default::default() }.validate().unwrap();
    let (model, report) = listnet.fit_with_report(&data, None, &mut Rng::new(1)).unwrap();
    assert_eq!((report.epochs_run, report.epoch), (30, 30));
    assert!(ndcg(&model.score_vec(&test).unwrap()) > random + 0.1);
    let listmle = ListMleParams { network: net(|n| (n.epochs, n.hidden) = (30, 8)) }.validate().unwrap();
    let model = listmle.fit(&data, None, &mut Rng::new(1)).unwrap();
    assert!(ndcg(&model.score_vec(&test).unwrap()) > random + 0.1);
}

#[test]
fn one_grade_everywhere_is_a_fit_error() {
    let data =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![0, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    let learner = ListNetParams::default().validate().unwrap();
    assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
