//! The two loss terms of RankLR as functions of `w`, with their gradient and Hessian.
//!
//! * [`AllPairs`]: `R1(w) = sum_q sum_{(i,j): y_i > y_j} L(w.x_i - w.x_j)`, the margin-based
//!   pairwise risk with the logit loss `L(m) = ln(1 + e^{-m})`. The pairs are visited from the
//!   scores, one scalar each: per pair `s = sigma(-m)` and `s (1 - s)` are accumulated into
//!   per-document coefficients (`gamma = dR1/dz`) and into `B = (Laplacian of the pair graph,
//!   weighted by s (1 - s)) X`, so the gradient is `X^T gamma` and the Hessian `X^T B`
//!   (`O(P d + n d^2)` per evaluation, `P` pairs; the loss alone is `O(P + n d)`).
//! * [`Approximate`]: Yan & Hauptmann's bound `R2(w) = sum_q [sum_i n_lo(i) L(u_i) +
//!   sum_j n_hi(j) L(-u_j)]` with `u = w.(x - b)`, `n_lo(i)` / `n_hi(i)` the documents of the
//!   query graded below / above document `i`, and `b` the per-feature weighted median of the
//!   training documents (weights `n_lo + n_hi`), the minimiser of the bound's gap (survey
//!   23.36, eqs. 23.138 and 23.145-23.148). `R1 <= R2`; it costs `O(n d^2)` per evaluation,
//!   whatever the number of pairs.

use ltr_core::Dataset;
use ltr_linear::dot;
use ltr_linear::newton::{add_outer_lower, logit_loss, sigma_neg};

/// A loss term `R(w)` of the training set.
pub(crate) trait Objective {
    /// `R(w)`; with `derivs = Some((g, h))` also its gradient into `g` (`d`) and Hessian into
    /// the lower triangle of `h` (row-major `d x d`), both overwritten.
    fn eval(&mut self, w: &[f64], derivs: Option<(&mut [f64], &mut [f64])>) -> f64;
}

/// One query's documents grouped by grade, ascending (`docs[bounds[l]..bounds[l + 1]]` is
/// level `l`), as data-set indices.
#[derive(Debug, Clone)]
struct Groups {
    /// The query's first document: its documents are `start..start + docs.len()`.
    start: usize,
    docs: Vec<usize>,
    bounds: Vec<usize>,
}

impl Groups {
    /// `None` when the query has a single grade.
    fn new(start: usize, labels: &[u8]) -> Option<Self> {
        let mut docs: Vec<usize> = (start..start + labels.len()).collect();
        docs.sort_by_key(|&i| (labels[i - start], i));
        let mut bounds = vec![0];
        for k in 1..docs.len() {
            if labels[docs[k] - start] != labels[docs[k - 1] - start] {
                bounds.push(k);
            }
        }
        bounds.push(docs.len());
        (bounds.len() > 2).then_some(Self { start, docs, bounds })
    }

    fn levels(&self) -> usize {
        self.bounds.len() - 1
    }

    fn level(&self, l: usize) -> &[usize] {
        &self.docs[self.bounds[l]..self.bounds[l + 1]]
    }

    fn n_pairs(&self) -> u64 {
        let (mut below, mut pairs) = (0u64, 0u64);
        for l in 0..self.levels() {
            let n = self.level(l).len() as u64;
            pairs += n * below;
            below += n;
        }
        pairs
    }
}

/// The queries with pairs of a training set.
fn groups_of(data: &Dataset) -> Vec<Groups> {
    data.queries().filter_map(|q| Groups::new(q.start, q.labels)).collect()
}

/// The exact pairwise risk `R1`.
#[derive(Debug, Clone)]
pub(crate) struct AllPairs<'a> {
    data: &'a Dataset,
    queries: Vec<Groups>,
    z: Vec<f64>,
    gamma: Vec<f64>,
    /// `B` of one query, row-major, one row per document in file order.
    b: Vec<f64>,
    /// Scratch: one row in `f64`.
    diff: Vec<f64>,
}

impl<'a> AllPairs<'a> {
    /// `None` when no query has two distinct grades.
    pub(crate) fn new(data: &'a Dataset) -> Option<Self> {
        let queries = groups_of(data);
        if queries.is_empty() {
            return None;
        }
        let (n, d) = (data.n_docs(), data.n_features());
        Some(Self { data, queries, z: vec![0.0; n], gamma: Vec::new(), b: Vec::new(), diff: vec![0.0; d] })
    }

    pub(crate) fn n_pairs(&self) -> u64 {
        self.queries.iter().map(Groups::n_pairs).sum()
    }

    /// The documents that take part in pairs.
    pub(crate) fn docs(&self) -> impl Iterator<Item = usize> + '_ {
        self.queries.iter().flat_map(|q| q.docs.iter().copied())
    }
}

impl Objective for AllPairs<'_> {
    fn eval(&mut self, w: &[f64], derivs: Option<(&mut [f64], &mut [f64])>) -> f64 {
        let (data, d) = (self.data, self.data.n_features());
        for q in &self.queries {
            for &i in &q.docs {
                self.z[i] = dot(w, data.row(i));
            }
        }
        let Some((g, h)) = derivs else {
            let mut loss = 0.0;
            for q in &self.queries {
                for hi in 1..q.levels() {
                    for &i in q.level(hi) {
                        for lo in 0..hi {
                            for &j in q.level(lo) {
                                loss += logit_loss(self.z[i] - self.z[j]);
                            }
                        }
                    }
                }
            }
            return loss;
        };
        self.gamma.resize(data.n_docs(), 0.0);
        g.iter_mut().for_each(|x| *x = 0.0);
        h.iter_mut().for_each(|x| *x = 0.0);
        let mut xf = vec![0.0; d];
        let mut loss = 0.0;
        // `B` is built one query at a time: a row of `B` only takes pairs of its own query, so
        // each row gets the same additions in the same order as a whole `n x d` table would
        // (an `f64` per feature and document: 0.8 GB at the MSLR-WEB10K shape), and
        // `X^T B` is summed in the same document order.
        for q in &self.queries {
            let base = q.start;
            self.b.clear();
            self.b.resize(q.docs.len() * d, 0.0);
            for &i in &q.docs {
                self.gamma[i] = 0.0;
            }
            for hi in 1..q.levels() {
                for &i in q.level(hi) {
                    let xi = data.row(i);
                    let bi = (i - base) * d;
                    for lo in 0..hi {
                        for &j in q.level(lo) {
                            let m = self.z[i] - self.z[j];
                            loss += logit_loss(m);
                            let s = sigma_neg(m);
                            self.gamma[i] -= s;
                            self.gamma[j] += s;
                            let dd = s * (1.0 - s);
                            if dd == 0.0 {
                                continue;
                            }
                            for ((df, &a), &b) in self.diff.iter_mut().zip(xi).zip(data.row(j)) {
                                *df = dd * (f64::from(a) - f64::from(b));
                            }
                            for (x, df) in self.b[bi..bi + d].iter_mut().zip(&self.diff) {
                                *x += df;
                            }
                            let bj = (j - base) * d;
                            for (x, df) in self.b[bj..bj + d].iter_mut().zip(&self.diff) {
                                *x -= df;
                            }
                        }
                    }
                }
            }
            for &i in &q.docs {
                for (x, &v) in xf.iter_mut().zip(data.row(i)) {
                    *x = f64::from(v);
                }
                let gi = self.gamma[i];
                for (gk, &x) in g.iter_mut().zip(&xf) {
                    *gk += gi * x;
                }
                let bi = (i - base) * d;
                add_outer_lower(h, d, 1.0, &xf, &self.b[bi..bi + d]);
            }
        }
        loss
    }
}

/// Yan & Hauptmann's bound `R2` on the biased features `x - b`.
#[derive(Debug, Clone)]
pub(crate) struct Approximate<'a> {
    data: &'a Dataset,
    /// The documents with partners.
    docs: Vec<usize>,
    /// Scratch: one centred row `x - b`. Rows are centred when read rather than stored
    /// centred: the same values, without an `f64` copy of the training rows.
    xc: Vec<f64>,
    /// Per such document: partners graded below (`n_lo`) and above (`n_hi`).
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The bias `b`.
    pub(crate) bias: Vec<f64>,
}

/// The weighted median of `values` with weights `weights` (all `> 0`): the smallest value
/// whose cumulative weight, in ascending order, reaches half the total.
pub(crate) fn weighted_median(values: &[f64], weights: &[f64]) -> f64 {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    for &k in &idx {
        acc += weights[k];
        if 2.0 * acc >= total {
            return values[k];
        }
    }
    idx.last().map_or(0.0, |&k| values[k])
}

impl<'a> Approximate<'a> {
    /// `None` when no query has two distinct grades.
    pub(crate) fn new(data: &'a Dataset) -> Option<Self> {
        let queries = groups_of(data);
        if queries.is_empty() {
            return None;
        }
        let d = data.n_features();
        let (mut docs, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new());
        for q in &queries {
            let total = q.docs.len();
            for l in 0..q.levels() {
                let (below, above) = (q.bounds[l], total - q.bounds[l + 1]);
                for &i in q.level(l) {
                    docs.push(i);
                    lo.push(below as f64);
                    hi.push(above as f64);
                }
            }
        }
        let weights: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| a + b).collect();
        let bias: Vec<f64> = (0..d)
            .map(|k| {
                let values: Vec<f64> = docs.iter().map(|&i| f64::from(data.row(i)[k])).collect();
                weighted_median(&values, &weights)
            })
            .collect();
        Some(Self { data, docs, xc: vec![0.0; d], lo, hi, bias })
    }

    /// `x_i - b` of the `k`-th document with partners into the scratch row.
    fn centre(&mut self, k: usize) {
        let row = self.data.row(self.docs[k]);
        for ((c, &x), b) in self.xc.iter_mut().zip(row).zip(&self.bias) {
            *c = f64::from(x) - b;
        }
    }
}

impl Objective for Approximate<'_> {
    fn eval(&mut self, w: &[f64], derivs: Option<(&mut [f64], &mut [f64])>) -> f64 {
        let d = self.xc.len();
        let mut loss = 0.0;
        match derivs {
            None => {
                for k in 0..self.docs.len() {
                    self.centre(k);
                    let (a, b, x) = (self.lo[k], self.hi[k], &self.xc);
                    let u = dot(w, x);
                    loss += a * logit_loss(u) + b * logit_loss(-u);
                }
            }
            Some((g, h)) => {
                g.iter_mut().for_each(|x| *x = 0.0);
                h.iter_mut().for_each(|x| *x = 0.0);
                for k in 0..self.docs.len() {
                    self.centre(k);
                    let (a, b, x) = (self.lo[k], self.hi[k], &self.xc);
                    let u = dot(w, x);
                    loss += a * logit_loss(u) + b * logit_loss(-u);
                    let (sn, sp) = (sigma_neg(u), sigma_neg(-u));
                    let d1 = -a * sn + b * sp;
                    for (gk, &xk) in g.iter_mut().zip(x) {
                        *gk += d1 * xk;
                    }
                    let d2 = (a + b) * sn * sp;
                    if d2 != 0.0 {
                        add_outer_lower(h, d, d2, x, x);
                    }
                }
            }
        }
        loss
    }
}
