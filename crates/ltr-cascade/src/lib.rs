//! The cascade ranking model (L. Wang, J. Lin, D. Metzler, "A cascade ranking model for
//! efficient ranked retrieval", SIGIR 2011), id `cascade`: boosting stages that each prune
//! the documents reaching them and score the survivors with one feature, learnt by AdaRank's
//! loop with a cost term ([`boost_cascade`], a rule on `ltr-boosting`'s driver). LETOR has no
//! feature costs: every evaluation of one feature on one document costs 1. See the README
//! for every default.
//!
//! The model ([`Cascade`], its [`Stage`]s and [`Pruning`]s, [`CascadeCost`]) is in `model`,
//! the learning rule in `boost`, the parameters and the learner here.

mod boost;
mod model;

pub use boost::{CascadeConfig, boost_cascade};
pub use ltr_boosting::FeatureRanker;
use ltr_boosting::{BoostConfig, FeatureSource, Outcome};
use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation, param_info,
};
use ltr_metrics::{EvalConfig, Metric};
pub use model::{Cascade, CascadeCost, Pruning, PruningKind, Stage};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 19.8 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "cascade",
    name: "Cascade",
    family: Family::Boosting,
    year: 2011,
    loss: LossType::Listwise,
    optimizer: "boosting (query reweighting, effectiveness-cost tradeoff)",
    reference: "L. Wang, J. Lin, D. Metzler. A cascade ranking model for efficient ranked retrieval. SIGIR 2011, \
                105-114.",
    summary: "stages with pruning; cost per query in the report",
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(19.8, "just bench-budget 2026-11-27, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("rounds", 500.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of the cascade ranking model (`cascade`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CascadeParams {
    /// The per-query effectiveness measure `E`: `map` or `ndcg@K`, under the convention the
    /// training data carries. Default `map`.
    pub metric: Metric,
    /// `gamma`, the weight of the cost in the tradeoff `E - gamma C`. Default 0.1 (the
    /// paper's).
    pub gamma: f64,
    /// The pruning family offered to the stages after the first: `rank`, `score` or
    /// `mean-max`. Default `rank`.
    pub pruning: PruningKind,
    /// The largest pruning parameter `beta` offered. Default 0.5.
    pub prune_max: f64,
    /// How many `beta`s are offered, evenly spaced up to `prune_max`
    /// (`prune_max * j / prune_steps`, `j = 1..=prune_steps`), besides no pruning; 0 offers
    /// no pruning at all (AdaRank with a cost-weighted selection). Default 5.
    pub prune_steps: usize,
    /// Maximum number of stages. Default 500. With validation data the model keeps the best
    /// prefix on it.
    pub rounds: usize,
    /// Forbid the feature of the previous stage. Default `true`.
    pub no_reselect: bool,
    /// Accept a stage only if it improves the query-weighted measure of the cascade; stop
    /// when none does. Default `true`.
    pub require_improvement: bool,
    /// Leave out training queries whose measure cannot change. Default `true`.
    pub skip_uninformative: bool,
}

impl Default for CascadeParams {
    fn default() -> Self {
        Self {
            metric: Metric::Map,
            gamma: 0.1,
            pruning: PruningKind::Rank,
            prune_max: 0.5,
            prune_steps: 5,
            rounds: 500,
            no_reselect: true,
            require_improvement: true,
            skip_uninformative: true,
        }
    }
}

impl Params for CascadeParams {
    type Checked = CascadeLearner;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::choice(
            "metric",
            &["map", "ndcg@K"],
            "the per-query measure E, under the data's convention",
        ),
        ParamInfo::real("gamma", 0.0, 0.99, "weight of the cost in the tradeoff E - gamma C"),
        ParamInfo::choice("pruning", &["rank", "score", "mean-max"], "the pruning family of the stages"),
        ParamInfo::real("prune_max", 0.0, 0.95, "the largest pruning parameter beta offered"),
        ParamInfo::int("prune_steps", 0, 20, "betas offered, evenly spaced up to prune_max (0: no pruning)"),
        ParamInfo::int("rounds", 1, 100_000, "stage cap; with vali the best prefix is kept"),
        ParamInfo::flag("no_reselect", "forbid the feature of the previous stage"),
        ParamInfo::flag("require_improvement", "accept a stage only if it improves the weighted measure"),
        ParamInfo::flag("skip_uninformative", "leave out training queries whose measure cannot change"),
    ];

    fn validate(&self) -> Result<CascadeLearner> {
        let info = |key| param_info(Self::TABLE, key);
        info("metric").check_choice(&self.metric.to_string())?;
        info("gamma").check_real(self.gamma)?;
        info("prune_max").check_real(self.prune_max)?;
        info("prune_steps").check_int(self.prune_steps as u64)?;
        info("rounds").check_int(self.rounds as u64)?;
        Ok(CascadeLearner { params: self.clone() })
    }
}

/// A fitted cascade: stages of (pruning, feature, weight). `score` runs the cascade per
/// query; `cost` counts its feature evaluations.
pub type CascadeModel = Cascade<FeatureRanker>;

/// Validated cascade settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadeLearner {
    params: CascadeParams,
}

impl CascadeLearner {
    /// The prunings offered to the stages after the first (besides none).
    pub fn prunings(&self) -> Vec<Pruning> {
        let p = &self.params;
        (1..=p.prune_steps).map(|j| p.pruning.with(p.prune_max * j as f64 / p.prune_steps as f64)).collect()
    }

    /// The loop configuration on `train`: `E` under the convention the training data
    /// carries.
    pub fn config(&self, train: &Dataset) -> CascadeConfig {
        let p = &self.params;
        CascadeConfig {
            boost: BoostConfig {
                max_rounds: p.rounds,
                no_reselect: p.no_reselect,
                require_improvement: p.require_improvement,
                skip_uninformative: p.skip_uninformative,
                ..BoostConfig::new(INFO.id, p.metric, EvalConfig::of(train))
            },
            gamma: p.gamma,
            prunings: self.prunings(),
        }
    }

    /// Fits and returns the loop's full outcome (per-stage trace, stop reason).
    pub fn fit_outcome(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<Outcome<CascadeModel>> {
        let mut source = FeatureSource::for_training(INFO.id, train, false)?;
        boost_cascade(&mut source, train, valid, &self.config(train))
    }
}

impl Learner for CascadeLearner {
    type Model = CascadeModel;

    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<CascadeModel> {
        Ok(self.fit_outcome(train, valid)?.model)
    }
}

#[cfg(test)]
mod tests;
