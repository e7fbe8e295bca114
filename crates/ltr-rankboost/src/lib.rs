//! RankBoost (Y. Freund, R. Iyer, R. E. Schapire, Y. Singer, "An efficient boosting
//! algorithm for combining preferences", JMLR 4:933-969, 2003) with threshold weak rankers,
//! id `rankboost`.
//!
//! `f = sum_t alpha_t h_t` with `h(x) = 1` if `x_f > theta` else 0. A distribution `D` over
//! the crucial pairs `(x1, x2)` (same query, `x1` of a higher grade) starts uniform and is
//! updated `D_{t+1}(x1, x2) = D_t(x1, x2) exp(alpha_t (h_t(x2) - h_t(x1))) / Z_t`; each round
//! picks the `(feature, theta)` with the largest `|r|`, `r = sum D(x1, x2) (h(x1) - h(x2))`,
//! and `alpha_t = 1/2 ln((1 + r)/(1 - r))`.
//!
//! Nothing is ever enumerated pair by pair:
//! * `D` is never stored. Unrolling the updates, `D_t(x1, x2) = D_1(x1, x2)
//!   exp(F(x2) - F(x1)) / Z` with `F = f_{t-1}` the current scores, and with `D_1` constant
//!   within a query (`c_q`) the potentials `pi(x) = sum_{x2 below x} D(x, x2) - sum_{x1 above
//!   x} D(x1, x)` are `c_q (e^{-F(x)} B_<(x) - e^{F(x)} A_>(x)) / Z`, where `B_<` sums
//!   `e^{F}` over the query's documents of lower grades and `A_>` sums `e^{-F}` over higher
//!   grades: O(n) per round with per-grade sums.
//! * `r` of a threshold is `sum_{x_f > theta} pi(x)`. Every feature's values are sorted
//!   once to place the candidate cut points and each document gets the index of its
//!   interval between cuts; a round adds the potentials into the intervals (O(n) per
//!   feature) and suffix sums give `r` for every cut.

pub use ltr_boosting::{
    ALPHA_DENOMINATOR_FLOOR, EDGE_EPS as R_EPS, PERFECT_EPS, PairWeighting, ThresholdRanker, ThresholdSpacing,
};
use ltr_boosting::{Ensemble, ExpPairLoss, PairBooster, PairLoopParams, PairRound};
use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 41.8 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "rankboost",
    name: "RankBoost",
    family: Family::Boosting,
    year: 2003,
    loss: LossType::Pairwise,
    optimizer: "boosting (exponential pair loss)",
    reference: "Y. Freund, R. Iyer, R. E. Schapire, Y. Singer. An efficient boosting algorithm for combining preferences. JMLR 4:933-969, 2003.",
    feature_scale: ltr_core::FeatureScale::Free("weak rankers are thresholds on one feature"),
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(41.8, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("rounds", 300.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of RankBoost (`rankboost`): the keys of the shared pair loop, with their
/// defaults (RankLib's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankBoostParams {
    /// Rounds, cuts and the initial pair distribution.
    #[serde(flatten)]
    pub pair_loop: PairLoopParams,
}

impl Params for RankBoostParams {
    type Checked = RankBoost;

    const TABLE: &'static [ParamInfo] = PairLoopParams::TABLE;

    fn validate(&self) -> Result<RankBoost> {
        self.pair_loop.check()?;
        Ok(RankBoost { params: self.clone() })
    }
}

/// A fitted RankBoost model.
pub type RankBoostModel = Ensemble<ThresholdRanker>;

/// Validated RankBoost.
#[derive(Debug, Clone, PartialEq)]
pub struct RankBoost {
    params: RankBoostParams,
}

impl RankBoost {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &RankBoostParams {
        &self.params
    }
}

/// One played round (`r` is the edge `sum D (h(x1) - h(x2))` under the round's distribution).
pub type RoundInfo = PairRound;

/// The training state of RankBoost, one round at a time (also used by the bench): the
/// shared pair loop on the crucial pairs of the training grades.
#[derive(Debug, Clone)]
pub struct Trainer<'a> {
    inner: PairBooster<'a, ExpPairLoss>,
}

impl<'a> Trainer<'a> {
    /// Sorts every feature once, places the cuts, bins the documents and computes the first
    /// distribution.
    pub fn new(learner: &RankBoost, data: &'a Dataset) -> Result<Self> {
        let p = &learner.params.pair_loop;
        let cuts = p.cuts(data, INFO.id)?;
        let loss = ExpPairLoss::new(vec![(p.grade_pairs(data), 1.0)], INFO.id)?;
        Ok(Self { inner: PairBooster::new(data, cuts, loss) })
    }

    /// The cut points of feature `f`, ascending.
    pub fn cuts(&self, f: usize) -> &[f64] {
        self.inner.cuts().cuts(f)
    }

    /// The model so far.
    pub fn model(&self) -> &RankBoostModel {
        self.inner.model()
    }

    /// The rounds played so far.
    pub fn trace(&self) -> &[RoundInfo] {
        self.inner.trace()
    }

    /// The current training scores `f_t`.
    pub fn scores(&self) -> &[f64] {
        self.inner.scores()
    }

    /// Whether a stopping condition was met (no edge left, or a perfect weak ranker).
    pub fn finished(&self) -> bool {
        self.inner.finished()
    }

    /// The explicit distribution `D_t` the next round uses, as `(better doc, worse doc,
    /// weight)` over every crucial pair (O(pairs); for tests and inspection). The weights
    /// are divided by the normaliser `Z` the potentials use, computed from per-grade sums,
    /// not by their own total: that they sum to 1 checks `Z`.
    pub fn pair_distribution(&self) -> Vec<(usize, usize, f64)> {
        let data = self.inner.data();
        let pairs = self.inner.rule().distribution(data, self.inner.scores());
        pairs.into_iter().map(|(_, i, j, w)| (i, j, w)).collect()
    }

    /// Plays one round; `None` when training is finished (no weak ranker with an edge left,
    /// or the previous round's weak ranker was perfect).
    pub fn step(&mut self) -> Option<RoundInfo> {
        self.inner.step()
    }
}

impl Learner for RankBoost {
    type Model = RankBoostModel;

    /// Plays up to `rounds` rounds; with `valid`, keeps the prefix with the best validation
    /// measure (earliest on ties; validation scores updated in place each round).
    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<RankBoostModel> {
        Trainer::new(self, train)?.inner.run(self.params.pair_loop.rounds, valid, INFO.id)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
