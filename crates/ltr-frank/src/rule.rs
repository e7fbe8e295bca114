//! FRank's round on the query-level boosting driver of `ltr-boosting`.
//!
//! The loss of the additive model `H` is `J(H) = sum_q c_q sum_{(i, j) in q} F(H(x_i) - H(x_j))`
//! over the pairs `(i, j)` of a query with `grade(i) > grade(j)`, `c_q = 1 / |#q|` (the
//! query-level normalisation: `|#q|` pairs) or 1. Round `t` adds a binary weak ranker `h`
//! with weight `alpha`; with `h_ij = h(x_i) - h(x_j)` in `{-1, 0, 1}` and the pair weights
//! `w_ij = c_q w(H(x_i) - H(x_j))` of the current model (`w = -2 F'`),
//!
//! ```text
//! up(h)   = sum_{h_ij = +1} w_ij,   down(h) = sum_{h_ij = -1} w_ij
//! alpha   = 1/2 ln(up / down)
//! ```
//!
//! which zeroes the derivative of `J(H + alpha h)` when each pair's factor
//! `(1 + e^{-(o + alpha h_ij)})^{-3/2}` is held at its value for `alpha = 0` (the derivative is
//! then `-1/2 (up e^{-alpha} - down e^{alpha})`). At that weight the same approximation
//! predicts the decrease `1/2 (sqrt(up) - sqrt(down))^2`; the candidate predicted to lower
//! the loss most is tried first, and the driver accepts it only if the exact loss
//! `J(H + alpha h)` is lower than `J(H)` (otherwise the next one, in order).
//!
//! `up` and `down` of every candidate come from one pass over the pairs per round
//! ([`ltr_boosting::CutCandidates`]' pair sums, `O(d)` per pair), parallel over fixed chunks of
//! queries merged in order: the result does not depend on the thread count.

use ltr_boosting::{
    ALPHA_DENOMINATOR_FLOOR, Accepted, CutCandidates, DocBlock, Ensemble, PairSums, Rule, ThresholdRanker,
    mass_weights,
};
use ltr_core::{Dataset, Result};
use rayon::prelude::*;

use crate::fidelity::{alpha, fidelity, pair_weight, predicted_decrease};

/// Queries per parallel task of the pair pass (fixed, so the merge order is too).
const QUERY_CHUNK: usize = 4;

/// Most tasks per thread of the pair pass whose partial sums are held before they are merged.
const MERGE_BATCH: usize = 16;

/// Bytes of partial sums per thread the pair pass holds before merging, unless one task's
/// alone is larger.
const MERGE_BYTES: usize = 64 << 20;

/// The pairs of one training query, implicitly: its documents ordered by grade, highest
/// first, cut into groups of one grade; every document of a group pairs with every document
/// of the groups after it.
#[derive(Debug, Clone)]
pub(crate) struct QueryPairs {
    /// Index of the query in the training data.
    pub query: usize,
    /// Its documents' training indices.
    range: std::ops::Range<usize>,
    /// The documents (training indices), grades descending, file order within a grade.
    docs: Vec<usize>,
    /// Start of each grade group in `docs`, and `docs.len()` last.
    groups: Vec<usize>,
    /// `c_q`: `1 / pairs` with the query-level normalisation, else 1.
    pub scale: f64,
    /// Number of pairs.
    pub pairs: usize,
}

impl QueryPairs {
    /// The pairs of query `q`, or `None` when its documents share one grade.
    pub fn new(train: &Dataset, q: usize, normalise: bool) -> Option<Self> {
        let view = train.query(q);
        let mut docs: Vec<usize> = view.range().collect();
        docs.sort_by_key(|&i| std::cmp::Reverse(train.labels()[i]));
        let mut groups = vec![0];
        for k in 1..docs.len() {
            if train.labels()[docs[k]] != train.labels()[docs[k - 1]] {
                groups.push(k);
            }
        }
        groups.push(docs.len());
        let mut pairs = 0;
        for g in 0..groups.len() - 1 {
            pairs += (groups[g + 1] - groups[g]) * (docs.len() - groups[g + 1]);
        }
        (pairs > 0).then(|| Self {
            query: q,
            range: view.range(),
            docs,
            groups,
            scale: if normalise { 1.0 / pairs as f64 } else { 1.0 },
            pairs,
        })
    }

    /// Calls `f(i, j)` for every pair, `i` the document of the higher grade.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(usize, usize)) {
        for g in 0..self.groups.len() - 2 {
            let (lower, higher) = (&self.docs[self.groups[g + 1]..], self.group(g));
            for &i in higher {
                for &j in lower {
                    f(i, j);
                }
            }
        }
    }

    fn group(&self, g: usize) -> &[usize] {
        &self.docs[self.groups[g]..self.groups[g + 1]]
    }

    /// `c_q sum F(s_i - s_j)` over the pairs, `s` the scores and `shift(i)` added to them.
    pub fn loss(&self, scores: &[f64], shift: impl Fn(usize) -> f64) -> f64 {
        let mut sum = 0.0;
        self.for_each(|i, j| sum += fidelity(scores[i] + shift(i) - scores[j] - shift(j)));
        self.scale * sum
    }
}

/// FRank's rule.
pub(crate) struct FidelityRule<'a> {
    pub cands: &'a CutCandidates,
    pub train: &'a Dataset,
    pub queries: Vec<QueryPairs>,
    /// `H_{t-1}` of every training document.
    pub scores: Vec<f64>,
    /// `c_q sum F` per loop query under `H_{t-1}`.
    pub cur: Vec<f64>,
    /// `sum_q c_q |#q|`: the loss of a model that reverses every pair; the trace reports
    /// `1 - J / total` (1 when every pair is ordered with an infinite margin).
    pub total: f64,
    /// This round's `up` and `down` per candidate.
    up: Vec<f64>,
    down: Vec<f64>,
    /// This round's `sum w_ij` per loop query (the trace's query weights).
    mass: Vec<f64>,
    /// The training indices of `queries`.
    loop_queries: Vec<usize>,
}

impl<'a> FidelityRule<'a> {
    pub fn new(cands: &'a CutCandidates, train: &'a Dataset, queries: Vec<QueryPairs>) -> Self {
        let scores = vec![0.0; train.n_docs()];
        let cur: Vec<f64> = queries.iter().map(|q| q.loss(&scores, |_| 0.0)).collect();
        let total = queries.iter().map(|q| q.scale * q.pairs as f64).sum();
        let loop_queries = queries.iter().map(|q| q.query).collect();
        Self {
            cands,
            train,
            queries,
            scores,
            cur,
            total,
            up: Vec::new(),
            down: Vec::new(),
            mass: Vec::new(),
            loop_queries,
        }
    }

    /// The loss summed over the loop queries, in query order.
    pub fn loss(per_query: &[f64]) -> f64 {
        per_query.iter().sum()
    }
}

impl Rule for FidelityRule<'_> {
    type Weak = ThresholdRanker;
    /// `c_q sum F` per loop query after the candidate.
    type Trial = Vec<f64>;
    type Scores = Vec<f64>;

    fn begin_round(&mut self, _t: usize) -> Result<()> {
        let (cands, scores) = (self.cands, &self.scores);
        let pass = |chunk: &[QueryPairs]| {
            let mut sums = cands.pair_sums();
            let mut block = DocBlock::default();
            let masses: Vec<f64> = chunk
                .iter()
                .map(|q| {
                    let mut mass = 0.0;
                    cands.load_block(&mut block, q.range.clone());
                    q.for_each(|i, j| {
                        let w = q.scale * pair_weight(scores[i] - scores[j]);
                        cands.add_pair(&mut sums, &block, i, j, w);
                        mass += w;
                    });
                    mass
                })
                .collect();
            (sums, masses)
        };
        // The chunks' partial sums are merged in chunk order as each batch of chunks is done,
        // not collected all at once: one partial sum holds every candidate (with every value
        // a cut, millions), and there is one per chunk of queries. The batch is always whole
        // chunks, so the chunks and the merge order are those of one pass over all queries.
        let per_task = (MERGE_BYTES / cands.pair_sums_bytes().max(1)).clamp(1, MERGE_BATCH);
        let batch = QUERY_CHUNK * per_task * rayon::current_num_threads();
        let mut total: Option<PairSums> = None;
        let mut mass = Vec::with_capacity(self.queries.len());
        for queries in self.queries.chunks(batch) {
            let parts: Vec<(PairSums, Vec<f64>)> = queries.par_chunks(QUERY_CHUNK).map(pass).collect();
            for (s, m) in parts {
                match total.as_mut() {
                    Some(t) => t.merge(&s),
                    None => total = Some(s),
                }
                mass.extend(m);
            }
        }
        let Some(sums) = total else { return Ok(()) };
        (self.up, self.down) = cands.finish(&sums);
        self.mass = mass;
        Ok(())
    }

    /// `sum w_ij` of each query normalised to sum 1 (0 outside the loop).
    fn query_weights(&self) -> Vec<f64> {
        mass_weights(self.train.n_queries(), &self.loop_queries, &self.mass)
    }

    fn n_candidates(&self) -> usize {
        self.cands.n_candidates()
    }

    fn group(&self, c: usize) -> usize {
        self.cands.feature(c)
    }

    fn choice(&self, c: usize) -> Option<(f64, f64)> {
        let (up, down) = (self.up[c], self.down[c]);
        let gain = predicted_decrease(up, down);
        (gain > 0.0 && gain.is_finite()).then(|| (gain, alpha(up, down, ALPHA_DENOMINATOR_FLOOR)))
    }

    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Vec<f64> {
        let shift = |i: usize| if self.cands.fires(c, i) { alpha } else { 0.0 };
        let one = |q: &QueryPairs| q.loss(&self.scores, shift);
        if parallel {
            self.queries.par_iter().map(one).collect()
        } else {
            self.queries.iter().map(one).collect()
        }
    }

    fn improves(&self, trial: &Vec<f64>) -> bool {
        Self::loss(trial) < Self::loss(&self.cur)
    }

    fn accept(&mut self, c: usize, alpha: f64, trial: Vec<f64>) -> Accepted<ThresholdRanker> {
        let weak = self.cands.ranker(c);
        let predicted = Self::loss(&self.cur) - predicted_decrease(self.up[c], self.down[c]);
        Ensemble::add_round(&weak, alpha, self.train, &mut self.scores);
        self.cur = trial;
        let loss = Self::loss(&self.cur);
        Accepted {
            weak,
            weighted_measure: 1.0 - predicted / self.total,
            train_measure: 1.0 - loss / self.total,
            perfect: loss <= 0.0,
        }
    }

    fn loop_queries(&self) -> &[usize] {
        &self.loop_queries
    }
}
