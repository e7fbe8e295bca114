//! Ranking refinement (R. Jin, H. Valizadegan, H. Li, "Ranking refinement and its application
//! to information retrieval", WWW 2008), id `rankrefine`.
//!
//! A base ranker's ordering and labelled pairs are two sources of ranking information, the
//! first imperfect, the second noisy; the refined ranker is learnt by boosting from both:
//!
//! ```text
//! L(F) = 1/|P_L| sum_{(x1, x2) in P_L} e^{F(x2) - F(x1)}
//!      + C/|P_B| sum_{(x1, x2) in P_B} e^{F(x2) - F(x1)}
//! ```
//!
//! `P_L` are the labelled pairs (the crucial pairs of the training grades), `P_B` the pairs of
//! each query the base ranker orders (every two documents it scores differently, the higher
//! first), `C` the trust in the base ranker. Each round is RankBoost's on the distribution the
//! two terms induce, on the shared pair loop of `ltr-boosting`; with `C` small it tends to
//! RankBoost on the labels.
//!
//! The base ranker is a parameter: by default the single feature (or its negation) that orders
//! the most labelled training pairs correctly ([`best_feature`]), so the row needs no other
//! model; `base_feature = k` takes feature `k`.

use ltr_boosting::{Ensemble, ExpPairLoss, PairBooster, PairLoopParams, PairSet, ThresholdRanker};
use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, MAX_FEATURES, ParamInfo, Params, Result, Rng,
    Validation, param_info, param_table,
};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 48.6 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "rankrefine",
    name: "Ranking refinement",
    family: Family::Boosting,
    year: 2008,
    loss: LossType::Pairwise,
    optimizer: "boosting (exponential pair loss, labelled pairs + a base ranker's pairs)",
    reference: "R. Jin, H. Valizadegan, H. Li. Ranking refinement and its application to information retrieval. \
                WWW 2008, pp. 397-406.",
    summary: "refines a base ranker (default: best feature)",
    feature_scale: ltr_core::FeatureScale::Free(
        "weak rankers are thresholds on one feature; the base ranker is a feature's ordering",
    ),
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(48.6, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("rounds", 300.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of ranking refinement (`rankrefine`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankRefineParams {
    /// Rounds, cuts and the initial pair weights within each pair set: the pair loop's keys
    /// at RankBoost's defaults.
    #[serde(flatten)]
    pub pair_loop: PairLoopParams,
    /// The base ranker: `0`, the single feature ordering the most labelled training pairs
    /// correctly (either sign); `k >= 1`, feature `k` (numbered from 1 as in LETOR files).
    /// Default 0.
    pub base_feature: usize,
    /// `C`: the weight of the base ranker's pairs' loss against the labelled pairs' (each
    /// normalised by its pair count). Default 0.1.
    pub base_weight: f64,
}

impl Default for RankRefineParams {
    fn default() -> Self {
        Self { pair_loop: PairLoopParams::default(), base_feature: 0, base_weight: 0.1 }
    }
}

/// The rows of ranking refinement's own keys.
const OWN: &[ParamInfo] = &[
    ParamInfo::int(
        "base_feature",
        0,
        MAX_FEATURES as u64,
        "base ranker: 0 = best single feature on train, k = feature k",
    ),
    ParamInfo::positive("base_weight", 0.0, 1000.0, "C: weight of the base ranker's pairs' loss"),
];

impl Params for RankRefineParams {
    type Checked = RankRefine;

    const TABLE: &'static [ParamInfo] = param_table!(PairLoopParams::TABLE, OWN);

    fn validate(&self) -> Result<RankRefine> {
        self.pair_loop.check()?;
        param_info(Self::TABLE, "base_feature").check_int(self.base_feature as u64)?;
        param_info(Self::TABLE, "base_weight").check_real(self.base_weight)?;
        Ok(RankRefine { params: self.clone() })
    }
}

/// A fitted ranking-refinement model: `f(x) = sum_t alpha_t h_t(x)`.
pub type RankRefineModel = Ensemble<ThresholdRanker>;

/// The base ranker: one feature, possibly negated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Base {
    /// Feature index (0-based).
    pub feature: usize,
    /// Whether lower values rank higher.
    pub negated: bool,
    /// The weighted fraction of labelled training pairs it orders correctly (ties count half).
    pub accuracy: f64,
}

/// Validated ranking refinement.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRefine {
    params: RankRefineParams,
}

/// The weighted fraction of the pairs of `pairs` that feature `f` orders correctly (higher
/// value on the preferred document), ties counting half: one sort per query.
pub fn pair_accuracy(data: &Dataset, pairs: &PairSet, f: usize) -> f64 {
    let mut correct = 0.0;
    let mut docs: Vec<(f64, usize)> = Vec::new();
    let mut seen = Vec::new();
    let mut group = Vec::new();
    for q in data.queries() {
        let c = pairs.query_weight(q.index);
        if c == 0.0 {
            continue;
        }
        docs.clear();
        docs.extend(q.range().filter_map(|i| pairs.level(i).map(|l| (f64::from(data.row(i)[f]), l))));
        docs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // seen[l]: documents of level l with a strictly smaller value.
        seen.clear();
        seen.resize(pairs.keys(q.index).len(), 0usize);
        let (mut right, mut tied) = (0usize, 0usize);
        let mut start = 0;
        while start < docs.len() {
            let end =
                start + docs[start..].iter().take_while(|d| d.0.total_cmp(&docs[start].0).is_eq()).count();
            group.clear();
            group.resize(seen.len(), 0usize);
            for &(_, l) in &docs[start..end] {
                right += seen[..l].iter().sum::<usize>();
                tied += group[..l].iter().sum::<usize>();
                group[l] += 1;
            }
            for (s, g) in seen.iter_mut().zip(&group) {
                *s += g;
            }
            start = end;
        }
        correct += c * (right as f64 + 0.5 * tied as f64);
    }
    correct / pairs.mass()
}

/// The single feature, or its negation, that orders the most labelled pairs correctly (the
/// lowest feature on ties, the feature itself before its negation).
pub fn best_feature(data: &Dataset, pairs: &PairSet) -> Base {
    let mut best = Base { feature: 0, negated: false, accuracy: f64::NEG_INFINITY };
    for f in 0..data.n_features() {
        let acc = pair_accuracy(data, pairs, f);
        for (negated, accuracy) in [(false, acc), (true, 1.0 - acc)] {
            if accuracy > best.accuracy {
                best = Base { feature: f, negated, accuracy };
            }
        }
    }
    best
}

impl RankRefine {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &RankRefineParams {
        &self.params
    }

    /// The base ranker on `train` under these parameters.
    pub fn base(&self, train: &Dataset, labelled: &PairSet) -> Result<Base> {
        match self.params.base_feature {
            0 => Ok(best_feature(train, labelled)),
            k if k <= train.n_features() => {
                Ok(Base { feature: k - 1, negated: false, accuracy: pair_accuracy(train, labelled, k - 1) })
            }
            k => Err(Error::param(
                "base_feature",
                k,
                format!("the training data has {} features", train.n_features()),
            )),
        }
    }

    /// The base ranker [`Learner::fit`] uses on `train` (errors as `fit` does).
    pub fn base_of(&self, train: &Dataset) -> Result<Base> {
        self.base(train, &self.params.pair_loop.grade_pairs(train))
    }

    /// The training state on `train`, one round at a time, with its base ranker.
    pub fn booster<'a>(&self, train: &'a Dataset) -> Result<(PairBooster<'a, ExpPairLoss>, Base)> {
        let p = &self.params;
        let cuts = p.pair_loop.cuts(train, INFO.id)?;
        let labelled = p.pair_loop.grade_pairs(train);
        if labelled.is_empty() {
            return Err(Error::fit(INFO.id, "no training query has documents of two different grades"));
        }
        let base = self.base(train, &labelled)?;
        let sign = if base.negated { -1.0 } else { 1.0 };
        let ordered = PairSet::from_keys(train, p.pair_loop.pair_weighting, |i| {
            Some(sign * f64::from(train.row(i)[base.feature]))
        });
        let (m_labelled, m_base) = (1.0 / labelled.mass(), p.base_weight / ordered.mass());
        let loss = ExpPairLoss::new(vec![(labelled, m_labelled), (ordered, m_base)], INFO.id)?;
        Ok((PairBooster::new(train, cuts, loss), base))
    }
}

impl Learner for RankRefine {
    type Model = RankRefineModel;

    /// Picks the base ranker and plays up to `rounds` rounds; with `valid`, keeps the best
    /// prefix on it. Deterministic: `rng` is not used.
    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<RankRefineModel> {
        let (booster, base) = self.booster(train)?;
        log::debug!(
            "rankrefine: base ranker {}feature {} (orders {:.4} of the labelled pairs)",
            if base.negated { "minus " } else { "" },
            base.feature + 1,
            base.accuracy
        );
        booster.run(self.params.pair_loop.rounds, valid, INFO.id)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
