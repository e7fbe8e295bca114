//! SoftRank (M. Taylor, J. Guiver, S. Robertson, T. Minka, "SoftRank: Optimizing Non-Smooth
//! Rank Metrics", WSDM 2008) on the network crate `ltr-neural`.
//!
//! Each document's score is smoothed into a Gaussian `N(s_j, v)` around the network's output
//! `s_j`; the pairwise beat probabilities of these scores give every document a distribution
//! over ranks (the paper's recursion), and the expected NDCG under those distributions,
//! SoftNDCG, is smooth in the scores. Training maximises SoftNDCG (minimises `1 - SoftNDCG`
//! per query) by gradient descent through the network, with the exact gradient of the
//! recursion ([`rank`]). The score variance `v` is a hyperparameter. See the README for the
//! equations, the departures and every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod objective;
pub mod rank;

use ltr_core::{AlgorithmInfo, Dataset, Family, LossType, ParamInfo, Params, Result};
use ltr_neural::{NetworkDefaults, NetworkParams, settings};
use serde::{Deserialize, Serialize};

pub use objective::{ExpectedDcg, ExpectedNdcgObjective};
pub use rank::{SoftNdcg, SoftScratch, beat_probability, rank_distribution};

/// Metadata of SoftRank. The survey's summary table gives it no family; ANN, as it trains a
/// neural network like the paper's experiments.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 191.6 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-28, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "softrank",
    name: "SoftRank",
    family: Family::Ann,
    year: 2008,
    loss: LossType::Listwise,
    optimizer: "gradient descent (Adam), backpropagation",
    reference: "M. Taylor, J. Guiver, S. Robertson, T. Minka. SoftRank: Optimizing Non-Smooth Rank Metrics. \
                WSDM 2008, 77-86.",
    summary: "SoftNDCG of Gaussian scores on the shared network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(191.6, "just bench-budget 2026-11-28, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The score variance key.
const VARIANCE: ParamInfo =
    ParamInfo::positive("variance", 0.0, 1e6, "variance sigma_s^2 of each document's Gaussian score");

/// The truncation key.
const NDCG_TRUNCATION: ParamInfo =
    ParamInfo::int("ndcg_truncation", 0, 1_000_000, "k of the SoftNDCG@k trained; 0 = whole list");

/// The defaults of SoftRank's network keys: a linear model trained with Adam at step 1e-3 (as
/// ListNet), four queries per update (so that two threads share each update); see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoftRankDefaults;

impl NetworkDefaults for SoftRankDefaults {
    const NETWORK: NetworkParams<Self> = NetworkParams { batch: 4, ..NetworkParams::BASE };
}

/// Hyperparameters of SoftRank (`softrank`): the score variance, the truncation and the
/// network keys. See the README for the source of each default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SoftRankParams {
    /// The variance `sigma_s^2` of every document's Gaussian score (default 0.01).
    pub variance: f64,
    /// `k` of the SoftNDCG@k trained; 0 is the whole list, as in the paper (default 10).
    pub ndcg_truncation: usize,
    /// The network and training keys (defaults: [`SoftRankDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<SoftRankDefaults>,
}

impl Default for SoftRankParams {
    fn default() -> Self {
        Self { variance: 0.01, ndcg_truncation: 10, network: NetworkParams::default() }
    }
}

impl Params for SoftRankParams {
    type Checked = SoftRank;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(&[VARIANCE, NDCG_TRUNCATION], settings::TABLE);

    fn validate(&self) -> Result<SoftRank> {
        VARIANCE.check_real(self.variance)?;
        NDCG_TRUNCATION.check_int(self.ndcg_truncation as u64)?;
        self.network.validate()?;
        Ok(SoftRank { variance: self.variance, truncation: self.ndcg_truncation, settings: self.network })
    }
}

/// Validated SoftRank settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftRank {
    variance: f64,
    truncation: usize,
    settings: NetworkParams<SoftRankDefaults>,
}

ltr_neural::network_learner!(SoftRank, INFO, |this, train| SoftRankObjective::new(
    train,
    this.variance,
    this.truncation
));

/// SoftRank's cost of one query: `C = 1 - SoftNDCG@k`, the soft DCG divided by the ideal
/// DCG@k of the query's grades.
pub type SoftRankObjective = ExpectedNdcgObjective<SoftNdcg>;

impl ExpectedNdcgObjective<SoftNdcg> {
    /// The objective on the queries of `data`, scores of variance `variance`, SoftNDCG@k with
    /// `k = truncation` (0: the whole list).
    pub fn new(data: &Dataset, variance: f64, truncation: usize) -> Self {
        Self::with_model(data, truncation, |longest| SoftNdcg::new(variance, truncation, longest))
    }
}

impl ExpectedDcg for SoftNdcg {
    type Scratch = SoftScratch;

    fn expected_dcg<const GRAD: bool>(
        &self,
        gains: &[f64],
        scores: &[f64],
        grad: &mut [f64],
        scratch: &mut SoftScratch,
    ) -> f64 {
        self.soft_dcg::<GRAD>(gains, scores, grad, scratch)
    }
}

#[cfg(test)]
mod tests;
