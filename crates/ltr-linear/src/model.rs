//! The linear scoring function `w . x + b`.

use ltr_core::Ranker;
use serde::{Deserialize, Serialize};

use crate::dot;

/// A linear model: `score(x) = weights . x + bias`, accumulated in `f64` ([`dot`], then the
/// bias added).
///
/// Serialised as `{"weights": [...], "bias": b}`; a missing `bias` reads as 0 and
/// `intercept` is accepted for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearModel {
    /// One weight per feature (feature `j + 1` of the file is `weights[j]`).
    pub weights: Vec<f64>,
    /// The constant term (an intercept or a bias; 0 for models without one).
    #[serde(default, alias = "intercept")]
    pub bias: f64,
}

impl LinearModel {
    /// A model from its weights and bias.
    pub fn new(weights: Vec<f64>, bias: f64) -> Self {
        Self { weights, bias }
    }

    /// Whether every weight and the bias are finite.
    pub fn is_finite(&self) -> bool {
        self.bias.is_finite() && self.weights.iter().all(|w| w.is_finite())
    }
}

impl Ranker for LinearModel {
    fn n_features(&self) -> usize {
        self.weights.len()
    }

    /// The width is the weight count: only its bound can be wrong.
    fn check(&self) -> ltr_core::Result<()> {
        ltr_core::check_width(self.weights.len())
    }

    /// `weights . row + bias`.
    #[inline]
    fn score_row(&self, row: &[f32]) -> f64 {
        dot(&self.weights, row) + self.bias
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Linear(self.weights.clone())
    }
}

/// Implements [`Ranker`] for a model type whose field `linear` is a [`LinearModel`] and which
/// scores as that model does (`w.x + b`), only adding fields of its own (how the fit went):
/// every method, the check and the feature weights included, forwards to `linear`.
///
/// ```ignore
/// ltr_linear::ranker_of_linear!(FenchelRankModel);
/// ```
#[macro_export]
macro_rules! ranker_of_linear {
    ($model:ty) => {
        impl $crate::__ltr_core::Ranker for $model {
            fn n_features(&self) -> usize {
                $crate::__ltr_core::Ranker::n_features(&self.linear)
            }

            fn check(&self) -> $crate::__ltr_core::Result<()> {
                $crate::__ltr_core::Ranker::check(&self.linear)
            }

            fn score_row(&self, row: &[f32]) -> f64 {
                $crate::__ltr_core::Ranker::score_row(&self.linear, row)
            }

            fn feature_weights(&self) -> $crate::__ltr_core::FeatureWeights<'_> {
                $crate::__ltr_core::Ranker::feature_weights(&self.linear)
            }
        }
    };
}

/// Implements [`ltr_core::Learner`] for a learner with an inherent method
/// `fit_with_stats(&self, &Dataset) -> Result<(LinearModel, Stats)>` that needs neither the
/// validation split nor randomness: [`ltr_core::Learner::fit`] keeps the model and drops the
/// diagnostics. With `prepare = method`, [`ltr_core::Learner::prepare`] calls
/// `self.method(train)` and drops its value (what a grid's fits share, cached in `train`).
///
/// ```ignore
/// ltr_linear::learner_of_fit_with_stats!(RankLr);
/// ltr_linear::learner_of_fit_with_stats!(RankRls, prepare = system);
/// ```
#[macro_export]
macro_rules! learner_of_fit_with_stats {
    ($learner:ty $(, prepare = $prepare:ident)?) => {
        impl $crate::__ltr_core::Learner for $learner {
            type Model = $crate::LinearModel;

            fn fit(
                &self,
                train: &$crate::__ltr_core::Dataset,
                _valid: Option<&$crate::__ltr_core::Validation<'_>>,
                _rng: &mut $crate::__ltr_core::Rng,
            ) -> $crate::__ltr_core::Result<$crate::LinearModel> {
                self.fit_with_stats(train).map(|(model, _)| model)
            }

            $(
                fn prepare(&self, train: &$crate::__ltr_core::Dataset) -> $crate::__ltr_core::Result<()> {
                    self.$prepare(train).map(|_| ())
                }
            )?
        }
    };
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_reads_older_layouts() {
        let m = LinearModel::new(vec![2.0, -1.0], 0.5);
        assert_eq!(m.score_row(&[1.0, 3.0]), -0.5);
        assert_eq!(m.n_features(), 2);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"weights":[2.0,-1.0],"bias":0.5}"#);
        assert_eq!(serde_json::from_str::<LinearModel>(&json).unwrap(), m);
        let old: LinearModel = serde_json::from_str(r#"{"weights":[2.0,-1.0],"intercept":0.5}"#).unwrap();
        assert_eq!(old, m);
        let no_bias: LinearModel = serde_json::from_str(r#"{"weights":[1.0]}"#).unwrap();
        assert_eq!(no_bias, LinearModel::new(vec![1.0], 0.0));
        assert!(m.is_finite() && !LinearModel::new(vec![f64::NAN], 0.0).is_finite());
    }

    #[test]
    fn a_zero_bias_scores_like_a_sum_from_plus_zero() {
        // dot + 0.0 turns the -0.0 of an all-zero product into +0.0, as a sum started at +0.0.
        let m = LinearModel::new(vec![-1.0, -2.0], 0.0);
        assert!(m.score_row(&[0.0, 0.0]).is_sign_positive());
    }
}
