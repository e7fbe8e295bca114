//! The query-weighted boosting loop of AdaRank (Xu & Li, SIGIR 2007), generic over the
//! source of weak rankers.
//!
//! Round `t` (queries `q` of the loop, weights `P_t(q)`, `P_1(q) = 1/m`):
//! 1. score every candidate `h` by the weighted measure `W_t(h) = sum_q P_t(q) E(q, h)`;
//! 2. take the best allowed candidate (highest `W_t`, ties to the lowest candidate index);
//!    with `require_improvement`, a candidate is only accepted if the updated ensemble
//!    improves the weighted measure of the current one,
//!    `sum_q P_t(q) E(q, f_{t-1} + alpha h) > sum_q P_t(q) E(q, f_{t-1})`; candidates are tried
//!    in order of `W_t` and the loop stops when none improves (round 1 has no ensemble to
//!    improve on, so its best candidate is always accepted);
//! 3. `alpha_t = 1/2 ln( sum_q P_t(q) (1 + E(q, h_t)) / sum_q P_t(q) (1 - E(q, h_t)) )`;
//! 4. `f_t = f_{t-1} + alpha_t h_t`, training scores updated in place, `E(q, f_t)` recomputed
//!    with one sort per query;
//! 5. `P_{t+1}(q) = exp(-E(q, f_t)) / sum_q' exp(-E(q', f_t))` (the paper's update, not
//!    RankLib's cumulative product).

use ltr_core::{Dataset, Error, Result, Validation};
use ltr_linear::dot;
use ltr_metrics::{EvalConfig, Metric};
use rayon::prelude::*;

use crate::driver::{Accepted, LoopSettings, Rule, drive};
use crate::ensemble::{Ensemble, WeakRanker};
use crate::measure::{CandidateScores, QueryMeasure, Scratch};

/// `1 - W_t(h)` at or below this counts as a perfect weak ranker: the loop adds it with the
/// capped weight and stops.
pub const PERFECT_EPS: f64 = 1e-12;

/// Floor of the denominator `sum_q P_t(q) (1 - E(q, h))` in `alpha_t`, so a perfect weak
/// ranker gets the finite weight `1/2 ln((1 + W) / 1e-9)`, about 10.7, instead of infinity.
pub const ALPHA_DENOMINATOR_FLOOR: f64 = 1e-9;

/// What a weak-ranker source sees before a round.
#[derive(Debug, Clone, Copy)]
pub struct RoundContext<'a> {
    /// The round about to be played (1-based).
    pub round: usize,
    /// The training data.
    pub train: &'a Dataset,
    /// `P_t(q)` for every query of `train` (0 for queries outside the loop); sums to 1.
    pub query_weights: &'a [f64],
    /// The current ensemble's scores `f_{t-1}` of the training documents.
    pub scores: &'a [f64],
}

/// A source of candidate weak rankers for [`boost`].
///
/// Sources whose candidates never change ([`WeakSource::fixed`], the default) let the loop
/// compute `E(q, h)` for every candidate and query once; an adaptive source regenerates its
/// candidates in [`WeakSource::propose`] from the current query weights and scores, and the
/// loop re-evaluates them every round.
pub trait WeakSource: Sync {
    /// The weak ranker type stored in the model.
    type Weak: WeakRanker;

    /// Number of candidates (for an adaptive source: after the last `propose`).
    fn n_candidates(&self) -> usize;

    /// Candidate `c` (`c < n_candidates()`).
    fn candidate(&self, c: usize) -> &Self::Weak;

    /// Candidates with equal group count as "the same weak ranker" for the no-reselect guard
    /// (AdaRank: both signs of one feature). Default: every candidate is its own group.
    fn group(&self, c: usize) -> usize {
        c
    }

    /// Whether the candidates are the same every round. Default `true`.
    fn fixed(&self) -> bool {
        true
    }

    /// Called before every round when `fixed()` is false. Default: nothing.
    fn propose(&mut self, ctx: &RoundContext<'_>) -> Result<()> {
        let _ = ctx;
        Ok(())
    }
}

/// Settings of the loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoostConfig {
    /// Algorithm id, for error messages and logs.
    pub algorithm: &'static str,
    /// The per-query measure `E(q, .)` (MAP, NDCG@k, ...: all in `[0, 1]`).
    pub metric: Metric,
    /// How `E` is computed. Learners pass `EvalConfig::of(train)`, the official configuration
    /// of the convention the training data carries, so that training optimises exactly what
    /// is reported for that data (LETOR: gain `2^g - 1`, discount `1` for ranks 1-2 and
    /// `1/log2(r)` after, NDCG@k = 0 for a query with fewer than `k` documents, ties in file
    /// order; MSLR: relevant from grade 2).
    pub eval: EvalConfig,
    /// Round cap.
    pub max_rounds: usize,
    /// Forbid the weak ranker (group) chosen in the previous round (RankLib's guard).
    pub no_reselect: bool,
    /// Only accept a weak ranker that improves the weighted measure of the ensemble, and
    /// stop when no candidate does.
    pub require_improvement: bool,
    /// Leave out queries whose measure does not depend on the ranking (no relevant
    /// document, a single grade, or fewer than `k` documents for official NDCG@k): they
    /// cannot change the choice of weak ranker, only dilute `alpha_t`.
    pub skip_uninformative: bool,
}

impl BoostConfig {
    /// The defaults: 500 rounds (RankLib's AdaRank), no-reselect, improvement required,
    /// uninformative queries skipped.
    pub fn new(algorithm: &'static str, metric: Metric, eval: EvalConfig) -> Self {
        Self {
            algorithm,
            metric,
            eval,
            max_rounds: 500,
            no_reselect: true,
            require_improvement: true,
            skip_uninformative: true,
        }
    }
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// `max_rounds` rounds were played.
    RoundCap,
    /// No allowed candidate improved the weighted measure (`require_improvement`).
    NoImprovement,
    /// No allowed candidate has a positive weighted measure (or there is none).
    NoCandidate,
    /// The last weak ranker was perfect on the weighted queries, or the ensemble is perfect
    /// on every query of the loop.
    Perfect,
    /// The validation measure did not improve for the configured number of rounds.
    EarlyStop,
}

/// One played round.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundTrace {
    /// Round number (1-based).
    pub round: usize,
    /// Index of the chosen candidate.
    pub candidate: usize,
    /// Its weight.
    pub alpha: f64,
    /// `P_t(q)` used in this round, for every query of the training data (0 outside the loop).
    pub query_weights: Vec<f64>,
    /// `W_t(h_t) = sum_q P_t(q) E(q, h_t)`.
    pub weighted_measure: f64,
    /// Mean of `E(q, f_t)` over the queries of the loop.
    pub train_measure: f64,
    /// The validation measure of `f_t`, when validation data was given.
    pub valid_measure: Option<f64>,
    /// Candidates evaluated for the improvement test before one was accepted.
    pub tries: usize,
}

/// The result of [`boost`].
#[derive(Debug, Clone)]
pub struct BoostOutcome<W> {
    /// The model: all played rounds, or the best prefix on the validation data.
    pub model: Ensemble<W>,
    /// Every played round (also those cut off by validation).
    pub trace: Vec<RoundTrace>,
    /// Why the loop ended.
    pub stop: StopReason,
    /// Rounds kept in `model`.
    pub best_rounds: usize,
    /// Indices of the training queries that took part in the loop.
    pub loop_queries: Vec<usize>,
}

/// `1 / 2 ln((1 + W) / (1 - W))`, the denominator floored.
fn alpha_of(w: f64) -> f64 {
    0.5 * ((1.0 + w) / (1.0 - w).max(ALPHA_DENOMINATOR_FLOOR)).ln()
}

/// AdaRank's rule on the driver.
struct AdaRankRule<'a, S: WeakSource> {
    source: &'a mut S,
    train: &'a Dataset,
    measure: QueryMeasure,
    /// The loop queries (indices into `train`).
    queries: Vec<usize>,
    /// `P_t(q)` per loop query.
    p: Vec<f64>,
    /// `f_{t-1}` of every training document.
    scores: Vec<f64>,
    /// `E(q, f_{t-1})` per loop query.
    cur_e: Vec<f64>,
    /// `E(q, h)`, candidate-major (`[c * m + k]`).
    emat: Vec<f64>,
    /// `W_t(h)` per candidate.
    w: Vec<f64>,
    cache: CandidateScores,
}

impl<S: WeakSource> AdaRankRule<'_, S> {
    /// `E(q, f + alpha h_c)` of loop query `k` (`base = None`: `E(q, h_c)`).
    fn query_value(&self, s: &mut Scratch, k: usize, c: usize, base: Option<(&[f64], f64)>) -> f64 {
        let view = self.train.query(self.queries[k]);
        let score = |i| self.cache.get(&*self.source, self.train, c, i);
        s.buf.clear();
        match base {
            Some((f, alpha)) => s.buf.extend(view.range().map(|i| f[i] + alpha * score(i))),
            None => s.buf.extend(view.range().map(score)),
        }
        self.measure.value(view.labels, &s.buf, &mut s.metric)
    }

    /// `E(q, h)` for every candidate and loop query, candidate-major.
    fn candidate_matrix(&self) -> Vec<f64> {
        let m = self.queries.len();
        let rows: Vec<Vec<f64>> = (0..self.source.n_candidates())
            .into_par_iter()
            .map_init(Scratch::default, |s, c| (0..m).map(|k| self.query_value(s, k, c, None)).collect())
            .collect();
        rows.concat()
    }

    fn full_weights(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.train.n_queries()];
        for (k, &q) in self.queries.iter().enumerate() {
            w[q] = self.p[k];
        }
        w
    }
}

impl<S: WeakSource> Rule for AdaRankRule<'_, S> {
    type Weak = S::Weak;
    /// `E(q, f_{t-1} + alpha h)` per loop query.
    type Trial = Vec<f64>;
    type Scores = Vec<f64>;

    fn begin_round(&mut self, t: usize) -> Result<()> {
        if t == 1 || !self.source.fixed() {
            if !self.source.fixed() {
                let query_weights = self.full_weights();
                self.source.propose(&RoundContext {
                    round: t,
                    train: self.train,
                    query_weights: &query_weights,
                    scores: &self.scores,
                })?;
            }
            self.cache = CandidateScores::fill(&*self.source, self.train);
            self.emat = self.candidate_matrix();
        }
        let m = self.queries.len();
        let (p, emat) = (&self.p, &self.emat);
        self.w = (0..self.source.n_candidates())
            .into_par_iter()
            .map(|c| weighted(p, &emat[c * m..(c + 1) * m]))
            .collect();
        Ok(())
    }

    fn query_weights(&self) -> Vec<f64> {
        self.full_weights()
    }

    fn n_candidates(&self) -> usize {
        self.source.n_candidates()
    }

    fn group(&self, c: usize) -> usize {
        self.source.group(c)
    }

    fn choice(&self, c: usize) -> Option<(f64, f64)> {
        let w = self.w[c];
        (w > 0.0).then(|| (w, alpha_of(w)))
    }

    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Vec<f64> {
        let f = Some((&self.scores[..], alpha));
        let m = self.queries.len();
        if parallel {
            (0..m).into_par_iter().map_init(Scratch::default, |s, k| self.query_value(s, k, c, f)).collect()
        } else {
            let mut s = Scratch::default();
            (0..m).map(|k| self.query_value(&mut s, k, c, f)).collect()
        }
    }

    fn improves(&self, trial: &Vec<f64>) -> bool {
        weighted(&self.p, trial) > weighted(&self.p, &self.cur_e)
    }

    fn accept(&mut self, c: usize, alpha: f64, trial: Vec<f64>) -> Accepted<S::Weak> {
        let weak = self.source.candidate(c).clone();
        Ensemble::add_round(&weak, alpha, self.train, &mut self.scores);
        self.cur_e = trial;
        let train_measure = self.cur_e.iter().sum::<f64>() / self.queries.len() as f64;
        let w = self.w[c];
        let perfect = 1.0 - w <= PERFECT_EPS || self.cur_e.iter().all(|&e| e >= 1.0);
        let total: f64 = self.cur_e.iter().map(|e| (-e).exp()).sum();
        for (pk, e) in self.p.iter_mut().zip(&self.cur_e) {
            *pk = (-e).exp() / total;
        }
        Accepted { weak, weighted_measure: w, train_measure, perfect }
    }

    fn start_scores(&self, data: &Dataset) -> Vec<f64> {
        vec![0.0; data.n_docs()]
    }

    fn apply(&self, weak: &S::Weak, alpha: f64, data: &Dataset, scores: &mut Vec<f64>) {
        Ensemble::add_round(weak, alpha, data, scores);
    }

    fn ranking<'s>(&self, scores: &'s Vec<f64>) -> &'s [f64] {
        scores
    }
}

/// `sum_q P(q) E(q)`.
fn weighted(p: &[f64], e: &[f64]) -> f64 {
    dot(p, e)
}

/// Runs the loop. With `valid`, the validation measure of every `f_t` is computed (scores
/// updated in place) and the model keeps the best prefix (the earliest on ties); without
/// it, all played rounds.
///
/// Parallel over candidates (the `E(q, h)` matrix and the weighted measures) and over
/// queries (ensemble updates); every value is computed independently and reduced in index
/// order, so the result is bit-identical at any thread count.
pub fn boost<S: WeakSource>(
    source: &mut S,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &BoostConfig,
) -> Result<BoostOutcome<S::Weak>> {
    let algo = cfg.algorithm;
    cfg.eval.validate().map_err(|e| Error::fit(algo, e.to_string()))?;
    let measure = QueryMeasure::new(cfg.metric, &cfg.eval, train);
    let queries = measure.loop_queries(train, cfg.skip_uninformative);
    if queries.is_empty() {
        return Err(Error::fit(algo, "no training query whose measure depends on the ranking"));
    }
    let m = queries.len();
    let mut rule = AdaRankRule {
        source,
        train,
        measure,
        p: vec![1.0 / m as f64; m],
        scores: vec![0.0; train.n_docs()],
        cur_e: vec![0.0; m],
        emat: Vec::new(),
        w: Vec::new(),
        cache: CandidateScores::default(),
        queries,
    };
    let settings = LoopSettings {
        algorithm: algo,
        max_rounds: cfg.max_rounds,
        no_reselect: cfg.no_reselect,
        require_improvement: cfg.require_improvement,
        patience: 0,
    };
    let driven = drive(&mut rule, train, valid, &settings)?;
    Ok(BoostOutcome {
        model: Ensemble { n_features: train.n_features(), rounds: driven.rounds },
        trace: driven.trace,
        stop: driven.stop,
        best_rounds: driven.best_rounds,
        loop_queries: rule.queries,
    })
}
