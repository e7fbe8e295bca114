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

use ltr_core::{BestCheckpoint, Dataset, Error, Grade, Result, Validation};
use ltr_linear::dot;
use ltr_metrics::{EvalConfig, Metric, MetricScratch};
use rayon::prelude::*;

use crate::ensemble::{Ensemble, WeakRanker};

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

/// `E(q, .)` with its configuration.
#[derive(Debug, Clone, Copy)]
struct QueryMeasure {
    metric: Metric,
    cfg: EvalConfig,
    max_grade: Grade,
}

impl QueryMeasure {
    fn value(&self, labels: &[Grade], scores: &[f64], scratch: &mut MetricScratch) -> f64 {
        self.metric.query_value(labels, scores, &self.cfg, self.max_grade, scratch).clamp(0.0, 1.0)
    }

    /// Whether some ranking of `labels` scores differently from another: the best
    /// (grades descending) and the worst (ascending) orders bound every ranking.
    fn informative(&self, labels: &[Grade]) -> bool {
        let mut ranked = labels.to_vec();
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        let mut ideal = Vec::new();
        let best = self.metric.ranked_value(&ranked, &self.cfg, self.max_grade, &mut ideal);
        ranked.reverse();
        let worst = self.metric.ranked_value(&ranked, &self.cfg, self.max_grade, &mut ideal);
        best != worst
    }
}

#[derive(Debug, Default)]
struct Scratch {
    buf: Vec<f64>,
    metric: MetricScratch,
}

/// Candidate scores of the training documents kept in memory (candidate-major) when they
/// fit in this many entries (128 MiB); otherwise they are recomputed from the weak rankers.
/// Either way the values are `weak.score(row)`, so results do not depend on the cache.
pub const SCORE_CACHE_ENTRIES: usize = 1 << 24;

/// Candidates tried in parallel, in order, after the best one failed the improvement test.
const TRY_CHUNK: usize = 8;

/// The loop's view of the training data and the candidates.
struct Ctx<'a, S: WeakSource> {
    source: &'a S,
    train: &'a Dataset,
    measure: QueryMeasure,
    queries: &'a [usize],
    /// `cache[c * n_docs + i] = candidate(c).score(row i)`, when kept.
    cache: Option<Vec<f64>>,
}

impl<S: WeakSource> Ctx<'_, S> {
    fn candidate_score(&self, c: usize, i: usize) -> f64 {
        match &self.cache {
            Some(cache) => cache[c * self.train.n_docs() + i],
            None => self.source.candidate(c).score(self.train.row(i)),
        }
    }

    /// `E(q, f + alpha h_c)` of loop query `k` (`f = None`: `E(q, h_c)`).
    fn query_value(&self, s: &mut Scratch, k: usize, c: usize, base: Option<(&[f64], f64)>) -> f64 {
        let view = self.train.query(self.queries[k]);
        s.buf.clear();
        match base {
            Some((f, alpha)) => s.buf.extend(view.range().map(|i| f[i] + alpha * self.candidate_score(c, i))),
            None => s.buf.extend(view.range().map(|i| self.candidate_score(c, i))),
        }
        self.measure.value(view.labels, &s.buf, &mut s.metric)
    }

    /// Fills the score cache if it fits.
    fn fill_cache(&mut self) {
        let (n, c) = (self.train.n_docs(), self.source.n_candidates());
        self.cache = None;
        if n.saturating_mul(c) <= SCORE_CACHE_ENTRIES {
            let (source, train) = (self.source, self.train);
            let rows: Vec<Vec<f64>> = (0..c)
                .into_par_iter()
                .map(|c| {
                    let w = source.candidate(c);
                    train.rows().map(|r| w.score(r)).collect()
                })
                .collect();
            self.cache = Some(rows.concat());
        }
    }

    /// `E(q, h)` for every candidate and loop query, candidate-major (`[c * m + k]`).
    fn candidate_matrix(&self) -> Vec<f64> {
        let m = self.queries.len();
        let rows: Vec<Vec<f64>> = (0..self.source.n_candidates())
            .into_par_iter()
            .map_init(Scratch::default, |s, c| (0..m).map(|k| self.query_value(s, k, c, None)).collect())
            .collect();
        rows.concat()
    }

    /// `E(q, f + alpha h_c)` for every loop query, parallel over queries.
    fn update_values(&self, f: &[f64], c: usize, alpha: f64) -> Vec<f64> {
        (0..self.queries.len())
            .into_par_iter()
            .map_init(Scratch::default, |s, k| self.query_value(s, k, c, Some((f, alpha))))
            .collect()
    }

    /// The same, one query after the other (when candidates run in parallel).
    fn update_values_serial(&self, s: &mut Scratch, f: &[f64], c: usize, alpha: f64) -> Vec<f64> {
        (0..self.queries.len()).map(|k| self.query_value(s, k, c, Some((f, alpha)))).collect()
    }
}

/// `sum_q P(q) E(q)`.
fn weighted(p: &[f64], e: &[f64]) -> f64 {
    dot(p, e)
}

fn alpha_of(w: f64) -> f64 {
    0.5 * ((1.0 + w) / (1.0 - w).max(ALPHA_DENOMINATOR_FLOOR)).ln()
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
    if let Some(v) = valid
        && v.data.n_features() != train.n_features()
    {
        return Err(Error::FeatureCount { expected: train.n_features(), found: v.data.n_features() });
    }
    let measure = QueryMeasure {
        metric: cfg.metric,
        cfg: cfg.metric.config(&cfg.eval),
        max_grade: cfg.eval.max_grade.unwrap_or_else(|| train.max_grade()),
    };
    let queries: Vec<usize> = (0..train.n_queries())
        .filter(|&q| !cfg.skip_uninformative || measure.informative(train.query(q).labels))
        .collect();
    if queries.is_empty() {
        return Err(Error::fit(algo, "no training query whose measure depends on the ranking"));
    }
    let m = queries.len();
    let mut p = vec![1.0 / m as f64; m];
    let mut scores = vec![0.0; train.n_docs()];
    let mut vscores = valid.map(|v| vec![0.0; v.data.n_docs()]);
    let mut cur_e = vec![0.0; m];
    let mut emat = Vec::new();
    let mut cache = None;
    let mut model = Ensemble::new(train.n_features());
    let mut trace = Vec::new();
    let mut prev_group = None;
    // The kept prefix: the round count is the step, the state nothing.
    let mut best = BestCheckpoint::new();
    let mut stop = StopReason::RoundCap;
    let full_weights = |p: &[f64]| {
        let mut w = vec![0.0; train.n_queries()];
        for (k, &q) in queries.iter().enumerate() {
            w[q] = p[k];
        }
        w
    };

    for t in 1..=cfg.max_rounds {
        let query_weights = full_weights(&p);
        if t == 1 || !source.fixed() {
            if !source.fixed() {
                source.propose(&RoundContext {
                    round: t,
                    train,
                    query_weights: &query_weights,
                    scores: &scores,
                })?;
            }
            let mut ctx = Ctx { source: &*source, train, measure, queries: &queries, cache: None };
            ctx.fill_cache();
            emat = ctx.candidate_matrix();
            cache = ctx.cache;
        }
        let ctx = Ctx { source: &*source, train, measure, queries: &queries, cache: cache.take() };
        let n_cand = ctx.source.n_candidates();
        if n_cand == 0 && t == 1 {
            return Err(Error::fit(algo, "the weak-ranker source has no candidate"));
        }
        let w: Vec<f64> =
            (0..n_cand).into_par_iter().map(|c| weighted(&p, &emat[c * m..(c + 1) * m])).collect();
        let mut order: Vec<usize> = (0..n_cand)
            .filter(|&c| w[c] > 0.0 && !(cfg.no_reselect && prev_group == Some(ctx.source.group(c))))
            .collect();
        order.sort_by(|&a, &b| w[b].total_cmp(&w[a]).then(a.cmp(&b)));
        let Some(&first) = order.first() else {
            stop = StopReason::NoCandidate;
            break;
        };
        // The best candidate alone (parallel over queries); if it does not improve the
        // weighted measure, the next ones in chunks (parallel over candidates), first
        // improving one in order wins.
        let baseline = weighted(&p, &cur_e);
        let improves = |e: &[f64]| t == 1 || !cfg.require_improvement || weighted(&p, e) > baseline;
        let first_e = ctx.update_values(&scores, first, alpha_of(w[first]));
        let mut chosen = improves(&first_e).then_some((first, first_e, 1));
        let mut offset = 1;
        while chosen.is_none() && offset < order.len() {
            let chunk = &order[offset..(offset + TRY_CHUNK).min(order.len())];
            let evaluated: Vec<Vec<f64>> = chunk
                .par_iter()
                .map_init(Scratch::default, |s, &c| ctx.update_values_serial(s, &scores, c, alpha_of(w[c])))
                .collect();
            chosen = chunk
                .iter()
                .zip(evaluated)
                .enumerate()
                .find(|(_, (_, e))| improves(e))
                .map(|(j, (&c, e))| (c, e, offset + j + 1));
            offset += chunk.len();
        }
        let Some((c, new_e, tries)) = chosen else {
            stop = StopReason::NoImprovement;
            break;
        };
        let alpha = alpha_of(w[c]);
        let weak = ctx.source.candidate(c).clone();
        let group = ctx.source.group(c);
        cache = ctx.cache;
        Ensemble::add_round(&weak, alpha, train, &mut scores);
        cur_e = new_e;
        let train_measure = cur_e.iter().sum::<f64>() / m as f64;
        let valid_measure = match (valid, vscores.as_mut()) {
            (Some(v), Some(vs)) => {
                Ensemble::add_round(&weak, alpha, v.data, vs);
                let value = v.evaluate(vs)?;
                best.offer(t, value, || ());
                Some(value)
            }
            _ => None,
        };
        log::debug!(
            "{algo}: round {t}: candidate {c} alpha {alpha:.5} weighted {:.5} train {train_measure:.5} valid {valid_measure:?} ({tries} tried)",
            w[c]
        );
        trace.push(RoundTrace {
            round: t,
            candidate: c,
            alpha,
            query_weights,
            weighted_measure: w[c],
            train_measure,
            valid_measure,
            tries,
        });
        model.push(weak, alpha);
        prev_group = Some(group);
        if 1.0 - w[c] <= PERFECT_EPS || cur_e.iter().all(|&e| e >= 1.0) {
            stop = StopReason::Perfect;
            break;
        }
        let total: f64 = cur_e.iter().map(|e| (-e).exp()).sum();
        for (pk, e) in p.iter_mut().zip(&cur_e) {
            *pk = (-e).exp() / total;
        }
    }
    let best_rounds = match best.best() {
        Some(b) => b.step,
        None if valid.is_some() => 0,
        None => model.len(),
    };
    model.truncate(best_rounds);
    log::debug!("{algo}: stopped ({stop:?}) after {} rounds; keeping {best_rounds}", trace.len());
    Ok(BoostOutcome { model, trace, stop, best_rounds, loop_queries: queries })
}
