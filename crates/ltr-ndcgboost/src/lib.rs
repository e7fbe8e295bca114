//! NDCGBoost (H. Valizadegan, R. Jin, R. Zhang, J. Mao, "Learning to rank by optimizing NDCG
//! measure", NIPS 2009), id `ndcgboost`: the expectation of NDCG over the distribution of
//! rankings that the scores induce (`Pr(pi | F) ∝ exp(sum over the ranking's pairs of the
//! upper document's score minus the lower's)`), relaxed by Jensen's inequality to a function
//! of the expected ranks, and maximised by boosting binary weak rankers with a bound on the
//! change of the relaxed objective (bound optimisation): each round a weighted
//! classification picks the weak ranker, and its weight maximises the bound in closed form.
//! The rounds run on the query-level boosting driver of `ltr-boosting`; `objective` has the
//! formulas, `rule` the round, the README every default and where this departs from the
//! paper.

mod objective;
mod rule;

pub use ltr_boosting::ThresholdRanker;
use ltr_boosting::{BoostOutcome, Ensemble, ThresholdLoopParams};
use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
};
pub use objective::{
    EXACT_MAX_DOCS, exact_expected_ndcg, gain, ideal_dcg, rank_marginals, relaxed_expected_ndcg,
};
use serde::{Deserialize, Serialize};

use crate::rule::{NdcgQuery, NdcgRule};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 169.2 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ndcgboost",
    name: "NDCGBoost",
    family: Family::Boosting,
    year: 2009,
    loss: LossType::Listwise,
    optimizer: "boosting (bound optimisation of the relaxed expected NDCG)",
    reference: "H. Valizadegan, R. Jin, R. Zhang, J. Mao. Learning to rank by optimizing NDCG measure. \
                NIPS 2009, pp. 1883-1891.",
    summary: "expected NDCG, bound optimisation",
    feature_scale: ltr_core::FeatureScale::Free("weak rankers are thresholds on one feature"),
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(169.2, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("rounds", 200.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of NDCGBoost (`ndcgboost`): the keys every threshold learner on the
/// query-level driver shares, and nothing else (the paper's method has no other setting).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NdcgBoostParams {
    /// Rounds, cuts and the driver's guards.
    #[serde(flatten)]
    pub threshold_loop: ThresholdLoopParams,
}

impl Params for NdcgBoostParams {
    type Checked = NdcgBoost;

    const TABLE: &'static [ParamInfo] = ThresholdLoopParams::TABLE;

    fn validate(&self) -> Result<NdcgBoost> {
        self.threshold_loop.check()?;
        Ok(NdcgBoost { params: self.clone() })
    }
}

/// A fitted NDCGBoost model: `F(x) = sum_t alpha_t [x_{f_t} > theta_t]`.
pub type NdcgBoostModel = Ensemble<ThresholdRanker>;

/// Validated NDCGBoost.
#[derive(Debug, Clone, PartialEq)]
pub struct NdcgBoost {
    params: NdcgBoostParams,
}

impl NdcgBoost {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &NdcgBoostParams {
        &self.params
    }

    /// Fits and returns the loop's full outcome (per-round trace, stop reason). In the trace,
    /// `train_measure` is the relaxed expected NDCG averaged over the training queries with
    /// a relevant document after the round, `weighted_measure` the weak ranker's weighted
    /// classification score `sum_i gamma_i h(x_i)`, and `query_weights` each query's share of
    /// `sum_i |gamma_i|`.
    ///
    /// # Errors
    /// When no training query has a relevant document, a feature value is not finite, or no
    /// feature has two values.
    pub fn fit_outcome(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<BoostOutcome<ThresholdRanker>> {
        let p = &self.params.threshold_loop;
        let queries: Vec<NdcgQuery> =
            (0..train.n_queries()).filter_map(|q| NdcgQuery::new(train, q)).collect();
        if queries.is_empty() {
            return Err(Error::fit(INFO.id, "no training query has a relevant document"));
        }
        let candidates = p.candidates(train, INFO.id)?;
        let mut rule = NdcgRule::new(&candidates, train, queries);
        p.drive(&mut rule, train, valid, INFO.id)
    }
}

impl Learner for NdcgBoost {
    type Model = NdcgBoostModel;

    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<NdcgBoostModel> {
        Ok(self.fit_outcome(train, valid)?.model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
