use ltr_core::Ranker;
use ltr_metrics::{Convention, EvalConfig, Metric};
use ltr_testkit::dataset;
use ltr_trees::{Objective, SquaredError};

use super::*;

/// `queries` queries of 4 to 15 documents with grades 0..=2 and three features; feature 0
/// carries the grade, feature 2 is discrete (ties in the bins).
fn random(seed: u64, queries: usize) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut qs: Vec<(Vec<u8>, Vec<[f32; 3]>)> = Vec::new();
    for _ in 0..queries {
        let n = 4 + rng.index(12);
        let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
        let rows = labels
            .iter()
            .map(|&l| [(f64::from(l) + 1.5 * rng.normal()) as f32, rng.uniform() as f32, rng.index(4) as f32])
            .collect();
        qs.push((labels, rows));
    }
    let refs: Vec<(&[u8], &[[f32; 3]])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
    dataset(3, &refs)
}

/// Every pair `(i, j)` with `y_i > y_j` in one query, by brute force.
fn brute_pairs(data: &Dataset) -> Vec<(usize, usize)> {
    let y = data.labels();
    let mut out = Vec::new();
    for q in data.queries() {
        for i in q.range() {
            for j in q.range() {
                if y[i] > y[j] {
                    out.push((i, j));
                }
            }
        }
    }
    out
}

/// `p` with `edit` applied.
fn with<P>(mut p: P, edit: impl FnOnce(&mut P)) -> P {
    edit(&mut p);
    p
}

/// GBRank at its defaults with `trees`, `leaves` and `min_data` set, then `edit`.
fn gb(trees: usize, leaves: usize, min_data: usize, edit: impl FnOnce(&mut GbRankParams)) -> GbRank {
    let mut p = GbRankParams { trees, ..Default::default() };
    (p.tree.leaves, p.tree.min_data_in_leaf) = (leaves, min_data);
    edit(&mut p);
    p.validate().unwrap()
}

/// QBRank at its defaults with `trees`, `leaves`, `min_data` and the pair share `w` set, then
/// `edit`.
fn qb(trees: usize, leaves: usize, min_data: usize, w: f64, edit: impl FnOnce(&mut QbRankParams)) -> QbRank {
    let mut p = QbRankParams { pair_weight: w, ..Default::default() };
    let t = &mut p.tree;
    (t.trees, t.base.leaves, t.base.min_data_in_leaf) = (trees, leaves, min_data);
    edit(&mut p);
    p.validate().unwrap()
}

#[test]
fn parameter_tables_match_the_defaults_and_the_readme() {
    // One section per id, `gbrank`'s first (their `learning_rate` defaults differ).
    let (gb, qb) = include_str!("../README.md").split_once("### `qbrank`").unwrap();
    ltr_core::check_table::<GbRankParams>().unwrap();
    ltr_core::check_readme::<GbRankParams>(gb).unwrap();
    ltr_core::check_table::<QbRankParams>().unwrap();
    ltr_core::check_readme::<QbRankParams>(qb).unwrap();
    for (section, table) in [(gb, GbRankParams::TABLE), (qb, QbRankParams::TABLE)] {
        let rows = ltr_core::readme_rows(section);
        assert_eq!(rows.len(), table.len());
        for row in rows {
            assert!(table.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
    }
    for (e, key) in [
        (GbRankParams { tau: 0.0, ..Default::default() }.validate().unwrap_err(), "`tau`"),
        (with(GbRankParams::default(), |p| p.trees = 0).validate().unwrap_err(), "`trees`"),
        (with(GbRankParams::default(), |p| p.learning_rate = 1.5).validate().unwrap_err(), "`learning_rate`"),
        (QbRankParams { pair_weight: 1.01, ..Default::default() }.validate().unwrap_err(), "`pair_weight`"),
        (QbRankParams { tau: f64::NAN, ..Default::default() }.validate().unwrap_err(), "`tau`"),
        (with(QbRankParams::default(), |p| p.tree.base.leaves = 1).validate().unwrap_err(), "`leaves`"),
    ] {
        assert!(e.to_string().contains(key), "{e}");
    }
    // Unknown keys are refused by the registry against the table: `pair_weight` is QBRank's.
    assert!(!GbRankParams::TABLE.iter().any(|p| p.key == "pair_weight"));
    // The tree keys sit flat beside the algorithm's own, and keys left out of a spec take the
    // defaults of `Default` (GBRank's `learning_rate = 1` too).
    let json = serde_json::to_value(GbRankParams::default()).unwrap();
    assert_eq!(
        (json["learning_rate"].as_f64(), json["leaves"].as_u64(), json["tau"].as_f64()),
        (Some(1.0), Some(31), Some(1.0))
    );
    assert_eq!(serde_json::from_str::<GbRankParams>("{}").unwrap(), GbRankParams::default());
    assert_eq!(serde_json::from_str::<QbRankParams>("{}").unwrap(), QbRankParams::default());
    let p: QbRankParams = serde_json::from_str(r#"{"pair_weight": 1, "trees": 7}"#).unwrap();
    assert_eq!((p.pair_weight, p.tree.trees, p.tau), (1.0, 7, 1.0));
}

/// Grades 1, 0, 2, 0 in one query: ordered by grade the documents are 2, 0, 1, 3; the pairs
/// are (2, 0), (2, 1), (2, 3), (0, 1), (0, 3). Document 0 is in three, 1 in two, 2 in three,
/// 3 in two. A query of one grade has none.
#[test]
fn pairs_by_hand_and_by_enumeration() {
    let data = dataset(1, &[(&[1, 0, 2, 0], &[[0.0f32]; 4]), (&[1, 1], &[[0.0f32]; 2])]);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    let mut seen = Vec::new();
    pairs.for_each_pair(|i, j| seen.push((i, j)));
    assert_eq!(seen, [(2, 0), (2, 1), (2, 3), (0, 1), (0, 3)]);
    assert_eq!(pairs.n_pairs(), 5);
    assert_eq!((0..6).map(|i| pairs.pairs_of(i)).collect::<Vec<_>>(), [3, 2, 3, 2, 0, 0]);
    for seed in 1..4 {
        let data = random(seed, 12);
        let pairs = PairIndex::new(data.labels(), data.query_offsets());
        let mut seen = Vec::new();
        pairs.for_each_pair(|i, j| seen.push((i, j)));
        let mut brute = brute_pairs(&data);
        assert_eq!(seen.len() as u64, pairs.n_pairs());
        seen.sort_unstable();
        brute.sort_unstable();
        assert_eq!(seen, brute);
        for i in 0..data.n_docs() {
            let n = brute.iter().filter(|&&(a, b)| a == i || b == i).count();
            assert_eq!(pairs.pairs_of(i) as usize, n);
        }
    }
}

/// The paper's step 1 and 2 by hand, tau = 1. Query 0: x (grade 1) at h = 0.2, y (grade 0) at
/// h = 0.5: 0.2 < 0.5 + 1, violated, so x asks for h(y) + tau = 1.5 and y for h(x) - tau =
/// -0.8 (gradients -1.5 and 0.8, hessians 1). Query 1: x at h = 3, y at h = 1: 3 >= 1 + 1,
/// satisfied (in S+), no target (gradients and hessians 0). Query 2: exactly on the margin
/// (h = 2 and 1): S+ holds `h(x) >= h(y) + tau`, no target either.
#[test]
fn gbrank_targets_of_a_violated_and_a_satisfied_pair() {
    let data = dataset(1, &[(&[1, 0], &[[0.0f32]; 2]), (&[2, 0], &[[0.0f32]; 2]), (&[1, 0], &[[0.0f32]; 2])]);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    let h = [0.2, 0.5, 3.0, 1.0, 2.0, 1.0];
    let mut obj = GbRankObjective::new(&pairs, 6, 1.0);
    let (mut g, mut hess) = ([9f32; 6], [9f32; 6]);
    // Round 1: the scores are h_0 itself (no tree yet).
    obj.gradients(&h, &mut g, &mut hess).unwrap();
    assert_eq!(g, [-1.5, 0.8, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(hess, [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    // Round 2: the loop's scores after one tree are H_1 = 2 h_1; the targets are h_1's.
    let doubled: Vec<f64> = h.iter().map(|v| 2.0 * v).collect();
    obj.gradients(&doubled, &mut g, &mut hess).unwrap();
    assert_eq!(g, [-1.5, 0.8, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(hess, [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(obj.violated(), [1, 1]);
    // A document in two violated pairs averages its targets: grades 2, 1, 0 at h = 0: the
    // top document asks for 0 + 1 twice, the middle one for 0 - 1 and 0 + 1, the last for
    // -1 twice.
    let data = dataset(1, &[(&[2, 1, 0], &[[0.0f32]; 3])]);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    let (mut sums, mut counts) = ([0.0; 3], [0u32; 3]);
    assert_eq!(GbRankObjective::targets(&pairs, |_| 0.0, 1.0, &mut sums, &mut counts), 3);
    assert_eq!((sums, counts), ([2.0, 0.0, -2.0], [2, 2, 2]));
}

/// A fit follows the paper's recursion: with `h_0 = 0`, tree `k`'s leaves are `eta` times the
/// mean target, over the leaf's pair occurrences, of the pairs `h_{k-1}` violates (pairs and
/// targets enumerated by brute force here), and `h_k = (k h_{k-1} + eta g_k) / (k + 1)`. The
/// model's score is `(K + 1) h_K`.
#[test]
fn gbrank_follows_the_papers_recursion() {
    let data = random(5, 20);
    let (eta, tau) = (0.3, 1.0);
    let model = gb(6, 4, 3, |p| p.learning_rate = eta).fit(&data, None, &mut Rng::new(1)).unwrap();
    assert_eq!(model.trees.len(), 6);
    let pairs = brute_pairs(&data);
    let n = data.n_docs();
    let mut h = vec![0.0f64; n];
    for (k0, tree) in model.trees.iter().enumerate() {
        let k = (k0 + 1) as f64;
        let leaf_of: Vec<usize> = (0..n).map(|i| tree.leaf_of(data.row(i))).collect();
        let (mut sum, mut count) = (vec![0.0; tree.n_leaves()], vec![0usize; tree.n_leaves()]);
        for &(x, y) in &pairs {
            if h[x] < h[y] + tau {
                sum[leaf_of[x]] += h[y] + tau;
                count[leaf_of[x]] += 1;
                sum[leaf_of[y]] += h[x] - tau;
                count[leaf_of[y]] += 1;
            }
        }
        for (l, &v) in tree.leaf_value.iter().enumerate() {
            assert!(count[l] > 0, "tree {k0} leaf {l} has no pair occurrence");
            let want = eta * sum[l] / count[l] as f64;
            assert!((v - want).abs() <= 1e-6 * want.abs().max(1.0), "tree {k0} leaf {l}: {v} vs {want}");
        }
        for (hi, &l) in h.iter_mut().zip(&leaf_of) {
            *hi = (k * *hi + tree.leaf_value[l]) / (k + 1.0);
        }
    }
    let scores = model.score_vec(&data).unwrap();
    let kk = model.trees.len() as f64 + 1.0;
    for (s, hk) in scores.iter().zip(&h) {
        assert!((s - kk * hk).abs() <= 1e-9 * s.abs().max(1.0), "{s} vs {}", kk * hk);
    }
}

/// With `h_0 = 0` the margin only scales `h`: at `tau = 4` every target, gain and leaf is 4
/// times the one at `tau = 1` (a power of two, so exactly), and the splits are the same.
#[test]
fn gbrank_tau_only_sets_the_scale() {
    let data = random(6, 15);
    let fit = |tau| gb(8, 5, 2, |p| p.tau = tau).fit(&data, None, &mut Rng::new(2)).unwrap();
    let (one, four) = (fit(1.0), fit(4.0));
    assert_eq!(one.trees.len(), four.trees.len());
    for (a, b) in one.trees.iter().zip(&four.trees) {
        assert_eq!((&a.split_feature, &a.threshold), (&b.split_feature, &b.threshold));
        let scaled: Vec<f64> = a.leaf_value.iter().map(|v| 4.0 * v).collect();
        assert_eq!(scaled, b.leaf_value);
    }
}

/// One pair, x (grade 1) over y (grade 0), w = 0.5, tau = 1, at h = 0: N = 2, P = 1, so
/// c = w N / P = 1 and r = 1 - w = 0.5. R = 1 * 1/2 (0 - 0 + 1)^2 + 0.5 * 1/2 ((0 - 1)^2 + 0)
/// = 0.75; dR/dh(x) = 0.5 (0 - 1) - 1 * 1 = -1.5, dR/dh(y) = 0 + 1 = 1; the bound is
/// r + 2 c * 1 = 2.5 for both.
#[test]
fn qbrank_loss_gradient_and_bound_by_hand() {
    let data = dataset(1, &[(&[1, 0], &[[0.0f32]; 2])]);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    let mut obj = QbRankObjective::new(&pairs, data.labels(), 1.0, 0.5);
    assert_eq!(obj.loss(&[0.0, 0.0]), 0.75);
    let (mut g, mut h) = ([0f32; 2], [0f32; 2]);
    obj.gradients(&[0.0, 0.0], &mut g, &mut h).unwrap();
    assert_eq!((g, h), ([-1.5, 1.0], [2.5, 2.5]));
    // Past the margin (h(x) = 2, h(y) = 0) the pair costs nothing: only the grades pull.
    assert_eq!(obj.loss(&[2.0, 0.0]), 0.5 * 0.5 * 1.0);
    obj.gradients(&[2.0, 0.0], &mut g, &mut h).unwrap();
    assert_eq!(g, [0.5, 0.0]);
}

/// On random data and scores: the gradient is the loss's (central differences), and the
/// diagonal bound is an upper bound: `R(h + v) <= R(h) + grad . v + 1/2 sum W v^2` for random
/// steps `v`, large and small.
#[test]
fn qbrank_gradient_and_upper_bound_hold_on_random_data() {
    let data = random(7, 8);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    let n = data.n_docs();
    let mut rng = Rng::new(8);
    for w in [0.0, 0.3, 1.0] {
        let obj = QbRankObjective::new(&pairs, data.labels(), 1.0, w);
        let h: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let mut grad = vec![0.0; n];
        obj.gradient(&h, &mut grad);
        for l in (0..n).step_by(3) {
            let eps = 1e-6;
            let (mut up, mut dn) = (h.clone(), h.clone());
            up[l] += eps;
            dn[l] -= eps;
            let fd = (obj.loss(&up) - obj.loss(&dn)) / (2.0 * eps);
            assert!((fd - grad[l]).abs() < 1e-5 * fd.abs().max(1.0), "w {w}, doc {l}: {} vs {fd}", grad[l]);
        }
        for scale in [0.01, 1.0, 10.0] {
            let v: Vec<f64> = (0..n).map(|_| scale * rng.normal()).collect();
            let moved: Vec<f64> = h.iter().zip(&v).map(|(a, b)| a + b).collect();
            let linear: f64 = grad.iter().zip(&v).map(|(g, d)| g * d).sum();
            let quad: f64 =
                obj.hessian_bound().iter().zip(&v).map(|(&b, d)| 0.5 * f64::from(b) * d * d).sum();
            let (now, bound) = (obj.loss(&moved), obj.loss(&h) + linear + quad);
            assert!(now <= bound * (1.0 + 1e-6) + 1e-9, "w {w}, scale {scale}: {now} > {bound}");
        }
    }
}

/// With step 1 each tree minimises the upper bound over its leaves, so the loss never rises
/// from one round to the next.
#[test]
fn qbrank_never_raises_its_loss() {
    let data = random(9, 25);
    let pairs = PairIndex::new(data.labels(), data.query_offsets());
    for w in [0.2, 0.8, 1.0] {
        let model =
            qb(15, 6, 2, w, |p| p.tree.learning_rate = 1.0).fit(&data, None, &mut Rng::new(3)).unwrap();
        let obj = QbRankObjective::new(&pairs, data.labels(), 1.0, w);
        let mut h = vec![0.0; data.n_docs()];
        let mut last = obj.loss(&h);
        for (k, tree) in model.trees.iter().enumerate() {
            ltr_trees::add_tree(tree, &data, &mut h);
            let now = obj.loss(&h);
            assert!(now <= last * (1.0 + 1e-9), "w {w}, tree {k}: {last} -> {now}");
            last = now;
        }
        assert!(last < 0.8 * obj.loss(&vec![0.0; data.n_docs()]), "w {w}: the loss barely fell");
    }
}

/// With no pairwise share QBRank is least-squares boosting on the grades: the trees are
/// exactly those of `ltr_trees::SquaredError` with the same settings.
#[test]
fn qbrank_without_pairs_is_least_squares_boosting() {
    let data = random(10, 15);
    let learner = qb(10, 5, 3, 0.0, |_| {});
    let model = learner.fit(&data, None, &mut Rng::new(4)).unwrap();
    let mut obj = SquaredError { labels: data.labels() };
    let l2 = boost(&data, None, &mut obj, &learner.boost, &mut Rng::new(4)).unwrap();
    assert_eq!(model, l2.ensemble);
}

/// Both learn a toy ranking (NDCG@10 well above a constant score's), differ from each other,
/// and give byte-identical models at 1 and 2 threads (row and feature subsampling on, so the
/// seed is used), which read back from JSON score alike.
#[test]
fn trees_are_byte_identical_at_one_and_two_threads() {
    let data = random(11, 40);
    let cfg = EvalConfig::official(Convention::Standard);
    let ndcg = |s: &[f64]| Metric::Ndcg(10).mean(&data, s, &cfg).unwrap();
    let constant = ndcg(&vec![0.0; data.n_docs()]);
    // The same tree settings for both; QBRank with sampling on (GBRank has no sampling keys).
    let settings = r#"{"trees": 20, "leaves": 6, "min_data_in_leaf": 3"#;
    let gb = serde_json::from_str::<GbRankParams>(&format!("{settings}}}")).unwrap().validate().unwrap();
    let sampled = format!(r#"{settings}, "row_subsample": 0.8, "feature_subsample": 0.7}}"#);
    let qb = serde_json::from_str::<QbRankParams>(&sampled).unwrap().validate().unwrap();
    let in_pool = |threads: usize, f: &(dyn Fn() -> Ensemble + Sync)| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(f)
    };
    let fit_gb = || gb.fit(&data, None, &mut Rng::new(12)).unwrap();
    let fit_qb = || qb.fit(&data, None, &mut Rng::new(12)).unwrap();
    let mut jsons = Vec::new();
    for fit in [&fit_gb as &(dyn Fn() -> Ensemble + Sync), &fit_qb] {
        let one = in_pool(1, fit);
        let json = serde_json::to_string(&one).unwrap();
        assert!(serde_json::to_string(&in_pool(2, fit)).unwrap() == json, "the thread count changed a model");
        let back: Ensemble = serde_json::from_str(&json).unwrap();
        let (a, b) = (one.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(ndcg(&a) > constant + 0.1, "{} vs {constant}", ndcg(&a));
        jsons.push(json);
    }
    assert_ne!(jsons[0], jsons[1]);
}

#[test]
fn data_without_pairs_is_a_fit_error() {
    let flat = dataset(1, &[(&[1, 1], &[[0.0f32], [1.0]])]);
    let e = GbRankParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).unwrap_err();
    assert!(e.to_string().contains("no pairs"), "{e}");
    let only_pairs = QbRankParams { pair_weight: 1.0, ..Default::default() };
    assert!(only_pairs.validate().unwrap().fit(&flat, None, &mut Rng::new(0)).is_err());
    // With a share for the grades, QBRank fits them (no pair needed).
    let grades = qb(100, 31, 1, 0.5, |_| {});
    assert!(grades.fit(&flat, None, &mut Rng::new(0)).is_ok());
}
