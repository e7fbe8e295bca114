//! The algorithm boundary: raw params -> checked learner -> fitted model.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::seed::Rng;

/// Raw hyperparameters as written in an experiment spec or on the command line.
///
/// A plain serde struct with documented defaults (`Default`) and
/// `#[serde(deny_unknown_fields, default)]`, so a spec may set any subset of keys and a
/// misspelt key is an error. [`Params::validate`] checks every domain constraint before any
/// data is touched and returns the checked form, which is the [`Learner`].
pub trait Params:
    Clone + std::fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync
{
    /// The validated form.
    type Checked: Learner;

    /// Every key with its valid range and a one-line description, in documentation order.
    /// `validate` checks ranges through this table, and `ltr algorithms` prints it with the
    /// defaults read from `Self::default()`.
    const TABLE: &'static [crate::ParamInfo] = &[];

    /// Checks every constraint, naming the offending key.
    fn validate(&self) -> Result<Self::Checked>;
}

/// A ranking measure on a data set, higher is better (implemented by `ltr-metrics`).
///
/// The core crate knows no metric; the experiment decides which one selects models, and
/// hands it to learners through [`Validation`].
pub trait Measure: std::fmt::Debug + Send + Sync {
    /// A short name for logs (`map`, `ndcg@10 (letor3)`).
    fn name(&self) -> String;
    /// The mean over the queries of `data` of the measure of `scores` (one per document).
    fn mean(&self, data: &Dataset, scores: &[f64]) -> Result<f64>;
}

/// The validation split and the measure that selects on it (LETOR protocol: the test split
/// never takes part in any decision).
#[derive(Debug, Clone, Copy)]
pub struct Validation<'a> {
    /// The validation split.
    pub data: &'a Dataset,
    /// The selection measure.
    pub measure: &'a dyn Measure,
}

impl Validation<'_> {
    /// The measure of `scores` on the validation data.
    pub fn evaluate(&self, scores: &[f64]) -> Result<f64> {
        self.measure.mean(self.data, scores)
    }

    /// Scores the validation data with `model` and evaluates it.
    pub fn evaluate_model<R: Ranker>(&self, model: &R) -> Result<f64> {
        self.evaluate(&model.score_vec(self.data)?)
    }
}

/// Validated hyperparameters that can fit a model.
pub trait Learner: std::fmt::Debug + Send + Sync {
    /// The fitted model.
    type Model: Ranker;

    /// Fits on `train`. `valid` may be used for early stopping or round/epoch selection, with
    /// its measure; without it the learner runs its configured length. `rng` is the only
    /// source of randomness.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<Self::Model>;

    /// Computes what fits with these parameters derive from `train` alone and share, into
    /// `train`'s cache ([`Dataset::derived`]), so that a grid fitted in parallel does it once:
    /// the tree learners bin the features here. [`Learner::fit`] works without it (it finds
    /// the value cached or computes it), and the result of a fit is the same either way.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        let _ = train;
        Ok(())
    }
}

/// A fitted, serialisable model that scores documents independently of each other.
pub trait Ranker: Clone + std::fmt::Debug + Serialize + DeserializeOwned + Send + Sync {
    /// Number of features the model was trained on.
    fn n_features(&self) -> usize;

    /// Checks what a model read from a file can get wrong and a fitted one cannot: a width
    /// above [`crate::MAX_FEATURES`] ([`check_width`]), a part that reads a feature past
    /// [`Ranker::n_features`] ([`check_feature`]), parts whose sizes disagree. A model that
    /// passes scores any data set of its width without panicking. Every model loaded by the
    /// harness (model files, the result store) goes through it.
    fn check(&self) -> Result<()>;

    /// The score of one document (`row.len() == n_features()`); higher ranks first.
    fn score_row(&self, row: &[f32]) -> f64;

    /// Scores every document of `data` into `out` (one entry per document, file order).
    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features(), data, out)?;
        for (o, row) in out.iter_mut().zip(data.rows()) {
            *o = self.score_row(row);
        }
        Ok(())
    }

    /// Convenience: scores into a new vector.
    fn score_vec(&self, data: &Dataset) -> Result<Vec<f64>> {
        let mut out = vec![0.0; data.n_docs()];
        self.score(data, &mut out)?;
        Ok(out)
    }

    /// What the model's feature importance is computed from: its trees' splits, its linear
    /// weights, or why neither applies (the default, for a model that says nothing).
    fn feature_weights(&self) -> FeatureWeights<'_> {
        FeatureWeights::Undefined("no feature importance is defined for this model")
    }

    /// How many features the model reads and how many rounds, stages or trees it kept. The
    /// default reads it off [`Ranker::feature_weights`]: the nonzero weights of a linear model;
    /// the distinct split features and the number of trees of a tree ensemble; nothing for a
    /// model without feature weights. Models made of rounds say more.
    fn model_size(&self) -> ModelSize {
        ModelSize::of_weights(&self.feature_weights())
    }
}

/// The size of a fitted model ([`Ranker::model_size`]): what a reader needs to tell a model
/// that ranks by one feature, or kept a single round, from a rich one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelSize {
    /// Distinct features whose values can change a score (`None`: not known for the model).
    pub features: Option<usize>,
    /// Rounds, stages or trees kept (`None`: the model is not made of such parts).
    pub stages: Option<usize>,
}

impl ModelSize {
    /// The size [`FeatureWeights`] show: nonzero linear weights, or the distinct split
    /// features and the number of trees.
    pub fn of_weights(weights: &FeatureWeights<'_>) -> Self {
        match weights {
            FeatureWeights::Linear(w) => {
                Self { features: Some(w.iter().filter(|&&x| x != 0.0).count()), stages: None }
            }
            FeatureWeights::Trees(trees) => {
                let mut used: Vec<u32> = trees.iter().flat_map(|t| t.features.iter().copied()).collect();
                used.sort_unstable();
                used.dedup();
                Self { features: Some(used.len()), stages: Some(trees.len()) }
            }
            FeatureWeights::Undefined(_) => Self::default(),
        }
    }

    /// The number of flags set in `used` (one per feature), with `stages` parts: the size of a
    /// model whose parts marked the features they read.
    pub fn of_marked(used: &[bool], stages: usize) -> Self {
        Self { features: Some(used.iter().filter(|&&u| u).count()), stages: Some(stages) }
    }
}

/// What a model's feature importance is computed from ([`Ranker::feature_weights`]).
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureWeights<'a> {
    /// Regression trees, in model order.
    Trees(Vec<TreeSplits<'a>>),
    /// A linear function `w . x + b` (or a sum of rounds that collapses to one): `w`, one
    /// weight per feature.
    Linear(Vec<f64>),
    /// No feature importance is defined for the model: why, in a few words.
    Undefined(&'static str),
}

/// The internal nodes of one regression tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeSplits<'a> {
    /// The feature each node splits on (0-based).
    pub features: &'a [u32],
    /// The gain of each split: the decrease of the training objective it made.
    pub gains: &'a [f64],
}

/// A model's width is at most [`crate::MAX_FEATURES`].
pub fn check_width(n_features: usize) -> Result<()> {
    if n_features > crate::MAX_FEATURES {
        return Err(Error::model(format!(
            "{n_features} features, above the largest supported width, {}",
            crate::MAX_FEATURES
        )));
    }
    Ok(())
}

/// A model part (`what`: "round 3") reads feature `feature` (0-based) of a model of width
/// `n_features`: it must be inside. Messages number features from 1, as LETOR files do.
pub fn check_feature(what: impl std::fmt::Display, feature: usize, n_features: usize) -> Result<()> {
    if feature >= n_features {
        return Err(Error::model(format!(
            "{what} reads feature {}, past the model's {n_features} features",
            feature.saturating_add(1)
        )));
    }
    Ok(())
}

/// The checks every `score` implementation starts with.
pub fn check_scoring(n_features: usize, data: &Dataset, out: &[f64]) -> Result<()> {
    if data.n_features() != n_features {
        return Err(Error::FeatureCount { expected: n_features, found: data.n_features() });
    }
    if out.len() != data.n_docs() {
        return Err(Error::ScoreBuffer { expected: data.n_docs(), found: out.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_sizes_read_off_feature_weights() {
        let linear = FeatureWeights::Linear(vec![0.0, 1.5, 0.0, -2.0]);
        assert_eq!(ModelSize::of_weights(&linear), ModelSize { features: Some(2), stages: None });
        // Two trees splitting on features {3, 1} and {1}: two distinct features, two trees.
        let trees = FeatureWeights::Trees(vec![
            TreeSplits { features: &[3, 1], gains: &[1.0, 0.5] },
            TreeSplits { features: &[1], gains: &[0.2] },
        ]);
        assert_eq!(ModelSize::of_weights(&trees), ModelSize { features: Some(2), stages: Some(2) });
        assert_eq!(ModelSize::of_weights(&FeatureWeights::Undefined("none")), ModelSize::default());
        assert_eq!(
            ModelSize::of_marked(&[true, false, true], 7),
            ModelSize { features: Some(2), stages: Some(7) }
        );
    }
}
