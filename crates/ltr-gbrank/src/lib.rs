//! Two pairwise tree-boosting rankers by Zheng, Zha and colleagues at Yahoo!, on the shared
//! histogram tree learner of `ltr-trees` (its `boost` loop, binning, validation and early
//! stopping; each algorithm supplies only per-document gradients and hessians):
//!
//! * `gbrank`, GBRank (Z. Zheng, K. Chen, G. Sun, H. Zha, "A regression framework for learning
//!   ranking functions using relative relevance judgments", SIGIR 2007): functional gradient
//!   descent on the squared hinge over preference pairs. Each round fits a regression tree
//!   to the swapped targets `h(y) + tau` / `h(x) - tau` of the pairs the current function
//!   violates by less than the margin `tau` ([`GbRankObjective`]), and combines as the paper
//!   does, `h_k = (k h_{k-1} + eta g_k) / (k + 1)`.
//! * `qbrank`, QBRank (Z. Zheng, H. Zha, T. Zhang, O. Chapelle, K. Chen, G. Sun, "A general
//!   boosting method and its application to learning ranking functions for web search", NIPS
//!   2007): boosting on quadratic upper bounds of a loss that combines the squared hinge over
//!   the pairs with squared error on the grades ([`QbRankObjective`]); each tree is the
//!   weighted least-squares minimiser of the bound.
//!
//! Both models are a [`ltr_trees::Ensemble`]. Pairs are every two documents of one query
//! with different grades ([`PairIndex`]). See the README for the equations, the departures
//! from the papers and every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod gbrank;
mod pairs;
mod qbrank;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, FeatureScale, Learner, LossType, ParamInfo, Params, Result, Rng,
    Validation, param_table,
};
use ltr_trees::{BaseTreeParams, BoostConfig, Ensemble, TreeParams, boost, rows};
use serde::{Deserialize, Serialize};

pub use crate::gbrank::GbRankObjective;
pub use crate::pairs::PairIndex;
pub use crate::qbrank::QbRankObjective;

/// Metadata of `gbrank`.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 64.9 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `trees`.
pub const INFO_GBRANK: AlgorithmInfo = AlgorithmInfo {
    id: "gbrank",
    name: "GBRank",
    family: Family::Trees,
    year: 2007,
    loss: LossType::Pairwise,
    optimizer: "functional gradient boosting (regression trees on swapped pair targets)",
    reference: "Z. Zheng, K. Chen, G. Sun, H. Zha. A Regression Framework for Learning Ranking Functions \
                Using Relative Relevance Judgments. SIGIR 2007.",
    summary: "regression trees on the swapped targets of violated pairs; on the shared histogram GBDT learner",
    validation_metric: "ndcg@10",
    feature_scale: FeatureScale::QUANTILE_BINS,
    small_settings: &["trees=4"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(64.9, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("trees", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Metadata of `qbrank`.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 59.4 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `trees`.
pub const INFO_QBRANK: AlgorithmInfo = AlgorithmInfo {
    id: "qbrank",
    name: "QBRank",
    family: Family::Trees,
    year: 2007,
    loss: LossType::Hybrid,
    optimizer: "boosting on a quadratic upper bound (weighted least-squares trees)",
    reference: "Z. Zheng, H. Zha, T. Zhang, O. Chapelle, K. Chen, G. Sun. A General Boosting Method and \
                its Application to Learning Ranking Functions for Web Search. NIPS 2007.",
    summary: "quadratic upper bound of a pairs + grades loss; on the shared histogram GBDT learner",
    validation_metric: "ndcg@10",
    feature_scale: FeatureScale::QUANTILE_BINS,
    small_settings: &["trees=4"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(59.4, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("trees", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// GBRank hyperparameters (keys for specs and `--set`): the number of trees, the paper's
/// shrinkage `eta` and margin `tau`, and the tree keys every tree ranker has.
///
/// `learning_rate` is `eta` in `h_k = (k h_{k-1} + eta g_k) / (k + 1)`, default 1 here (not
/// LightGBM's 0.1): below 1/3 the combination keeps every score within `eta tau / (1 - eta)`
/// of 0, so no pair could ever lead by `tau` (see the README). It is a field of its own, not
/// [`TreeParams`]' flattened one, because a flattened struct fills its missing keys from its
/// own `Default`, so a spec that omits the key would get 0.1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GbRankParams {
    /// Boosting rounds, one tree each (default 100). With a validation split the best prefix
    /// is kept.
    pub trees: usize,
    /// The paper's shrinkage `eta` of every tree (default 1).
    pub learning_rate: f64,
    /// The margin `tau > 0` a preferred document must lead by (default 1). With `h_0 = 0` it
    /// only sets the scale of `h`: the trees' splits do not depend on it.
    pub tau: f64,
    /// The tree keys every tree ranker has (`leaves`, `min_data_in_leaf`,
    /// `early_stopping_rounds`), LightGBM's defaults.
    #[serde(flatten)]
    pub tree: BaseTreeParams,
}

impl Default for GbRankParams {
    fn default() -> Self {
        Self { trees: 100, learning_rate: 1.0, tau: 1.0, tree: BaseTreeParams::default() }
    }
}

/// GBRank's margin key.
const GB_TAU: ParamInfo =
    ParamInfo::positive("tau", 0.0, 1e6, "the margin a preferred document must lead by");

impl Params for GbRankParams {
    type Checked = GbRank;

    /// The rows of `trees` and `learning_rate` are `ltr-trees`' (LambdaMART's ranges).
    const TABLE: &'static [ParamInfo] =
        param_table!(&[rows::TREES, rows::LEARNING_RATE, GB_TAU], BaseTreeParams::TABLE);

    fn validate(&self) -> Result<GbRank> {
        GB_TAU.check_real(self.tau)?;
        // `trees` and `learning_rate` are checked through the same rows.
        Ok(PairTrees { boost: self.tree.boost_config(self.trees, self.learning_rate)?, params: self.clone() })
    }
}

/// QBRank hyperparameters (keys for specs and `--set`): the tree keys of `ltr-trees`
/// (LightGBM's defaults; `learning_rate` is the step `s` of `h_k = h_{k-1} + s g_k`, at most
/// 1, so that each round lowers the loss) plus the margin and the pairs' share of the loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QbRankParams {
    /// The tree and boosting keys (`trees`, `leaves`, `learning_rate`, ...), LightGBM's.
    #[serde(flatten)]
    pub tree: TreeParams,
    /// The margin `tau > 0` of the pairs' squared hinge, on the grades' scale (default 1,
    /// one grade).
    pub tau: f64,
    /// The share `w` in `[0, 1]` of the pairs in the loss, `1 - w` the grades' (default 0.5):
    /// 1 is pairs only, 0 least squares on the grades.
    pub pair_weight: f64,
}

impl Default for QbRankParams {
    fn default() -> Self {
        Self { tree: TreeParams::default(), tau: 1.0, pair_weight: 0.5 }
    }
}

/// QBRank's margin key.
const QB_TAU: ParamInfo =
    ParamInfo::positive("tau", 0.0, 1e6, "the margin of the pairs' squared hinge, on the grades' scale");

/// QBRank's pair share key.
const PAIR_WEIGHT: ParamInfo = ParamInfo::real(
    "pair_weight",
    0.0,
    1.0,
    "the share of the pairwise part of the loss (1 - it: the grades')",
);

impl Params for QbRankParams {
    type Checked = QbRank;

    const TABLE: &'static [ParamInfo] = param_table!(TreeParams::TABLE, &[QB_TAU, PAIR_WEIGHT]);

    fn validate(&self) -> Result<QbRank> {
        QB_TAU.check_real(self.tau)?;
        PAIR_WEIGHT.check_real(self.pair_weight)?;
        Ok(PairTrees { boost: self.tree.boost_config()?, params: self.clone() })
    }
}

/// Validated parameters `P` of a pairwise tree ranker with the boosting settings of their
/// tree keys, ready to fit.
#[derive(Debug, Clone)]
pub struct PairTrees<P> {
    params: P,
    boost: BoostConfig,
}

impl<P> PairTrees<P> {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &P {
        &self.params
    }

    /// The pairs of `train`, refusing an empty training set or, when `need_pairs`, one
    /// without any pair.
    fn pairs(&self, id: &'static str, train: &Dataset, need_pairs: bool) -> Result<PairIndex> {
        if train.n_docs() == 0 {
            return Err(Error::fit(id, "empty training set"));
        }
        let pairs = PairIndex::new(train.labels(), train.query_offsets());
        if need_pairs && pairs.n_pairs() == 0 {
            return Err(Error::fit(
                id,
                "no training query has documents with different grades: there are no pairs",
            ));
        }
        Ok(pairs)
    }
}

/// Validated [`GbRankParams`].
pub type GbRank = PairTrees<GbRankParams>;

/// Validated [`QbRankParams`].
pub type QbRank = PairTrees<QbRankParams>;

impl Learner for GbRank {
    type Model = Ensemble;

    /// Bins the training features once for every fit with the same binning settings.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        ltr_trees::prepare(train, &self.boost)
    }

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<Ensemble> {
        let pairs = self.pairs(INFO_GBRANK.id, train, true)?;
        let mut objective = GbRankObjective::new(&pairs, train.n_docs(), self.params.tau);
        let boosted = boost(train, valid, &mut objective, &self.boost, rng)?;
        log::debug!(
            "gbrank: {} pairs, {} rounds run, {} trees kept, pairs in S- per round {:?}",
            pairs.n_pairs(),
            boosted.rounds_run,
            boosted.ensemble.trees.len(),
            objective.violated()
        );
        Ok(boosted.ensemble)
    }
}

impl Learner for QbRank {
    type Model = Ensemble;

    /// Bins the training features once for every fit with the same binning settings.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        ltr_trees::prepare(train, &self.boost)
    }

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<Ensemble> {
        // With a share for the grades, a training set without pairs still has a loss.
        let pairs = self.pairs(INFO_QBRANK.id, train, self.params.pair_weight == 1.0)?;
        let mut objective =
            QbRankObjective::new(&pairs, train.labels(), self.params.tau, self.params.pair_weight);
        let boosted = boost(train, valid, &mut objective, &self.boost, rng)?;
        log::debug!(
            "qbrank: {} pairs, {} rounds run, {} trees kept",
            pairs.n_pairs(),
            boosted.rounds_run,
            boosted.ensemble.trees.len()
        );
        Ok(boosted.ensemble)
    }
}

#[cfg(test)]
mod tests;
