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
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Ranker, Result, Rng,
    Validation, param_info,
};
use ltr_trees::{BoostConfig, Ensemble, TreeConfig, boost, rows};
use serde::{Deserialize, Serialize};

pub use objective::LambdaObjective;

/// Static metadata for the comparison tables.
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
    ..AlgorithmInfo::DEFAULT
};

/// LambdaMART hyperparameters (keys for specs and `--set`). Defaults are LightGBM's
/// `lambdarank` defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LambdaMartParams {
    /// Number of boosting rounds, one tree each (default 100, LightGBM's
    /// `num_iterations`). With a validation split the best prefix is kept.
    pub trees: usize,
    /// Maximum leaves per tree, grown best-first (default 31, `num_leaves`).
    pub leaves: usize,
    /// Shrinkage of every leaf value (default 0.1).
    pub learning_rate: f64,
    /// Minimum training documents per leaf (default 20).
    pub min_data_in_leaf: usize,
    /// Minimum sum of hessians per leaf (default 1e-3).
    pub min_sum_hessian_in_leaf: f64,
    /// L2 penalty in the leaf values `-G / (H + lambda_l2)` (default 0).
    pub lambda_l2: f64,
    /// Steepness of the pairwise sigmoid (default 1, LightGBM's `sigmoid`).
    pub sigma: f64,
    /// Cut-off `k` of the NDCG@k whose changes weight the pairs; 0 (the default) means no
    /// truncation: NDCG over the whole list.
    pub ndcg_truncation: usize,
    /// Maximum quantile bins per feature, 2..=255 (default 255, `max_bin`).
    pub max_bins: usize,
    /// With a validation split: stop after this many rounds without a better validation
    /// measure; 0 (the default) runs every round. The best prefix is kept either way.
    pub early_stopping_rounds: usize,
    /// Fraction of training documents sampled for each tree, in (0, 1] (default 1).
    pub row_subsample: f64,
    /// Fraction of features sampled for each tree, in (0, 1] (default 1).
    pub feature_subsample: f64,
}

impl Default for LambdaMartParams {
    fn default() -> Self {
        Self {
            trees: 100,
            leaves: 31,
            learning_rate: 0.1,
            min_data_in_leaf: 20,
            min_sum_hessian_in_leaf: 1e-3,
            lambda_l2: 0.0,
            sigma: 1.0,
            ndcg_truncation: 0,
            max_bins: 255,
            early_stopping_rounds: 0,
            row_subsample: 1.0,
            feature_subsample: 1.0,
        }
    }
}

impl Params for LambdaMartParams {
    type Checked = LambdaMart;

    /// The tree keys' rows are `ltr-trees`'; `trees <= 100000` keeps a run within minutes
    /// (100 trees take about 0.3 s on MQ2008 Fold1).
    const TABLE: &'static [ParamInfo] = &[
        rows::TREES,
        rows::LEAVES,
        rows::LEARNING_RATE,
        rows::MIN_DATA_IN_LEAF,
        rows::MIN_SUM_HESSIAN_IN_LEAF,
        rows::LAMBDA_L2,
        ParamInfo::positive("sigma", 0.0, 100.0, "steepness of the pairwise sigmoid"),
        ParamInfo::int(
            "ndcg_truncation",
            0,
            100_000,
            "k of the NDCG@k whose changes weight the pairs (0: whole list)",
        ),
        rows::MAX_BINS,
        rows::EARLY_STOPPING_ROUNDS,
        rows::ROW_SUBSAMPLE,
        rows::FEATURE_SUBSAMPLE,
    ];

    fn validate(&self) -> Result<LambdaMart> {
        // The tree settings are checked by `boost.validate()` below, through the same rows.
        param_info(Self::TABLE, "sigma").check_real(self.sigma)?;
        param_info(Self::TABLE, "ndcg_truncation").check_int(self.ndcg_truncation as u64)?;
        let boost = BoostConfig {
            rounds: self.trees,
            early_stopping_rounds: self.early_stopping_rounds,
            tree: TreeConfig {
                max_leaves: self.leaves,
                min_data_in_leaf: self.min_data_in_leaf,
                min_sum_hessian_in_leaf: self.min_sum_hessian_in_leaf,
                lambda_l2: self.lambda_l2,
                learning_rate: self.learning_rate,
                max_bins: self.max_bins,
                row_subsample: self.row_subsample,
                feature_subsample: self.feature_subsample,
                ..TreeConfig::default()
            },
        };
        boost.validate()?;
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

/// A fitted LambdaMART model: an additive ensemble of regression trees on raw features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LambdaMartModel {
    /// The trees.
    pub ensemble: Ensemble,
}

impl LambdaMartModel {
    /// A readable dump of every tree.
    pub fn dump(&self) -> String {
        self.ensemble.dump()
    }
}

impl Ranker for LambdaMartModel {
    fn n_features(&self) -> usize {
        self.ensemble.n_features
    }

    fn check(&self) -> Result<()> {
        Ranker::check(&self.ensemble)
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        self.ensemble.score_row(row)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        self.ensemble.score(data, out)
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        self.ensemble.feature_weights()
    }
}

#[cfg(test)]
mod tests {
    use ltr_core::DatasetBuilder;

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

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<LambdaMartParams>().unwrap();
        ltr_core::check_readme::<LambdaMartParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(LambdaMartParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        for (p, key) in [
            (LambdaMartParams { trees: 1_000_000_000, ..Default::default() }, "`trees`"),
            (LambdaMartParams { leaves: 1, ..Default::default() }, "`leaves`"),
            (LambdaMartParams { learning_rate: f64::INFINITY, ..Default::default() }, "`learning_rate`"),
            (LambdaMartParams { sigma: 0.0, ..Default::default() }, "`sigma`"),
            (LambdaMartParams { row_subsample: 1.5, ..Default::default() }, "`row_subsample`"),
        ] {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn defaults_match_lightgbm_and_bad_values_name_their_key() {
        let d = LambdaMartParams::default();
        assert_eq!(
            (d.trees, d.leaves, d.learning_rate, d.min_data_in_leaf, d.sigma),
            (100, 31, 0.1, 20, 1.0)
        );
        assert_eq!((d.max_bins, d.lambda_l2, d.min_sum_hessian_in_leaf), (255, 0.0, 1e-3));
        let key = |p: LambdaMartParams| match p.validate() {
            Err(Error::InvalidParam { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(key(LambdaMartParams { trees: 0, ..d.clone() }), "trees");
        assert_eq!(key(LambdaMartParams { leaves: 1, ..d.clone() }), "leaves");
        assert_eq!(key(LambdaMartParams { sigma: 0.0, ..d.clone() }), "sigma");
        assert_eq!(key(LambdaMartParams { learning_rate: -0.1, ..d.clone() }), "learning_rate");
        assert_eq!(key(LambdaMartParams { max_bins: 1, ..d.clone() }), "max_bins");
        assert_eq!(key(LambdaMartParams { min_data_in_leaf: 0, ..d.clone() }), "min_data_in_leaf");
        assert_eq!(
            key(LambdaMartParams { min_sum_hessian_in_leaf: -1.0, ..d.clone() }),
            "min_sum_hessian_in_leaf"
        );
        assert_eq!(key(LambdaMartParams { lambda_l2: f64::NAN, ..d.clone() }), "lambda_l2");
        assert_eq!(key(LambdaMartParams { row_subsample: 0.0, ..d.clone() }), "row_subsample");
        assert_eq!(key(LambdaMartParams { feature_subsample: 2.0, ..d }), "feature_subsample");
        assert!(serde_json::from_str::<LambdaMartParams>(r#"{"tree": 5}"#).is_err());
        let p: LambdaMartParams = serde_json::from_str(r#"{"ndcg_truncation": 10}"#).unwrap();
        assert_eq!(p.ndcg_truncation, 10);
    }

    #[test]
    fn learns_a_toy_ranking_bit_identically_at_any_thread_count() {
        let data = toy(60, 3);
        let learner = LambdaMartParams {
            trees: 25,
            leaves: 8,
            min_data_in_leaf: 5,
            row_subsample: 0.8,
            ..Default::default()
        }
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
            (
                LambdaMartParams { trees: 20, leaves: 8, min_data_in_leaf: 5, ..Default::default() },
                GOLDEN_FULL,
            ),
            (
                LambdaMartParams {
                    trees: 15,
                    leaves: 6,
                    min_data_in_leaf: 3,
                    ndcg_truncation: 5,
                    sigma: 2.0,
                    row_subsample: 0.7,
                    ..Default::default()
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
