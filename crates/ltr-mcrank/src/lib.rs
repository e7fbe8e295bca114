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
use ltr_trees::{
    BoostConfig, Ensemble, MultiObjective, SCORE_BLOCK, TreeParams, boost_multi, gather_outputs,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Static metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 114.4 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-28, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `trees`.
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
    cost: Some(
        ltr_core::FitCost::mslr_web10k(114.4, "just bench-budget 2026-11-28, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("trees", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The most grades (classes) McRank accepts: every class costs a tree per round and a score
/// column of the training set (LETOR and MSLR have 3 to 5 grades).
pub const MAX_CLASSES: usize = 32;

/// McRank hyperparameters: the tree keys of LambdaMART ([`TreeParams`]; each round grows
/// `K` trees, one per grade).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct McRankParams {
    /// The tree and boosting keys (`trees`, `leaves`, `learning_rate`, ...), LightGBM's.
    #[serde(flatten)]
    pub tree: TreeParams,
}

impl Params for McRankParams {
    type Checked = McRank;

    /// The rows are `ltr-trees`' (LambdaMART's keys and ranges).
    const TABLE: &'static [ParamInfo] = TreeParams::TABLE;

    fn validate(&self) -> Result<McRank> {
        Ok(McRank { boost: self.tree.boost_config()? })
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
    expected_grade_into(outputs, &mut vec![0.0; outputs.len()])
}

/// [`expected_grade`] with the probabilities written into `p` (`outputs.len()` entries).
fn expected_grade_into(outputs: &[f64], p: &mut [f64]) -> f64 {
    softmax(outputs, p);
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
        // Blocks of documents in parallel, each writing its piece of every class's column:
        // a document's entries depend on its own scores alone.
        let mut blocks: Vec<Vec<(&mut [f32], &mut [f32])>> =
            (0..n.div_ceil(BLOCK)).map(|_| Vec::with_capacity(k_out)).collect();
        for (g, h) in gradients.chunks_mut(n.max(1)).zip(hessians.chunks_mut(n.max(1))).take(k_out) {
            for (block, piece) in blocks.iter_mut().zip(g.chunks_mut(BLOCK).zip(h.chunks_mut(BLOCK))) {
                block.push(piece);
            }
        }
        let labels = self.labels;
        blocks.into_par_iter().enumerate().for_each(|(b, mut columns)| {
            let (mut f, mut p) = (vec![0.0; k_out], vec![0.0; k_out]);
            let first = b * BLOCK;
            let len = columns.first().map_or(0, |c| c.0.len());
            for r in 0..len {
                let i = first + r;
                gather_outputs(scores, n, i, &mut f);
                softmax(&f, &mut p);
                let y = usize::from(labels[i]);
                for (k, (&pk, (g, h))) in p.iter().zip(columns.iter_mut()).enumerate() {
                    g[r] = (pk - f64::from(u8::from(k == y))) as f32;
                    h[r] = (factor * pk * (1.0 - pk)) as f32;
                }
            }
        });
        Ok(())
    }

    fn combine(&self, outputs: &[f64]) -> f64 {
        expected_grade(outputs)
    }

    /// Blocks of documents in parallel (the expected grade of each from its own outputs).
    fn combine_all(&self, scores: &[f64], out: &mut [f64]) {
        let (n, k_out) = (out.len(), self.n_classes);
        out.par_chunks_mut(BLOCK).enumerate().for_each(|(b, block)| {
            let (mut f, mut p) = (vec![0.0; k_out], vec![0.0; k_out]);
            for (r, o) in block.iter_mut().enumerate() {
                gather_outputs(scores, n, b * BLOCK + r, &mut f);
                *o = expected_grade_into(&f, &mut p);
            }
        });
    }
}

/// Documents per parallel task of the per-round passes over the documents.
const BLOCK: usize = 4096;

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
        // Rows are independent: any split of the work gives the same bits. Each class's
        // ensemble scores a block of rows at once (`Ensemble::score_block`, the bits of
        // `score_row`), then each row's classes are combined as `score_row` combines them.
        let k_out = self.ensembles.len();
        out.par_chunks_mut(SCORE_BLOCK).enumerate().for_each(|(c, block)| {
            let len = block.len();
            let mut columns = vec![0.0; k_out * len];
            for (e, column) in self.ensembles.iter().zip(columns.chunks_exact_mut(len)) {
                e.score_block(data, c * SCORE_BLOCK, column);
            }
            let (mut f, mut p) = (vec![0.0; k_out], vec![0.0; k_out]);
            for (r, o) in block.iter_mut().enumerate() {
                gather_outputs(&columns, len, r, &mut f);
                *o = expected_grade_into(&f, &mut p);
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
