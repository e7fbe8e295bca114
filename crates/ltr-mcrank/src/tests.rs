use ltr_core::DatasetBuilder;
use ltr_metrics::rank_order;
use ltr_trees::Objective;

use super::*;

/// The default parameters with `edit` applied to the tree keys.
fn tree(edit: impl FnOnce(&mut TreeParams)) -> McRankParams {
    let mut p = McRankParams::default();
    edit(&mut p.tree);
    p
}

#[test]
fn parameter_table_matches_the_defaults_and_the_readme() {
    let readme = include_str!("../README.md");
    ltr_core::check_table::<McRankParams>().unwrap();
    ltr_core::check_readme::<McRankParams>(readme).unwrap();
    for row in ltr_core::readme_rows(readme) {
        assert!(McRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
    }
    let d = McRankParams::default();
    let t = &d.tree;
    assert_eq!((t.trees, t.base.leaves, t.learning_rate, t.base.min_data_in_leaf), (100, 31, 0.1, 20));
    // The tree keys sit flat in the parameters' JSON, with the values they had as fields.
    let expected = serde_json::json!({
        "trees": 100, "leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20,
        "min_sum_hessian_in_leaf": 0.001, "lambda_l2": 0.0, "max_bins": 255,
        "early_stopping_rounds": 0, "row_subsample": 1.0, "feature_subsample": 1.0,
    });
    assert_eq!(serde_json::to_value(&d).unwrap(), expected);
    assert_eq!(serde_json::from_value::<McRankParams>(expected).unwrap(), d);
    for (p, key) in [
        (tree(|t| t.trees = 0), "`trees`"),
        (tree(|t| t.base.leaves = 1), "`leaves`"),
        (tree(|t| t.learning_rate = 0.0), "`learning_rate`"),
        (tree(|t| t.lambda_l2 = -1.0), "`lambda_l2`"),
    ] {
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }
}

/// K = 3, all class scores 0: p = 1/3 each. A document of grade 2 gets gradients
/// (1/3, 1/3, -2/3) and hessians 3/2 * 1/3 * 2/3 = 1/3. K = 2, scores (0, ln 3):
/// p = (1/4, 3/4); grade 0 gives gradients (-3/4, 3/4) and hessians 2 * 3/16 = 3/8.
#[test]
fn softmax_gradients_by_hand() {
    let labels = [2u8, 0];
    let mut obj = SoftmaxObjective::new(&labels, 3);
    let (mut g, mut h) = ([0f32; 6], [0f32; 6]);
    obj.gradients(&[0.0; 6], &mut g, &mut h).unwrap();
    let third = 1.0 / 3.0;
    // Column-major: [class 0: doc 0, doc 1], [class 1: ...], [class 2: ...].
    let want = [third, third - 1.0, third, third, third - 1.0, third];
    assert!(g.iter().zip(want).all(|(&a, b)| (f64::from(a) - b).abs() < 1e-7), "{g:?}");
    assert!(h.iter().all(|&v| (f64::from(v) - third).abs() < 1e-7));
    let labels = [0u8];
    let mut obj = SoftmaxObjective::new(&labels, 2);
    let (mut g, mut h) = ([0f32; 2], [0f32; 2]);
    obj.gradients(&[0.0, 3f64.ln()], &mut g, &mut h).unwrap();
    assert!((g[0] + 0.75).abs() < 1e-7 && (g[1] - 0.75).abs() < 1e-7);
    assert!((h[0] - 0.375).abs() < 1e-7 && (h[1] - 0.375).abs() < 1e-7);
    // The expected grade of scores (0, 0, ln 2): p = (1/4, 1/4, 1/2), 1/4 + 2 * 1/2.
    assert!((expected_grade(&[0.0, 0.0, 2f64.ln()]) - 1.25).abs() < 1e-15);
    assert!((obj.combine(&[0.0, 3f64.ln()]) - 0.75).abs() < 1e-15);
}

/// Constant features: no tree can split, so round 1 grows one leaf per grade and the loop
/// stops. Six documents, grades 0, 0, 0, 1, 1, 2, all p = 1/3 at the start: class k's leaf
/// is Friedman's `(K - 1)/K sum r / sum |r| (1 - |r|)` with `r = [y = k] - p`:
/// `2/3 (n_k - 6/3) / (6 * 2/9)` = `n_k / 2 - 1`: 0.5, 0, -0.5.
#[test]
fn one_round_of_constant_trees_has_friedmans_leaf_values() {
    let mut b = DatasetBuilder::new(1);
    b.start_query("q");
    for y in [0u8, 0, 0, 1, 1, 2] {
        b.push_doc(y, &[1.0], None).unwrap();
    }
    let d = b.finish().unwrap();
    let p = tree(|t| (t.learning_rate, t.base.min_data_in_leaf) = (1.0, 1));
    let model = p.validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap();
    assert_eq!(model.n_classes(), 3);
    let leaves: Vec<f64> = model.ensembles.iter().map(|e| e.trees[0].leaf_value[0]).collect();
    assert!(model.ensembles.iter().all(|e| e.trees.len() == 1));
    for (got, want) in leaves.iter().zip([0.5, 0.0, -0.5]) {
        assert!((got - want).abs() < 1e-6, "{leaves:?}");
    }
    let probs = model.probabilities(d.row(0));
    assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(probs[0] > probs[1] && probs[1] > probs[2]);
}

/// Binary log-loss `-ln sigma(F)` / `-ln(1 - sigma(F))`: gradient `p - y`, hessian
/// `p (1 - p)`.
struct LogLoss<'a>(&'a [u8]);

impl Objective for LogLoss<'_> {
    fn gradients(&mut self, s: &[f64], g: &mut [f32], h: &mut [f32]) -> ltr_core::Result<()> {
        for i in 0..s.len() {
            let p = 1.0 / (1.0 + (-s[i]).exp());
            g[i] = (p - f64::from(self.0[i])) as f32;
            h[i] = (p * (1.0 - p)) as f32;
        }
        Ok(())
    }
}

fn random_data(seed: u64, queries: usize, grades: u8) -> Dataset {
    let mut b = DatasetBuilder::new(4);
    let mut r = Rng::new(seed);
    for q in 0..queries {
        b.start_query(&q.to_string());
        for _ in 0..12 {
            let x = [r.uniform() as f32, r.uniform() as f32, r.normal() as f32, r.uniform() as f32];
            let z = f64::from(x[0]) + 0.5 * f64::from(x[2]) + 0.3 * r.normal();
            let y = ((z + 0.5).max(0.0) * f64::from(grades) / 2.0).min(f64::from(grades - 1)) as u8;
            b.push_doc(y, &x, None).unwrap();
        }
    }
    b.finish().unwrap()
}

/// With two grades the softmax over (F_0, F_1) is the logistic of F_1 - F_0. Each round's
/// two trees see gradients p_1 - y and -(p_1 - y) with the same hessians 2 p (1 - p): they
/// split alike and their leaves are -+ G / (2 H), so F_1 - F_0 moves by -G / H, the binary
/// log-loss tree's Newton step. Without regularisation (no L2, no hessian floor) McRank
/// therefore ranks every document as binary log-loss boosting on the same trees does.
#[test]
fn two_grades_rank_as_binary_log_loss_boosting() {
    let d = random_data(5, 30, 2);
    assert_eq!(d.max_grade(), 1);
    let p = tree(|t| {
        (t.trees, t.base.leaves, t.base.min_data_in_leaf, t.min_sum_hessian_in_leaf, t.lambda_l2) =
            (20, 6, 5, 0.0, 0.0)
    });
    let learner = p.validate().unwrap();
    let model = learner.fit(&d, None, &mut Rng::new(1)).unwrap();
    let cfg = learner.boost.clone();
    let binary = ltr_trees::boost(&d, None, &mut LogLoss(d.labels()), &cfg, &mut Rng::new(1)).unwrap();
    let f = binary.ensemble.score_vec(&d).unwrap();
    let s = model.score_vec(&d).unwrap();
    for i in 0..d.n_docs() {
        let diff = model.ensembles[1].score_row(d.row(i)) - model.ensembles[0].score_row(d.row(i));
        assert!((diff - f[i]).abs() < 1e-5, "doc {i}: {diff} vs {}", f[i]);
        assert!((s[i] - 1.0 / (1.0 + (-f[i]).exp())).abs() < 1e-6);
    }
    for q in d.queries() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        rank_order(&s[q.range()], &mut a);
        rank_order(&f[q.range()], &mut b);
        assert_eq!(a, b, "query {}", q.qid);
    }
    // The trees have the binary trees' splits.
    for (t1, tb) in model.ensembles[1].trees.iter().zip(&binary.ensemble.trees) {
        assert_eq!((&t1.split_feature, &t1.threshold), (&tb.split_feature, &tb.threshold));
    }
}

#[test]
fn deterministic_and_json_round_trips() {
    let (train, vali) = (random_data(7, 40, 3), random_data(8, 12, 3));
    let crit = ltr_metrics::Criterion::new(ltr_metrics::Metric::Ndcg(10), ltr_metrics::EvalConfig::of(&vali));
    let valid = Validation { data: &vali, measure: &crit };
    let p = tree(|t| (t.trees, t.base.leaves, t.base.min_data_in_leaf, t.row_subsample) = (30, 8, 5, 0.8));
    let learner = p.validate().unwrap();
    let fit = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| learner.fit(&train, Some(&valid), &mut Rng::new(3)).unwrap())
    };
    let model = fit(1);
    let json = serde_json::to_string(&model).unwrap();
    assert_eq!(serde_json::to_string(&fit(2)).unwrap(), json);
    assert_eq!(model.n_classes(), 3);
    let n = model.ensembles[0].trees.len();
    assert!(n >= 1 && model.ensembles.iter().all(|e| e.trees.len() == n));
    let back: McRankModel = serde_json::from_str(&json).unwrap();
    let (a, b) = (model.score_vec(&vali).unwrap(), back.score_vec(&vali).unwrap());
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    assert!(a.iter().all(|&v| (0.0..=2.0).contains(&v)));
    assert!(serde_json::from_str::<McRankModel>(r#"{"ensembles": []}"#).is_err());
    // Scoring a data set (blocks of rows, each class's trees outermost) is `score_row` of
    // every document, bit for bit, over more rows than one block.
    let many = random_data(9, 60, 3);
    let rows: Vec<f64> = (0..many.n_docs()).map(|i| model.score_row(many.row(i))).collect();
    assert!(many.n_docs() > 2 * ltr_trees::SCORE_BLOCK);
    assert!(model.score_vec(&many).unwrap().iter().zip(&rows).all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn a_single_grade_or_too_many_grades_is_a_fit_error() {
    let learner = McRankParams::default().validate().unwrap();
    let d = ltr_testkit::dataset(1, &[(&[0, 0], &[[1.0], [2.0]])]);
    assert!(matches!(learner.fit(&d, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
    let d = ltr_testkit::dataset(1, &[(&[0, 40], &[[1.0], [2.0]])]);
    let e = learner.fit(&d, None, &mut Rng::new(0)).unwrap_err().to_string();
    assert!(e.contains("41 classes"), "{e}");
}
