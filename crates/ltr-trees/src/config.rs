//! Tree-growing and boosting settings.

use ltr_core::{Error, Result};
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

impl TreeConfig {
    /// Checks every field, naming LambdaMART's parameter keys.
    pub fn validate(&self) -> Result<()> {
        if !(2..=MAX_LEAVES).contains(&self.max_leaves) {
            return Err(Error::param("leaves", self.max_leaves, "must be in 2..=4096"));
        }
        if self.min_data_in_leaf == 0 {
            return Err(Error::param("min_data_in_leaf", self.min_data_in_leaf, "must be at least 1"));
        }
        if !(self.min_sum_hessian_in_leaf.is_finite() && self.min_sum_hessian_in_leaf >= 0.0) {
            return Err(Error::param(
                "min_sum_hessian_in_leaf",
                self.min_sum_hessian_in_leaf,
                "must be finite and non-negative",
            ));
        }
        if !(self.lambda_l2.is_finite() && self.lambda_l2 >= 0.0) {
            return Err(Error::param("lambda_l2", self.lambda_l2, "must be finite and non-negative"));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(Error::param("learning_rate", self.learning_rate, "must be finite and positive"));
        }
        if !(2..=255).contains(&self.max_bins) {
            return Err(Error::param("max_bins", self.max_bins, "must be in 2..=255"));
        }
        if self.min_data_in_bin == 0 {
            return Err(Error::param("min_data_in_bin", self.min_data_in_bin, "must be at least 1"));
        }
        check_fraction("row_subsample", self.row_subsample)?;
        check_fraction("feature_subsample", self.feature_subsample)?;
        Ok(())
    }
}

/// Checks that `value` is in (0, 1].
pub fn check_fraction(name: &'static str, value: f64) -> Result<()> {
    if value > 0.0 && value <= 1.0 { Ok(()) } else { Err(Error::param(name, value, "must be in (0, 1]")) }
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
        if self.rounds == 0 {
            return Err(Error::param("trees", self.rounds, "must be at least 1"));
        }
        self.tree.validate()
    }
}

#[cfg(test)]
mod tests {
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
        assert!(BoostConfig { rounds: 0, ..Default::default() }.validate().is_err());
    }
}
