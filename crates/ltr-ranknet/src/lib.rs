//! RankNet and LambdaRank on the network crate `ltr-neural`: two algorithm ids, one
//! implementation that differs only in the pair weights.
//!
//! * `ranknet` (C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton,
//!   G. Hullender, "Learning to Rank using Gradient Descent", ICML 2005): for every pair of
//!   documents of a query with `y_i > y_j`, the modelled probability
//!   `P_ij = 1 / (1 + exp(-sigma (s_i - s_j)))` against the target `P̄_ij = (1 + S_ij) / 2`
//!   with `S_ij = 1`, cross-entropy cost `C_ij = log(1 + exp(-sigma (s_i - s_j)))`.
//! * `lambdarank` (C. Burges, R. Ragno, Q. Le, "Learning to Rank with Nonsmooth Cost
//!   Functions", NIPS 2006): RankNet's pair gradient times `|delta NDCG|` of swapping the pair
//!   in the current ranking, exactly as LambdaMART weighs its pairs (gain `2^y - 1`, discount
//!   `1 / log2(1 + r)`, truncation `ndcg_truncation`, default the whole list), without
//!   LambdaMART's LightGBM normalisations.
//!
//! Both use the factorisation of Burges' MSR-TR-2010-82, section 2.1: per query the pair
//! lambdas are summed into one `lambda_i = dC/ds_i` per document (`ltr_metrics::lambda`,
//! the implementation LambdaMART uses), then the network does one backward pass per
//! document, not per pair. The tests check this equals the per-pair gradient. See the
//! README for every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, QueryView, Result, Rng, Validation,
};
use ltr_metrics::lambda::{LambdaConfig, LambdaScratch, PairLambdas};
use ltr_neural::{
    Activation, NetworkDefaults, NetworkParams, NeuralModel, QueryObjective, has_two_grades, settings,
};
use serde::{Deserialize, Serialize};

/// Metadata of RankNet.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 112.2 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`. A wider hidden layer costs more, which is not modelled.
pub const INFO_RANKNET: AlgorithmInfo = AlgorithmInfo {
    id: "ranknet",
    name: "RankNet",
    family: Family::Ann,
    year: 2005,
    loss: LossType::Pairwise,
    optimizer: "gradient descent (Adam), backpropagation",
    reference: "C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton, G. Hullender. \
                Learning to Rank using Gradient Descent. ICML 2005, 89-96.",
    summary: "linear or MLP scorer on the shared, deterministic network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3", "hidden=4"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(112.2, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Metadata of LambdaRank.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 115.0 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`. A wider hidden layer costs more, which is not modelled.
pub const INFO_LAMBDARANK: AlgorithmInfo = AlgorithmInfo {
    id: "lambdarank",
    name: "LambdaRank",
    family: Family::Ann,
    year: 2006,
    loss: LossType::Listwise,
    optimizer: "gradient descent (Adam), backpropagation",
    reference: "C. Burges, R. Ragno, Q. Le. Learning to Rank with Nonsmooth Cost Functions. NIPS 2006, 193-200.",
    summary: "linear or MLP scorer on the shared, deterministic network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3", "hidden=4"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(115.0, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The sigmoid steepness key.
const SIGMA: ParamInfo =
    ParamInfo::positive("sigma", 0.0, 100.0, "steepness of the pair probability sigmoid");

/// LambdaRank's truncation key.
const NDCG_TRUNCATION: ParamInfo =
    ParamInfo::int("ndcg_truncation", 0, 1_000_000, "k of the NDCG@k weighting the pairs; 0 = whole list");

/// The defaults of RankNet's and LambdaRank's network keys: RankLib's RankNet budget and
/// shape (100 epochs, one hidden layer of 10 units, here `relu`), trained with Adam at step
/// 5e-4 on batches of 8 queries; see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankNetDefaults;

impl NetworkDefaults for RankNetDefaults {
    const NETWORK: NetworkParams<Self> = NetworkParams {
        hidden: 10,
        activation: Activation::Relu,
        learning_rate: 5e-4,
        batch: 8,
        ..NetworkParams::BASE
    };
}

/// Hyperparameters of RankNet (`ranknet`): `sigma` and the network keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankNetParams {
    /// Steepness of the pair sigmoid (default 1).
    pub sigma: f64,
    /// The network and training keys (defaults: [`RankNetDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<RankNetDefaults>,
}

impl Default for RankNetParams {
    fn default() -> Self {
        Self { sigma: 1.0, network: NetworkParams::default() }
    }
}

/// Hyperparameters of LambdaRank (`lambdarank`): those of [`RankNetParams`] plus
/// `ndcg_truncation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LambdaRankParams {
    /// Steepness of the pair sigmoid (default 1).
    pub sigma: f64,
    /// `k` of the NDCG@k whose swaps weight the pairs; 0 (default) is the whole list, as
    /// LambdaMART's default.
    pub ndcg_truncation: usize,
    /// The network and training keys (defaults: [`RankNetDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<RankNetDefaults>,
}

impl Default for LambdaRankParams {
    fn default() -> Self {
        Self { sigma: 1.0, ndcg_truncation: 0, network: NetworkParams::default() }
    }
}

impl Params for RankNetParams {
    type Checked = RankNet;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(&[SIGMA], settings::TABLE);

    fn validate(&self) -> Result<RankNet> {
        SIGMA.check_real(self.sigma)?;
        RankNet::checked(LambdaConfig::ranknet(self.sigma), self.network, INFO_RANKNET.id)
    }
}

impl Params for LambdaRankParams {
    type Checked = RankNet;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(&[SIGMA, NDCG_TRUNCATION], settings::TABLE);

    fn validate(&self) -> Result<RankNet> {
        SIGMA.check_real(self.sigma)?;
        NDCG_TRUNCATION.check_int(self.ndcg_truncation as u64)?;
        let config = LambdaConfig::lambdarank(self.sigma, self.ndcg_truncation);
        RankNet::checked(config, self.network, INFO_LAMBDARANK.id)
    }
}

/// Validated RankNet or LambdaRank settings (the pair weights tell them apart).
#[derive(Debug, Clone, PartialEq)]
pub struct RankNet {
    config: LambdaConfig,
    settings: NetworkParams<RankNetDefaults>,
    id: &'static str,
}

impl RankNet {
    /// The learner of `id` once its network keys pass their checks.
    fn checked(
        config: LambdaConfig,
        settings: NetworkParams<RankNetDefaults>,
        id: &'static str,
    ) -> Result<Self> {
        settings.validate()?;
        Ok(Self { config, settings, id })
    }

    /// The network and training settings.
    pub fn settings(&self) -> &NetworkParams<RankNetDefaults> {
        &self.settings
    }

    /// Fits and also reports what training did.
    pub fn fit_with_report(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(NeuralModel, ltr_neural::TrainReport)> {
        let mut objective = PairObjective::new(self.config, train);
        ltr_neural::train(self.id, train, valid, &self.settings, &mut objective, rng)
    }
}

impl Learner for RankNet {
    type Model = NeuralModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<NeuralModel> {
        self.fit_with_report(train, valid, rng).map(|(m, _)| m)
    }
}

/// The RankNet / LambdaRank cost of one query: `ltr_metrics::lambda` on the scores.
#[derive(Debug, Clone)]
pub struct PairObjective {
    lambdas: PairLambdas,
    /// `1 / ideal DCG@k` per query (1 for RankNet).
    inv_ideal_dcg: Vec<f64>,
}

impl PairObjective {
    /// The objective of `config` on the queries of `data`.
    pub fn new(config: LambdaConfig, data: &Dataset) -> Self {
        let lambdas = PairLambdas::for_offsets(config, data.query_offsets());
        let mut s = LambdaScratch::default();
        let inv_ideal_dcg = data.queries().map(|q| lambdas.inverse_ideal_dcg(q.labels, &mut s)).collect();
        Self { lambdas, inv_ideal_dcg }
    }
}

impl QueryObjective for PairObjective {
    type Scratch = (LambdaScratch, Vec<f64>);

    /// Two grades at least (hence a relevant document, so a positive ideal DCG).
    fn is_active(&self, q: QueryView<'_>) -> bool {
        has_two_grades(q.labels) && self.inv_ideal_dcg[q.index] > 0.0
    }

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], scratch: &mut Self::Scratch) {
        let inv = self.inv_ideal_dcg[q.index];
        self.lambdas.query::<false>(q.labels, scores, inv, grad, None, &mut scratch.0);
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut Self::Scratch) -> f64 {
        let inv = self.inv_ideal_dcg[q.index];
        let (pairs, grad) = scratch;
        grad.resize(q.len(), 0.0);
        self.lambdas.query::<true>(q.labels, scores, inv, grad, None, pairs)
    }
}

#[cfg(test)]
mod tests;
