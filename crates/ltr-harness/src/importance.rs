//! Feature importance of a fitted model ([`importance`]), and its top features for reports:
//! of one fit ([`top_features`]) or averaged over folds ([`mean_top_features`], with the
//! models of stored cells from [`cell_model`]).
//!
//! What each model offers is its own to say ([`ltr_core::Ranker::feature_weights`]):
//!
//! * Tree models (LambdaMART, IntervalRank, McRank): per feature, the summed `split_gain` of
//!   every split on it (the decrease of the second-order objective, before shrinkage, as
//!   LightGBM's `gain` importance) and the number of splits on it, each also as a share of
//!   the total.
//! * Linear models (every model that scores `w . x + b`, and the boosters whose rounds
//!   collapse to one weight vector: AdaRank, RankCosine, PCRank): `|w_j|`, multiplied by the
//!   standard deviation of feature `j` when data is given, so that a feature measured in
//!   large units does not look unimportant for its small weight. Raw `|w_j|` otherwise.
//! * Other models (neural networks, RankBoost's threshold functions, the pruning cascade):
//!   no importance is defined; [`Importance::Undefined`] says why.
//!
//! Features are numbered from 1, as in LETOR files. Lists are sorted by the importance
//! (gain for trees), highest first, ties by feature number.

use ltr_core::{Dataset, FeatureWeights};
use serde::Serialize;

use crate::error::Result;
use crate::registry::AnyModel;

/// One feature of a tree model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeFeature {
    /// Feature number (1-based, as in the data file).
    pub feature: usize,
    /// Summed split gain of the splits on it.
    pub gain: f64,
    /// `gain` over the summed gain of every split (0 when no split has any gain).
    pub gain_share: f64,
    /// Number of splits on it.
    pub splits: u64,
    /// `splits` over all splits (0 when the model has none).
    pub split_share: f64,
}

/// One feature of a linear model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinearFeature {
    /// Feature number (1-based, as in the data file).
    pub feature: usize,
    /// The signed weight.
    pub weight: f64,
    /// The feature's standard deviation in the given data (population), if data was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub std_dev: Option<f64>,
    /// `|weight| * std_dev` when standardised, else `|weight|`.
    pub importance: f64,
    /// `importance` over the sum over all features (0 when that sum is 0).
    pub share: f64,
}

/// The importance of every feature of a model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Importance {
    /// A model made of regression trees.
    Trees {
        /// Algorithm id.
        algorithm: String,
        /// Number of trees (over all classes for McRank).
        trees: usize,
        /// Every feature, by gain (highest first), ties by feature number.
        features: Vec<TreeFeature>,
    },
    /// A linear scoring function.
    Linear {
        /// Algorithm id.
        algorithm: String,
        /// Whether the weights were multiplied by the features' standard deviations.
        standardised: bool,
        /// Every feature, by importance (highest first), ties by feature number.
        features: Vec<LinearFeature>,
    },
    /// A model for which no feature importance is defined.
    Undefined {
        /// Algorithm id.
        algorithm: String,
        /// Why, in a few words.
        reason: String,
    },
}

/// One line of a top-N list ([`top_features`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopFeature {
    /// Feature number (1-based).
    pub feature: usize,
    /// Its importance: the summed split gain (trees) or the (standardised) absolute weight.
    pub importance: f64,
    /// Its share of the total importance.
    pub share: f64,
}

impl Importance {
    /// The algorithm id.
    pub fn algorithm(&self) -> &str {
        match self {
            Self::Trees { algorithm, .. }
            | Self::Linear { algorithm, .. }
            | Self::Undefined { algorithm, .. } => algorithm,
        }
    }

    /// The first `n` features by importance (none for an undefined importance).
    pub fn top(&self, n: usize) -> Vec<TopFeature> {
        match self {
            Self::Trees { features, .. } => features
                .iter()
                .take(n)
                .map(|f| TopFeature { feature: f.feature, importance: f.gain, share: f.gain_share })
                .collect(),
            Self::Linear { features, .. } => features
                .iter()
                .take(n)
                .map(|f| TopFeature { feature: f.feature, importance: f.importance, share: f.share })
                .collect(),
            Self::Undefined { .. } => Vec::new(),
        }
    }
}

/// The feature importance of `model`. `data` (of the model's width) standardises linear
/// weights by each feature's standard deviation; tree models do not use it.
///
/// # Errors
/// `data` of another width than the model's, or with a feature whose spread is not finite.
pub fn importance(model: &AnyModel, data: Option<&Dataset>) -> Result<Importance> {
    let algorithm = model.id().to_owned();
    if let Some(d) = data
        && d.n_features() != model.n_features()
    {
        return Err(
            ltr_core::Error::FeatureCount { expected: model.n_features(), found: d.n_features() }.into()
        );
    }
    Ok(match model.feature_weights() {
        FeatureWeights::Trees(trees) => {
            tree_importance(&algorithm, model.n_features(), trees.iter().map(|t| (t.features, t.gains)))
        }
        FeatureWeights::Linear(weights) => linear_importance(algorithm, &weights, data)?,
        FeatureWeights::Undefined(why) => Importance::Undefined { algorithm, reason: why.to_owned() },
    })
}

/// The first `n` features of `model` by importance ([`importance`]); `None` when no
/// importance is defined for the model. For the reports' "top features" lists.
///
/// # Errors
/// As [`importance`].
pub fn top_features(model: &AnyModel, data: Option<&Dataset>, n: usize) -> Result<Option<Vec<TopFeature>>> {
    Ok(match importance(model, data)? {
        Importance::Undefined { .. } => None,
        imp => Some(imp.top(n)),
    })
}

/// The first `n` features over several fits of one algorithm (e.g. the folds of a dataset):
/// each feature's share averaged over the fits with a defined importance (shares, not raw
/// values, since gains and weights are on each fit's own scale), highest first, ties by
/// feature number; `importance` is the mean raw value. `None` when no fit has a defined
/// importance. Fits are taken in the order given, so the means are reproducible to the bit.
pub fn mean_top_features(fits: &[Importance], n: usize) -> Option<Vec<TopFeature>> {
    let defined: Vec<Vec<TopFeature>> = fits
        .iter()
        .filter(|f| !matches!(f, Importance::Undefined { .. }))
        .map(|f| f.top(usize::MAX))
        .collect();
    if defined.is_empty() {
        return None;
    }
    let width = defined.iter().flat_map(|f| f.iter().map(|t| t.feature)).max().unwrap_or(0);
    let (mut share_sum, mut value_sum) = (vec![0.0f64; width + 1], vec![0.0f64; width + 1]);
    for fit in &defined {
        // Each fit lists its features by importance; summing in feature order per fit keeps
        // the result independent of how ties were ordered.
        let mut by_feature: Vec<&TopFeature> = fit.iter().collect();
        by_feature.sort_by_key(|t| t.feature);
        for t in by_feature {
            share_sum[t.feature] += t.share;
            value_sum[t.feature] += t.importance;
        }
    }
    let k = defined.len() as f64;
    let mut out: Vec<TopFeature> = (1..=width)
        .map(|j| TopFeature { feature: j, importance: value_sum[j] / k, share: share_sum[j] / k })
        .collect();
    out.sort_by(|a, b| b.share.total_cmp(&a.share).then(a.feature.cmp(&b.feature)));
    out.truncate(n);
    Some(out)
}

/// The selected model of a stored cell (its `.model.json`, either layout:
/// [`crate::store::ResultStore::load_model`]), for [`importance`]. Read as the store verified
/// it: call after [`crate::store::ResultStore::load`] found the cell sound.
///
/// # Errors
/// The model file missing, unreadable, or not a valid model.
pub fn cell_model(store: &crate::store::ResultStore, key: &str) -> Result<AnyModel> {
    store.load_model(key)
}

fn share(x: f64, total: f64) -> f64 {
    if total > 0.0 { x / total } else { 0.0 }
}

/// Gain and split counts summed over `trees` (each as its split features and split gains),
/// in tree order then node order (fixed, so the sums are reproducible to the bit).
fn tree_importance<'a>(
    algorithm: &str,
    n_features: usize,
    trees: impl Iterator<Item = (&'a [u32], &'a [f64])>,
) -> Importance {
    let mut gain = vec![0.0f64; n_features];
    let mut splits = vec![0u64; n_features];
    let mut n_trees = 0;
    for (split_feature, split_gain) in trees {
        n_trees += 1;
        for (&f, &g) in split_feature.iter().zip(split_gain) {
            // Model checks keep every split feature inside the width; `get_mut` keeps an
            // unchecked model from panicking here all the same.
            if let (Some(gs), Some(ss)) = (gain.get_mut(f as usize), splits.get_mut(f as usize)) {
                *gs += g;
                *ss += 1;
            }
        }
    }
    let total_gain: f64 = gain.iter().sum();
    let total_splits: u64 = splits.iter().sum();
    let mut features: Vec<TreeFeature> = (0..n_features)
        .map(|j| TreeFeature {
            feature: j + 1,
            gain: gain[j],
            gain_share: share(gain[j], total_gain),
            splits: splits[j],
            split_share: share(splits[j] as f64, total_splits as f64),
        })
        .collect();
    features.sort_by(|a, b| {
        b.gain.total_cmp(&a.gain).then(b.splits.cmp(&a.splits)).then(a.feature.cmp(&b.feature))
    });
    Importance::Trees { algorithm: algorithm.to_owned(), trees: n_trees, features }
}

fn linear_importance(algorithm: String, weights: &[f64], data: Option<&Dataset>) -> Result<Importance> {
    let std_dev: Option<Vec<f64>> = match data {
        Some(d) => Some(std_devs(d)?),
        None => None,
    };
    let value = |j: usize| {
        let w = weights[j].abs();
        std_dev.as_ref().map_or(w, |s| w * s[j])
    };
    let total: f64 = (0..weights.len()).map(value).sum();
    let mut features: Vec<LinearFeature> = (0..weights.len())
        .map(|j| LinearFeature {
            feature: j + 1,
            weight: weights[j],
            std_dev: std_dev.as_ref().map(|s| s[j]),
            importance: value(j),
            share: share(value(j), total),
        })
        .collect();
    features.sort_by(|a, b| b.importance.total_cmp(&a.importance).then(a.feature.cmp(&b.feature)));
    Ok(Importance::Linear { algorithm, standardised: std_dev.is_some(), features })
}

/// Population standard deviation of every feature over every document of `data` (two
/// passes, documents in file order; a spread of at most 1e-12 counts as 0, the rule the
/// neural models standardise with).
fn std_devs(data: &Dataset) -> Result<Vec<f64>> {
    let (d, n) = (data.n_features(), data.n_docs() as f64);
    let mut mean = vec![0.0f64; d];
    for row in data.rows() {
        for (m, &x) in mean.iter_mut().zip(row) {
            *m += f64::from(x);
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut var = vec![0.0f64; d];
    for row in data.rows() {
        for ((v, &m), &x) in var.iter_mut().zip(&mean).zip(row) {
            let c = f64::from(x) - m;
            *v += c * c;
        }
    }
    let sd: Vec<f64> = var.iter().map(|&v| (v / n).sqrt()).map(|s| if s > 1e-12 { s } else { 0.0 }).collect();
    if let Some(j) = sd.iter().position(|s| !s.is_finite()) {
        return Err(ltr_core::Error::InvalidDataset {
            reason: format!("feature {}: its spread is not finite", j + 1),
        }
        .into());
    }
    Ok(sd)
}
