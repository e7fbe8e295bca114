//! BoltzRank (M. N. Volkovs, R. S. Zemel, "BoltzRank: Learning to Maximize Expected Ranking
//! Gain", ICML 2009) on the network crate `ltr-neural`.
//!
//! A query's documents get scores `s` from a scoring function with individual and pairwise
//! potentials ([`pairwise`]: the network's output for each document, moved towards the
//! outputs of the documents that resemble it). The scores define a Boltzmann distribution over the
//! rankings of the query, `P(pi | s) ~ exp(-E[pi | s])`, with the paper's energy
//! `E[pi | s] = 2 / (m (m - 1)) sum_{u < v} alpha (v - u) (s_pi(v) - s_pi(u))` ([`sampler`]).
//! Training minimises `-E_P[NDCG] + lambda KL(Q || P)` per query, `Q` the Boltzmann
//! distribution of the grades, both terms estimated from rankings drawn from `Q` by a seeded
//! Metropolis sampler ([`objective`]). Documents are ranked by their scores. See the README
//! for what the paper gives, what is derived here, and every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod objective;
pub mod pairwise;
pub mod sampler;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, ParamRange, Params, Ranker, Result,
    Rng, Validation, check_scoring,
};
use ltr_neural::{NetworkDefaults, NetworkParams, NeuralModel, Standardizer, TrainReport, settings};
use serde::{Deserialize, Serialize};

pub use objective::{BoltzObjective, ObjectiveSettings};
pub use pairwise::{Pairwise, PairwiseMeasure, QueryWeights, WithPairwise};

/// Metadata of BoltzRank.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 97.5 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "boltzrank",
    name: "BoltzRank",
    family: Family::Ann,
    year: 2009,
    loss: LossType::Listwise,
    optimizer: "gradient ascent on the sampled expected NDCG (Adam), backpropagation",
    reference: "M. N. Volkovs, R. S. Zemel. BoltzRank: Learning to Maximize Expected Ranking Gain. \
                ICML 2009, 1089-1096.",
    summary: "expected NDCG under a sampled Boltzmann distribution over rankings",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3", "samples=2"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(97.5, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// `alpha`: the energy's scale.
const ALPHA: ParamInfo =
    ParamInfo::positive("alpha", 0.0, 1000.0, "energy scale: g(x) = alpha x of the rank distance");
/// `kl_weight`: the divergence term's weight.
const KL_WEIGHT: ParamInfo =
    ParamInfo::real("kl_weight", 0.0, 1000.0, "weight of KL(target || model) next to the expected NDCG");
/// `samples`: rankings per query and epoch.
const SAMPLES: ParamInfo =
    ParamInfo::int("samples", 1, 10_000, "rankings drawn from each distribution per query and epoch");
/// `ndcg_truncation`: k of the expected NDCG@k.
const NDCG_TRUNCATION: ParamInfo =
    ParamInfo::int("ndcg_truncation", 0, 1_000_000, "k of the expected NDCG@k; 0 = whole list");
/// `pairwise`: weight of the pairwise potentials.
const PAIRWISE: ParamInfo = ParamInfo {
    key: "pairwise",
    range: ParamRange::Real { min: 0.0, max: 1.0, open_min: false, open_max: true },
    doc: "weight of the pairwise potentials pulling a score towards similar documents'; 0 = none",
};
/// `bandwidth`: the pairwise weights' distance scale.
const BANDWIDTH: ParamInfo = ParamInfo::positive(
    "bandwidth",
    0.0,
    100.0,
    "distance scale of the pairwise weights (standard deviations)",
);

/// The defaults of BoltzRank's network keys: ListNet's (a linear network trained with Adam at
/// step 1e-3, one query per update, 100 epochs), BoltzRank's comparator; see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoltzRankDefaults;

impl NetworkDefaults for BoltzRankDefaults {
    const NETWORK: NetworkParams<Self> = NetworkParams::BASE;
}

/// Hyperparameters of BoltzRank (`boltzrank`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BoltzRankParams {
    /// `alpha` of the energy's `g(x) = alpha x` (default 1).
    pub alpha: f64,
    /// Weight `lambda` of the divergence `KL(Q || P)` next to the expected NDCG (default 1).
    pub kl_weight: f64,
    /// Rankings drawn per query, epoch and distribution (default 10).
    pub samples: usize,
    /// `k` of the NDCG@k whose expectation is maximised; 0 (default) is the whole list.
    pub ndcg_truncation: usize,
    /// Weight `beta` of the pairwise potentials, in `[0, 1)` (default 0.25); 0 scores each
    /// document by its individual potential alone.
    pub pairwise: f64,
    /// Bandwidth `tau` of the pairwise weights, in standard deviations per varying feature
    /// (default 2).
    pub bandwidth: f64,
    /// The network and training keys (defaults: [`BoltzRankDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<BoltzRankDefaults>,
}

impl Default for BoltzRankParams {
    fn default() -> Self {
        Self {
            alpha: 1.0,
            kl_weight: 1.0,
            samples: 10,
            ndcg_truncation: 0,
            pairwise: 0.25,
            bandwidth: 2.0,
            network: NetworkParams::default(),
        }
    }
}

impl Params for BoltzRankParams {
    type Checked = BoltzRank;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(
        &[ALPHA, KL_WEIGHT, SAMPLES, NDCG_TRUNCATION, PAIRWISE, BANDWIDTH],
        settings::TABLE
    );

    fn validate(&self) -> Result<BoltzRank> {
        ALPHA.check_real(self.alpha)?;
        KL_WEIGHT.check_real(self.kl_weight)?;
        SAMPLES.check_int(self.samples as u64)?;
        NDCG_TRUNCATION.check_int(self.ndcg_truncation as u64)?;
        PAIRWISE.check_real(self.pairwise)?;
        BANDWIDTH.check_real(self.bandwidth)?;
        self.network.validate()?;
        Ok(BoltzRank {
            objective: ObjectiveSettings {
                alpha: self.alpha,
                kl_weight: self.kl_weight,
                samples: self.samples,
                ndcg_truncation: self.ndcg_truncation,
            },
            pairwise: (self.pairwise > 0.0).then_some((self.pairwise, self.bandwidth)),
            settings: self.network,
        })
    }
}

/// Validated BoltzRank settings.
#[derive(Debug, Clone, PartialEq)]
pub struct BoltzRank {
    objective: ObjectiveSettings,
    /// The weight and bandwidth of the pairwise potentials.
    pairwise: Option<(f64, f64)>,
    settings: NetworkParams<BoltzRankDefaults>,
}

impl BoltzRank {
    /// Fits and also reports what training did.
    pub fn fit_with_report(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(BoltzRankModel, TrainReport)> {
        let objective = BoltzObjective::new(train, self.objective);
        let Some((weight, bandwidth)) = self.pairwise else {
            let mut objective = objective;
            let (net, report) =
                ltr_neural::train(INFO.id, train, valid, &self.settings, &mut objective, rng)?;
            return Ok((BoltzRankModel { pairwise: None, net }, report));
        };
        let pairwise = Pairwise { standardizer: Standardizer::fit(train, INFO.id)?, bandwidth, weight };
        let mut objective = WithPairwise::new(objective, pairwise.clone(), train);
        let measure = valid.map(|v| PairwiseMeasure {
            inner: v.measure,
            pairwise: &pairwise,
            weights: pairwise.all_weights(v.data),
        });
        let valid = valid.zip(measure.as_ref()).map(|(v, measure)| Validation { data: v.data, measure });
        let (net, report) =
            ltr_neural::train(INFO.id, train, valid.as_ref(), &self.settings, &mut objective, rng)?;
        Ok((BoltzRankModel { pairwise: Some(pairwise), net }, report))
    }
}

impl Learner for BoltzRank {
    type Model = BoltzRankModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<BoltzRankModel> {
        self.fit_with_report(train, valid, rng).map(|(m, _)| m)
    }
}

/// A fitted BoltzRank scoring function: the network (the individual potentials) and, with
/// pairwise potentials, their [`Pairwise`] settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoltzRankModel {
    /// The pairwise potentials (`None`: individual potentials only).
    pub pairwise: Option<Pairwise>,
    /// The network of the individual potentials.
    pub net: NeuralModel,
}

impl Ranker for BoltzRankModel {
    fn n_features(&self) -> usize {
        self.net.n_features()
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.n_features())?;
        self.net.check()?;
        if let Some(p) = &self.pairwise
            && (!p.is_consistent() || p.n_features() != self.net.n_features())
        {
            return Err(Error::model(format!(
                "boltzrank model: pairwise potentials over {} features ({} scales, bandwidth {}, weight {}) do not fit a network of {} features",
                p.n_features(),
                p.standardizer.scale.len(),
                p.bandwidth,
                p.weight,
                self.net.n_features()
            )));
        }
        Ok(())
    }

    /// One document scored alone, as the only document of its query: its individual
    /// potential (there is no other document to pull it). Rankings come from
    /// [`Ranker::score`], which sees whole queries.
    fn score_row(&self, row: &[f32]) -> f64 {
        self.net.score_row(row)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features(), data, out)?;
        self.net.score(data, out)?;
        if let Some(p) = &self.pairwise {
            if !p.is_consistent() {
                return Err(Error::model("boltzrank model: inconsistent pairwise potentials"));
            }
            p.score_data(data, &p.all_weights(data), out);
        }
        Ok(())
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Undefined(
            "a neural network over each document and its view of the others, whose weights do not rank features",
        )
    }
}

#[cfg(test)]
mod tests;
