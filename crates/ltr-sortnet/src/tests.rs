use ltr_core::Rng;
use ltr_neural::Activation;
use proptest::prelude::{ProptestConfig, prop_assert, prop_assert_eq, proptest};

use super::*;

/// Queries of 3 features; grades from the first two features plus noise.
fn toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    ltr_testkit::nonlinear_toy(queries, per_query, seed)
}

/// A comparator of `d` features with random weights (and a random standardisation).
fn random_comparator(d: usize, hidden: &[usize], act: Activation, seed: u64) -> Comparator {
    let mut rng = Rng::new(seed);
    let mut network = Network::init(2 * d, hidden, act, &mut rng);
    for p in &mut network.params {
        *p += 0.5 * rng.normal();
    }
    let mean: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
    let scale: Vec<f64> = (0..d).map(|_| 0.5 + rng.uniform()).collect();
    let standardizer =
        Standardizer { mean: [mean.clone(), mean].concat(), scale: [scale.clone(), scale].concat() };
    Comparator { net: NeuralModel { standardizer, network, epoch: 0 } }
}

fn shapes() -> Vec<(Vec<usize>, Activation)> {
    vec![
        (vec![], Activation::Tanh),
        (vec![5], Activation::Tanh),
        (vec![4], Activation::Relu),
        (vec![4, 3], Activation::Tanh),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// For random comparators and random pairs of documents: swapping the documents swaps
    /// `g(x, y)` and `g(y, x)` bit for bit, so `N_>(x, y) - N_<(x, y)` is exactly negated (up to
    /// the sign of a zero),
    /// `P(x > y) + P(y > x) = 1` to the rounding of one addition, and `P(x > x) = 1/2`.
    #[test]
    fn the_comparator_is_antisymmetric(
        seed in 0u64..1_000_000,
        shape in 0usize..4,
        x in proptest::collection::vec(-5.0f32..5.0, 6),
        y in proptest::collection::vec(-5.0f32..5.0, 6),
    ) {
        let (hidden, act) = &shapes()[shape];
        let c = random_comparator(6, hidden, *act, seed);
        let mut scratch = PairScratch::default();
        let (mut xy, mut yx) = ([0.0; 4], [0.0; 4]);
        c.pair_outputs(&[x.as_slice(), y.as_slice()].concat(), 2, &mut scratch, &mut xy);
        c.pair_outputs(&[y.as_slice(), x.as_slice()].concat(), 2, &mut scratch, &mut yx);
        prop_assert_eq!(xy[1].to_bits(), yx[2].to_bits());
        prop_assert_eq!(xy[2].to_bits(), yx[1].to_bits());
        let d_xy = sigmoid(xy[1]) - sigmoid(xy[2]);
        let d_yx = sigmoid(yx[1]) - sigmoid(yx[2]);
        // Equal as numbers: when the two outputs agree the difference is 0.0 one way and
        // -0.0 the other.
        prop_assert!(d_xy == -d_yx, "{} vs {}", d_xy, -d_yx);
        let (p, q) = (c.prefer(&x, &y), c.prefer(&y, &x));
        prop_assert!((p + q - 1.0).abs() <= f64::EPSILON, "{} + {} = {}", p, q, p + q);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert_eq!(c.prefer(&x, &x), 0.5);
    }
}

/// The factorised pass equals the network's own forward pass on the row `[x_i, x_j]`.
#[test]
fn factorised_pairs_equal_the_network_on_concatenated_rows() {
    let data = toy(1, 7, 3);
    for (hidden, act) in shapes() {
        let c = random_comparator(3, &hidden, act, 11);
        let q = data.query(0);
        let mut g = vec![0.0; 49];
        c.pair_outputs(q.features, 7, &mut PairScratch::default(), &mut g);
        for i in 0..7 {
            for j in 0..7 {
                let row = [q.row(i), q.row(j)].concat();
                let want = c.net.score_row(&row);
                assert!(
                    (g[i * 7 + j] - want).abs() < 1e-12,
                    "{hidden:?} ({i}, {j}): {} vs {want}",
                    g[i * 7 + j]
                );
            }
        }
    }
}

/// `g = (0, 0)` on a pair: both outputs 1/2, C = (1 - 1/2)^2 + (1/2)^2 = 1/2,
/// dC/dg_w = -2 (1/2)(1/4) = -1/4, dC/dg_l = 2 (1/2)(1/4) = 1/4. `g = (2, -1)`:
/// a = sigmoid(2), b = sigmoid(-1), C = (1 - a)^2 + b^2.
#[test]
fn squared_error_by_hand() {
    let data =
        Dataset::from_parts(1, vec![0.0; 4], vec![1, 0, 1, 0], vec![0, 4], vec!["1".into()], None).unwrap();
    let q = data.query(0);
    let mut grad = [0.0; 4];
    PairObjective.gradient(q, &[0.0, 0.0, 2.0, -1.0], &mut grad, &mut ());
    assert_eq!(&grad[..2], &[-0.25, 0.25]);
    let (a, b) = (1.0 / (1.0 + (-2f64).exp()), 1.0 / (1.0 + 1f64.exp()));
    assert!((grad[2] + 2.0 * (1.0 - a) * a * (1.0 - a)).abs() < 1e-16);
    assert!((grad[3] - 2.0 * b * b * (1.0 - b)).abs() < 1e-16);
    let cost = PairObjective.cost(q, &[0.0, 0.0, 2.0, -1.0], &mut ());
    assert!((cost - (0.5 + (1.0 - a) * (1.0 - a) + b * b)).abs() < 1e-15);
}

/// The pair rows as a data set of `2d` raw features (what the training loop reads through
/// [`PairRows`], before standardisation): per query with pairs, `[x_w, x_l]` then
/// `[x_l, x_w]` for each pair.
fn materialised(set: &PairSet, data: &Dataset) -> Dataset {
    let d = data.n_features();
    let (mut features, mut labels, mut offsets, mut qids) = (Vec::new(), Vec::new(), vec![0], Vec::new());
    for (q, pairs) in set.pairs.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
        let view = data.query(q);
        for &(w, l) in pairs {
            let (xw, xl) = (view.row(w as usize), view.row(l as usize));
            features.extend_from_slice(xw);
            features.extend_from_slice(xl);
            features.extend_from_slice(xl);
            features.extend_from_slice(xw);
            labels.extend_from_slice(&[1, 0]);
        }
        offsets.push(labels.len());
        qids.push(view.qid.to_owned());
    }
    Dataset::from_parts(2 * d, features, labels, offsets, qids, None).unwrap()
}

/// The pair rows made on every read are the materialised pair data set's rows under the
/// doubled standardisation, bit for bit, and a round trained on them gives the model
/// `train_from` gives on that data set, bit for bit.
#[test]
fn pair_rows_train_like_the_materialised_pair_set() {
    let data = toy(4, 7, 5);
    let mut set = PairSet { pairs: vec![Vec::new(); 4], seen: vec![HashSet::new(); 4] };
    for q in data.queries().filter(|q| q.index != 1) {
        for p in graded_pairs(q.labels).into_iter().take(5) {
            set.add(q.index, p);
        }
    }
    let half = Standardizer::fit(&data, "test").unwrap();
    let (queries, rows) = set.rows(&data, &half).unwrap();
    let whole = materialised(&set, &data);
    assert_eq!(queries.labels(), whole.labels());
    assert_eq!(queries.n_queries(), whole.n_queries());
    let doubled = Standardizer {
        mean: [half.mean.as_slice(), half.mean.as_slice()].concat(),
        scale: [half.scale.as_slice(), half.scale.as_slice()].concat(),
    };
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let (mut made, mut expected) = (Vec::new(), Vec::new());
    for (start, n) in [(0, whole.n_docs()), (3, 4), (5, 1), (2, 0)] {
        rows.standardised_rows(start, n, &mut made);
        doubled.transform_rows(&whole, start, n, &mut expected);
        assert_eq!(bits(&made), bits(&expected), "rows {start}..{}", start + n);
    }
    let mut c = random_comparator(3, &[4], Activation::Tanh, 8);
    c.net.standardizer = doubled;
    let settings =
        NetworkParams::<SortNetDefaults> { hidden: 4, epochs: 3, batch: 2, ..NetworkParams::default() };
    let fit_source = ltr_neural::train_on_rows(
        "t",
        &queries,
        &rows,
        None,
        &settings,
        &mut PairObjective,
        &mut Rng::new(3),
        &c.net,
    )
    .unwrap()
    .0;
    let fit_whole = ltr_neural::train_from(
        "t",
        &whole,
        None,
        &settings,
        &mut PairObjective,
        &mut Rng::new(3),
        Some(&c.net),
    )
    .unwrap()
    .0;
    assert_eq!(bits(&fit_source.network.params), bits(&fit_whole.network.params));
    assert_ne!(bits(&fit_source.network.params), bits(&c.net.network.params));
}

/// The squared error's gradient through the comparator network against central
/// differences, every parameter: worst relative error at most 1e-6.
#[test]
fn gradient_matches_finite_differences() {
    let data = toy(3, 6, 21);
    let mut set = PairSet { pairs: vec![Vec::new(); 3], seen: vec![HashSet::new(); 3] };
    for q in data.queries() {
        for p in graded_pairs(q.labels).into_iter().take(6) {
            set.add(q.index, p);
        }
    }
    let rows = materialised(&set, &data);
    assert_eq!(rows.n_features(), 6);
    for (hidden, act) in shapes() {
        let c = random_comparator(3, &hidden, act, 4);
        let worst = ltr_neural::gradient_check(&PairObjective, &rows, &c.net, 1e-5, 1e-3).unwrap();
        eprintln!("gradient check {hidden:?} {act:?}: worst relative error {worst:.1e}");
        assert!(worst < 1e-6, "{hidden:?} {act:?}: relative error {worst:e}");
    }
}

/// A linear comparator reading only the first document's feature, `g(x, y) = x`:
/// `P(x > y) = 1/2 + (sigmoid(x) - sigmoid(y)) / 2`. Documents 0, 1, 2 at x = 0, 1, 2 win
/// `sum_j P`: document 2 wins most. With grades (2, 1, 0) every pair is misordered, the
/// most wrong (0, 2) first, then (0, 1) (P = 1/2 + (sigmoid(1) - sigmoid(0))/2 = 0.6155) and
/// (1, 2) (0.5749).
#[test]
fn wins_and_misordered_pairs_by_hand() {
    let network = Network { sizes: vec![2, 1], activation: Activation::Tanh, params: vec![1.0, 0.0, 0.0] };
    let standardizer = Standardizer { mean: vec![0.0, 0.0], scale: vec![1.0, 1.0] };
    let c = Comparator { net: NeuralModel { standardizer, network, epoch: 0 } };
    let data = ltr_testkit::dataset(1, &[(&[2, 1, 0], &[[0.0f32], [1.0], [2.0]])]);
    let s = |v: f64| 1.0 / (1.0 + (-v).exp());
    let p = |a: f64, b: f64| 0.5 + 0.5 * (s(a) - s(b));
    let mut wins = [0.0; 3];
    c.score_queries(&data, &mut wins).unwrap();
    let want = [p(0.0, 1.0) + p(0.0, 2.0), p(1.0, 0.0) + p(1.0, 2.0), p(2.0, 0.0) + p(2.0, 1.0)];
    for (a, b) in wins.iter().zip(want) {
        assert!((a - b).abs() < 1e-15, "{wins:?} vs {want:?}");
    }
    assert!((p(1.0, 0.0) - 0.6155).abs() < 1e-4 && (p(2.0, 1.0) - 0.5749).abs() < 1e-4);
    let found = misordered(&c, data.query(0), &HashSet::new(), 10);
    assert_eq!(found, [(0, 2), (0, 1), (1, 2)]);
    let known: HashSet<(u32, u32)> = [(0, 2)].into_iter().collect();
    assert_eq!(misordered(&c, data.query(0), &known, 1), [(0, 1)]);
}

/// The score of a document within its query does not depend on the order of the documents,
/// bit for bit, including for comparators that are not transitive (a cycle
/// `P(a > b), P(b > c), P(c > a) > 1/2` is found among the random documents first).
#[test]
fn the_ranking_does_not_depend_on_input_order() {
    let data = toy(1, 12, 5);
    let q = data.query(0);
    let mut cyclic = 0;
    for seed in 0..20 {
        let c = random_comparator(3, &[6], Activation::Tanh, seed);
        let model = SortNetModel { comparator: c.clone(), round: 1 };
        let mut base = vec![0.0; 12];
        model.score(&data, &mut base).unwrap();
        let p = |a: usize, b: usize| c.prefer(q.row(a), q.row(b));
        let has_cycle = (0..12).any(|a| {
            (0..12).any(|b| {
                (0..12).any(|x| a != b && b != x && a != x && p(a, b) > 0.5 && p(b, x) > 0.5 && p(x, a) > 0.5)
            })
        });
        cyclic += usize::from(has_cycle);
        let mut rng = Rng::new(seed);
        for _ in 0..5 {
            let mut order: Vec<usize> = (0..12).collect();
            rng.shuffle(&mut order);
            let permuted = Dataset::from_parts(
                3,
                order.iter().flat_map(|&i| q.row(i).to_vec()).collect(),
                order.iter().map(|&i| q.labels[i]).collect(),
                vec![0, 12],
                vec!["0".into()],
                None,
            )
            .unwrap();
            let mut scores = vec![0.0; 12];
            model.score(&permuted, &mut scores).unwrap();
            for (k, &i) in order.iter().enumerate() {
                assert_eq!(scores[k].to_bits(), base[i].to_bits(), "seed {seed}: document {i}");
            }
        }
    }
    assert!(cyclic > 0, "no non-transitive comparator among the random ones");
}

#[test]
fn defaults_tables_readme_and_bad_values() {
    ltr_core::check_table::<SortNetParams>().unwrap();
    ltr_core::check_readme::<SortNetParams>(include_str!("../README.md")).unwrap();
    let d = SortNetParams::default();
    let key = |r: Result<SortNet>| match r {
        Err(Error::InvalidParam { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    assert_eq!(key(SortNetParams { iterations: 0, ..d.clone() }.validate()), "iterations");
    assert_eq!(key(SortNetParams { pairs_per_doc: 0.0, ..d.clone() }.validate()), "pairs_per_doc");
    let net = |network| SortNetParams { network, ..d.clone() };
    assert_eq!(key(net(NetworkParams { learning_rate: -1.0, ..d.network }).validate()), "learning_rate");
    assert_eq!(key(net(NetworkParams { early_stopping: 1 << 40, ..d.network }).validate()), "early_stopping");
    // The network keys are read flat, next to SortNet's own.
    let p: SortNetParams = serde_json::from_str(r#"{"iterations": 3, "hidden": 8}"#).unwrap();
    assert_eq!((p.iterations, p.network.hidden, p.network.epochs, p.network.early_stopping), (3, 8, 5, 3));
}

/// The incremental procedure: the first set holds `ceil(r m)` random graded pairs per query,
/// every round adds misordered pairs (at most `ceil(r m)` per query), the round kept is the
/// best on vali, and the comparator learns the toy ranking.
#[test]
fn incremental_training_learns_a_toy_ranking() {
    let data = toy(40, 15, 11);
    let vali = toy(15, 15, 13);
    let test = toy(20, 15, 12);
    let measure =
        ltr_metrics::Criterion::new(ltr_metrics::Metric::Ndcg(10), ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let learner = SortNetParams {
        iterations: 6,
        pairs_per_doc: 0.5,
        network: NetworkParams { early_stopping: 0, ..NetworkParams::default() },
    }
    .validate()
    .unwrap();
    let (model, report) = learner.fit_with_report(&data, Some(&valid), &mut Rng::new(1)).unwrap();
    let active = data.queries().filter(|q| ltr_neural::has_two_grades(q.labels)).count();
    assert_eq!(report.pairs[0], active * 8, "ceil(0.5 * 15) pairs per query");
    assert!(report.pairs.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= active * 8), "{:?}", report.pairs);
    assert_eq!(report.validation.len(), report.rounds);
    let best = ltr_core::select_best(&report.validation).unwrap();
    assert_eq!(report.round, best + 1);
    model.check().unwrap();
    let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
    let ndcg = |s: &[f64]| ltr_metrics::Metric::Ndcg(10).mean(&test, s, &cfg).unwrap();
    let random = ndcg(&vec![0.0; test.n_docs()]);
    let got = ndcg(&model.score_vec(&test).unwrap());
    eprintln!("toy NDCG@10 {got:.4} (all ties {random:.4}), pairs per round {:?}", report.pairs);
    assert!(got > random + 0.1, "{got} vs {random}");
    let json = serde_json::to_string(&model).unwrap();
    assert_eq!(serde_json::from_str::<SortNetModel>(&json).unwrap(), model);
    assert!(model.score_row(test.row(0)).is_finite());
}

#[test]
fn models_are_byte_identical_at_any_thread_count() {
    let data = toy(30, 12, 2);
    let vali = toy(10, 12, 3);
    let measure = ltr_metrics::Criterion::new(ltr_metrics::Metric::Map, ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &measure };
    let learner = SortNetParams {
        iterations: 4,
        network: NetworkParams { hidden: 6, batch: 3, early_stopping: 0, ..NetworkParams::default() },
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
    assert_ne!(one, fit(2, 8), "another seed, the same model");
}

#[test]
fn corrupt_models_and_bad_data_are_refused() {
    let data = toy(10, 8, 1);
    let learner = SortNetParams { iterations: 1, ..Default::default() }.validate().unwrap();
    let model = learner.fit(&data, None, &mut Rng::new(1)).unwrap();
    let mut bad = model.clone();
    bad.comparator.net.standardizer.mean.push(0.0);
    assert!(bad.check().unwrap_err().to_string().contains("features"));
    assert!(bad.score_row(data.row(0)).is_nan());
    let flat =
        Dataset::from_parts(1, vec![0.0, 1.0], vec![0, 0], vec![0, 2], vec!["1".into()], None).unwrap();
    assert!(matches!(learner.fit(&flat, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
}
