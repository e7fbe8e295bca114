//! The tree keys of the tree rankers' parameters, written once: their fields, defaults
//! (LightGBM's), rows of `Params::TABLE` and the forwarding to [`BoostConfig`]. The rankers
//! embed them flat (`#[serde(flatten)]`), so their parameters stay one flat object of keys.

use ltr_core::{ParamInfo, Result, param_table};
use serde::{Deserialize, Serialize};

use crate::config::{BoostConfig, TreeConfig, rows};

/// The tree keys every tree ranker has (LambdaMART, McRank, IntervalRank): how large a tree
/// grows and when validation stops the boosting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BaseTreeParams {
    /// Maximum leaves per tree, grown best-first (default 31, LightGBM's `num_leaves`).
    pub leaves: usize,
    /// Minimum training documents per leaf (default 20).
    pub min_data_in_leaf: usize,
    /// With a validation split: stop after this many rounds without a better validation
    /// measure; 0 (the default) runs every round. The best prefix is kept either way.
    pub early_stopping_rounds: usize,
}

impl Default for BaseTreeParams {
    fn default() -> Self {
        Self { leaves: 31, min_data_in_leaf: 20, early_stopping_rounds: 0 }
    }
}

impl BaseTreeParams {
    /// The rows of these keys.
    pub const TABLE: &'static [ParamInfo] =
        &[rows::LEAVES, rows::MIN_DATA_IN_LEAF, rows::EARLY_STOPPING_ROUNDS];

    /// The boosting settings of `rounds` rounds at shrinkage `learning_rate` with these
    /// keys, every other tree setting at its default; checked through [`rows`].
    pub fn boost_config(&self, rounds: usize, learning_rate: f64) -> Result<BoostConfig> {
        let boost = self.unchecked(rounds, learning_rate);
        boost.validate()?;
        Ok(boost)
    }

    fn unchecked(&self, rounds: usize, learning_rate: f64) -> BoostConfig {
        BoostConfig {
            rounds,
            early_stopping_rounds: self.early_stopping_rounds,
            tree: TreeConfig {
                max_leaves: self.leaves,
                min_data_in_leaf: self.min_data_in_leaf,
                learning_rate,
                ..TreeConfig::default()
            },
        }
    }
}

/// LightGBM's tree and boosting keys, those of LambdaMART and McRank: [`BaseTreeParams`]
/// plus the number of trees, the shrinkage, the leaf constraints, the binning and the
/// subsampling. Defaults are LightGBM's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TreeParams {
    /// Boosting rounds (default 100, LightGBM's `num_iterations`). With a validation split
    /// the best prefix is kept.
    pub trees: usize,
    /// The keys every tree ranker has.
    #[serde(flatten)]
    pub base: BaseTreeParams,
    /// Shrinkage of every leaf value (default 0.1).
    pub learning_rate: f64,
    /// Minimum sum of hessians per leaf (default 1e-3).
    pub min_sum_hessian_in_leaf: f64,
    /// L2 penalty in the leaf values `-G / (H + lambda_l2)` (default 0).
    pub lambda_l2: f64,
    /// Maximum quantile bins per feature, 2..=255 (default 255, `max_bin`).
    pub max_bins: usize,
    /// Fraction of training documents sampled for each tree, in (0, 1] (default 1).
    pub row_subsample: f64,
    /// Fraction of features sampled for each tree, in (0, 1] (default 1).
    pub feature_subsample: f64,
}

impl Default for TreeParams {
    fn default() -> Self {
        Self {
            trees: 100,
            base: BaseTreeParams::default(),
            learning_rate: 0.1,
            min_sum_hessian_in_leaf: 1e-3,
            lambda_l2: 0.0,
            max_bins: 255,
            row_subsample: 1.0,
            feature_subsample: 1.0,
        }
    }
}

impl TreeParams {
    /// The rows of these keys, in the order of the fields.
    pub const TABLE: &'static [ParamInfo] = param_table!(
        &[rows::TREES],
        BaseTreeParams::TABLE,
        &[
            rows::LEARNING_RATE,
            rows::MIN_SUM_HESSIAN_IN_LEAF,
            rows::LAMBDA_L2,
            rows::MAX_BINS,
            rows::ROW_SUBSAMPLE,
            rows::FEATURE_SUBSAMPLE,
        ],
    );

    /// The boosting settings of these keys, checked through [`rows`].
    pub fn boost_config(&self) -> Result<BoostConfig> {
        let mut boost = self.base.unchecked(self.trees, self.learning_rate);
        boost.tree = TreeConfig {
            min_sum_hessian_in_leaf: self.min_sum_hessian_in_leaf,
            lambda_l2: self.lambda_l2,
            max_bins: self.max_bins,
            row_subsample: self.row_subsample,
            feature_subsample: self.feature_subsample,
            ..boost.tree
        };
        boost.validate()?;
        Ok(boost)
    }
}
