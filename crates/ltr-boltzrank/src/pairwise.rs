//! The pairwise potentials of the scoring function.
//!
//! A document's score is its individual potential, the network's output `phi_j = f(x_j)`,
//! plus pairwise potentials with every other document of its query:
//!
//! ```text
//! s_j = phi_j + sum_{k != j} psi_jk,   psi_jk = beta a_jk (phi_k - phi_j)
//! a_jk = exp(-|x~_j - x~_k|^2 / (2 d' tau^2)) / sum_{l != j} exp(-|x~_j - x~_l|^2 / (2 d' tau^2))
//! ```
//!
//! with `x~` the features standardised on the training split, `d'` the features that vary
//! there and `tau` the bandwidth: a document's score moves towards the scores of the
//! documents that resemble it, by the weight `beta` in `[0, 1)`. Per query `s = M phi` with
//! `M = I + beta (A - I)` (`A` the row-normalised weights, zero diagonal; a document alone
//! in its query keeps `s = phi`), so the gradient reaching the network is
//! `dC/dphi = M^T dC/ds`.

use ltr_core::{Dataset, Measure, QueryView, Result, Rng};
use ltr_neural::{QueryObjective, Standardizer};
use serde::{Deserialize, Serialize};

/// One query's pairwise weights with their row sums.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryWeights {
    /// The row-normalised weights `a_jk` (`m x m`, row-major, zero diagonal).
    pub a: Vec<f64>,
    /// Each row's sum `sum_k a_jk` (1 up to rounding), in the row's order: summed once here
    /// rather than on every pass through the potentials.
    pub mass: Vec<f64>,
}

impl QueryWeights {
    /// The weights `a` of a query of `m` documents (`m x m`) with their row sums.
    pub fn new(a: Vec<f64>, m: usize) -> Self {
        let mass = a.chunks_exact(m.max(1)).map(|row| row.iter().sum()).collect();
        Self { a, mass }
    }
}

/// The pairwise potentials' settings, fitted on the training split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairwise {
    /// The standardisation the distances are measured in.
    pub standardizer: Standardizer,
    /// `tau`, in standard deviations per varying feature.
    pub bandwidth: f64,
    /// `beta`, the weight of the pairwise potentials.
    pub weight: f64,
}

impl Pairwise {
    /// Number of features of the rows.
    pub fn n_features(&self) -> usize {
        self.standardizer.n_features()
    }

    /// Whether the parts agree (a model read from a file may not).
    pub fn is_consistent(&self) -> bool {
        self.standardizer.scale.len() == self.standardizer.mean.len()
            && self.bandwidth.is_finite()
            && self.bandwidth > 0.0
            && (0.0..1.0).contains(&self.weight)
    }

    /// The row-normalised weights `a_jk` of one query into `out` (`m x m`, row-major, zero
    /// diagonal; all zero for a query of one document).
    pub fn weights(&self, q: QueryView<'_>, out: &mut Vec<f64>) {
        let (m, d) = (q.len(), self.n_features());
        out.clear();
        out.resize(m * m, 0.0);
        if m < 2 {
            return;
        }
        let varying = self.standardizer.scale.iter().filter(|&&s| s > 0.0).count().max(1);
        let inv_width = 1.0 / (2.0 * varying as f64 * self.bandwidth * self.bandwidth);
        let mut x = vec![0.0; m * d];
        for (i, xr) in x.chunks_exact_mut(d.max(1)).take(m).enumerate() {
            self.standardizer.transform_row(q.row(i), xr);
        }
        // Log-weights (symmetric), then each row normalised from its largest.
        for j in 0..m {
            for k in j + 1..m {
                let dist2: f64 = x[j * d..(j + 1) * d]
                    .iter()
                    .zip(&x[k * d..(k + 1) * d])
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                out[j * m + k] = -dist2 * inv_width;
                out[k * m + j] = -dist2 * inv_width;
            }
        }
        for (j, row) in out.chunks_exact_mut(m).enumerate() {
            let high = row
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != j)
                .map(|(_, &l)| l)
                .fold(f64::NEG_INFINITY, f64::max);
            let mut total = 0.0;
            for (k, v) in row.iter_mut().enumerate() {
                *v = if k == j { 0.0 } else { (*v - high).exp() };
                total += *v;
            }
            row.iter_mut().for_each(|v| *v /= total);
        }
    }

    /// `s = phi + beta (A phi - (A 1) phi)` for one query with weights `w`.
    pub fn scores(&self, w: &QueryWeights, phi: &[f64], out: &mut [f64]) {
        let m = phi.len();
        for ((o, row), (&p, &mass)) in
            out.iter_mut().zip(w.a.chunks_exact(m.max(1))).zip(phi.iter().zip(&w.mass))
        {
            let pulled: f64 = row.iter().zip(phi).map(|(a, p)| a * p).sum();
            *o = p + self.weight * (pulled - mass * p);
        }
    }

    /// `dC/dphi = grad + beta (A^T grad - (A 1) * grad)` for one query with weights `w`, in
    /// place of `grad` (`tmp` a buffer).
    pub fn pull_back(&self, w: &QueryWeights, grad: &mut [f64], tmp: &mut Vec<f64>) {
        let m = grad.len();
        tmp.clear();
        tmp.extend_from_slice(grad);
        // `A^T grad` row by row of `A` (contiguous, not down its columns), into `grad`: each
        // entry still sums over `k` in order from -0.0, as `Iterator::sum` would.
        grad.fill(-0.0);
        for (row, &u) in w.a.chunks_exact(m.max(1)).zip(tmp.iter()) {
            for (p, &a) in grad.iter_mut().zip(row) {
                *p += a * u;
            }
        }
        for ((g, &u), &mass) in grad.iter_mut().zip(tmp.iter()).zip(&w.mass) {
            *g = u + self.weight * (*g - mass * u);
        }
    }

    /// The weights of every query of `data`.
    pub fn all_weights(&self, data: &Dataset) -> Vec<QueryWeights> {
        data.queries()
            .map(|q| {
                let mut a = Vec::new();
                self.weights(q, &mut a);
                QueryWeights::new(a, q.len())
            })
            .collect()
    }

    /// Every query's scores from the individual potentials `phi` of `data` (whose queries'
    /// weights are `weights`), in place.
    pub fn score_data(&self, data: &Dataset, weights: &[QueryWeights], phi: &mut [f64]) {
        let mut s = Vec::new();
        for (q, a) in data.queries().zip(weights) {
            s.resize(q.len(), 0.0);
            self.scores(a, &phi[q.range()], &mut s);
            phi[q.range()].copy_from_slice(&s);
        }
    }
}

/// An objective on the scores `s`, trained through the individual potentials: each query's
/// weights are computed once, the network's outputs `phi` mapped to `s`, and the gradient
/// pulled back to `phi`.
#[derive(Debug)]
pub struct WithPairwise<O> {
    /// The objective on the scores.
    pub inner: O,
    pairwise: Pairwise,
    /// Each query's weights.
    weights: Vec<QueryWeights>,
}

impl<O> WithPairwise<O> {
    /// `inner` on the scores of `data`'s queries under `pairwise`.
    pub fn new(inner: O, pairwise: Pairwise, data: &Dataset) -> Self {
        let weights = pairwise.all_weights(data);
        Self { inner, pairwise, weights }
    }
}

/// Per-worker buffers of [`WithPairwise`].
#[derive(Debug, Default)]
pub struct PairwiseScratch<S> {
    inner: S,
    scores: Vec<f64>,
    tmp: Vec<f64>,
}

impl<O: QueryObjective> QueryObjective for WithPairwise<O> {
    type Scratch = PairwiseScratch<O::Scratch>;

    fn is_active(&self, q: QueryView<'_>) -> bool {
        self.inner.is_active(q)
    }

    fn begin_epoch(&mut self, rng: &mut Rng) {
        self.inner.begin_epoch(rng);
    }

    fn gradient(&self, q: QueryView<'_>, phi: &[f64], grad: &mut [f64], scratch: &mut Self::Scratch) {
        let a = &self.weights[q.index];
        scratch.scores.resize(phi.len(), 0.0);
        self.pairwise.scores(a, phi, &mut scratch.scores);
        self.inner.gradient(q, &scratch.scores, grad, &mut scratch.inner);
        self.pairwise.pull_back(a, grad, &mut scratch.tmp);
    }

    fn cost(&self, q: QueryView<'_>, phi: &[f64], scratch: &mut Self::Scratch) -> f64 {
        scratch.scores.resize(phi.len(), 0.0);
        self.pairwise.scores(&self.weights[q.index], phi, &mut scratch.scores);
        self.inner.cost(q, &scratch.scores, &mut scratch.inner)
    }
}

/// A validation measure evaluated on the scores: maps the network's outputs of the
/// validation split through the pairwise potentials before measuring.
#[derive(Debug)]
pub struct PairwiseMeasure<'a> {
    /// The measure of the harness.
    pub inner: &'a dyn Measure,
    /// The potentials.
    pub pairwise: &'a Pairwise,
    /// The weights of the validation split's queries.
    pub weights: Vec<QueryWeights>,
}

impl Measure for PairwiseMeasure<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn mean(&self, data: &Dataset, phi: &[f64]) -> Result<f64> {
        let mut s = phi.to_vec();
        if s.len() == data.n_docs() {
            if self.weights.len() == data.n_queries() {
                self.pairwise.score_data(data, &self.weights, &mut s);
            } else {
                self.pairwise.score_data(data, &self.pairwise.all_weights(data), &mut s);
            }
        }
        self.inner.mean(data, &s)
    }
}
