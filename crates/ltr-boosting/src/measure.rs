//! What the loops share besides the driver: the per-query measure `E(q, .)` (AdaRank's and
//! the cascade's), the candidate scores of the training documents, and the query weights
//! spread over all training queries.

use ltr_core::{Dataset, Grade, Result};
use ltr_metrics::{EvalConfig, Metric, MetricScratch};
use rayon::prelude::*;

use crate::ensemble::WeakRanker;
use crate::source::{RoundContext, WeakSource};

/// `E(q, .)` with its configuration.
#[derive(Debug, Clone, Copy)]
pub struct QueryMeasure {
    /// The measure.
    pub metric: Metric,
    /// Its configuration, the metric's cut-off raised into it.
    pub cfg: EvalConfig,
    /// The top of the grade scale (for gains that need it).
    pub max_grade: Grade,
}

impl QueryMeasure {
    /// The measure of `metric` under `eval` on `train` (the metric's cut-off raised into
    /// the configuration, the grade scale of `eval` or of the data).
    pub fn new(metric: Metric, eval: &EvalConfig, train: &Dataset) -> Self {
        Self {
            metric,
            cfg: metric.config(eval),
            max_grade: eval.max_grade.unwrap_or_else(|| train.max_grade()),
        }
    }

    /// `E` of one query ranked by `scores` (ties in file order), clamped to `[0, 1]`.
    pub fn value(&self, labels: &[Grade], scores: &[f64], scratch: &mut MetricScratch) -> f64 {
        self.metric.query_value(labels, scores, &self.cfg, self.max_grade, scratch).clamp(0.0, 1.0)
    }

    /// `E` of labels already in ranked order, clamped to `[0, 1]`.
    pub fn ranked_value(&self, ranked: &[Grade], ideal: &mut Vec<Grade>) -> f64 {
        self.metric.ranked_value(ranked, &self.cfg, self.max_grade, ideal).clamp(0.0, 1.0)
    }

    /// Whether some ranking of `labels` scores differently from another: the best
    /// (grades descending) and the worst (ascending) orders bound every ranking.
    pub fn informative(&self, labels: &[Grade]) -> bool {
        let mut ranked = labels.to_vec();
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        let mut ideal = Vec::new();
        let best = self.metric.ranked_value(&ranked, &self.cfg, self.max_grade, &mut ideal);
        ranked.reverse();
        let worst = self.metric.ranked_value(&ranked, &self.cfg, self.max_grade, &mut ideal);
        best != worst
    }

    /// The training queries of the loop: all, or only the informative ones.
    pub fn loop_queries(&self, train: &Dataset, skip_uninformative: bool) -> Vec<usize> {
        (0..train.n_queries())
            .filter(|&q| !skip_uninformative || self.informative(train.query(q).labels))
            .collect()
    }
}

/// Reusable buffers of one task (one per rayon work item).
#[derive(Debug, Default)]
pub struct Scratch {
    /// Scores of one query.
    pub buf: Vec<f64>,
    /// The metric's own buffers.
    pub metric: MetricScratch,
    /// A ranking of one query (local indices).
    pub order: Vec<usize>,
    /// The same, narrowed.
    pub order32: Vec<u32>,
    /// Grades in ranked order.
    pub ranked: Vec<Grade>,
    /// The ideal order's grades.
    pub ideal: Vec<Grade>,
}

/// Candidate scores of the training documents kept in memory (candidate-major) when they
/// fit in this many entries (128 MiB); otherwise they are recomputed from the weak rankers.
/// Either way the values are `weak.score(row)`, so results do not depend on the cache.
pub const SCORE_CACHE_ENTRIES: usize = 1 << 24;

/// The scores of every candidate of a source on the training documents.
#[derive(Debug, Default)]
pub struct CandidateScores {
    /// `cache[c * n_docs + i] = candidate(c).score(row i)`, when kept.
    cache: Option<Vec<f64>>,
}

impl CandidateScores {
    /// Scores every candidate (in parallel over candidates) if the cache fits.
    pub fn fill<S: WeakSource>(source: &S, train: &Dataset) -> Self {
        let (n, c) = (train.n_docs(), source.n_candidates());
        if n.saturating_mul(c) > SCORE_CACHE_ENTRIES {
            return Self { cache: None };
        }
        let rows: Vec<Vec<f64>> = (0..c)
            .into_par_iter()
            .map(|c| {
                let w = source.candidate(c);
                train.rows().map(|r| w.score(r)).collect()
            })
            .collect();
        Self { cache: Some(rows.concat()) }
    }

    /// Prepares the candidates of round `ctx.round`: in round 1, and in every round for an
    /// adaptive source (after its [`WeakSource::propose`]), scores them all. Returns whether
    /// they changed, so the rule recomputes what it derives from them.
    ///
    /// # Errors
    /// When the source's `propose` fails.
    pub fn refresh<S: WeakSource>(&mut self, source: &mut S, ctx: &RoundContext<'_>) -> Result<bool> {
        if ctx.round != 1 && source.fixed() {
            return Ok(false);
        }
        if !source.fixed() {
            source.propose(ctx)?;
        }
        *self = Self::fill(source, ctx.train);
        Ok(true)
    }

    /// Candidate `c`'s scores of all training documents, when cached.
    #[inline]
    pub fn row(&self, c: usize, n_docs: usize) -> Option<&[f64]> {
        self.cache.as_deref().map(|cache| &cache[c * n_docs..(c + 1) * n_docs])
    }

    /// Candidate `c`'s score of training document `i`.
    #[inline]
    pub fn get<S: WeakSource>(&self, source: &S, train: &Dataset, c: usize, i: usize) -> f64 {
        match &self.cache {
            Some(cache) => cache[c * train.n_docs() + i],
            None => source.candidate(c).score(train.row(i)),
        }
    }
}

/// Per-query masses of the loop queries (a rule's `sum w_ij` or `sum |gamma_i|`) normalised to
/// sum 1 (all 0 when the total is 0) and spread over all `n_queries` training queries as
/// [`full_weights`] does: the trace's query weights of a rule that reweights pairs or documents
/// rather than queries.
pub fn mass_weights(n_queries: usize, queries: &[usize], mass: &[f64]) -> Vec<f64> {
    let total: f64 = mass.iter().sum();
    let shares: Vec<f64> = mass.iter().map(|&m| if total > 0.0 { m / total } else { 0.0 }).collect();
    full_weights(n_queries, queries, &shares)
}

/// The weights `p` of the loop queries spread over all `n_queries` training queries (0
/// outside the loop): what the trace and an adaptive source see.
pub fn full_weights(n_queries: usize, queries: &[usize], p: &[f64]) -> Vec<f64> {
    let mut w = vec![0.0; n_queries];
    for (k, &q) in queries.iter().enumerate() {
        w[q] = p[k];
    }
    w
}
