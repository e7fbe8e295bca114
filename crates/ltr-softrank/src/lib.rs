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

pub mod rank;

use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, QueryView, Result, Rng, Validation,
};
use ltr_metrics::lambda::{LambdaConfig, LambdaScratch, PairLambdas};
use ltr_neural::{
    NetworkDefaults, NetworkParams, NeuralModel, QueryObjective, TrainReport, has_two_grades, settings,
};
use serde::{Deserialize, Serialize};

pub use rank::{SoftNdcg, SoftScratch, beat_probability, rank_distribution};

/// Metadata of SoftRank. The survey's summary table gives it no family; ANN, as it trains a
/// neural network like the paper's experiments.
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

impl SoftRank {
    /// Fits and also reports what training did.
    pub fn fit_with_report(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(NeuralModel, TrainReport)> {
        let mut objective = SoftRankObjective::new(train, self.variance, self.truncation);
        ltr_neural::train(INFO.id, train, valid, &self.settings, &mut objective, rng)
    }
}

impl Learner for SoftRank {
    type Model = NeuralModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<NeuralModel> {
        self.fit_with_report(train, valid, rng).map(|(m, _)| m)
    }
}

/// SoftRank's cost of one query: `C = 1 - SoftNDCG@k`, the soft DCG divided by the ideal
/// DCG@k of the query's grades.
#[derive(Debug, Clone)]
pub struct SoftRankObjective {
    soft: SoftNdcg,
    /// `2^y - 1` of every document of the data set.
    gains: Vec<f64>,
    /// `1 / ideal DCG@k` per query (0 without a relevant document).
    inv_ideal_dcg: Vec<f64>,
}

impl SoftRankObjective {
    /// The objective on the queries of `data`, scores of variance `variance`, SoftNDCG@k with
    /// `k = truncation` (0: the whole list).
    pub fn new(data: &Dataset, variance: f64, truncation: usize) -> Self {
        let longest = data.queries().map(|q| q.len()).max().unwrap_or(0);
        // The ideal DCG under the same discount `1 / log2(1 + rank)` and truncation, from the
        // workspace's one implementation of it.
        let ideal = PairLambdas::new(LambdaConfig::lambdarank(1.0, truncation), longest);
        let mut s = LambdaScratch::default();
        Self {
            soft: SoftNdcg::new(variance, truncation, longest),
            gains: data.labels().iter().map(|&y| f64::from(y).exp2() - 1.0).collect(),
            inv_ideal_dcg: data.queries().map(|q| ideal.inverse_ideal_dcg(q.labels, &mut s)).collect(),
        }
    }

    /// SoftNDCG of query `q` at `scores`.
    pub fn soft_ndcg(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut SoftScratch) -> f64 {
        self.inv_ideal_dcg[q.index]
            * self.soft.soft_dcg::<false>(&self.gains[q.range()], scores, &mut [], scratch)
    }
}

impl QueryObjective for SoftRankObjective {
    type Scratch = SoftScratch;

    /// Two grades at least (hence a relevant document, so a positive ideal DCG).
    fn is_active(&self, q: QueryView<'_>) -> bool {
        has_two_grades(q.labels) && self.inv_ideal_dcg[q.index] > 0.0
    }

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], scratch: &mut SoftScratch) {
        self.soft.soft_dcg::<true>(&self.gains[q.range()], scores, grad, scratch);
        let scale = -self.inv_ideal_dcg[q.index];
        grad.iter_mut().for_each(|g| *g *= scale);
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut SoftScratch) -> f64 {
        1.0 - self.soft_ndcg(q, scores, scratch)
    }
}

#[cfg(test)]
mod tests;
