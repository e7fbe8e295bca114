//! What the loops share besides the driver: the per-query measure `E(q, .)` (AdaRank's and
//! the cascade's), the candidate scores of the training documents, and the query weights
//! spread over all training queries.

use std::ops::Range;

use ltr_core::{Dataset, Grade, Result};
use ltr_metrics::{EvalConfig, Metric, MetricScratch, Ties};
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

    /// [`Self::value`] of `scores` ranked by sorting packed `(key, index)` pairs
    /// ([`desc_key`]) rather than indices compared through the scores: the same order, so
    /// the same value, several times faster on the lists of a training loop. Ties other
    /// than file order, and NaN scores (which the evaluation's comparison leaves unordered),
    /// take [`Self::value`]'s path.
    pub fn value_of(&self, labels: &[Grade], scores: &[f64], s: &mut Scratch) -> f64 {
        if self.cfg.ties != Ties::File || scores.iter().any(|x| x.is_nan()) {
            return self.value(labels, scores, &mut s.metric);
        }
        sort_keys(scores, &mut s.keys);
        s.ranked.clear();
        s.ranked.extend(s.keys.iter().map(|&(_, j)| labels[j]));
        self.ranked_value(&s.ranked, &mut s.ideal)
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
    /// `(desc_key(score), tie)` pairs of one query, sorted to rank it.
    pub keys: Vec<(u64, usize)>,
    /// A block of candidate scores of one query ([`CandidateScores::block`]).
    pub block: Vec<f64>,
    /// Grades in ranked order.
    pub ranked: Vec<Grade>,
    /// The ideal order's grades.
    pub ideal: Vec<Grade>,
}

/// The sort key of a score in descending order: `a` before `b` exactly when
/// `b.total_cmp(a)` after `+ 0.0` (so -0 and +0 tie, as in the evaluation's sort), as one
/// unsigned integer. A query's `(key, index)` pairs sorted ascending give the evaluation's
/// stable order by score (ties in file order) without comparing through the scores.
#[inline]
pub fn desc_key(x: f64) -> u64 {
    let bits = (x + 0.0).to_bits();
    // total_cmp's order as unsigned integers: negatives have every bit flipped, the others
    // only the sign bit; then reversed for descending.
    let ascending = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    !ascending
}

/// `(desc_key(scores[j]), j)` for every `j`, sorted: `scores` ranked descending, ties (and
/// -0 with +0) in index order.
fn sort_keys(scores: &[f64], keys: &mut Vec<(u64, usize)>) {
    keys.clear();
    keys.extend(scores.iter().enumerate().map(|(j, &x)| (desc_key(x), j)));
    keys.sort_unstable();
}

/// The order [`ltr_core::rank_order`] gives `scores` (descending, ties in index order),
/// computed by sorting packed keys ([`desc_key`]; `keys` is scratch), its own way only for
/// NaN.
pub fn rank_order_keyed(scores: &[f64], keys: &mut Vec<(u64, usize)>, order: &mut Vec<usize>) {
    if scores.iter().any(|x| x.is_nan()) {
        ltr_core::rank_order(scores, order);
        return;
    }
    sort_keys(scores, keys);
    order.clear();
    order.extend(keys.iter().map(|&(_, j)| j));
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

    /// The scores of candidates `cands` on the documents `docs` (one query's) into `out`,
    /// candidate-major: `out[j * docs.len() + i - docs.start]` is `cands[j]`'s score of
    /// document `i`. Uncached, every row is read once for all candidates: a query's rows are
    /// contiguous, so this streams through the feature matrix instead of striding through
    /// it once per candidate.
    pub fn block<S: WeakSource>(
        &self,
        source: &S,
        train: &Dataset,
        cands: &[usize],
        docs: Range<usize>,
        out: &mut Vec<f64>,
    ) {
        let len = docs.len();
        out.clear();
        match &self.cache {
            Some(cache) => {
                let n = train.n_docs();
                for &c in cands {
                    out.extend_from_slice(&cache[c * n + docs.start..c * n + docs.end]);
                }
            }
            None => {
                out.resize(cands.len() * len, 0.0);
                for (j, i) in docs.enumerate() {
                    let row = train.row(i);
                    for (b, &c) in cands.iter().enumerate() {
                        out[b * len + j] = source.candidate(c).score(row);
                    }
                }
            }
        }
    }

    /// [`Self::block`] document-major: `out[(i - docs.start) * cands.len() + j]`, so that a
    /// rule accumulating over the documents keeps one independent sum per candidate.
    pub fn block_by_doc<S: WeakSource>(
        &self,
        source: &S,
        train: &Dataset,
        cands: &[usize],
        docs: Range<usize>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        match &self.cache {
            Some(cache) => {
                let n = train.n_docs();
                out.extend(docs.flat_map(|i| cands.iter().map(move |&c| cache[c * n + i])));
            }
            None => {
                for i in docs {
                    let row = train.row(i);
                    out.extend(cands.iter().map(|&c| source.candidate(c).score(row)));
                }
            }
        }
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

/// Per-query rows of values, one per candidate (`by_query[k][c]`), turned candidate-major
/// (`[c * m + k]` for `m` queries): rules compute query by query (each query's rows read
/// once) and select candidate by candidate.
pub fn candidate_major<T: Copy + Default>(by_query: &[Vec<T>], n_cand: usize) -> Vec<T> {
    let m = by_query.len();
    let mut out = vec![T::default(); n_cand * m];
    for (k, row) in by_query.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            out[c * m + k] = v;
        }
    }
    out
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::features::FeatureSource;
    use ltr_metrics::Convention;

    /// Packed keys order scores as the evaluation's stable sort does: descending, ties
    /// (-0 with +0 among them) in index order; NaN falls back to that sort.
    #[test]
    fn keyed_orders_are_the_evaluation_orders() {
        let lists: [&[f64]; 5] = [
            &[0.5, -1.0, 0.5, 2.0, -0.0, 0.0, -3.5, 1e300, -1e-300, 1e-300],
            &[],
            &[1.0; 7],
            &[3.0, f64::NAN, 1.0, 2.0, f64::NAN],
            &[f64::INFINITY, -0.0, f64::NEG_INFINITY, 0.0, -0.0],
        ];
        let (mut keys, mut got, mut want) = (Vec::new(), Vec::new(), Vec::new());
        for scores in lists {
            rank_order_keyed(scores, &mut keys, &mut got);
            ltr_core::rank_order(scores, &mut want);
            assert_eq!(got, want, "{scores:?}");
        }
        assert!(desc_key(2.0) < desc_key(1.0) && desc_key(-1.0) > desc_key(0.0));
        assert_eq!(desc_key(-0.0), desc_key(0.0));
        // The cascade's comparison (`total_cmp` after `+ 0.0`), NaN included.
        let xs = [f64::NAN, -f64::NAN, 1.0, -0.0, 0.0, -2.0, f64::INFINITY];
        for &a in &xs {
            for &b in &xs {
                assert_eq!(desc_key(a).cmp(&desc_key(b)), (b + 0.0).total_cmp(&(a + 0.0)), "{a} {b}");
            }
        }
    }

    /// `value_of` gives `value`'s bits on every query, measure and tie rule; a block holds
    /// what `get` gives, in either layout, cached or not.
    #[test]
    fn keyed_values_and_blocks_match() {
        let data = ltr_testkit::random_dataset(3, 30, 4, 1..25, 0.3, 3);
        let source = FeatureSource::new(4, true);
        for ties in Ties::ALL {
            for metric in [Metric::Map, Metric::Ndcg(3), Metric::Ndcg(10), Metric::Precision(5)] {
                let eval = EvalConfig { ties, ..EvalConfig::official(Convention::Letor4) };
                let m = QueryMeasure::new(metric, &eval, &data);
                let (mut s, mut ms) = (Scratch::default(), MetricScratch::default());
                for q in data.queries() {
                    // Coarse scores, so that ties occur.
                    let scores: Vec<f64> = q.range().map(|i| (data.row(i)[0] * 4.0).round().into()).collect();
                    let (a, b) = (m.value_of(q.labels, &scores, &mut s), m.value(q.labels, &scores, &mut ms));
                    assert_eq!(a.to_bits(), b.to_bits(), "{metric} {ties:?}");
                }
            }
        }
        let cands = [5, 0, 7];
        for cache in [CandidateScores::fill(&source, &data), CandidateScores { cache: None }] {
            let (mut by_cand, mut by_doc) = (Vec::new(), Vec::new());
            let q = data.query(4);
            cache.block(&source, &data, &cands, q.range(), &mut by_cand);
            cache.block_by_doc(&source, &data, &cands, q.range(), &mut by_doc);
            for (j, i) in q.range().enumerate() {
                for (b, &c) in cands.iter().enumerate() {
                    let want = cache.get(&source, &data, c, i);
                    assert_eq!(by_cand[b * q.len() + j], want);
                    assert_eq!(by_doc[j * cands.len() + b], want);
                }
            }
        }
        assert_eq!(candidate_major(&[vec![1, 2], vec![3, 4], vec![5, 6]], 2), vec![1, 3, 5, 2, 4, 6]);
    }
}
