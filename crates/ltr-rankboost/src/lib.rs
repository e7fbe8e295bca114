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

use ltr_boosting::{Ensemble, WeakRanker};
use ltr_core::{
    AlgorithmInfo, BestCheckpoint, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng,
    Validation, param_info,
};
use ltr_linear::dot;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
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
    ..AlgorithmInfo::DEFAULT
};

/// `|r|` at or below this: no weak ranker orders the weighted pairs better than chance, the
/// loop stops.
pub const R_EPS: f64 = 1e-12;

/// `1 - |r|` at or below this: the weak ranker orders every weighted pair correctly; it is
/// added with the capped weight `1/2 ln((1 + |r|) / 1e-9)` (about 10.7) and the loop stops
/// (the exact weight would be infinite).
pub const PERFECT_EPS: f64 = 1e-12;

/// Floor of `1 - |r|` in `alpha`.
pub const ALPHA_DENOMINATOR_FLOOR: f64 = 1e-9;

/// Where the candidate cut points of a feature lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThresholdSpacing {
    /// `min + j (max - min) / T`, `j = 1..T-1`: evenly spaced between the training minimum
    /// and maximum, the interior candidates of RankLib.
    Uniform,
    /// The training values at ranks `floor(j n / T)`, `j = 1..T-1`, of the sorted values
    /// (duplicates removed): equal-frequency intervals.
    Quantile,
}

/// How `D_1` spreads over the crucial pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairWeighting {
    /// Uniform over all crucial pairs of the training data (RankLib; queries with many
    /// pairs weigh more).
    Pairs,
    /// Every query with at least one crucial pair gets the same total weight, uniform over
    /// its pairs (the per-user normalisation of the paper's EachMovie experiments).
    Queries,
}

/// Hyperparameters of RankBoost (`rankboost`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankBoostParams {
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
    /// The initial pair distribution: `pairs` (uniform over all crucial pairs, RankLib) or
    /// `queries` (equal mass per query). Default `pairs`.
    pub pair_weighting: PairWeighting,
}

impl Default for RankBoostParams {
    fn default() -> Self {
        Self {
            rounds: 300,
            thresholds: 10,
            threshold_spacing: ThresholdSpacing::Uniform,
            pair_weighting: PairWeighting::Pairs,
        }
    }
}

impl Params for RankBoostParams {
    type Checked = RankBoost;

    const TABLE: &'static [ParamInfo] = &[
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

    fn validate(&self) -> Result<RankBoost> {
        param_info(Self::TABLE, "rounds").check_int(self.rounds as u64)?;
        param_info(Self::TABLE, "thresholds").check_int(self.thresholds as u64)?;
        if self.thresholds == 1 {
            return Err(Error::param("thresholds", self.thresholds, "must be 0 (every value) or at least 2"));
        }
        Ok(RankBoost { params: self.clone() })
    }
}

/// The weak ranker: `h(x) = 1` if `x_feature > threshold`, else 0 (a value equal to the
/// threshold, a missing feature and NaN give 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThresholdRanker {
    /// Feature index (0-based).
    pub feature: usize,
    /// The cut point.
    pub threshold: f64,
}

impl WeakRanker for ThresholdRanker {
    fn score(&self, row: &[f32]) -> f64 {
        match row.get(self.feature) {
            Some(&v) if f64::from(v) > self.threshold => 1.0,
            _ => 0.0,
        }
    }

    fn check(&self, what: &str, n_features: usize) -> Result<()> {
        ltr_core::check_feature(what, self.feature, n_features)
    }

    fn add_weights(&self, _: f64, _: &mut [f64]) -> std::result::Result<(), &'static str> {
        Err("a sum of threshold functions, neither trees with split gains nor a linear function")
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

/// One played round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundInfo {
    /// Round number (1-based).
    pub round: usize,
    /// The chosen weak ranker.
    pub weak: ThresholdRanker,
    /// Index of its cut among the feature's cuts (ascending).
    pub cut: usize,
    /// `r = sum D (h(x1) - h(x2))` under the round's distribution.
    pub r: f64,
    /// Its weight.
    pub alpha: f64,
}

/// The candidate cut points of one feature, ascending, from its training values.
fn cut_points(values: &mut [f64], count: usize, spacing: ThresholdSpacing) -> Vec<f64> {
    values.sort_unstable_by(f64::total_cmp);
    let finite: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let (Some(&min), Some(&max)) = (finite.first(), finite.last()) else { return Vec::new() };
    let mut cuts: Vec<f64> = if count == 0 {
        finite.clone()
    } else {
        match spacing {
            ThresholdSpacing::Uniform => {
                let step = (max - min) / count as f64;
                (1..count).map(|j| min + j as f64 * step).collect()
            }
            ThresholdSpacing::Quantile => {
                (1..count).map(|j| finite[(j * finite.len() / count).min(finite.len() - 1)]).collect()
            }
        }
    };
    cuts.retain(|&c| c >= min && c < max);
    cuts.dedup();
    cuts
}

/// Scratch of the per-query sums.
#[derive(Debug, Default)]
struct QuerySums {
    a: Vec<f64>,
    b: Vec<f64>,
    ea: Vec<f64>,
    eb: Vec<f64>,
}

/// The training state of RankBoost: one round at a time (also used by the bench).
#[derive(Debug, Clone)]
pub struct Trainer<'a> {
    data: &'a Dataset,
    /// Per feature, the cut points, ascending.
    cuts: Vec<Vec<f64>>,
    /// Feature-major: `bins[f * n + i]` = number of cuts of `f` below `x_if`, so
    /// `x_if > cuts[f][j]` iff `bins[f * n + i] > j`.
    bins: Vec<u32>,
    /// Per query, `D_1` of each of its crucial pairs up to a common factor (0: no pair).
    pair_weight: Vec<f64>,
    /// Per document, the index of its grade among its query's distinct grades (ascending).
    grade_index: Vec<u32>,
    /// Per query, the number of distinct grades.
    n_grades: Vec<usize>,
    /// The current scores `F = f_{t-1}` of the training documents.
    scores: Vec<f64>,
    /// `pi(x)` under the current distribution.
    potential: Vec<f64>,
    /// The normaliser `Z` of the current distribution, as the potentials were divided by it.
    z: f64,
    model: RankBoostModel,
    trace: Vec<RoundInfo>,
    finished: bool,
}

impl<'a> Trainer<'a> {
    /// Sorts every feature once, places the cuts and bins the documents.
    pub fn new(learner: &RankBoost, data: &'a Dataset) -> Result<Self> {
        let (n, d) = (data.n_docs(), data.n_features());
        if d == 0 {
            return Err(Error::fit(INFO.id, "the training data has no feature"));
        }
        let p = &learner.params;
        let per_feature: Vec<(Vec<f64>, Vec<u32>)> = (0..d)
            .into_par_iter()
            .map(|f| {
                let column: Vec<f64> = data.rows().map(|r| f64::from(r[f])).collect();
                let mut sorted = column.clone();
                let cuts = cut_points(&mut sorted, p.thresholds, p.threshold_spacing);
                let bins = column.iter().map(|&x| cuts.partition_point(|&c| c < x) as u32).collect();
                (cuts, bins)
            })
            .collect();
        let mut cuts = Vec::with_capacity(d);
        let mut bins = Vec::with_capacity(n * d);
        for (c, b) in per_feature {
            cuts.push(c);
            bins.extend(b);
        }
        let mut grade_index = vec![0u32; n];
        let mut n_grades = Vec::with_capacity(data.n_queries());
        let mut pair_weight = Vec::with_capacity(data.n_queries());
        for q in data.queries() {
            let mut grades = q.labels.to_vec();
            grades.sort_unstable();
            grades.dedup();
            let mut count = vec![0usize; grades.len()];
            for (i, &l) in q.range().zip(q.labels) {
                let g = grades.partition_point(|&x| x < l);
                grade_index[i] = g as u32;
                count[g] += 1;
            }
            let mut below = 0usize;
            let mut pairs = 0usize;
            for &c in &count {
                pairs += c * below;
                below += c;
            }
            n_grades.push(grades.len());
            pair_weight.push(match (pairs, p.pair_weighting) {
                (0, _) => 0.0,
                (_, PairWeighting::Pairs) => 1.0,
                (_, PairWeighting::Queries) => 1.0 / pairs as f64,
            });
        }
        if pair_weight.iter().all(|&w| w == 0.0) {
            return Err(Error::fit(INFO.id, "no training query has documents of two different grades"));
        }
        let mut trainer = Self {
            data,
            cuts,
            bins,
            pair_weight,
            grade_index,
            n_grades,
            scores: vec![0.0; n],
            potential: vec![0.0; n],
            z: 0.0,
            model: Ensemble::new(d),
            trace: Vec::new(),
            finished: false,
        };
        trainer.update_potentials();
        Ok(trainer)
    }

    /// The cut points of feature `f`, ascending.
    pub fn cuts(&self, f: usize) -> &[f64] {
        &self.cuts[f]
    }

    /// The model so far.
    pub fn model(&self) -> &RankBoostModel {
        &self.model
    }

    /// The rounds played so far.
    pub fn trace(&self) -> &[RoundInfo] {
        &self.trace
    }

    /// The current training scores `f_t`.
    pub fn scores(&self) -> &[f64] {
        &self.scores
    }

    /// Whether a stopping condition was met (no edge left, or a perfect weak ranker).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Per-grade sums of query `q`: `a[k] = sum e^{-(F - mid)}` and `b[k] = sum e^{F - mid}`
    /// over its documents of grade index `k`, with the per-document terms in `ea`/`eb`;
    /// returns `(mid, c_q)`. The shift `mid` (the query's mid-range score) keeps the
    /// exponentials in range and cancels in every pair weight
    /// `c_q e^{-(F(x1) - mid)} e^{F(x2) - mid}`.
    fn query_sums(&self, q: usize, sums: &mut QuerySums) -> (f64, f64) {
        let range = self.data.query(q).range();
        let s = &self.scores[range.clone()];
        let (lo, hi) = s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        let mid = 0.5 * (lo + hi);
        let g = self.n_grades[q];
        sums.a.clear();
        sums.a.resize(g, 0.0);
        sums.b.clear();
        sums.b.resize(g, 0.0);
        sums.ea.clear();
        sums.eb.clear();
        for i in range {
            let k = self.grade_index[i] as usize;
            let (ea, eb) = ((mid - self.scores[i]).exp(), (self.scores[i] - mid).exp());
            sums.a[k] += ea;
            sums.b[k] += eb;
            sums.ea.push(ea);
            sums.eb.push(eb);
        }
        (mid, self.pair_weight[q])
    }

    /// Recomputes the potentials and the normaliser `Z` from the current scores.
    fn update_potentials(&mut self) {
        let mut sums = QuerySums::default();
        let (mut below, mut above) = (Vec::new(), Vec::new());
        let mut z = 0.0;
        for q in 0..self.data.n_queries() {
            let range = self.data.query(q).range();
            if self.pair_weight[q] == 0.0 {
                self.potential[range].fill(0.0);
                continue;
            }
            let (_, c) = self.query_sums(q, &mut sums);
            let g = sums.a.len();
            // below[k] = sum of b over grades < k; above[k] = sum of a over grades > k.
            below.clear();
            below.resize(g, 0.0);
            above.clear();
            above.resize(g, 0.0);
            for k in 1..g {
                below[k] = below[k - 1] + sums.b[k - 1];
            }
            for k in (0..g - 1).rev() {
                above[k] = above[k + 1] + sums.a[k + 1];
            }
            let zq = dot(&sums.a, &below);
            z += c * zq;
            for (j, i) in range.enumerate() {
                let k = self.grade_index[i] as usize;
                self.potential[i] = c * (sums.ea[j] * below[k] - sums.eb[j] * above[k]);
            }
        }
        for p in &mut self.potential {
            *p /= z;
        }
        self.z = z;
    }

    /// The explicit distribution `D_t` the next round uses, as `(better doc, worse doc,
    /// weight)` over every crucial pair (O(pairs); for tests and inspection). The weights
    /// are divided by the normaliser `Z` the potentials use, computed from per-grade sums,
    /// not by their own total: that they sum to 1 checks `Z`.
    pub fn pair_distribution(&self) -> Vec<(usize, usize, f64)> {
        let mut out = Vec::new();
        let mut sums = QuerySums::default();
        for q in 0..self.data.n_queries() {
            if self.pair_weight[q] == 0.0 {
                continue;
            }
            let (mid, c) = self.query_sums(q, &mut sums);
            let view = self.data.query(q);
            for i in view.range() {
                for j in view.range() {
                    if self.data.labels()[i] > self.data.labels()[j] {
                        let w = c * (-(self.scores[i] - mid)).exp() * (self.scores[j] - mid).exp();
                        out.push((i, j, w));
                    }
                }
            }
        }
        for p in &mut out {
            p.2 /= self.z;
        }
        out
    }

    /// The best cut of feature `f`: `(r, cut index)` with the largest `|r|`, lowest index on
    /// ties; `None` without cuts.
    fn best_cut(&self, f: usize, hist: &mut Vec<f64>) -> Option<(f64, usize)> {
        let k = self.cuts[f].len();
        if k == 0 {
            return None;
        }
        let n = self.data.n_docs();
        // Four interleaved histograms (document i goes to lane i % 4) break the chains of
        // dependent additions into one bin; the lanes are summed in a fixed order.
        let width = k + 1;
        hist.clear();
        hist.resize(4 * width, 0.0);
        let bins = &self.bins[f * n..(f + 1) * n];
        let mut chunks = bins.chunks_exact(4).zip(self.potential.chunks_exact(4));
        for (b, p) in &mut chunks {
            hist[b[0] as usize] += p[0];
            hist[width + b[1] as usize] += p[1];
            hist[2 * width + b[2] as usize] += p[2];
            hist[3 * width + b[3] as usize] += p[3];
        }
        let tail = n - n % 4;
        for (lane, (&b, &p)) in bins[tail..].iter().zip(&self.potential[tail..]).enumerate() {
            hist[lane * width + b as usize] += p;
        }
        for j in 0..width {
            hist[j] = (hist[j] + hist[width + j]) + (hist[2 * width + j] + hist[3 * width + j]);
        }
        // r of cut j (0-based) = sum of the potentials of documents above it = bins > j.
        let mut r = vec![0.0; k];
        let mut acc = 0.0;
        for j in (0..k).rev() {
            acc += hist[j + 1];
            r[j] = acc;
        }
        let mut best = (r[0], 0);
        for (j, &v) in r.iter().enumerate().skip(1) {
            if v.abs() > best.0.abs() {
                best = (v, j);
            }
        }
        Some(best)
    }

    /// Plays one round; `None` when training is finished (no weak ranker with an edge left,
    /// or the previous round's weak ranker was perfect).
    pub fn step(&mut self) -> Option<RoundInfo> {
        if self.finished {
            return None;
        }
        let this = &*self;
        let per_feature: Vec<Option<(f64, usize)>> = (0..this.cuts.len())
            .into_par_iter()
            .map_init(Vec::new, |hist, f| this.best_cut(f, hist))
            .collect();
        let mut best: Option<(f64, usize, usize)> = None;
        for (f, cand) in per_feature.into_iter().enumerate() {
            if let Some((r, j)) = cand
                && best.is_none_or(|b| r.abs() > b.0.abs())
            {
                best = Some((r, f, j));
            }
        }
        let Some((r, feature, cut)) = best.filter(|b| b.0.abs() > R_EPS) else {
            self.finished = true;
            return None;
        };
        let alpha =
            0.5 * ((1.0 + r).max(ALPHA_DENOMINATOR_FLOOR) / (1.0 - r).max(ALPHA_DENOMINATOR_FLOOR)).ln();
        if 1.0 - r.abs() <= PERFECT_EPS {
            self.finished = true;
        }
        let weak = ThresholdRanker { feature, threshold: self.cuts[feature][cut] };
        Ensemble::add_round(&weak, alpha, self.data, &mut self.scores);
        self.update_potentials();
        self.model.push(weak, alpha);
        let info = RoundInfo { round: self.trace.len() + 1, weak, cut, r, alpha };
        self.trace.push(info);
        Some(info)
    }
}

impl Learner for RankBoost {
    type Model = RankBoostModel;

    /// Plays up to `rounds` rounds; with `valid`, keeps the prefix with the best validation
    /// measure (earliest on ties; validation scores updated in place each round).
    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<RankBoostModel> {
        if let Some(v) = valid
            && v.data.n_features() != train.n_features()
        {
            return Err(Error::FeatureCount { expected: train.n_features(), found: v.data.n_features() });
        }
        let mut trainer = Trainer::new(self, train)?;
        let mut vscores = valid.map(|v| vec![0.0; v.data.n_docs()]);
        // The kept prefix: the round count is the step, the state nothing.
        let mut best = BestCheckpoint::new();
        while trainer.trace.len() < self.params.rounds {
            let Some(info) = trainer.step() else { break };
            ltr_core::progress::tick(info.round, self.params.rounds, "rounds");
            if let (Some(v), Some(vs)) = (valid, vscores.as_mut()) {
                Ensemble::add_round(&info.weak, info.alpha, v.data, vs);
                let value = v.evaluate(vs)?;
                best.offer(info.round, value, || ());
            }
            log::debug!(
                "rankboost: round {}: feature {} > {} r {:.5} alpha {:.5}",
                info.round,
                info.weak.feature,
                info.weak.threshold,
                info.r,
                info.alpha
            );
        }
        let mut model = trainer.model;
        if valid.is_some() {
            model.truncate(best.best().map_or(0, |b| b.step));
        }
        Ok(model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
