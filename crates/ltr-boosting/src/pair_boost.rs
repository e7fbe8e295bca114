//! The pair-distribution boosting loop: RankBoost's (Freund, Iyer, Schapire & Singer, JMLR
//! 2003), written once for every rule that keeps a distribution over preference pairs and
//! adds one threshold weak ranker per round: RankBoost, SSRankBoost, ranking refinement and
//! MPBoost.
//!
//! A [`PairRule`] turns the current training scores into per-document potentials, so that
//! the linear part of a weak ranker's worth is its edge `r = sum_{x_f > theta} pi(x)`; it
//! picks each feature's best cut from the edges of all its cuts and weighs the chosen one.
//! The loop does the rest, once for all: the cut placement and binning ([`Cuts`]), the edges of
//! every cut of every feature (parallel over features, reduced in feature order: ties go to
//! the lowest feature, then the lowest cut), the score update, the stop, the trace, and the
//! best prefix on the validation split.
//!
//! [`ExpPairLoss`] is the exponential loss over one or several weighted [`PairSet`]s with
//! RankBoost's choice (largest `|r|`) and weight (`alpha = 1/2 ln((1 + r)/(1 - r))`, the
//! paper's third method for `{0, 1}` weak rankers).

use ltr_core::{BestCheckpoint, Dataset, Error, ParamInfo, Result, Validation, param_info};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ensemble::Ensemble;
use crate::pair_sets::{PairSet, PairWeighting};
use crate::query_boost::{ALPHA_DENOMINATOR_FLOOR, PERFECT_EPS};
use crate::threshold::{Cuts, ThresholdRanker, ThresholdSpacing};

/// The keys of every learner on the pair loop (RankBoost's hyperparameters), written once:
/// each learner embeds them flat (`#[serde(flatten)]`) and starts its `Params::TABLE` with
/// [`PairLoopParams::TABLE`]. Defaults are RankBoost's (RankLib's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairLoopParams {
    /// Maximum number of boosting rounds. Default 300 (RankLib's `-round`). With validation
    /// data the model keeps the best prefix on it.
    pub rounds: usize,
    /// Candidate cut points per feature, `T`: the cuts split the feature's training range
    /// into `T` intervals, so `T - 1` cuts (the same interior candidates as RankLib's
    /// `-tc 10`). `0` means every distinct training value (except the largest). Default 10.
    pub thresholds: usize,
    /// `uniform` (evenly spaced, RankLib) or `quantile` (equal-frequency). Default
    /// `uniform`.
    pub threshold_spacing: ThresholdSpacing,
    /// The initial pair distribution: `pairs` (uniform over all pairs, RankLib) or
    /// `queries` (equal mass per query). Default `pairs`.
    pub pair_weighting: PairWeighting,
}

impl Default for PairLoopParams {
    fn default() -> Self {
        Self {
            rounds: 300,
            thresholds: 10,
            threshold_spacing: ThresholdSpacing::Uniform,
            pair_weighting: PairWeighting::Pairs,
        }
    }
}

impl PairLoopParams {
    /// The rows of these keys, in documentation order.
    pub const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int("rounds", 1, 100_000, "round cap; with vali the best prefix is kept"),
        ParamInfo::int(
            "thresholds",
            0,
            100_000,
            "T: cuts split each feature's range into T parts (0: every value; not 1)",
        ),
        ParamInfo::choice(
            "threshold_spacing",
            &["uniform", "quantile"],
            "cut points evenly spaced or equal-frequency",
        ),
        ParamInfo::choice(
            "pair_weighting",
            &["pairs", "queries"],
            "D_1 uniform over all pairs, or equal mass per query",
        ),
    ];

    /// Checks the ranges of [`PairLoopParams::TABLE`] and refuses `thresholds = 1` (no cut).
    pub fn check(&self) -> Result<()> {
        param_info(Self::TABLE, "rounds").check_int(self.rounds as u64)?;
        param_info(Self::TABLE, "thresholds").check_int(self.thresholds as u64)?;
        if self.thresholds == 1 {
            return Err(Error::param("thresholds", self.thresholds, "must be 0 (every value) or at least 2"));
        }
        Ok(())
    }

    /// The cuts of `data` under these settings.
    pub fn cuts(&self, data: &Dataset, algorithm: &'static str) -> Result<Cuts> {
        Cuts::new(data, self.thresholds, self.threshold_spacing, algorithm)
    }

    /// The crucial pairs of the training grades under these settings' weighting.
    pub fn grade_pairs(&self, data: &Dataset) -> PairSet {
        PairSet::from_grades(data, self.pair_weighting)
    }
}

/// An edge `|r|` at or below this: no weak ranker orders the weighted pairs better than
/// chance, the loop stops.
pub const EDGE_EPS: f64 = 1e-12;

/// A feature's best cut under a rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pick {
    /// Index of the cut among the feature's cuts (ascending).
    pub cut: usize,
    /// Its edge `r = sum_{x_f > theta} pi(x)`.
    pub r: f64,
    /// What the rule compares across features (higher wins; strictly higher replaces, so
    /// ties go to the lowest feature).
    pub value: f64,
    /// The weight the rule gives it.
    pub alpha: f64,
}

/// One boosting rule on the pair loop.
pub trait PairRule: Sync {
    /// Whether [`PairRule::pick`] sums the edges of a feature's cuts itself (from the
    /// potentials, in the same pass as its other per-cut sums); the loop then passes it no
    /// edges. Default `false`: the loop sums them ([`Cuts::edges`]).
    const EDGES_IN_PICK: bool = false;

    /// Writes every training document's potential under the current scores into `out`.
    fn potentials(&mut self, data: &Dataset, scores: &[f64], out: &mut [f64]);

    /// The best cut of feature `f` from the edges of all its cuts (`edges[j]` for cut `j`;
    /// empty with [`PairRule::EDGES_IN_PICK`]), or `None` without cuts. `potentials` are the round's. The default is RankBoost's:
    /// the largest `|r|` (the lowest cut on ties), weighted by [`rankboost_alpha`].
    fn pick(&self, cuts: &Cuts, f: usize, edges: &[f64], potentials: &[f64]) -> Option<Pick> {
        let _ = (cuts, f, potentials);
        let (&first, rest) = edges.split_first()?;
        let mut best = (first, 0);
        for (j, &v) in rest.iter().enumerate() {
            if v.abs() > best.0.abs() {
                best = (v, j + 1);
            }
        }
        Some(Pick { cut: best.1, r: best.0, value: best.0.abs(), alpha: rankboost_alpha(best.0) })
    }

    /// Whether the round's best pick is played (`None`: training stops) and whether it is the
    /// last one. The default is RankBoost's: no edge left (`|r| <= EDGE_EPS`) stops; a
    /// perfect weak ranker (`1 - |r| <= PERFECT_EPS`) is played and is the last.
    fn accept(&self, pick: &Pick) -> Option<bool> {
        (pick.r.abs() > EDGE_EPS).then_some(1.0 - pick.r.abs() <= PERFECT_EPS)
    }
}

/// RankBoost's weight of a `{0, 1}` weak ranker of edge `r`: `1/2 ln((1 + r)/(1 - r))`
/// (negative when `r < 0`: the complementary ranker `1 - h` with a positive weight), with both
/// terms floored at [`ALPHA_DENOMINATOR_FLOOR`] so a perfect ranker gets the finite weight
/// `1/2 ln(2 / 1e-9)` (about 10.7).
pub fn rankboost_alpha(r: f64) -> f64 {
    0.5 * ((1.0 + r).max(ALPHA_DENOMINATOR_FLOOR) / (1.0 - r).max(ALPHA_DENOMINATOR_FLOOR)).ln()
}

/// The exponential pair loss over weighted pair sets, `sum_s m_s sum_{(x1, x2) in s}
/// c_q exp(F(x2) - F(x1))`, with RankBoost's choice and weight. With one set (or one set with
/// a pair) it is RankBoost's loss on that set, computed exactly as RankBoost computes it
/// (the multiplier cancels and is not applied).
#[derive(Debug, Clone)]
pub struct ExpPairLoss {
    sets: Vec<(PairSet, f64)>,
    /// The normaliser `Z` of the last potentials.
    z: f64,
    scratch: Vec<f64>,
}

impl ExpPairLoss {
    /// The loss over `sets`, each with its multiplier `m_s > 0`; sets without a pair are
    /// dropped. Errors when no set has a pair.
    pub fn new(sets: Vec<(PairSet, f64)>, algorithm: &'static str) -> Result<Self> {
        let sets: Vec<(PairSet, f64)> = sets.into_iter().filter(|(s, m)| !s.is_empty() && *m > 0.0).collect();
        if sets.is_empty() {
            return Err(Error::fit(algorithm, "no training query has documents of two different grades"));
        }
        Ok(Self { sets, z: 0.0, scratch: Vec::new() })
    }

    /// The pair sets in use and their multipliers.
    pub fn sets(&self) -> &[(PairSet, f64)] {
        &self.sets
    }

    /// The normaliser `Z` the last potentials were divided by.
    pub fn z(&self) -> f64 {
        self.z
    }

    /// The distribution the next round uses, pair by pair: `(set index, preferred doc, other
    /// doc, weight)`, the weights divided by the potentials' normaliser `Z` (computed from
    /// per-level sums, not from these weights: that they sum to 1 checks `Z`). O(pairs).
    pub fn distribution(&self, data: &Dataset, scores: &[f64]) -> Vec<(usize, usize, usize, f64)> {
        let single = self.sets.len() == 1;
        let mut out = Vec::new();
        for (s, (set, m)) in self.sets.iter().enumerate() {
            for (i, j, w) in set.weighted_pairs(data, scores) {
                let w = if single { w } else { m * w };
                out.push((s, i, j, w / self.z));
            }
        }
        out
    }
}

impl PairRule for ExpPairLoss {
    fn potentials(&mut self, data: &Dataset, scores: &[f64], out: &mut [f64]) {
        let z = match self.sets.as_slice() {
            [(set, _)] => set.potentials(data, scores, out),
            sets => {
                out.fill(0.0);
                let mut z = 0.0;
                self.scratch.resize(out.len(), 0.0);
                for (set, m) in sets {
                    z += m * set.potentials(data, scores, &mut self.scratch);
                    for (o, p) in out.iter_mut().zip(&self.scratch) {
                        *o += m * p;
                    }
                }
                z
            }
        };
        for p in out.iter_mut() {
            *p /= z;
        }
        self.z = z;
    }
}

/// One played round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairRound {
    /// Round number (1-based).
    pub round: usize,
    /// The chosen weak ranker.
    pub weak: ThresholdRanker,
    /// Index of its cut among the feature's cuts (ascending).
    pub cut: usize,
    /// Its edge `r` under the round's potentials.
    pub r: f64,
    /// The rule's value of it.
    pub value: f64,
    /// Its weight.
    pub alpha: f64,
}

/// The training state of the pair loop, one round at a time.
#[derive(Debug, Clone)]
pub struct PairBooster<'a, R> {
    data: &'a Dataset,
    cuts: Cuts,
    rule: R,
    /// The current scores `F = f_{t-1}` of the training documents.
    scores: Vec<f64>,
    /// The potentials of the current scores.
    potential: Vec<f64>,
    model: Ensemble<ThresholdRanker>,
    trace: Vec<PairRound>,
    finished: bool,
}

impl<'a, R: PairRule> PairBooster<'a, R> {
    /// Starts the loop on `data` with its cuts and the rule; computes the first potentials.
    pub fn new(data: &'a Dataset, cuts: Cuts, mut rule: R) -> Self {
        let n = data.n_docs();
        let scores = vec![0.0; n];
        let mut potential = vec![0.0; n];
        rule.potentials(data, &scores, &mut potential);
        Self {
            data,
            model: Ensemble::new(cuts.n_features()),
            cuts,
            rule,
            scores,
            potential,
            trace: Vec::new(),
            finished: false,
        }
    }

    /// The training data.
    pub fn data(&self) -> &'a Dataset {
        self.data
    }

    /// The cuts.
    pub fn cuts(&self) -> &Cuts {
        &self.cuts
    }

    /// The rule (its state after the last round).
    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// The model so far.
    pub fn model(&self) -> &Ensemble<ThresholdRanker> {
        &self.model
    }

    /// The rounds played so far.
    pub fn trace(&self) -> &[PairRound] {
        &self.trace
    }

    /// The current training scores `f_t`.
    pub fn scores(&self) -> &[f64] {
        &self.scores
    }

    /// The potentials the next round uses.
    pub fn potentials(&self) -> &[f64] {
        &self.potential
    }

    /// Whether a stopping condition was met.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Plays one round; `None` when training is finished (the rule accepted no pick, or the
    /// previous round was the last).
    pub fn step(&mut self) -> Option<PairRound> {
        if self.finished {
            return None;
        }
        let this = &*self;
        let per_feature: Vec<Option<Pick>> = (0..this.cuts.n_features())
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(hist, edges), f| {
                    if R::EDGES_IN_PICK {
                        edges.clear();
                    } else {
                        this.cuts.edges(f, &this.potential, hist, edges);
                    }
                    this.rule.pick(&this.cuts, f, edges, &this.potential)
                },
            )
            .collect();
        let mut best: Option<(Pick, usize)> = None;
        for (f, cand) in per_feature.into_iter().enumerate() {
            if let Some(p) = cand
                && best.is_none_or(|b| p.value > b.0.value)
            {
                best = Some((p, f));
            }
        }
        let Some((pick, feature)) = best else {
            self.finished = true;
            return None;
        };
        let Some(last) = self.rule.accept(&pick) else {
            self.finished = true;
            return None;
        };
        self.finished = last;
        let weak = self.cuts.ranker(feature, pick.cut);
        Ensemble::add_round(&weak, pick.alpha, self.data, &mut self.scores);
        self.rule.potentials(self.data, &self.scores, &mut self.potential);
        self.model.push(weak, pick.alpha);
        let info = PairRound {
            round: self.trace.len() + 1,
            weak,
            cut: pick.cut,
            r: pick.r,
            value: pick.value,
            alpha: pick.alpha,
        };
        self.trace.push(info);
        Some(info)
    }

    /// Plays up to `rounds` rounds; with `valid`, keeps the prefix with the best validation
    /// measure (earliest on ties, validation scores updated in place each round, no round if
    /// none was played).
    pub fn run(
        mut self,
        rounds: usize,
        valid: Option<&Validation<'_>>,
        algorithm: &str,
    ) -> Result<Ensemble<ThresholdRanker>> {
        if let Some(v) = valid
            && v.data.n_features() != self.data.n_features()
        {
            return Err(Error::FeatureCount { expected: self.data.n_features(), found: v.data.n_features() });
        }
        let mut vscores = valid.map(|v| vec![0.0; v.data.n_docs()]);
        // The kept prefix: the round count is the step, the state nothing.
        let mut best = BestCheckpoint::new();
        while self.trace.len() < rounds {
            let Some(info) = self.step() else { break };
            ltr_core::progress::tick(info.round, rounds, "rounds");
            if let (Some(v), Some(vs)) = (valid, vscores.as_mut()) {
                Ensemble::add_round(&info.weak, info.alpha, v.data, vs);
                let value = v.evaluate(vs)?;
                best.offer(info.round, value, || ());
            }
            log::debug!(
                "{algorithm}: round {}: feature {} > {} r {:.5} value {:.5} alpha {:.5}",
                info.round,
                info.weak.feature,
                info.weak.threshold,
                info.r,
                info.value,
                info.alpha
            );
        }
        let mut model = self.model;
        if valid.is_some() {
            model.truncate(best.best().map_or(0, |b| b.step));
        }
        Ok(model)
    }
}
