//! BayesRank (J.-W. Kuo, P.-J. Cheng, H.-M. Wang, "Learning to Rank from Bayesian Decision
//! Inference", CIKM 2009) on the network crate `ltr-neural`.
//!
//! The network's scores define a Plackett-Luce distribution over the rankings of a query's
//! documents; the loss of a ranking is `1 - NDCG@k` against the grades; training minimises the
//! Bayes risk, the loss expected under the distribution, summed over the training queries. The
//! expectation is taken exactly over the ordered top-`k` prefixes ([`risk`]), which is where
//! the loss lives. Only the paper's abstract could be read: the README says which parts are
//! derived and how.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod risk;

use ltr_core::{AlgorithmInfo, Dataset, Family, LossType, ParamInfo, Params, Result};
use ltr_neural::{NetworkDefaults, NetworkParams, settings};
use ltr_softrank::{ExpectedDcg, ExpectedNdcgObjective};
use serde::{Deserialize, Serialize};

pub use risk::{RiskScratch, TopKRisk};

/// Metadata of BayesRank: family Bayes, as in the survey's summary table.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 54.4 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "bayesrank",
    name: "BayesRank",
    family: Family::Bayes,
    year: 2009,
    loss: LossType::Listwise,
    optimizer: "gradient descent (Adam) on the Bayes risk",
    reference: "J.-W. Kuo, P.-J. Cheng, H.-M. Wang. Learning to Rank from Bayesian Decision Inference. \
                CIKM 2009, 827-836.",
    summary: "Plackett-Luce Bayes risk of 1 - NDCG@k on the shared network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(54.4, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The loss depth key.
const TOP_K: ParamInfo =
    ParamInfo::int("top_k", 1, 3, "k of the loss 1 - NDCG@k and of the top-k prefixes of the risk");

/// The defaults of BayesRank's network keys: ListMLE's (a linear model, Adam at step 1e-3,
/// one query per update); see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BayesRankDefaults;

impl NetworkDefaults for BayesRankDefaults {
    const NETWORK: NetworkParams<Self> = NetworkParams::BASE;
}

/// Hyperparameters of BayesRank (`bayesrank`): the loss depth and the network keys. See the
/// README for the source of each default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BayesRankParams {
    /// `k` of the loss `1 - NDCG@k` and of the top-`k` prefixes the risk sums over (default 2).
    pub top_k: usize,
    /// The network and training keys (defaults: [`BayesRankDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<BayesRankDefaults>,
}

impl Default for BayesRankParams {
    fn default() -> Self {
        Self { top_k: 2, network: NetworkParams::default() }
    }
}

impl Params for BayesRankParams {
    type Checked = BayesRank;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(&[TOP_K], settings::TABLE);

    fn validate(&self) -> Result<BayesRank> {
        TOP_K.check_int(self.top_k as u64)?;
        self.network.validate()?;
        Ok(BayesRank { top_k: self.top_k, settings: self.network })
    }
}

/// Validated BayesRank settings.
#[derive(Debug, Clone, PartialEq)]
pub struct BayesRank {
    top_k: usize,
    settings: NetworkParams<BayesRankDefaults>,
}

ltr_neural::network_learner!(BayesRank, INFO, |this, train| bayes_risk_objective(train, this.top_k));

/// BayesRank's cost of one query: the Bayes risk `1 - E[DCG@k] / IDCG@k` under the
/// Plackett-Luce model of the scores (the expected-NDCG cost SoftRank's crate implements once
/// for any model of the rankings).
pub type BayesRiskObjective = ExpectedNdcgObjective<TopKRisk>;

/// BayesRank's objective on the queries of `data` with the loss `1 - NDCG@top_k`.
pub fn bayes_risk_objective(data: &Dataset, top_k: usize) -> BayesRiskObjective {
    ExpectedNdcgObjective::with_model(data, top_k, |_| TopKRisk::new(top_k))
}

impl ExpectedDcg for TopKRisk {
    type Scratch = RiskScratch;

    fn expected_dcg<const GRAD: bool>(
        &self,
        gains: &[f64],
        scores: &[f64],
        grad: &mut [f64],
        scratch: &mut RiskScratch,
    ) -> f64 {
        TopKRisk::expected_dcg::<GRAD>(self, gains, scores, grad, scratch)
    }
}

#[cfg(test)]
mod tests;
