//! RankCosine (T. Qin, X.-D. Zhang, M.-F. Tsai, D.-S. Wang, T.-Y. Liu, H. Li, "Query-level
//! loss functions for information retrieval", Information Processing & Management 44(2),
//! 2008), id `rankcosine`: the query-level cosine loss between each query's score vector and
//! its target vector, minimised by an additive model of single-feature weak rankers whose
//! weights come in closed form (the survey's 23.24), on the query-level boosting loop of
//! `ltr-boosting` ([`boost_cosine`], a rule on its driver). See the README for every default.

mod boost;

pub use boost::{CosineConfig, CosineTarget, boost_cosine, cosine_targets};
pub use ltr_boosting::FeatureRanker;
use ltr_boosting::{BoostOutcome, Ensemble, FeatureSource};
use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation, param_info,
};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 52.3 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "rankcosine",
    name: "RankCosine",
    family: Family::Boosting,
    year: 2008,
    loss: LossType::Listwise,
    optimizer: "boosting (closed-form weights, cosine loss)",
    reference: "T. Qin, X.-D. Zhang, M.-F. Tsai, D.-S. Wang, T.-Y. Liu, H. Li. Query-level loss functions for \
                information retrieval. Information Processing & Management 44(2):838-855, 2008.",
    summary: "cosine loss",
    feature_scale: ltr_core::FeatureScale::Free(
        "each single-feature weak ranker's weight, in closed form, scales inversely with it",
    ),
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(52.3, "just bench-budget 2026-11-27, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("rounds", 200.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of RankCosine (`rankcosine`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankCosineParams {
    /// Maximum number of boosting rounds. Default 200. With validation data the model keeps
    /// the best prefix on it.
    pub rounds: usize,
    /// The target vector's function of the grades, normalised per query: `gain`
    /// (`2^y - 1`) or `grade` (`y`). Default `gain`.
    pub target: CosineTarget,
    /// Forbid the feature chosen in the previous round. Default `false`: the closed-form
    /// weight is only approximately optimal, and adding a feature again refines it.
    pub no_reselect: bool,
    /// Accept a weak ranker only if it lowers the training loss; stop when none does.
    /// Default `true`.
    pub require_improvement: bool,
    /// With a validation split: stop after this many rounds without a better validation
    /// measure; 0 runs every round. Default 50. The best prefix is kept either way.
    pub early_stopping_rounds: usize,
    /// Leave out training queries with a single grade. Default `true`. Queries without a
    /// relevant document are always left out (their target is zero).
    pub skip_uninformative: bool,
}

impl Default for RankCosineParams {
    fn default() -> Self {
        let c = CosineConfig::new(INFO.id);
        Self {
            rounds: c.max_rounds,
            target: c.target,
            no_reselect: c.no_reselect,
            require_improvement: c.require_improvement,
            early_stopping_rounds: c.early_stopping_rounds,
            skip_uninformative: c.skip_uninformative,
        }
    }
}

impl Params for RankCosineParams {
    type Checked = RankCosine;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int("rounds", 1, 100_000, "round cap; with vali the best prefix is kept"),
        ParamInfo::choice("target", &["gain", "grade"], "target vector: 2^y - 1 or y, unit length per query"),
        ParamInfo::flag("no_reselect", "forbid the feature chosen in the previous round"),
        ParamInfo::flag("require_improvement", "accept a feature only if it lowers the cosine loss"),
        ParamInfo::int(
            "early_stopping_rounds",
            0,
            100_000,
            "with vali: stop after this many rounds without a better measure (0: never)",
        ),
        ParamInfo::flag("skip_uninformative", "leave out training queries with a single grade"),
    ];

    fn validate(&self) -> Result<RankCosine> {
        param_info(Self::TABLE, "rounds").check_int(self.rounds as u64)?;
        param_info(Self::TABLE, "early_stopping_rounds").check_int(self.early_stopping_rounds as u64)?;
        Ok(RankCosine {
            cfg: CosineConfig {
                max_rounds: self.rounds,
                target: self.target,
                no_reselect: self.no_reselect,
                require_improvement: self.require_improvement,
                early_stopping_rounds: self.early_stopping_rounds,
                skip_uninformative: self.skip_uninformative,
                ..CosineConfig::new(INFO.id)
            },
        })
    }
}

/// A fitted RankCosine model: `f(x) = sum_t alpha_t x_{f_t}` (weights may be negative).
pub type RankCosineModel = Ensemble<FeatureRanker>;

/// Validated RankCosine.
#[derive(Debug, Clone, PartialEq)]
pub struct RankCosine {
    cfg: CosineConfig,
}

impl RankCosine {
    /// The loop settings.
    pub fn config(&self) -> &CosineConfig {
        &self.cfg
    }

    /// Fits and returns the loop's full outcome (per-round trace, stop reason).
    pub fn fit_outcome(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<BoostOutcome<FeatureRanker>> {
        let mut source = FeatureSource::for_training(INFO.id, train, false)?;
        boost_cosine(&mut source, train, valid, &self.cfg)
    }
}

impl Learner for RankCosine {
    type Model = RankCosineModel;

    /// Deterministic: `rng` is not used.
    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<RankCosineModel> {
        Ok(self.fit_outcome(train, valid)?.model)
    }
}

#[cfg(test)]
mod tests;
