//! The separation oracle of SVM-MAP: at `w`, the most violated constraint of every query,
//! summed into one 1-slack cutting plane.
//!
//! For a query with `R` relevant documents (scores `s_1 >= ... >= s_R` under `w`, sorted) and
//! `N` non-relevant ones (`t_1 >= ... >= t_N`), a ranking `y` enters the constraint through its
//! joint feature map `Psi(y) = 1/(RN) sum_{i rel, j non} y_ij (x_i - x_j)` (`y_ij = +1` when
//! `i` is ranked above `j`, else `-1`) and its loss `1 - AP(y)`. The most violated constraint
//! maximises
//!
//! ```text
//! H(y) = 1 - AP(y) + w.Psi(y) - w.Psi(y*),   y* = every relevant document above every other.
//! ```
//!
//! Swapping two relevant (or two non-relevant) documents changes neither `AP` nor the pairs
//! between the classes, and `w.Psi` is largest with each class in score order, so the maximiser
//! keeps both classes sorted and only their interleaving is free (the paper's observation). Let
//! `p_m` be the number of relevant documents ranked above the `m`-th non-relevant one; an
//! interleaving is a non-decreasing `p`. The relevant document `i` then sits at rank
//! `i + #{m : p_m < i}` and, writing `i/(i+n) = 1 - sum_{m<=n} [i/(i+m-1) - i/(i+m)]`,
//!
//! ```text
//! H(p) = sum_m g_m(p_m),   g_m(p) = sum_{i > p} c(m, i),
//! c(m, i) = (1/R) i / ((i+m-1)(i+m)) - 2 (s_i - t_m) / (RN):
//! ```
//!
//! `H` separates over the non-relevant documents. `c(m, i)` decreases strictly in `m` (both
//! terms do, as `t_m` falls), so `g_m(p') - g_m(p)` grows with `m` for `p' > p` and the smallest
//! maximiser `p_m` of each `g_m` is non-decreasing in `m` (Topkis): the independent maxima are
//! an interleaving, and they are the most violated one (the paper's lemma: each non-relevant
//! document's optimal position can be found independently). Each `p_m` is the first minimiser
//! of the prefix sums of `c(m, .)`; since they are monotone, divide and conquer over `m` (the
//! middle `m` scans `p` over the range its neighbours left, then each half recurses on its side)
//! finds them all with `O((R + N) log N)` evaluations of `c`: `O(n log n)` per query with the
//! two sorts.
//!
//! The constraint's plane: with `gamma_i = #{m : p_m < i}` for the relevant document `i` and
//! `gamma_m = -(R - p_m)` for the non-relevant `m`, `Psi(y*) - Psi(y) = 2/(RN) sum_k gamma_k x_k`,
//! so the 1-slack plane `xi >= b - a.w` gets `b += 1 - AP(y)` and `a += 2/(RN) X^T gamma`, and
//! `H = b - a.w`. Queries without a relevant or without a non-relevant document have no
//! constraint (every ranking has the same AP).
//!
//! Work is split into a fixed partition of consecutive queries (about [`CHUNK_DOCS`] documents
//! each, whatever the thread count); chunks run in parallel with rayon and their sums are
//! reduced in chunk order, so results are bit-identical at any thread count.

use ltr_core::Dataset;
use ltr_linear::dot_lanes;
use ltr_ranksvm::{Separation, SeparationOracle};
use rayon::prelude::*;

/// Target number of documents per chunk of the fixed partition.
const CHUNK_DOCS: usize = 1024;

/// One query with both relevant and non-relevant documents.
#[derive(Debug, Clone, Copy)]
struct QuerySpec {
    /// First document (data set index).
    start: usize,
    /// Number of documents.
    len: usize,
}

/// Buffers for one query's most violated constraint, sized for the longest query.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    /// `(score, local index)` of the relevant and of the non-relevant documents.
    rel: Vec<(f64, usize)>,
    non: Vec<(f64, usize)>,
    /// Their sorted scores.
    s: Vec<f64>,
    t: Vec<f64>,
    /// `p_m` per non-relevant document (sorted order).
    p: Vec<usize>,
}

/// One query's most violated constraint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueryConstraint {
    /// `1 - AP` of the most violated ranking.
    pub(crate) loss: f64,
    /// `2 / (RN)`: the plane's normal is `scale * X^T gamma`.
    pub(crate) scale: f64,
}

/// The most violated constraint of one query with scores `z` and relevance `rel` (file order):
/// writes `gamma` (integer-valued, indexed like `z`) and returns `1 - AP` and `2/(RN)`; `None`
/// when the query lacks a relevant or a non-relevant document. `H = loss - scale * gamma.z`.
pub(crate) fn query_constraint(
    z: &[f64],
    rel: &[bool],
    scratch: &mut Scratch,
    gamma: &mut [f64],
) -> Option<QueryConstraint> {
    let Scratch { rel: rs, non: ns, s, t, p } = scratch;
    rs.clear();
    ns.clear();
    for (k, (&zk, &r)) in z.iter().zip(rel).enumerate() {
        if r { rs.push((zk, k)) } else { ns.push((zk, k)) }
    }
    let (r, n) = (rs.len(), ns.len());
    if r == 0 || n == 0 {
        return None;
    }
    let by_score = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    rs.sort_unstable_by(by_score);
    ns.sort_unstable_by(by_score);
    s.clear();
    s.extend(rs.iter().map(|x| x.0));
    t.clear();
    t.extend(ns.iter().map(|x| x.0));
    p.clear();
    p.resize(n, 0);
    interleave(s, t, p);
    // AP of the interleaving and gamma: relevant i (1-based) has #{m : p_m < i} = the number of
    // leading entries of the non-decreasing p below i above it.
    let (mut ap, mut above) = (0.0, 0usize);
    for (i0, &(_, k)) in rs.iter().enumerate() {
        let i = i0 + 1;
        while above < n && p[above] < i {
            above += 1;
        }
        ap += i as f64 / (i + above) as f64;
        gamma[k] = above as f64;
    }
    for (&(_, k), &pm) in ns.iter().zip(p.iter()) {
        gamma[k] = -((r - pm) as f64);
    }
    Some(QueryConstraint { loss: 1.0 - ap / r as f64, scale: 2.0 / (r as f64 * n as f64) })
}

/// The most violated interleaving of relevant scores `s` and non-relevant scores `t` (each
/// sorted descending): `p[m]` = the number of relevant documents above the `m`-th non-relevant.
pub(crate) fn interleave(s: &[f64], t: &[f64], p: &mut [usize]) {
    let (r, n) = (s.len(), t.len());
    // c(m, i) times RN, m and i 1-based.
    let nf = n as f64;
    let c = |m: usize, i: usize| {
        let (mf, fi) = (m as f64, i as f64);
        nf * fi / ((fi + mf - 1.0) * (fi + mf)) - 2.0 * (s[i - 1] - t[m - 1])
    };
    // Iterative divide and conquer over the non-relevant documents: (m range, p range).
    let mut stack = vec![(0usize, n, 0usize, r)];
    while let Some((mlo, mhi, plo, phi)) = stack.pop() {
        if mlo >= mhi {
            continue;
        }
        let mid = mlo + (mhi - mlo) / 2;
        let (mut best, mut best_v, mut acc) = (plo, 0.0, 0.0);
        for q in plo + 1..=phi {
            acc += c(mid + 1, q);
            if acc < best_v {
                (best, best_v) = (q, acc);
            }
        }
        p[mid] = best;
        stack.push((mid + 1, mhi, best, phi));
        stack.push((mlo, mid, plo, best));
    }
}

/// A fixed block of consecutive queries with its scratch space and partial sums.
#[derive(Debug, Clone)]
struct Chunk {
    /// Indices into [`ApOracle::queries`].
    first: usize,
    end: usize,
    /// Partial plane normal, offset (summed `1 - AP`) and loss.
    a: Vec<f64>,
    offset: f64,
    loss: f64,
    /// Scratch, sized for the chunk's longest query.
    z: Vec<f64>,
    gamma: Vec<f64>,
    /// One query's `X^T gamma` before scaling.
    qa: Vec<f64>,
    scratch: Scratch,
}

/// The oracle over a training set.
#[derive(Debug)]
pub(crate) struct ApOracle<'a> {
    data: &'a Dataset,
    queries: Vec<QuerySpec>,
    /// Relevance per document.
    relevant: Vec<bool>,
    chunks: Vec<Chunk>,
    n_queries: usize,
}

impl<'a> ApOracle<'a> {
    /// The oracle for `data` with relevance `is_relevant(grade)`; `None` when no query has both
    /// a relevant and a non-relevant document.
    pub(crate) fn new(data: &'a Dataset, is_relevant: impl Fn(u8) -> bool) -> Option<Self> {
        let relevant: Vec<bool> = data.labels().iter().map(|&g| is_relevant(g)).collect();
        let queries: Vec<QuerySpec> = data
            .queries()
            .filter(|q| {
                let r = relevant[q.range()].iter().filter(|&&x| x).count();
                r > 0 && r < q.len()
            })
            .map(|q| QuerySpec { start: q.start, len: q.len() })
            .collect();
        if queries.is_empty() {
            return None;
        }
        let d = data.n_features();
        let lens: Vec<usize> = queries.iter().map(|q| q.len).collect();
        let mut chunks = Vec::new();
        for range in ltr_ranksvm::query_chunks(&lens, CHUNK_DOCS) {
            let longest = lens[range.clone()].iter().copied().max().unwrap_or(0);
            chunks.push(Chunk {
                first: range.start,
                end: range.end,
                a: vec![0.0; d],
                offset: 0.0,
                loss: 0.0,
                z: vec![0.0; longest],
                gamma: vec![0.0; longest],
                qa: vec![0.0; d],
                scratch: Scratch::default(),
            });
        }
        Some(Self { data, queries, relevant, chunks, n_queries: data.n_queries() })
    }

    /// Number of queries with a constraint.
    pub(crate) fn n_constrained(&self) -> usize {
        self.queries.len()
    }

    /// Whether every feature of the documents in constrained queries is finite.
    pub(crate) fn features_finite(&self) -> bool {
        let d = self.data.n_features();
        let f = self.data.features();
        self.queries.iter().all(|q| f[q.start * d..(q.start + q.len) * d].iter().all(|x| x.is_finite()))
    }
}

impl SeparationOracle for ApOracle<'_> {
    /// `Q`: the loss is at most 1 per query, and `epsilon` is absolute as in SVM-struct.
    fn loss_scale(&self) -> f64 {
        self.n_queries as f64
    }

    fn separate(&mut self, w: &[f64], a: &mut [f64]) -> Separation {
        let (data, queries, relevant) = (self.data, &self.queries, &self.relevant);
        self.chunks.par_iter_mut().for_each(|ch| ch.eval(data, &queries[ch.first..ch.end], relevant, w));
        a.iter_mut().for_each(|x| *x = 0.0);
        let (mut offset, mut loss) = (0.0, 0.0);
        for ch in &self.chunks {
            for (x, y) in a.iter_mut().zip(&ch.a) {
                *x += y;
            }
            offset += ch.offset;
            loss += ch.loss;
        }
        Separation { offset, loss }
    }
}

impl Chunk {
    fn eval(&mut self, data: &Dataset, queries: &[QuerySpec], relevant: &[bool], w: &[f64]) {
        let d = data.n_features();
        let features = data.features();
        self.a.iter_mut().for_each(|x| *x = 0.0);
        self.offset = 0.0;
        self.loss = 0.0;
        for q in queries {
            let n = q.len;
            let rows = &features[q.start * d..(q.start + n) * d];
            let (z, gamma) = (&mut self.z[..n], &mut self.gamma[..n]);
            for (k, zk) in z.iter_mut().enumerate() {
                *zk = dot_lanes(w, &rows[k * d..(k + 1) * d]);
            }
            let rel = &relevant[q.start..q.start + n];
            let Some(qc) = query_constraint(z, rel, &mut self.scratch, gamma) else { continue };
            let mut gz = 0.0;
            self.qa.iter_mut().for_each(|x| *x = 0.0);
            for (k, &g) in gamma.iter().enumerate() {
                if g != 0.0 {
                    gz += g * z[k];
                    for (x, &v) in self.qa.iter_mut().zip(&rows[k * d..(k + 1) * d]) {
                        *x += g * f64::from(v);
                    }
                }
            }
            for (x, &v) in self.a.iter_mut().zip(&self.qa) {
                *x += qc.scale * v;
            }
            self.offset += qc.loss;
            self.loss += qc.loss - qc.scale * gz;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::Rng;
    use ltr_metrics::{EvalConfig, Metric};

    use super::*;
    use crate::tests::permutations;

    /// `H` of an explicit ranking (document indices, best first) by the definitions:
    /// `1 - AP + w.Psi(y) - w.Psi(y*)` with `w.x_k = z_k`.
    fn h_of(order: &[usize], z: &[f64], rel: &[bool]) -> f64 {
        let cfg = EvalConfig::official(ltr_core::Convention::Letor3);
        let ranked: Vec<u8> = order.iter().map(|&k| u8::from(rel[k])).collect();
        let ap = Metric::Map.ranked_value(&ranked, &cfg, 1, &mut Vec::new());
        let (r, n) = (rel.iter().filter(|&&x| x).count(), rel.iter().filter(|&&x| !x).count());
        let pos = |k: usize| order.iter().position(|&o| o == k).unwrap();
        let mut psi = 0.0;
        for i in (0..z.len()).filter(|&i| rel[i]) {
            for j in (0..z.len()).filter(|&j| !rel[j]) {
                let y = if pos(i) < pos(j) { 1.0 } else { -1.0 };
                psi += (y - 1.0) * (z[i] - z[j]);
            }
        }
        1.0 - ap + psi / (r * n) as f64
    }

    /// Every interleaving of the sorted relevant list `rs` and non-relevant list `ns`.
    fn interleavings(rs: &[usize], ns: &[usize]) -> Vec<Vec<usize>> {
        let n = rs.len() + ns.len();
        (0u32..1 << n)
            .filter(|mask| mask.count_ones() as usize == rs.len())
            .map(|mask| {
                let (mut i, mut j) = (0, 0);
                (0..n)
                    .map(|b| {
                        if mask >> b & 1 == 1 {
                            i += 1;
                            rs[i - 1]
                        } else {
                            j += 1;
                            ns[j - 1]
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The oracle's ranking from `p` (both classes in score order, ties by index).
    fn oracle_ranking(z: &[f64], rel: &[bool]) -> (Vec<usize>, QueryConstraint, Vec<f64>) {
        let mut scratch = Scratch::default();
        let mut gamma = vec![0.0; z.len()];
        let qc = query_constraint(z, rel, &mut scratch, &mut gamma).unwrap();
        let (rs, ns, p) = (&scratch.rel, &scratch.non, &scratch.p);
        let mut order = Vec::new();
        let mut m = 0;
        for i in 0..=rs.len() {
            while m < ns.len() && p[m] == i {
                order.push(ns[m].1);
                m += 1;
            }
            if i < rs.len() {
                order.push(rs[i].1);
            }
        }
        (order, qc, gamma)
    }

    fn random_query(rng: &mut Rng, n: usize, ties: bool) -> (Vec<f64>, Vec<bool>) {
        loop {
            let rel: Vec<bool> = (0..n).map(|_| rng.below(2) == 1).collect();
            if rel.iter().any(|&x| x) && rel.iter().any(|&x| !x) {
                let z = (0..n)
                    .map(|_| {
                        if ties {
                            rng.below(4) as f64 * 0.25
                        } else {
                            rng.normal() * [0.1, 1.0, 5.0][rng.index(3)]
                        }
                    })
                    .collect();
                return (z, rel);
            }
        }
    }

    #[test]
    fn the_most_violated_constraint_is_the_best_interleaving_and_permutation() {
        let mut rng = Rng::new(11);
        let mut checked = (0, 0);
        for trial in 0..3000 {
            let n = 2 + trial % 7;
            let (z, rel) = random_query(&mut rng, n, trial % 3 == 0);
            let (order, qc, gamma) = oracle_ranking(&z, &rel);
            let gz: f64 = gamma.iter().zip(&z).map(|(g, z)| g * z).sum();
            let h = qc.loss - qc.scale * gz;
            // The returned plane is the returned ranking's constraint.
            let h_order = h_of(&order, &z, &rel);
            assert!((h - h_order).abs() < 1e-12, "trial {trial}: plane {h} vs ranking {h_order}");
            // Brute force over every interleaving of the sorted classes (n <= 8).
            let mut sorted: Vec<usize> = (0..n).collect();
            sorted.sort_by(|&a, &b| z[b].total_cmp(&z[a]).then(a.cmp(&b)));
            let rs: Vec<usize> = sorted.iter().copied().filter(|&k| rel[k]).collect();
            let ns: Vec<usize> = sorted.iter().copied().filter(|&k| !rel[k]).collect();
            let best = interleavings(&rs, &ns).iter().map(|o| h_of(o, &z, &rel)).fold(f64::MIN, f64::max);
            assert!(
                (h - best).abs() < 1e-12,
                "trial {trial}: {h} vs best interleaving {best} ({z:?} {rel:?})"
            );
            checked.0 += 1;
            // And over every permutation (the sorting argument), up to 7 documents.
            if n <= 7 && trial % 4 == 0 {
                let all = permutations(n).iter().map(|o| h_of(o, &z, &rel)).fold(f64::MIN, f64::max);
                assert!((h - all).abs() < 1e-12, "trial {trial}: {h} vs best permutation {all}");
                checked.1 += 1;
            }
        }
        assert!(checked.0 == 3000 && checked.1 > 300, "{checked:?}");
    }

    #[test]
    fn two_documents_by_hand() {
        // R = N = 1, scores s (relevant) and t: the nonrelevant above costs 1 - AP = 1/2 and
        // changes w.Psi by -2 (s - t): H = max(0, 1/2 - 2 (s - t)).
        for (s, t, want_p, want_h) in
            [(0.0, 0.0, 0, 0.5), (0.3, 0.0, 0, -0.1), (1.0, 0.9, 0, 0.3), (0.0, 1.0, 0, 2.5)]
        {
            let mut p = [9];
            interleave(&[s], &[t], &mut p);
            let h = if want_h > 0.0 { want_h } else { 0.0 };
            let p_want = if want_h > 0.0 { want_p } else { 1 };
            assert_eq!(p[0], p_want, "s {s} t {t}");
            let (_, qc, gamma) = oracle_ranking(&[s, t], &[true, false]);
            let got = qc.loss - qc.scale * (gamma[0] * s + gamma[1] * t);
            assert!((got - h).abs() < 1e-15, "s {s} t {t}: {got} vs {h}");
        }
    }

    #[test]
    fn queries_without_both_classes_have_no_constraint() {
        let mut scratch = Scratch::default();
        let mut gamma = vec![0.0; 3];
        assert!(query_constraint(&[1.0, 2.0, 3.0], &[true; 3], &mut scratch, &mut gamma).is_none());
        assert!(query_constraint(&[1.0, 2.0, 3.0], &[false; 3], &mut scratch, &mut gamma).is_none());
    }
}
