//! The separation oracle of the 1-slack cutting-plane method for the plain pair hinge: at a
//! weight vector `w`, the loss and a subgradient of
//!
//! ```text
//! H(w) = (1/Q) sum_q sum_{(i,j): y_i > y_j} max(0, 1 - (z_i - z_j)),   z = X w,
//! ```
//!
//! in `O(n log n)` per query of `n` documents plus `O(n d)` for the scores and the subgradient,
//! never enumerating the pairs (Joachims, "Training linear SVMs in linear time", KDD 2006,
//! section 4 for ordinal labels; the form used by `svm_rank`).
//!
//! A pair `(i, j)` with `y_i > y_j` *violates the margin* when `fl(z_i - z_j) < 1`, the very
//! test `svm_rank` applies (`svm_struct_api.c`: `score[i] - score[j] < 1`); a pair exactly on the
//! margin has zero loss and is not counted. The most violated 1-slack constraint at `w` is the
//! set of violating pairs, giving the cutting plane `xi >= b - a.w` with
//!
//! ```text
//! b = (1/Q) #violating pairs,   a = (1/Q) sum_violating (x_i - x_j) = (1/Q) X^T gamma,
//! gamma_k = #{violating pairs where k is the higher document} - #{... the lower document},
//! ```
//!
//! and `H(w) = b - a.w`. The counts come from two sweeps over the query's documents sorted by
//! score. Because `fl(z_i - z_j)` is non-decreasing in `z_i` and non-increasing in `z_j`, the
//! higher-graded partners violating with a lower document `j` form a *prefix* of the ascending
//! score order that only grows as `z_j` grows, and the lower-graded partners violating with a
//! higher document `i` form a *suffix* that only grows as `z_i` falls. Each sweep moves one
//! pointer across the sorted list and keeps how many documents of each grade level it has
//! passed (cumulative counts for up to 8 levels, a Fenwick tree over the levels beyond); a
//! document's count is one lookup. Per query that is `O(n log n)` for the sort plus
//! `O(n log L)` (`O(n L)` with `L <= 8` levels) for the sweeps.
//! Both sweeps evaluate the same predicate on the same pair, so the two counts agree exactly.
//!
//! # Weighted pairs
//!
//! With pair weights ([`HingeOracle::new_weighted`]: pair `(i, j)` of query `q` weighs
//! `c_q(y_i, y_j) >= 0`, a function of the query and the two grades, as IR-SVM's
//! `tau_k mu_q`), the loss is `sum w_ij max(0, 1 - (z_i - z_j))`, `b` sums the weights of the
//! violating pairs and `gamma_k` their signed weights. The same sweeps keep plain per-level
//! counts of the passed documents, and a document's weighted count is `sum_l count_l c(l, .)`
//! over the other levels: `O(n log n + n L)` per query. The counts are integers and the weights
//! multiply them once per level, so with every weight 1 each sum is an exact integer and the
//! weighted evaluation equals the unweighted one bit for bit.
//!
//! Work is split into a fixed partition of consecutive queries (chunks of about
//! [`CHUNK_DOCS`] documents, independent of the thread count); chunks run in parallel with
//! rayon and their partial sums are reduced in chunk order, so results are bit-identical at any
//! thread count. Every buffer is allocated once; an evaluation allocates nothing.

use ltr_core::Dataset;
use ltr_linear::dot_lanes;
use rayon::prelude::*;

/// Target number of documents per chunk of the fixed partition.
pub(crate) const CHUNK_DOCS: usize = 1024;

/// The fixed partition of consecutive queries (of `lens[i]` documents each) into chunks of at
/// least `target` documents, the last one possibly smaller, and at least one query each: the
/// units a parallel oracle evaluates on its own and reduces in order. It depends on the data
/// only, not on the thread count, so the reduced sums are bit-identical at any thread count.
pub fn query_chunks(lens: &[usize], target: usize) -> Vec<std::ops::Range<usize>> {
    let mut chunks = Vec::new();
    let mut first = 0;
    while first < lens.len() {
        let (mut end, mut docs) = (first, 0);
        while end < lens.len() && (docs < target || end == first) {
            docs += lens[end];
            end += 1;
        }
        chunks.push(first..end);
        first = end;
    }
    chunks
}

/// One query with at least two distinct grades.
#[derive(Debug, Clone, Copy)]
struct QuerySpec {
    /// First document (data set index).
    start: usize,
    /// Number of documents.
    len: usize,
    /// Number of distinct grades.
    levels: usize,
    /// Weighted oracles: offset of the query's `levels x levels` weight matrix (row: the
    /// higher level, column: the lower) in [`HingeOracle::weights`].
    woff: usize,
}

/// A fixed block of consecutive queries with its own scratch space and partial sums.
#[derive(Debug, Clone)]
struct Chunk {
    /// Indices into [`HingeOracle::queries`].
    first: usize,
    end: usize,
    /// Partial `X^T gamma` (unscaled), violating pair count and hinge sum.
    a: Vec<f64>,
    count: u64,
    hinge: f64,
    /// Weighted oracles: the violating pairs' summed weight.
    weight: f64,
    /// Scratch, sized for the chunk's longest query.
    z: Vec<f64>,
    keyed: Vec<(f64, u64)>,
    /// The signed violation counts, and as `f64` (the signed weights, weighted).
    gamma: Vec<i64>,
    wgamma: Vec<f64>,
    counts: Vec<u32>,
}

/// The oracle over a training set: query structure, grade levels, chunks.
#[derive(Debug)]
pub(crate) struct HingeOracle<'a> {
    data: &'a Dataset,
    queries: Vec<QuerySpec>,
    /// Grade level (rank among the query's distinct grades) per document; 0 outside queries
    /// with pairs.
    level: Vec<u8>,
    chunks: Vec<Chunk>,
    n_pairs: u64,
    /// The pair weights' matrices (empty: unweighted, every weight 1).
    weights: Vec<f64>,
    /// The sum of every pair's weight (`n_pairs` unweighted).
    total_weight: f64,
}

/// What one evaluation returns besides the subgradient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct OracleValue {
    /// Summed weight of the margin-violating pairs over all queries (their number, unweighted).
    pub(crate) weight: f64,
    /// Sum over violating pairs of `w_ij (1 - (z_i - z_j))` (unscaled: not divided by `Q`).
    pub(crate) hinge: f64,
}

/// Weight of a pair from its query's index in the data set and its two grades (higher first).
pub(crate) type WeightFn<'w> = &'w dyn Fn(usize, u8, u8) -> f64;

impl<'a> HingeOracle<'a> {
    /// The oracle for `data`; `None` when no query has two distinct grades.
    pub(crate) fn new(data: &'a Dataset) -> Option<Self> {
        Self::build(data, None)
    }

    /// The oracle with pair weights: pair `(i, j)` of query `q` (index in `data`) weighs
    /// `weight(q, y_i, y_j)` (finite, `>= 0`: checked by the caller). `None` when no query has
    /// two distinct grades.
    pub(crate) fn new_weighted(data: &'a Dataset, weight: WeightFn<'_>) -> Option<Self> {
        Self::build(data, Some(weight))
    }

    fn build(data: &'a Dataset, weight: Option<WeightFn<'_>>) -> Option<Self> {
        let mut level = vec![0u8; data.n_docs()];
        let mut queries = Vec::new();
        let mut n_pairs = 0u64;
        let mut weights = Vec::new();
        let mut total_weight = 0.0;
        let mut seen = [false; 256];
        let mut rank = [0u8; 256];
        let mut grade_of = [0u8; 256];
        let mut size = [0u64; 256];
        for (qi, q) in data.queries().enumerate() {
            seen.iter_mut().for_each(|s| *s = false);
            for &g in q.labels {
                seen[usize::from(g)] = true;
            }
            let mut levels = 0usize;
            for g in 0..256 {
                if seen[g] {
                    rank[g] = levels as u8;
                    grade_of[levels] = g as u8;
                    size[levels] = 0;
                    levels += 1;
                }
            }
            if levels < 2 {
                continue;
            }
            for (i, &g) in q.labels.iter().enumerate() {
                let l = rank[usize::from(g)];
                level[q.start + i] = l;
                size[usize::from(l)] += 1;
            }
            let mut below = 0u64;
            for &s in &size[..levels] {
                n_pairs += s * below;
                below += s;
            }
            let woff = weights.len();
            if let Some(weight) = weight {
                weights.resize(woff + levels * levels, 0.0);
                for hi in 1..levels {
                    for lo in 0..hi {
                        let c = weight(qi, grade_of[hi], grade_of[lo]);
                        weights[woff + hi * levels + lo] = c;
                        total_weight += c * (size[hi] * size[lo]) as f64;
                    }
                }
            }
            queries.push(QuerySpec { start: q.start, len: q.len(), levels, woff });
        }
        if queries.is_empty() {
            return None;
        }
        if weight.is_none() {
            total_weight = n_pairs as f64;
        }
        let d = data.n_features();
        let lens: Vec<usize> = queries.iter().map(|q| q.len).collect();
        let mut chunks = Vec::new();
        for range in query_chunks(&lens, CHUNK_DOCS) {
            let longest = lens[range.clone()].iter().copied().max().unwrap_or(0);
            let levels = queries[range.clone()].iter().map(|q| q.levels).max().unwrap_or(0);
            chunks.push(Chunk {
                first: range.start,
                end: range.end,
                a: vec![0.0; d],
                count: 0,
                hinge: 0.0,
                weight: 0.0,
                z: vec![0.0; longest],
                keyed: vec![(0.0, 0); longest],
                gamma: vec![0; longest],
                wgamma: vec![0.0; longest],
                counts: vec![0; levels + 1],
            });
        }
        Some(Self { data, queries, level, chunks, n_pairs, weights, total_weight })
    }

    /// Number of pairs `(i, j)` with `y_i > y_j` over all queries.
    pub(crate) fn n_pairs(&self) -> u64 {
        self.n_pairs
    }

    /// The summed weight of all pairs (the loss at `w = 0`; `n_pairs` unweighted).
    pub(crate) fn total_weight(&self) -> f64 {
        self.total_weight
    }

    /// Whether every feature of the documents in queries with pairs is finite.
    pub(crate) fn features_finite(&self) -> bool {
        let d = self.data.n_features();
        let f = self.data.features();
        self.queries.iter().all(|q| f[q.start * d..(q.start + q.len) * d].iter().all(|x| x.is_finite()))
    }

    /// Evaluates at `w`: writes `X^T gamma` (unscaled) into `a` and returns the violating pair
    /// count and hinge sum.
    pub(crate) fn eval(&mut self, w: &[f64], a: &mut [f64]) -> OracleValue {
        let (data, queries, level, weights) = (self.data, &self.queries, &self.level, &self.weights);
        let weighted = !weights.is_empty();
        self.chunks
            .par_iter_mut()
            .for_each(|ch| ch.eval(data, &queries[ch.first..ch.end], level, weights, w));
        a.iter_mut().for_each(|x| *x = 0.0);
        let (mut count, mut weight, mut hinge) = (0u64, 0.0, 0.0);
        for ch in &self.chunks {
            for (x, y) in a.iter_mut().zip(&ch.a) {
                *x += y;
            }
            count += ch.count;
            weight += ch.weight;
            hinge += ch.hinge;
        }
        OracleValue { weight: if weighted { weight } else { count as f64 }, hinge }
    }
}

impl crate::cutting_plane::SeparationOracle for HingeOracle<'_> {
    fn loss_scale(&self) -> f64 {
        self.total_weight
    }

    fn separate(&mut self, w: &[f64], a: &mut [f64]) -> crate::cutting_plane::Separation {
        let v = self.eval(w, a);
        crate::cutting_plane::Separation { offset: v.weight, loss: v.hinge }
    }
}

impl Chunk {
    /// Evaluates the chunk's queries at `w`: the violating pairs by [`count_violations`], or
    /// with pair `weights` (not empty) by [`weighted_violations`]; then the same sums either
    /// way. With every weight 1 the weighted sums are exact integers, bit for bit the counts.
    fn eval(&mut self, data: &Dataset, queries: &[QuerySpec], level: &[u8], weights: &[f64], w: &[f64]) {
        let d = data.n_features();
        let features = data.features();
        self.a.iter_mut().for_each(|x| *x = 0.0);
        self.count = 0;
        self.weight = 0.0;
        self.hinge = 0.0;
        for q in queries {
            let n = q.len;
            let rows = &features[q.start * d..(q.start + n) * d];
            let (z, keyed, gamma) = (&mut self.z[..n], &mut self.keyed[..n], &mut self.wgamma[..n]);
            let lv = &level[q.start..q.start + n];
            for (k, zk) in z.iter_mut().enumerate() {
                *zk = dot_lanes(w, &rows[k * d..(k + 1) * d]);
                keyed[k] = (*zk, pack(k, lv[k]));
            }
            let violating = if weights.is_empty() {
                let count = count_violations(keyed, q.levels, &mut self.gamma[..n], &mut self.counts);
                gamma.iter_mut().zip(&self.gamma[..n]).for_each(|(g, &c)| *g = c as f64);
                self.count += count;
                count as f64
            } else {
                let c = &weights[q.woff..q.woff + q.levels * q.levels];
                let weight = weighted_violations(keyed, q.levels, c, gamma, &mut self.counts);
                self.weight += weight;
                weight
            };
            // The hinge sum over violating pairs, sum w_ij (1 - (z_i - z_j)), is
            // violating - sum_k gamma_k z_k, and sum_violating w_ij (x_i - x_j) = sum_k gamma_k x_k.
            let mut gz = 0.0;
            for (k, &g) in gamma.iter().enumerate() {
                if g != 0.0 {
                    gz += g * z[k];
                    let row = &rows[k * d..(k + 1) * d];
                    for (x, &r) in self.a.iter_mut().zip(row) {
                        *x += g * f64::from(r);
                    }
                }
            }
            self.hinge += violating - gz;
        }
    }
}

/// Per-level counts of the documents a sweep has passed: how many have a level `< m`.
trait LevelCounts {
    fn add(t: &mut [u32], level: usize);
    fn below(t: &[u32], m: usize) -> u32;
}

/// `t[m]` = count of levels `< m` directly: `O(levels)` add, `O(1)` query (few levels).
struct Cumulative;

impl LevelCounts for Cumulative {
    #[inline]
    fn add(t: &mut [u32], level: usize) {
        for x in &mut t[level + 1..] {
            *x += 1;
        }
    }

    #[inline]
    fn below(t: &[u32], m: usize) -> u32 {
        t[m]
    }
}

/// A Fenwick tree over the levels (1-based): `O(log levels)` both ways.
struct Fenwick;

impl LevelCounts for Fenwick {
    #[inline]
    fn add(t: &mut [u32], level: usize) {
        let mut i = level + 1;
        while i < t.len() {
            t[i] += 1;
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn below(t: &[u32], m: usize) -> u32 {
        let (mut i, mut s) = (m, 0);
        while i > 0 {
            s += t[i];
            i &= i - 1;
        }
        s
    }
}

/// Up to this many grade levels the counts are kept cumulatively, beyond in a Fenwick tree.
const CUMULATIVE_MAX_LEVELS: usize = 8;

/// Packs a document's local index and grade level into a sort key's tie-breaker (ordered
/// like the index).
#[inline]
pub(crate) fn pack(k: usize, level: u8) -> u64 {
    ((k as u64) << 8) | u64::from(level)
}

/// The counting core for one query: `keyed` holds `(z_k, pack(k, level_k))` for its
/// documents (sorted here), with levels in `0..levels`. Writes `gamma` (indexed by `k`) and
/// returns the number of margin-violating pairs. `counts` is scratch with at least
/// `levels + 1` entries.
pub(crate) fn count_violations(
    keyed: &mut [(f64, u64)],
    levels: usize,
    gamma: &mut [i64],
    counts: &mut [u32],
) -> u64 {
    keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    gamma.iter_mut().for_each(|g| *g = 0);
    let t = &mut counts[..levels + 1];
    if levels <= CUMULATIVE_MAX_LEVELS {
        sweeps::<Cumulative>(keyed, gamma, t)
    } else {
        sweeps::<Fenwick>(keyed, gamma, t)
    }
}

#[inline]
fn sweeps<C: LevelCounts>(keyed: &[(f64, u64)], gamma: &mut [i64], t: &mut [u32]) -> u64 {
    let n = keyed.len();
    let (idx, lev) = (|v: u64| (v >> 8) as usize, |v: u64| (v & 0xff) as usize);

    // Lower document j, ascending score: its violating higher partners are the prefix
    // {p : fl(z_p - z_j) < 1}, growing with z_j.
    t.iter_mut().for_each(|x| *x = 0);
    let (mut p, mut added) = (0usize, 0u32);
    for &(zj, j) in keyed {
        while p < n && keyed[p].0 - zj < 1.0 {
            C::add(t, lev(keyed[p].1));
            added += 1;
            p += 1;
        }
        let higher = added - C::below(t, lev(j) + 1);
        gamma[idx(j)] -= i64::from(higher);
    }

    // Higher document i, descending score: its violating lower partners are the suffix
    // {p : fl(z_i - z_p) < 1}, growing as z_i falls.
    t.iter_mut().for_each(|x| *x = 0);
    let mut p = n;
    let mut count = 0u64;
    for &(zi, i) in keyed.iter().rev() {
        while p > 0 && zi - keyed[p - 1].0 < 1.0 {
            p -= 1;
            C::add(t, lev(keyed[p].1));
        }
        let lower = C::below(t, lev(i));
        gamma[idx(i)] += i64::from(lower);
        count += u64::from(lower);
    }
    count
}

/// [`count_violations`] with pair weights: `c[hi * levels + lo]` is the weight of a pair whose
/// higher document has level `hi` and lower `lo`. Writes the signed weighted counts into
/// `gamma` and returns the violating pairs' summed weight; `counts` is scratch with at least
/// `levels` entries. `O(n log n + n * levels)`.
pub(crate) fn weighted_violations(
    keyed: &mut [(f64, u64)],
    levels: usize,
    c: &[f64],
    gamma: &mut [f64],
    counts: &mut [u32],
) -> f64 {
    keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    gamma.iter_mut().for_each(|g| *g = 0.0);
    let n = keyed.len();
    let (idx, lev) = (|v: u64| (v >> 8) as usize, |v: u64| (v & 0xff) as usize);
    let t = &mut counts[..levels];

    // Lower document j, ascending score: the violating higher partners are a growing prefix.
    t.iter_mut().for_each(|x| *x = 0);
    let mut p = 0usize;
    for &(zj, j) in keyed.iter() {
        while p < n && keyed[p].0 - zj < 1.0 {
            t[lev(keyed[p].1)] += 1;
            p += 1;
        }
        let lj = lev(j);
        let mut s = 0.0;
        for (l, &cnt) in t.iter().enumerate().skip(lj + 1) {
            if cnt != 0 {
                s += f64::from(cnt) * c[l * levels + lj];
            }
        }
        gamma[idx(j)] -= s;
    }

    // Higher document i, descending score: the violating lower partners are a growing suffix.
    t.iter_mut().for_each(|x| *x = 0);
    let mut p = n;
    let mut total = 0.0;
    for &(zi, i) in keyed.iter().rev() {
        while p > 0 && zi - keyed[p - 1].0 < 1.0 {
            p -= 1;
            t[lev(keyed[p].1)] += 1;
        }
        let li = lev(i);
        let mut s = 0.0;
        for (l, &cnt) in t.iter().enumerate().take(li) {
            if cnt != 0 {
                s += f64::from(cnt) * c[li * levels + l];
            }
        }
        gamma[idx(i)] += s;
        total += s;
    }
    total
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{DatasetBuilder, Rng};

    use super::*;

    /// All pairs, the same predicate: `(count, gamma, hinge sum)`.
    fn brute(z: &[f64], y: &[u8]) -> (u64, Vec<i64>, f64) {
        let n = z.len();
        let (mut count, mut gamma, mut hinge) = (0, vec![0; n], 0.0);
        for i in 0..n {
            for j in 0..n {
                if y[i] > y[j] && z[i] - z[j] < 1.0 {
                    count += 1;
                    gamma[i] += 1;
                    gamma[j] -= 1;
                    hinge += 1.0 - (z[i] - z[j]);
                }
            }
        }
        (count, gamma, hinge)
    }

    fn levels_of(y: &[u8]) -> (Vec<u8>, usize) {
        let mut g: Vec<u8> = y.to_vec();
        g.sort_unstable();
        g.dedup();
        (y.iter().map(|v| g.binary_search(v).unwrap() as u8).collect(), g.len())
    }

    fn run(z: &[f64], y: &[u8]) -> (u64, Vec<i64>) {
        let (lv, levels) = levels_of(y);
        let mut keyed: Vec<(f64, u64)> = z.iter().enumerate().map(|(k, &v)| (v, pack(k, lv[k]))).collect();
        let mut gamma = vec![7; z.len()];
        let mut counts = vec![3; levels + 1];
        let c = count_violations(&mut keyed, levels, &mut gamma, &mut counts);
        (c, gamma)
    }

    #[test]
    fn hand_worked_query() {
        // Grades y = [0, 1, 2, 1], scores z = [0, 0.5, 1.75, 1]. Pairs with y_i > y_j:
        //   (1,0): 0.5  < 1 violates, hinge 0.5     (3,0): 1.0 = 1, on the margin: no
        //   (2,0): 1.75 no                          (2,1): 1.25 no
        //   (2,3): 0.75 < 1 violates, hinge 0.25
        // count 2; gamma = [-1, +1, +1, -1]; hinge sum 0.75 = 2 - (0 + 0.5 + 1.75 - 1).
        let (c, g) = run(&[0.0, 0.5, 1.75, 1.0], &[0, 1, 2, 1]);
        assert_eq!(c, 2);
        assert_eq!(g, vec![-1, 1, 1, -1]);
        // All scores equal: every pair violates with hinge 1. Grades [2, 0, 0, 1]: pairs
        // (0,1), (0,2), (0,3), (3,1), (3,2): gamma = [3, -2, -2, 1].
        let (c, g) = run(&[0.25; 4], &[2, 0, 0, 1]);
        assert_eq!(c, 5);
        assert_eq!(g, vec![3, -2, -2, 1]);
    }

    #[test]
    fn counts_equal_all_pairs_with_ties() {
        let mut rng = Rng::new(7);
        let mut checked = 0;
        for trial in 0..400 {
            // Up to 5 grades (cumulative counts) or up to 40 (Fenwick tree).
            let n = 1 + rng.index(60);
            let levels = if trial % 4 == 3 { 2 + rng.below(39) } else { 2 + rng.below(4) };
            let y: Vec<u8> = (0..n).map(|_| (rng.below(levels) * 3) as u8).collect();
            // Scores on a grid of step 1/4 (ties and differences of exactly 1), or continuous.
            let z: Vec<f64> = (0..n)
                .map(|_| if trial % 3 == 2 { rng.normal() * 2.0 } else { rng.below(13) as f64 / 4.0 - 1.5 })
                .collect();
            let (bc, bg, bh) = brute(&z, &y);
            let (c, g) = run(&z, &y);
            assert_eq!((c, &g), (bc, &bg), "z {z:?} y {y:?}");
            let gz: f64 = g.iter().zip(&z).map(|(&g, z)| g as f64 * z).sum();
            assert!((c as f64 - gz - bh).abs() <= 1e-12 * bh.max(1.0), "{} vs {bh}", c as f64 - gz);
            checked += usize::from(bc > 0);
        }
        assert!(checked > 300);
    }

    #[test]
    fn dataset_oracle_equals_all_pairs_enumeration() {
        // Several queries (some single-grade, some single-document), coarse features and
        // integer weights so that scores tie and pairs sit exactly on the margin; chunks of
        // several queries.
        let d = 3;
        let mut rng = Rng::new(11);
        for trial in 0..30 {
            let mut b = DatasetBuilder::new(d);
            let n_queries = 1 + rng.index(60);
            for q in 0..n_queries {
                b.start_query(&q.to_string());
                let n = 1 + rng.index(70);
                let single = rng.below(5) == 0;
                for _ in 0..n {
                    let row: Vec<f32> = (0..d).map(|_| rng.below(9) as f32 / 4.0 - 1.0).collect();
                    let g = if single { 1 } else { rng.below(3) as u8 };
                    b.push_doc(g, &row, None).unwrap();
                }
            }
            let data = b.finish().unwrap();
            let Some(mut oracle) = HingeOracle::new(&data) else { continue };
            let w: Vec<f64> = (0..d)
                .map(|_| if trial % 2 == 0 { rng.below(5) as f64 - 2.0 } else { rng.normal() })
                .collect();
            let mut a = vec![0.0; d];
            let v = oracle.eval(&w, &mut a);
            // Brute force over all pairs, with the oracle's own score function.
            let z: Vec<f64> = data.rows().map(|r| dot_lanes(&w, r)).collect();
            let (mut count, mut pairs, mut hinge, mut ab) = (0u64, 0u64, 0.0, vec![0.0; d]);
            for q in data.queries() {
                for i in q.range() {
                    for j in q.range() {
                        if data.labels()[i] > data.labels()[j] {
                            pairs += 1;
                            if z[i] - z[j] < 1.0 {
                                count += 1;
                                hinge += 1.0 - (z[i] - z[j]);
                                for (k, x) in ab.iter_mut().enumerate() {
                                    *x += f64::from(data.row(i)[k]) - f64::from(data.row(j)[k]);
                                }
                            }
                        }
                    }
                }
            }
            assert_eq!(oracle.n_pairs(), pairs);
            assert_eq!(v.weight, count as f64);
            assert!((v.hinge - hinge).abs() <= 1e-12 * hinge.max(1.0), "{} vs {hinge}", v.hinge);
            for (x, y) in a.iter().zip(&ab) {
                assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{a:?} vs {ab:?}");
            }
        }
    }

    #[test]
    fn weighted_oracle_equals_weighted_all_pairs_and_unit_weights_the_unweighted_one() {
        let d = 3;
        let mut rng = Rng::new(12);
        for trial in 0..30 {
            let mut b = DatasetBuilder::new(d);
            let n_queries = 1 + rng.index(40);
            for q in 0..n_queries {
                b.start_query(&q.to_string());
                for _ in 0..1 + rng.index(50) {
                    let row: Vec<f32> = (0..d).map(|_| rng.below(9) as f32 / 4.0 - 1.0).collect();
                    // Grades 0, 2, 3, 5: levels differ from grades.
                    b.push_doc([0, 2, 3, 5][rng.index(4)], &row, None).unwrap();
                }
            }
            let data = b.finish().unwrap();
            // A weight per (query, higher grade, lower grade), some of them 0.
            let weight = |q: usize, hi: u8, lo: u8| {
                ((q * 7 + usize::from(hi) * 3 + usize::from(lo)) % 5) as f64 * 0.75
            };
            let Some(mut oracle) = HingeOracle::new_weighted(&data, &weight) else { continue };
            let w: Vec<f64> = (0..d)
                .map(|_| if trial % 2 == 0 { rng.below(5) as f64 - 2.0 } else { rng.normal() })
                .collect();
            let mut a = vec![0.0; d];
            let v = oracle.eval(&w, &mut a);
            let z: Vec<f64> = data.rows().map(|r| dot_lanes(&w, r)).collect();
            let (mut total, mut viol, mut hinge, mut ab) = (0.0, 0.0, 0.0, vec![0.0; d]);
            for (qi, q) in data.queries().enumerate() {
                for i in q.range() {
                    for j in q.range() {
                        let (yi, yj) = (data.labels()[i], data.labels()[j]);
                        if yi > yj {
                            let c = weight(qi, yi, yj);
                            total += c;
                            if z[i] - z[j] < 1.0 {
                                viol += c;
                                hinge += c * (1.0 - (z[i] - z[j]));
                                for (k, x) in ab.iter_mut().enumerate() {
                                    *x += c * (f64::from(data.row(i)[k]) - f64::from(data.row(j)[k]));
                                }
                            }
                        }
                    }
                }
            }
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs().max(1.0);
            assert!(close(oracle.total_weight(), total), "{} vs {total}", oracle.total_weight());
            assert!(close(v.weight, viol) && close(v.hinge, hinge), "{v:?} vs {viol} {hinge}");
            assert!(a.iter().zip(&ab).all(|(x, y)| close(*x, *y)), "{a:?} vs {ab:?}");

            // Every weight 1: bit for bit the unweighted oracle.
            let mut unit = HingeOracle::new_weighted(&data, &|_, _, _| 1.0).unwrap();
            let mut plain = HingeOracle::new(&data).unwrap();
            assert_eq!(unit.total_weight(), plain.n_pairs() as f64);
            let (mut au, mut ap) = (vec![0.0; d], vec![0.0; d]);
            let (vu, vp) = (unit.eval(&w, &mut au), plain.eval(&w, &mut ap));
            assert_eq!(vu.weight.to_bits(), vp.weight.to_bits());
            assert_eq!(vu.hinge.to_bits(), vp.hinge.to_bits());
            assert!(au.iter().zip(&ap).all(|(x, y)| x.to_bits() == y.to_bits()));
        }
    }
}
