//! Tree-growing and boosting settings.

use ltr_core::Result;
use serde::{Deserialize, Serialize};

/// How one tree is grown. Defaults are LightGBM's.
///
/// The algorithm crates expose these under their own parameter keys and validate them
/// there; [`TreeConfig::validate`] names the keys LambdaMART uses (`leaves`,
/// `learning_rate`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeConfig {
    /// Maximum number of leaves of a tree, grown best-first (default 31, LightGBM's
    /// `num_leaves`). At least 2.
    pub max_leaves: usize,
    /// Minimum number of training documents in a leaf (default 20). At least 1.
    pub min_data_in_leaf: usize,
    /// Minimum sum of hessians in a leaf (default 1e-3). Non-negative.
    pub min_sum_hessian_in_leaf: f64,
    /// L2 penalty on leaf values: a leaf's value is `-G / (H + lambda_l2)` (default 0).
    pub lambda_l2: f64,
    /// Shrinkage applied to every leaf value (default 0.1).
    pub learning_rate: f64,
    /// Maximum number of quantile bins per feature, 2..=255 (default 255).
    pub max_bins: usize,
    /// Minimum number of training values per bin when binning (default 3, LightGBM's
    /// `min_data_in_bin`).
    pub min_data_in_bin: usize,
    /// Fraction of training documents sampled (without replacement, from the seed) for
    /// each tree, in (0, 1] (default 1: no sampling).
    pub row_subsample: f64,
    /// Fraction of features sampled (without replacement, from the seed) for each tree,
    /// in (0, 1] (default 1: no sampling).
    pub feature_subsample: f64,
}

impl Default for TreeConfig {
    fn default() -> Self {
        Self {
            max_leaves: 31,
            min_data_in_leaf: 20,
            min_sum_hessian_in_leaf: 1e-3,
            lambda_l2: 0.0,
            learning_rate: 0.1,
            max_bins: 255,
            min_data_in_bin: 3,
            row_subsample: 1.0,
            feature_subsample: 1.0,
        }
    }
}

/// Largest `max_leaves` accepted (histogram memory grows with it).
pub const MAX_LEAVES: usize = 4096;

/// Parameter-table rows of the tree settings, under the keys the tree-based rankers expose
/// (LambdaMART all of them, IntervalRank some): their `Params::TABLE`s list these, and
/// [`TreeConfig::validate`] / [`BoostConfig::validate`] check through them, so a key's range
/// is written once.
pub mod rows {
    use ltr_core::ParamInfo;

    use super::MAX_LEAVES;

    /// `trees`: boosting rounds, one tree each.
    pub const TREES: ParamInfo = ParamInfo::int(
        "trees",
        1,
        100_000,
        "boosting rounds, one tree each; with vali the best prefix is kept",
    );
    /// `leaves`: the tree size.
    pub const LEAVES: ParamInfo =
        ParamInfo::int("leaves", 2, MAX_LEAVES as u64, "maximum leaves per tree, grown best-first");
    /// `learning_rate`: shrinkage.
    pub const LEARNING_RATE: ParamInfo =
        ParamInfo::positive("learning_rate", 0.0, 1.0, "shrinkage applied to every leaf value");
    /// `min_data_in_leaf`.
    pub const MIN_DATA_IN_LEAF: ParamInfo =
        ParamInfo::int("min_data_in_leaf", 1, 1_000_000_000, "minimum training documents per leaf");
    /// `min_sum_hessian_in_leaf`.
    pub const MIN_SUM_HESSIAN_IN_LEAF: ParamInfo =
        ParamInfo::real("min_sum_hessian_in_leaf", 0.0, 1e6, "minimum sum of hessians per leaf");
    /// `lambda_l2`.
    pub const LAMBDA_L2: ParamInfo =
        ParamInfo::real("lambda_l2", 0.0, 1e6, "L2 penalty in the leaf values -G / (H + lambda_l2)");
    /// `max_bins`.
    pub const MAX_BINS: ParamInfo = ParamInfo::int("max_bins", 2, 255, "maximum quantile bins per feature");
    /// `min_data_in_bin`.
    pub const MIN_DATA_IN_BIN: ParamInfo =
        ParamInfo::int("min_data_in_bin", 1, 1_000_000_000, "minimum training values per bin when binning");
    /// `row_subsample`.
    pub const ROW_SUBSAMPLE: ParamInfo = ParamInfo::positive(
        "row_subsample",
        0.0,
        1.0,
        "fraction of training documents sampled for each tree",
    );
    /// `feature_subsample`.
    pub const FEATURE_SUBSAMPLE: ParamInfo =
        ParamInfo::positive("feature_subsample", 0.0, 1.0, "fraction of features sampled for each tree");
    /// `early_stopping_rounds`.
    pub const EARLY_STOPPING_ROUNDS: ParamInfo = ParamInfo::int(
        "early_stopping_rounds",
        0,
        100_000,
        "with vali: stop after this many rounds without a better measure (0: never)",
    );
}

impl TreeConfig {
    /// Checks every field against [`rows`], naming LambdaMART's parameter keys.
    pub fn validate(&self) -> Result<()> {
        rows::LEAVES.check_int(self.max_leaves as u64)?;
        rows::MIN_DATA_IN_LEAF.check_int(self.min_data_in_leaf as u64)?;
        rows::MIN_SUM_HESSIAN_IN_LEAF.check_real(self.min_sum_hessian_in_leaf)?;
        rows::LAMBDA_L2.check_real(self.lambda_l2)?;
        rows::LEARNING_RATE.check_real(self.learning_rate)?;
        rows::MAX_BINS.check_int(self.max_bins as u64)?;
        rows::MIN_DATA_IN_BIN.check_int(self.min_data_in_bin as u64)?;
        rows::ROW_SUBSAMPLE.check_real(self.row_subsample)?;
        rows::FEATURE_SUBSAMPLE.check_real(self.feature_subsample)?;
        Ok(())
    }
}

/// How many trees to grow and how validation stops the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoostConfig {
    /// Number of boosting rounds, one tree each (default 100).
    pub rounds: usize,
    /// With a validation split: stop after this many rounds without a new best validation
    /// measure (0, the default: never stop early). Either way, the ensemble is cut back to
    /// the prefix with the best validation measure.
    pub early_stopping_rounds: usize,
    /// How each tree is grown.
    pub tree: TreeConfig,
}

impl Default for BoostConfig {
    fn default() -> Self {
        Self { rounds: 100, early_stopping_rounds: 0, tree: TreeConfig::default() }
    }
}

impl BoostConfig {
    /// Checks every field (`trees` names the round count, as in LambdaMART).
    pub fn validate(&self) -> Result<()> {
        rows::TREES.check_int(self.rounds as u64)?;
        rows::EARLY_STOPPING_ROUNDS.check_int(self.early_stopping_rounds as u64)?;
        self.tree.validate()
    }
}

#[cfg(test)]
mod tests {
    use ltr_core::Error;

    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_name_their_key() {
        BoostConfig::default().validate().unwrap();
        let bad = |t: TreeConfig| match t.validate() {
            Err(Error::InvalidParam { name, .. }) => name,
            other => panic!("expected a parameter error, got {other:?}"),
        };
        assert_eq!(bad(TreeConfig { max_leaves: 1, ..Default::default() }), "leaves");
        assert_eq!(bad(TreeConfig { max_bins: 256, ..Default::default() }), "max_bins");
        assert_eq!(bad(TreeConfig { lambda_l2: -1.0, ..Default::default() }), "lambda_l2");
        assert_eq!(bad(TreeConfig { learning_rate: f64::NAN, ..Default::default() }), "learning_rate");
        assert_eq!(bad(TreeConfig { row_subsample: 0.0, ..Default::default() }), "row_subsample");
        assert_eq!(bad(TreeConfig { feature_subsample: 1.5, ..Default::default() }), "feature_subsample");
        assert_eq!(bad(TreeConfig { max_leaves: MAX_LEAVES + 1, ..Default::default() }), "leaves");
        assert_eq!(bad(TreeConfig { min_data_in_leaf: 0, ..Default::default() }), "min_data_in_leaf");
        assert!(BoostConfig { rounds: 0, ..Default::default() }.validate().is_err());
        assert!(BoostConfig { rounds: 1_000_000_000, ..Default::default() }.validate().is_err());
    }
}
