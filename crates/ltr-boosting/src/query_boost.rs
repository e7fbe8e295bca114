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

use crate::driver::{Accepted, LoopSettings, Outcome, Rule, drive};
use crate::ensemble::Ensemble;
use crate::measure::{CandidateScores, QueryMeasure, Scratch, candidate_major, full_weights};
use crate::source::{RoundContext, WeakSource};

/// `1 - W_t(h)` at or below this counts as a perfect weak ranker: the loop adds it with the
/// capped weight and stops.
pub const PERFECT_EPS: f64 = 1e-12;

/// Floor of the denominator `sum_q P_t(q) (1 - E(q, h))` in `alpha_t`, so a perfect weak
/// ranker gets the finite weight `1/2 ln((1 + W) / 1e-9)`, about 10.7, instead of infinity.
pub const ALPHA_DENOMINATOR_FLOOR: f64 = 1e-9;

/// `1/2 ln(plus / minus)` with `minus` floored at [`ALPHA_DENOMINATOR_FLOOR`]: AdaRank's
/// `alpha_t` (`plus = 1 + W`, `minus = 1 - W`) and the cascade's (`eta + phi`, `eta - phi`).
pub fn capped_alpha(plus: f64, minus: f64) -> f64 {
    0.5 * (plus / minus.max(ALPHA_DENOMINATOR_FLOOR)).ln()
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

    /// The driver's settings of this loop (no patience: with validation every round is
    /// played and the best prefix kept).
    pub fn settings(&self) -> LoopSettings {
        LoopSettings {
            algorithm: self.algorithm,
            max_rounds: self.max_rounds,
            no_reselect: self.no_reselect,
            require_improvement: self.require_improvement,
            patience: 0,
        }
    }

    /// Checks the configuration and returns the measure `E` on `train` with the queries of
    /// the loop (all, or only the informative ones, in index order).
    ///
    /// # Errors
    /// When the evaluation configuration is invalid or no training query is left.
    pub fn loop_queries(&self, train: &Dataset) -> Result<(QueryMeasure, Vec<usize>)> {
        self.eval.validate().map_err(|e| Error::fit(self.algorithm, e.to_string()))?;
        let measure = QueryMeasure::new(self.metric, &self.eval, train);
        let queries = measure.loop_queries(train, self.skip_uninformative);
        if queries.is_empty() {
            return Err(Error::fit(self.algorithm, "no training query whose measure depends on the ranking"));
        }
        Ok((measure, queries))
    }
}

/// The result of [`boost`] (and of every loop whose model is an [`Ensemble`]).
pub type BoostOutcome<W> = Outcome<Ensemble<W>>;

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
    /// `E(q, f + alpha_j h_j)` of loop query `k` for every candidate `h_j` of `cands`
    /// (`alphas = None`: `E(q, h_j)`), the query's rows read once for all of them.
    fn query_values(&self, s: &mut Scratch, k: usize, cands: &[usize], alphas: Option<&[f64]>) -> Vec<f64> {
        let view = self.train.query(self.queries[k]);
        let (range, len) = (view.range(), view.len());
        let mut block = std::mem::take(&mut s.block);
        let mut buf = std::mem::take(&mut s.buf);
        self.cache.block(&*self.source, self.train, cands, range.clone(), &mut block);
        let values = (0..cands.len())
            .map(|j| {
                let h = &block[j * len..(j + 1) * len];
                buf.clear();
                match alphas {
                    Some(a) => buf.extend(range.clone().zip(h).map(|(i, &v)| self.scores[i] + a[j] * v)),
                    None => buf.extend_from_slice(h),
                }
                self.measure.value_of(view.labels, &buf, s)
            })
            .collect();
        (s.block, s.buf) = (block, buf);
        values
    }

    /// `E(q, f + alpha_j h_j)` (or `E(q, h_j)`) for every candidate of `cands` and loop
    /// query, candidate-major, parallel over queries.
    fn values(&self, cands: &[usize], alphas: Option<&[f64]>) -> Vec<f64> {
        let by_query: Vec<Vec<f64>> = (0..self.queries.len())
            .into_par_iter()
            .map_init(Scratch::default, |s, k| self.query_values(s, k, cands, alphas))
            .collect();
        candidate_major(&by_query, cands.len())
    }
}

impl<S: WeakSource> Rule for AdaRankRule<'_, S> {
    type Weak = S::Weak;
    /// `E(q, f_{t-1} + alpha h)` per loop query.
    type Trial = Vec<f64>;
    type Scores = Vec<f64>;

    fn begin_round(&mut self, t: usize) -> Result<()> {
        let query_weights = self.query_weights();
        let ctx =
            RoundContext { round: t, train: self.train, query_weights: &query_weights, scores: &self.scores };
        if self.cache.refresh(&mut *self.source, &ctx)? {
            let all: Vec<usize> = (0..self.source.n_candidates()).collect();
            self.emat = self.values(&all, None);
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
        full_weights(self.train.n_queries(), &self.queries, &self.p)
    }

    fn n_candidates(&self) -> usize {
        self.source.n_candidates()
    }

    fn group(&self, c: usize) -> usize {
        self.source.group(c)
    }

    fn choice(&self, c: usize) -> Option<(f64, f64)> {
        let w = self.w[c];
        (w > 0.0).then(|| (w, capped_alpha(1.0 + w, 1.0 - w)))
    }

    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Vec<f64> {
        if parallel {
            self.values(&[c], Some(&[alpha]))
        } else {
            let mut s = Scratch::default();
            (0..self.queries.len()).map(|k| self.query_values(&mut s, k, &[c], Some(&[alpha]))[0]).collect()
        }
    }

    /// All of `tries` in one pass over the queries (parallel over queries).
    fn trials(&self, tries: &[(usize, f64)]) -> Vec<Vec<f64>> {
        let (cands, alphas): (Vec<usize>, Vec<f64>) = tries.iter().copied().unzip();
        let m = self.queries.len();
        self.values(&cands, Some(&alphas)).chunks(m.max(1)).map(<[f64]>::to_vec).collect()
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

    fn loop_queries(&self) -> &[usize] {
        &self.queries
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
    let (measure, queries) = cfg.loop_queries(train)?;
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
    let out = drive(&mut rule, train, valid, &cfg.settings())?;
    Ok(out.map_model(|rounds| Ensemble { n_features: train.n_features(), rounds }))
}
