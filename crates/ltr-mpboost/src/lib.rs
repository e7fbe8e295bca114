//! MPBoost (C. Zhu, W. Chen, Z. A. Zhu, G. Wang, D. Wang, Z. Chen, "A general
//! magnitude-preserving boosting algorithm for search ranking", CIKM 2009), id `mpboost`.
//!
//! The pair label of RankBoost (`+1`: the first document is preferred) is replaced by a
//! directed distance of the two grades, `d(x1, x2) = dist(y1, y2)`, whose sign is the
//! preference and whose size grows with the grade difference, inside the exponential pair
//! loss `L(F) = sum_{(x1, x2)} c_q exp(-d(x1, x2) (F(x1) - F(x2)))`, minimised by GentleBoost
//! steps: each round fits the weak learner `f = a h` (`h` a threshold ranker) to the pair
//! targets `d` by weighted least squares on the pair differences `f(x1) - f(x2)`, with the
//! pair weights `w = c_q exp(-d (F(x1) - F(x2)))`, and adds it with weight 1.
//!
//! For a `{0, 1}` ranker `h` the least-squares fit has a closed form: with
//! `S1 = sum w d (h(x1) - h(x2))` and `S2 = sum w (h(x1) - h(x2))^2` (the weight of the
//! pairs the cut separates), `a = S1 / S2`, and the weighted squared error drops by
//! `S1^2 / S2`, which chooses the ranker. `S1` is linear in `h` (per-document potentials,
//! the shared loop's edges); `S2` is not, and comes from one sweep of each feature's documents
//! in descending order of interval per round ([`MagnitudeLoss`]). Runs on the pair loop of
//! `ltr-boosting` (the cuts, the search over features, the update, the validation prefix).

use ltr_boosting::{Cuts, EDGE_EPS, Ensemble, PairBooster, PairLoopParams, PairRule, Pick, ThresholdRanker};
use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_table,
};
use serde::{Deserialize, Serialize};

mod loss;

pub use loss::MagnitudeLoss;

/// Metadata for the comparison tables.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "mpboost",
    name: "MPBoost",
    family: Family::Boosting,
    year: 2009,
    loss: LossType::Pairwise,
    optimizer: "GentleBoost (least-squares weak fits, magnitude-preserving exponential pair loss)",
    reference: "C. Zhu, W. Chen, Z. A. Zhu, G. Wang, D. Wang, Z. Chen. A general magnitude-preserving boosting \
                algorithm for search ranking. CIKM 2009, pp. 817-826.",
    summary: "grade-difference pair targets",
    feature_scale: ltr_core::FeatureScale::Free("weak rankers are thresholds on one feature"),
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(94.3, "just bench-budget 2026-11-28, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("rounds", 300.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The directed distance function: the pair target `dist(y1, y2)` of grades `y1 > y2`
/// (positive; the reversed pair is its negative).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ddf {
    /// `y1 - y2`.
    #[default]
    Linear,
    /// `ln(1 + y1 - y2)`.
    Log,
    /// `1` for every preference: RankBoost's binary label, the magnitude dropped (an
    /// ablation; the loss is then RankBoost's, minimised by GentleBoost steps).
    Sign,
}

impl Ddf {
    /// `dist(y1, y2)` for a grade difference `delta = y1 - y2 > 0`.
    pub fn of(self, delta: f64) -> f64 {
        match self {
            Self::Linear => delta,
            Self::Log => delta.ln_1p(),
            Self::Sign => 1.0,
        }
    }
}

/// Hyperparameters of MPBoost (`mpboost`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MpBoostParams {
    /// Rounds, cuts and the initial pair weights: the pair loop's keys at RankBoost's
    /// defaults, so the two differ only in the loss and the step.
    #[serde(flatten)]
    pub pair_loop: PairLoopParams,
    /// The directed distance function. Default `linear`.
    pub ddf: Ddf,
}

/// The row of MPBoost's own key.
const DDF: ParamInfo =
    ParamInfo::choice("ddf", &["linear", "log", "sign"], "pair target: y1 - y2, ln(1 + y1 - y2), or 1");

impl Params for MpBoostParams {
    type Checked = MpBoost;

    const TABLE: &'static [ParamInfo] = param_table!(PairLoopParams::TABLE, &[DDF]);

    fn validate(&self) -> Result<MpBoost> {
        self.pair_loop.check()?;
        Ok(MpBoost { params: self.clone() })
    }
}

/// A fitted MPBoost model: `f(x) = sum_t a_t h_t(x)`.
pub type MpBoostModel = Ensemble<ThresholdRanker>;

/// Validated MPBoost.
#[derive(Debug, Clone, PartialEq)]
pub struct MpBoost {
    params: MpBoostParams,
}

impl MpBoost {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &MpBoostParams {
        &self.params
    }

    /// The training state on `data`, one round at a time (tests, bench, inspection).
    pub fn booster<'a>(&self, data: &'a Dataset) -> Result<PairBooster<'a, MagnitudeLoss>> {
        let p = &self.params.pair_loop;
        let cuts = p.cuts(data, INFO.id)?;
        let pairs = p.grade_pairs(data);
        let loss = MagnitudeLoss::new(data, pairs, self.params.ddf)?;
        Ok(PairBooster::new(data, cuts, loss))
    }
}

impl Learner for MpBoost {
    type Model = MpBoostModel;

    /// Plays up to `rounds` rounds; with `valid`, keeps the prefix with the best validation
    /// measure. Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<MpBoostModel> {
        self.booster(train)?.run(self.params.pair_loop.rounds, valid, INFO.id)
    }
}

/// The rule's choice of one feature's cut: the largest drop `S1^2 / S2` of the weighted
/// squared error (the lowest cut on ties), weight `a = S1 / S2`; cuts separating no weighted
/// pair (`S2 <= S2_EPS`) are skipped.
fn best_least_squares_cut(s1: &[f64], s2: &[f64]) -> Option<Pick> {
    let mut best: Option<Pick> = None;
    for (j, (&r, &sep)) in s1.iter().zip(s2).enumerate() {
        if sep <= S2_EPS {
            continue;
        }
        let value = r * r / sep;
        if best.is_none_or(|b| value > b.value) {
            best = Some(Pick { cut: j, r, value, alpha: r / sep });
        }
    }
    best
}

/// The separated pair weight (of a distribution summing to 1) below which a cut counts as
/// separating nothing.
pub const S2_EPS: f64 = 1e-12;

impl PairRule for MagnitudeLoss {
    /// `S1` and `S2` of a feature's cuts come from one pass over its documents.
    const EDGES_IN_PICK: bool = true;

    fn potentials(&mut self, _data: &Dataset, scores: &[f64], out: &mut [f64]) {
        self.update(scores, out);
    }

    fn pick(&self, cuts: &Cuts, f: usize, _edges: &[f64], potentials: &[f64]) -> Option<Pick> {
        let (edges, separated) = self.edges_and_separated(cuts, f, potentials);
        best_least_squares_cut(&edges, &separated)
    }

    /// Stops when the best cut has no edge left; GentleBoost's weight `a` is bounded by the
    /// largest pair target, so no round is the last by itself.
    fn accept(&self, pick: &Pick) -> Option<bool> {
        (pick.r.abs() > EDGE_EPS).then_some(false)
    }
}

/// The error when no query has two grades.
fn no_pairs() -> Error {
    Error::fit(INFO.id, "no training query has documents of two different grades")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
