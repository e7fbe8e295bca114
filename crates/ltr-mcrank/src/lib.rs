//! McRank (P. Li, C. J. C. Burges, Q. Wu, "McRank: Learning to Rank Using Multiple
//! Classification and Gradient Boosting", NIPS 2007), id `mcrank`: ranking as multi-class
//! classification of the grades with gradient-boosted trees (softmax over the `K` grades,
//! one tree per grade per round, Newton leaves with the `K / (K - 1)` factor of multi-class
//! boosting), each document scored by its expected grade `sum_k k P(y = k | x)`. The trees
//! come from `ltr-trees` (`boost_multi`), the learner LambdaMART uses. See the README for
//! every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params, Ranker, Result, Rng,
    Validation, check_scoring,
};
use ltr_trees::{BoostConfig, Ensemble, MultiObjective, TreeConfig, boost_multi, rows};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Static metadata for the comparison tables.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "mcrank",
    name: "McRank",
    family: Family::Trees,
    year: 2007,
    loss: LossType::Pointwise,
    optimizer: "multi-class gradient boosting (histogram trees, Newton leaves)",
    reference: "P. Li, C. J. C. Burges, Q. Wu. McRank: Learning to Rank Using Multiple Classification and \
                Gradient Boosting. NIPS 2007.",
    summary: "multi-class, expected grade; on the shared histogram GBDT learner",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::QUANTILE_BINS,
    small_settings: &["trees=4"],
    ..AlgorithmInfo::DEFAULT
};

/// The most grades (classes) McRank accepts: every class costs a tree per round and a score
/// column of the training set (LETOR and MSLR have 3 to 5 grades).
pub const MAX_CLASSES: usize = 32;

/// McRank hyperparameters (the tree keys are LambdaMART's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McRankParams {
    /// Boosting rounds, `K` trees each (one per grade). Default 100. With a validation
    /// split the best prefix is kept.
    pub trees: usize,
    /// Maximum leaves per tree, grown best-first. Default 31.
    pub leaves: usize,
    /// Shrinkage of every leaf value. Default 0.1.
    pub learning_rate: f64,
    /// Minimum training documents per leaf. Default 20.
    pub min_data_in_leaf: usize,
    /// Minimum sum of hessians per leaf. Default 1e-3.
    pub min_sum_hessian_in_leaf: f64,
    /// L2 penalty in the leaf values. Default 0.
    pub lambda_l2: f64,
    /// Maximum quantile bins per feature. Default 255.
    pub max_bins: usize,
    /// With a validation split: stop after this many rounds without a better value; 0 runs
    /// every round. Default 0.
    pub early_stopping_rounds: usize,
    /// Fraction of documents sampled for each tree. Default 1.
    pub row_subsample: f64,
    /// Fraction of features sampled for each tree. Default 1.
    pub feature_subsample: f64,
}

impl Default for McRankParams {
    fn default() -> Self {
        Self {
            trees: 100,
            leaves: 31,
            learning_rate: 0.1,
            min_data_in_leaf: 20,
            min_sum_hessian_in_leaf: 1e-3,
            lambda_l2: 0.0,
            max_bins: 255,
            early_stopping_rounds: 0,
            row_subsample: 1.0,
            feature_subsample: 1.0,
        }
    }
}

impl Params for McRankParams {
    type Checked = McRank;

    /// The rows are `ltr-trees`' (LambdaMART's keys and ranges).
    const TABLE: &'static [ParamInfo] = &[
        rows::TREES,
        rows::LEAVES,
        rows::LEARNING_RATE,
        rows::MIN_DATA_IN_LEAF,
        rows::MIN_SUM_HESSIAN_IN_LEAF,
        rows::LAMBDA_L2,
        rows::MAX_BINS,
        rows::EARLY_STOPPING_ROUNDS,
        rows::ROW_SUBSAMPLE,
        rows::FEATURE_SUBSAMPLE,
    ];

    fn validate(&self) -> Result<McRank> {
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
        Ok(McRank { boost })
    }
}

/// Validated McRank settings.
#[derive(Debug, Clone)]
pub struct McRank {
    boost: BoostConfig,
}

/// The softmax probabilities of `outputs` into `p` (max subtracted first).
fn softmax(outputs: &[f64], p: &mut [f64]) {
    let max = outputs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut total = 0.0;
    for (pk, &o) in p.iter_mut().zip(outputs) {
        *pk = (o - max).exp();
        total += *pk;
    }
    for pk in p.iter_mut() {
        *pk /= total;
    }
}

/// The expected grade `sum_k k P(y = k)` of one document's `K` class scores.
pub fn expected_grade(outputs: &[f64]) -> f64 {
    let mut p = vec![0.0; outputs.len()];
    softmax(outputs, &mut p);
    p.iter().enumerate().map(|(k, &pk)| k as f64 * pk).sum()
}

/// The multi-class log-loss `-ln P(y_i | x_i)` with `P = softmax(F)`: gradient
/// `p_k - [y = k]` and hessian `K / (K - 1) p_k (1 - p_k)` per class (Friedman's `(K - 1) / K`
/// leaf factor, moved into the hessian as LightGBM does).
#[derive(Debug, Clone)]
pub struct SoftmaxObjective<'a> {
    labels: &'a [Grade],
    n_classes: usize,
}

impl<'a> SoftmaxObjective<'a> {
    /// The objective for `labels` over classes `0..n_classes` (at least 2).
    pub fn new(labels: &'a [Grade], n_classes: usize) -> Self {
        Self { labels, n_classes }
    }
}

impl MultiObjective for SoftmaxObjective<'_> {
    fn n_outputs(&self) -> usize {
        self.n_classes
    }

    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        let (n, k_out) = (self.labels.len(), self.n_classes);
        let factor = k_out as f64 / (k_out as f64 - 1.0);
        // One pass over the documents (a few exponentials each: cheap next to the trees).
        let (mut f, mut p) = (vec![0.0; k_out], vec![0.0; k_out]);
        for (i, &y) in self.labels.iter().enumerate() {
            for (k, fk) in f.iter_mut().enumerate() {
                *fk = scores[k * n + i];
            }
            softmax(&f, &mut p);
            for (k, &pk) in p.iter().enumerate() {
                gradients[k * n + i] = (pk - f64::from(u8::from(k == usize::from(y)))) as f32;
                hessians[k * n + i] = (factor * pk * (1.0 - pk)) as f32;
            }
        }
        Ok(())
    }

    fn combine(&self, outputs: &[f64]) -> f64 {
        expected_grade(outputs)
    }
}

impl Learner for McRank {
    type Model = McRankModel;

    /// Bins the training features once for every fit with the same binning settings.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        ltr_trees::prepare(train, &self.boost)
    }

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<McRankModel> {
        if train.n_docs() == 0 {
            return Err(Error::fit(INFO.id, "empty training set"));
        }
        let n_classes = usize::from(train.max_grade()) + 1;
        if n_classes < 2 {
            return Err(Error::fit(INFO.id, "the training data has a single grade: nothing to classify"));
        }
        if n_classes > MAX_CLASSES {
            return Err(Error::fit(
                INFO.id,
                format!(
                    "grades up to {} make {n_classes} classes; at most {MAX_CLASSES} are supported",
                    n_classes - 1
                ),
            ));
        }
        let mut objective = SoftmaxObjective::new(train.labels(), n_classes);
        let boosted = boost_multi(train, valid, &mut objective, &self.boost, rng)?;
        log::debug!(
            "mcrank: {} classes, {} rounds run, {} kept",
            n_classes,
            boosted.rounds_run,
            boosted.ensembles[0].trees.len()
        );
        Ok(McRankModel { ensembles: boosted.ensembles })
    }
}

/// A fitted McRank model: one tree ensemble per grade `k = 0..K`, whose scores `F_k(x)` give
/// `P(y = k | x) = softmax(F(x))_k`; a document scores its expected grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawModel")]
pub struct McRankModel {
    /// The class ensembles, grade 0 first.
    pub ensembles: Vec<Ensemble>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    ensembles: Vec<Ensemble>,
}

impl TryFrom<RawModel> for McRankModel {
    type Error = String;
    fn try_from(raw: RawModel) -> std::result::Result<Self, String> {
        let Some(first) = raw.ensembles.first() else {
            return Err("a McRank model needs two classes".into());
        };
        if raw.ensembles.len() < 2 || raw.ensembles.iter().any(|e| e.n_features != first.n_features) {
            return Err("a McRank model needs two or more class ensembles over the same features".into());
        }
        Ok(Self { ensembles: raw.ensembles })
    }
}

impl McRankModel {
    /// Number of classes (grades `0..K`).
    pub fn n_classes(&self) -> usize {
        self.ensembles.len()
    }

    /// `P(y = k | x)` for every grade.
    pub fn probabilities(&self, row: &[f32]) -> Vec<f64> {
        let f: Vec<f64> = self.ensembles.iter().map(|e| e.score_row(row)).collect();
        let mut p = vec![0.0; f.len()];
        softmax(&f, &mut p);
        p
    }
}

impl Ranker for McRankModel {
    fn n_features(&self) -> usize {
        self.ensembles.first().map_or(0, |e| e.n_features)
    }

    fn check(&self) -> Result<()> {
        if !(2..=MAX_CLASSES).contains(&self.ensembles.len()) {
            return Err(Error::model(format!(
                "a McRank model has 2 to {MAX_CLASSES} class ensembles, not {}",
                self.ensembles.len()
            )));
        }
        for (k, e) in self.ensembles.iter().enumerate() {
            if e.n_features != self.n_features() {
                return Err(Error::model(format!(
                    "class {k}'s ensemble has {} features, class 0's {}",
                    e.n_features,
                    self.n_features()
                )));
            }
            Ranker::check(e)?;
        }
        Ok(())
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        let f: Vec<f64> = self.ensembles.iter().map(|e| e.score_row(row)).collect();
        expected_grade(&f)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features(), data, out)?;
        // Rows are independent: any split of the work gives the same bits.
        out.par_chunks_mut(256).enumerate().for_each(|(c, chunk)| {
            for (k, o) in chunk.iter_mut().enumerate() {
                *o = self.score_row(data.row(c * 256 + k));
            }
        });
        Ok(())
    }

    /// Every class's trees, class by class.
    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Trees(
            self.ensembles
                .iter()
                .flat_map(|e| &e.trees)
                .map(|t| ltr_core::TreeSplits { features: &t.split_feature, gains: &t.split_gain })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests;
