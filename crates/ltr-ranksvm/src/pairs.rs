//! Sums over the active pairs of one query in `O(n log n)`, never enumerating pairs.
//!
//! For scores `z` of a query's documents and grades `y`, the pairs are `(i, j)` with
//! `y_i > y_j`, and pair `(i, j)` is *active* when its squared-hinge residual
//! `r_ij = 1 - z_i + z_j` is positive. Everything the primal Newton method needs is a sum over
//! active pairs:
//!
//! * the loss `L = sum r_ij^2`;
//! * its derivative `gamma_k = dL/dz_k` (`-2 r` summed over the pairs where `k` is the higher
//!   document, `+2 r` where it is the lower one);
//! * the generalised Hessian in score space applied to a vector `p`:
//!   `rho_k = sum over active pairs containing k of (p_k - p_partner)` (that is `A^T A p` for
//!   the active pair-incidence matrix `A`).
//!
//! After sorting the documents by score, the active partners of a document at a lower grade
//! level form a suffix of that level's score-sorted list, and those at a higher level a
//! prefix; the boundaries move monotonically with the document's score, so one sweep with a
//! pointer per level finds them all (`O(n * levels)` after the `O(n log n)` sort), and prefix
//! sums per level turn every sum into `O(levels)` lookups (Chapelle & Keerthi 2010, section 3;
//! the multi-level sweep as in Airola, Pahikkala & Salakoski 2011).
//!
//! Activity is decided by one floating-point predicate used from both sides of a pair,
//! `z_i < fl(z_j + 1)`, which is monotone in both scores, so the higher and the lower
//! document always agree on whether their pair is active.

use std::ops::Range;

use ltr_core::Dataset;

/// The squared pair hinge of a whole training set as a function of the document scores,
/// `L(z) = sum_q sum_{(i,j): y_i > y_j} max(0, 1 - z_i + z_j)^2`, with its gradient and the
/// products with its generalised Hessian, each in `O(n log n + n L)` per query of `n`
/// documents and `L` grades, never enumerating the pairs. RankSVM's truncated Newton solver
/// runs on it; so can any learner of a squared pair hinge on linear or other scores.
#[derive(Debug, Clone)]
pub struct SquaredHingePairs {
    queries: Vec<QueryPairs>,
}

impl SquaredHingePairs {
    /// The pair structure of `data`; `None` when no query has two distinct grades.
    pub fn new(data: &Dataset) -> Option<Self> {
        let queries: Vec<QueryPairs> =
            data.queries().filter_map(|q| QueryPairs::new(q.start, q.labels)).collect();
        (!queries.is_empty()).then_some(Self { queries })
    }

    /// Number of pairs `(i, j)` with `y_i > y_j` over all queries.
    pub fn n_pairs(&self) -> u64 {
        self.queries.iter().map(QueryPairs::n_pairs).sum()
    }

    /// The document ranges (data-set indices) of the queries with pairs, in data-set order.
    /// Documents outside them take part in no pair.
    pub fn query_ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.queries.iter().map(|q| q.start..q.start + q.len())
    }

    /// `L(z)` at the scores `z` (one per document of the data set), with `dL/dz` written into
    /// `grad` for the documents of [`Self::query_ranges`] (other entries are not written).
    /// Prepares the active pairs for [`Self::active_gram`].
    pub fn loss_grad(&mut self, z: &[f64], grad: &mut [f64]) -> f64 {
        let mut loss = 0.0;
        for q in &mut self.queries {
            let r = q.start..q.start + q.len();
            loss += q.prepare(&z[r.clone()], &mut grad[r]);
        }
        loss
    }

    /// `out = A^T A p` over the pairs active (`z_i - z_j < 1`) at the last
    /// [`Self::loss_grad`], `A` their incidence matrix: half the generalised Hessian of `L` in
    /// score space applied to `p`. Entries outside [`Self::query_ranges`] are not written.
    pub fn active_gram(&mut self, p: &[f64], out: &mut [f64]) {
        for q in &mut self.queries {
            let r = q.start..q.start + q.len();
            q.hess_apply(&p[r.clone()], &mut out[r]);
        }
    }
}

/// One query's pair structure and the state prepared for the current scores.
#[derive(Debug, Clone)]
struct QueryPairs {
    /// Index of the query's first document in the data set.
    start: usize,
    /// Grade level (rank of the grade among the query's distinct grades) per document.
    level: Vec<usize>,
    /// `level_start[g]..level_start[g + 1]` is level `g`'s slice of `by_level`.
    level_start: Vec<usize>,
    /// Local document indices grouped by level, ascending score within a level.
    by_level: Vec<usize>,
    /// Per document and level: for a lower level, how many of its documents are inactive
    /// partners (a prefix); for a higher level, how many are active partners (a prefix).
    cut: Vec<usize>,
    /// Active partners at lower / higher levels, per document.
    low_cnt: Vec<f64>,
    high_cnt: Vec<f64>,
    /// Scores of the last `prepare`, centred on the query mean (pairs are shift-invariant).
    z: Vec<f64>,
    /// Scratch: sort order, and per-level prefix sums (`len + levels` entries).
    order: Vec<usize>,
    prefix: Vec<f64>,
    prefix2: Vec<f64>,
}

impl QueryPairs {
    /// The pair structure of a query with grades `labels`, or `None` if all grades are equal
    /// (no pairs).
    fn new(start: usize, labels: &[u8]) -> Option<Self> {
        let mut grades: Vec<u8> = labels.to_vec();
        grades.sort_unstable();
        grades.dedup();
        if grades.len() < 2 {
            return None;
        }
        let n = labels.len();
        let levels = grades.len();
        let level: Vec<usize> = labels.iter().map(|g| grades.binary_search(g).unwrap_or_default()).collect();
        let mut level_start = vec![0; levels + 1];
        for &l in &level {
            level_start[l + 1] += 1;
        }
        for g in 0..levels {
            level_start[g + 1] += level_start[g];
        }
        Some(Self {
            start,
            level,
            level_start,
            by_level: vec![0; n],
            cut: vec![0; n * levels],
            low_cnt: vec![0.0; n],
            high_cnt: vec![0.0; n],
            z: vec![0.0; n],
            order: (0..n).collect(),
            prefix: vec![0.0; n + levels],
            prefix2: vec![0.0; n + levels],
        })
    }

    /// Number of documents.
    fn len(&self) -> usize {
        self.level.len()
    }

    fn levels(&self) -> usize {
        self.level_start.len() - 1
    }

    /// Number of pairs `(i, j)` with `y_i > y_j`.
    fn n_pairs(&self) -> u64 {
        let mut below = 0u64;
        let mut total = 0u64;
        for g in 0..self.levels() {
            let size = (self.level_start[g + 1] - self.level_start[g]) as u64;
            total += size * below;
            below += size;
        }
        total
    }

    /// Index into `prefix` of level `g`'s prefix sum over its first `k` documents.
    #[inline]
    fn pre(&self, g: usize, k: usize) -> usize {
        self.level_start[g] + g + k
    }

    /// Sorts by `scores` (this query's slice), finds the active partners of every document and
    /// returns `(L, gamma)` with `gamma` written into `grad` (this query's slice).
    fn prepare(&mut self, scores: &[f64], grad: &mut [f64]) -> f64 {
        let n = self.len();
        let levels = self.levels();
        let mean = scores.iter().sum::<f64>() / n as f64;
        for (z, &s) in self.z.iter_mut().zip(scores) {
            *z = s - mean;
        }
        let z = &self.z;
        self.order.sort_unstable_by(|&a, &b| z[a].total_cmp(&z[b]).then(a.cmp(&b)));

        // Group by level, keeping ascending score within each level.
        let mut fill: Vec<usize> = self.level_start[..levels].to_vec();
        for &i in &self.order {
            let l = self.level[i];
            self.by_level[fill[l]] = i;
            fill[l] += 1;
        }
        for g in 0..levels {
            let (mut s, mut s2) = (0.0, 0.0);
            let base = self.pre(g, 0);
            self.prefix[base] = 0.0;
            self.prefix2[base] = 0.0;
            for (k, &i) in self.by_level[self.level_start[g]..self.level_start[g + 1]].iter().enumerate() {
                s += z[i];
                s2 += z[i] * z[i];
                self.prefix[base + k + 1] = s;
                self.prefix2[base + k + 1] = s2;
            }
        }

        // One sweep in ascending score. Level g has two pointers, both only moving forward:
        // `lo_ptr[g]` for readers above g (inactive prefix), `hi_ptr[g]` for readers below g
        // (active prefix).
        let mut lo_ptr = vec![0usize; levels];
        let mut hi_ptr = vec![0usize; levels];
        let mut loss = 0.0;
        for &i in &self.order {
            let li = self.level[i];
            let zi = z[i];
            let zi1 = zi + 1.0;
            let (mut lc, mut ls, mut ls2, mut hc, mut hs) = (0usize, 0.0, 0.0, 0usize, 0.0);
            for g in 0..levels {
                let (a, b) = (self.level_start[g], self.level_start[g + 1]);
                let list = &self.by_level[a..b];
                if g < li {
                    let p = &mut lo_ptr[g];
                    while *p < list.len() && z[list[*p]] + 1.0 <= zi {
                        *p += 1;
                    }
                    self.cut[i * levels + g] = *p;
                    lc += list.len() - *p;
                    ls += self.prefix[self.pre(g, list.len())] - self.prefix[self.pre(g, *p)];
                    ls2 += self.prefix2[self.pre(g, list.len())] - self.prefix2[self.pre(g, *p)];
                } else if g > li {
                    let p = &mut hi_ptr[g];
                    while *p < list.len() && z[list[*p]] < zi1 {
                        *p += 1;
                    }
                    self.cut[i * levels + g] = *p;
                    hc += *p;
                    hs += self.prefix[self.pre(g, *p)];
                }
            }
            let (lcf, hcf) = (lc as f64, hc as f64);
            self.low_cnt[i] = lcf;
            self.high_cnt[i] = hcf;
            // As the higher document: sum_j (u + z_j)^2 with u = 1 - z_i.
            let u = 1.0 - zi;
            loss += lcf * u * u + 2.0 * u * ls + ls2;
            grad[i] = -2.0 * (lcf * u + ls) + 2.0 * (hcf * (1.0 + zi) - hs);
        }
        loss
    }

    /// `rho = A^T A p` for the active pairs of the last `prepare` (`p` and `out` are this
    /// query's slices).
    fn hess_apply(&mut self, p: &[f64], out: &mut [f64]) {
        let levels = self.levels();
        for g in 0..levels {
            let base = self.pre(g, 0);
            let mut s = 0.0;
            self.prefix[base] = 0.0;
            for (k, &i) in self.by_level[self.level_start[g]..self.level_start[g + 1]].iter().enumerate() {
                s += p[i];
                self.prefix[base + k + 1] = s;
            }
        }
        for i in 0..self.len() {
            let li = self.level[i];
            let mut partner_sum = 0.0;
            for g in 0..levels {
                let c = self.cut[i * levels + g];
                if g < li {
                    let size = self.level_start[g + 1] - self.level_start[g];
                    partner_sum += self.prefix[self.pre(g, size)] - self.prefix[self.pre(g, c)];
                } else if g > li {
                    partner_sum += self.prefix[self.pre(g, c)];
                }
            }
            out[i] = (self.low_cnt[i] + self.high_cnt[i]) * p[i] - partner_sum;
        }
    }
}
