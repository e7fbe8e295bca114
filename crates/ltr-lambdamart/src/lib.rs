//! LambdaMART (Burges 2010, "From RankNet to LambdaRank to LambdaMART: An Overview"):
//! LambdaRank gradients for NDCG boosted with histogram regression trees from `ltr-trees`.
//!
//! For each query sorted by the current scores (ties in file order), every pair with
//! `y_i > y_j` contributes `rho_ij = 1 / (1 + exp(sigma (s_i - s_j)))`, a gradient
//! `-sigma |delta NDCG_ij| rho_ij` on `i` (minus that on `j`) and a hessian
//! `sigma^2 |delta NDCG_ij| rho_ij (1 - rho_ij)` on both. `|delta NDCG_ij|` is the change of
//! NDCG@k (gain `2^y - 1`, discount `1 / log2(1 + rank)`, `k = ndcg_truncation`, default the
//! whole list) when `i` and `j` swap, divided by the query's ideal DCG@k; queries without a
//! relevant document contribute nothing. As in LightGBM's `lambdarank` (its default
//! `lambdarank_norm = true`), `|delta NDCG_ij|` is divided by `0.01 + |s_i - s_j|` when the
//! query's scores are not all tied, and each query's gradients and hessians are scaled so
//! that its lambdas sum to `log2(1 + sum)`. Gradients are computed for all queries in
//! parallel.
//!
//! Defaults are LightGBM's `lambdarank` defaults. See the README for every parameter.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod objective;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_table,
};
use ltr_trees::{BoostConfig, TreeModel, TreeParams, boost};
use serde::{Deserialize, Serialize};

pub use objective::LambdaObjective;

/// Static metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 58.9 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `trees`, and as `(leaves / 31)^0.19` in the leaves: 100 trees on 431,101 rows at 2 threads took
/// 23.8 s at 31 leaves and 35.4 s at 255 (`just bench-scale small`, idle, 2026-11-27; the README's
/// LightGBM comparison).
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "lambdamart",
    name: "LambdaMART",
    family: Family::Trees,
    year: 2010,
    loss: LossType::Listwise,
    optimizer: "gradient boosting (histogram trees, Newton leaves)",
    reference: "C. J. C. Burges. From RankNet to LambdaRank to LambdaMART: An Overview. \
                Microsoft Research Technical Report MSR-TR-2010-82, 2010.",
    summary: "on the shared histogram GBDT learner",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::QUANTILE_BINS,
    small_settings: &["trees=8"],
    cost: Some(
        // Leaves: 100 trees on 431,101 x 136 rows at 2 threads took 23.8 s at 31 leaves and
        // 35.4 s at 255 (`just bench-scale small`, idle, 2026-11-27): (255 / 31)^0.19 = 1.49.
        ltr_core::FitCost::mslr_web10k(58.9, "just bench-budget 2026-11-23, 1 thread").budget(&[
            ltr_core::BudgetKey::linear("trees", 100.0),
            ltr_core::BudgetKey::power("leaves", 31.0, 0.19),
        ]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// LambdaMART hyperparameters (keys for specs and `--set`): the tree keys plus the pair
/// weighting. Defaults are LightGBM's `lambdarank` defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LambdaMartParams {
    /// The tree and boosting keys (`trees`, `leaves`, `learning_rate`, ...), LightGBM's.
    #[serde(flatten)]
    pub tree: TreeParams,
    /// Steepness of the pairwise sigmoid (default 1, LightGBM's `sigmoid`).
    pub sigma: f64,
    /// Cut-off `k` of the NDCG@k whose changes weight the pairs; 0 (the default) means no
    /// truncation: NDCG over the whole list.
    pub ndcg_truncation: usize,
}

impl Default for LambdaMartParams {
    fn default() -> Self {
        Self { tree: TreeParams::default(), sigma: 1.0, ndcg_truncation: 0 }
    }
}

/// The sigmoid steepness key.
const SIGMA: ParamInfo = ParamInfo::positive("sigma", 0.0, 100.0, "steepness of the pairwise sigmoid");

/// The truncation key.
const NDCG_TRUNCATION: ParamInfo = ParamInfo::int(
    "ndcg_truncation",
    0,
    100_000,
    "k of the NDCG@k whose changes weight the pairs (0: whole list)",
);

impl Params for LambdaMartParams {
    type Checked = LambdaMart;

    /// The tree keys' rows are `ltr-trees`'; `trees <= 100000` keeps a run within minutes
    /// (100 trees take about 0.3 s on MQ2008 Fold1).
    const TABLE: &'static [ParamInfo] = param_table!(TreeParams::TABLE, &[SIGMA, NDCG_TRUNCATION]);

    fn validate(&self) -> Result<LambdaMart> {
        SIGMA.check_real(self.sigma)?;
        NDCG_TRUNCATION.check_int(self.ndcg_truncation as u64)?;
        let boost = self.tree.boost_config()?;
        Ok(LambdaMart { params: self.clone(), boost })
    }
}

/// Validated LambdaMART settings.
#[derive(Debug, Clone)]
pub struct LambdaMart {
    params: LambdaMartParams,
    boost: BoostConfig,
}

impl LambdaMart {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &LambdaMartParams {
        &self.params
    }
}

impl Learner for LambdaMart {
    type Model = LambdaMartModel;

    /// Bins the training features once for every fit with the same binning settings.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        ltr_trees::prepare(train, &self.boost)
    }

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<LambdaMartModel> {
        if train.n_docs() == 0 {
            return Err(Error::fit(INFO.id, "empty training set"));
        }
        let mut objective = LambdaObjective::new(
            train.labels(),
            train.query_offsets(),
            self.params.sigma,
            self.params.ndcg_truncation,
        );
        if objective.active_queries() == 0 {
            return Err(Error::fit(INFO.id, "no training query has a relevant document"));
        }
        let boosted = boost(train, valid, &mut objective, &self.boost, rng)?;
        log::debug!(
            "lambdamart: {} rounds run, {} trees kept",
            boosted.rounds_run,
            boosted.ensemble.trees.len()
        );
        Ok(LambdaMartModel { ensemble: boosted.ensemble })
    }
}

/// A fitted LambdaMART model: an additive ensemble of regression trees on raw features (the
/// tree rankers' one model type; its JSON is the ensemble's).
pub type LambdaMartModel = TreeModel;

#[cfg(test)]
mod tests {
    use ltr_core::{DatasetBuilder, Ranker};

    use super::*;

    fn toy(queries: usize, seed: u64) -> Dataset {
        let mut b = DatasetBuilder::new(3);
        let mut r = Rng::new(seed);
        for q in 0..queries {
            b.start_query(&q.to_string());
            for _ in 0..15 {
                let x = [r.uniform() as f32, r.uniform() as f32, r.index(4) as f32];
                let y = ((x[0] * 2.0 + x[2] * 0.2) as u8).min(2);
                b.push_doc(y, &x, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    /// The default parameters with `edit` applied to the tree keys.
    fn tree(edit: impl FnOnce(&mut TreeParams)) -> LambdaMartParams {
        let mut p = LambdaMartParams::default();
        edit(&mut p.tree);
        p
    }

    /// The tree keys sit flat in the parameters' JSON, with the values they had as fields.
    #[test]
    fn parameters_serialise_flat() {
        let expected = serde_json::json!({
            "trees": 100, "leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20,
            "min_sum_hessian_in_leaf": 0.001, "lambda_l2": 0.0, "sigma": 1.0, "ndcg_truncation": 0,
            "max_bins": 255, "early_stopping_rounds": 0, "row_subsample": 1.0, "feature_subsample": 1.0,
        });
        assert_eq!(serde_json::to_value(LambdaMartParams::default()).unwrap(), expected);
        let p: LambdaMartParams = serde_json::from_value(expected).unwrap();
        assert_eq!(p, LambdaMartParams::default());
        let p: LambdaMartParams = serde_json::from_str(r#"{"leaves": 7, "sigma": 2}"#).unwrap();
        assert_eq!(p, LambdaMartParams { sigma: 2.0, ..tree(|t| t.base.leaves = 7) });
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<LambdaMartParams>().unwrap();
        ltr_core::check_readme::<LambdaMartParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(LambdaMartParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        for (p, key) in [
            (tree(|t| t.trees = 1_000_000_000), "`trees`"),
            (tree(|t| t.base.leaves = 1), "`leaves`"),
            (tree(|t| t.learning_rate = f64::INFINITY), "`learning_rate`"),
            (LambdaMartParams { sigma: 0.0, ..Default::default() }, "`sigma`"),
            (tree(|t| t.row_subsample = 1.5), "`row_subsample`"),
        ] {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn defaults_match_lightgbm_and_bad_values_name_their_key() {
        let d = LambdaMartParams::default();
        assert_eq!(
            (d.tree.trees, d.tree.base.leaves, d.tree.learning_rate, d.tree.base.min_data_in_leaf, d.sigma),
            (100, 31, 0.1, 20, 1.0)
        );
        assert_eq!((d.tree.max_bins, d.tree.lambda_l2, d.tree.min_sum_hessian_in_leaf), (255, 0.0, 1e-3));
        let key = |p: LambdaMartParams| match p.validate() {
            Err(Error::InvalidParam { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(key(tree(|t| t.trees = 0)), "trees");
        assert_eq!(key(tree(|t| t.base.leaves = 1)), "leaves");
        assert_eq!(key(LambdaMartParams { sigma: 0.0, ..d.clone() }), "sigma");
        assert_eq!(key(tree(|t| t.learning_rate = -0.1)), "learning_rate");
        assert_eq!(key(tree(|t| t.max_bins = 1)), "max_bins");
        assert_eq!(key(tree(|t| t.base.min_data_in_leaf = 0)), "min_data_in_leaf");
        assert_eq!(key(tree(|t| t.min_sum_hessian_in_leaf = -1.0)), "min_sum_hessian_in_leaf");
        assert_eq!(key(tree(|t| t.lambda_l2 = f64::NAN)), "lambda_l2");
        assert_eq!(key(tree(|t| t.row_subsample = 0.0)), "row_subsample");
        assert_eq!(key(tree(|t| t.feature_subsample = 2.0)), "feature_subsample");
        let p: LambdaMartParams = serde_json::from_str(r#"{"ndcg_truncation": 10}"#).unwrap();
        assert_eq!(p.ndcg_truncation, 10);
    }

    #[test]
    fn learns_a_toy_ranking_bit_identically_at_any_thread_count() {
        let data = toy(60, 3);
        let learner =
            tree(|t| (t.trees, t.base.leaves, t.base.min_data_in_leaf, t.row_subsample) = (25, 8, 5, 0.8))
                .validate()
                .unwrap();
        let fit = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| learner.fit(&data, None, &mut Rng::new(11)).unwrap())
        };
        let model = fit(1);
        let json = serde_json::to_string(&model).unwrap();
        for threads in [2, 4] {
            assert_eq!(serde_json::to_string(&fit(threads)).unwrap(), json);
        }
        let back: LambdaMartModel = serde_json::from_str(&json).unwrap();
        let (a, b) = (model.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        let cfg = ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Standard);
        let ndcg = ltr_metrics::Metric::Ndcg(10).mean(&data, &a, &cfg).unwrap();
        let random = ltr_metrics::Metric::Ndcg(10).mean(&data, &vec![0.0; data.n_docs()], &cfg).unwrap();
        assert!(ndcg > random + 0.1, "{ndcg} vs {random}");
        assert!(model.dump().contains("tree 24"));
    }

    /// The gradients moved to `ltr_metrics::lambda`, shared with LambdaRank; the models
    /// must not change by a bit. The hash is of the model fitted before the move.
    #[test]
    fn models_are_bit_identical_to_the_golden_fit() {
        use sha2::{Digest, Sha256};
        let data = toy(40, 5);
        for (params, golden) in [
            (tree(|t| (t.trees, t.base.leaves, t.base.min_data_in_leaf) = (20, 8, 5)), GOLDEN_FULL),
            (
                LambdaMartParams {
                    sigma: 2.0,
                    ndcg_truncation: 5,
                    ..tree(|t| {
                        (t.trees, t.base.leaves, t.base.min_data_in_leaf, t.row_subsample) = (15, 6, 3, 0.7)
                    })
                },
                GOLDEN_TRUNCATED,
            ),
        ] {
            let model = params.validate().unwrap().fit(&data, None, &mut Rng::new(3)).unwrap();
            let json = serde_json::to_string(&model).unwrap();
            let hash: String = Sha256::digest(json.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(hash, golden, "{params:?}");
        }
    }

    const GOLDEN_FULL: &str = "ea6561ef0d806bd7216ce848e3e57930e2a3b0ae0d95138bdcb6d971de87a560";
    const GOLDEN_TRUNCATED: &str = "49867c730e6ae9a65d41a2f453209936cda4774e0f1132469c662ace30d73bc7";

    #[test]
    fn no_relevant_document_is_a_fit_error() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(0, &[1.0], None).unwrap();
        b.push_doc(0, &[2.0], None).unwrap();
        let data = b.finish().unwrap();
        let learner = LambdaMartParams::default().validate().unwrap();
        assert!(matches!(learner.fit(&data, None, &mut Rng::new(0)), Err(Error::Fit { .. })));
    }
}
