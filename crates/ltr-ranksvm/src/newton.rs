//! The primal truncated Newton solver (Chapelle & Keerthi 2010, "PRSVM"), with the pair sums
//! of [`crate::pairs`].
//!
//! Objective, for training queries `q = 1..Q` and their pairs `P_q` (`y_i > y_j`):
//!
//! ```text
//! f(w) = 1/2 |w|^2 + (c / Q) * sum_q sum_{(i,j) in P_q} max(0, 1 - w.(x_i - x_j))^2
//! ```
//!
//! Each Newton iteration solves `H delta = -g` approximately by conjugate gradient (the
//! generalised Hessian `H = I + 2 (c/Q) sum_active d d^T` is only applied to vectors, through
//! the scores), stopping when the residual falls below `min(0.5, sqrt(|g| / |g_0|)) |g|`
//! (a forcing sequence that keeps the outer convergence superlinear), then takes an exact line
//! search along `delta`: the objective is a convex piecewise quadratic in the step `t`, whose
//! derivative is driven to zero by safeguarded one-dimensional Newton steps (each step
//! re-sorts the scores at the new `t`). Training stops when the Newton decrement
//! `-g.delta` drops below `tol * f(w)`, or after `max_iter` iterations.

use ltr_core::Dataset;
use ltr_linear::dot;

use crate::Solution;
use crate::pairs::SquaredHingePairs;

/// The training problem: the data, the per-query pair structures and buffers.
#[derive(Debug)]
pub(crate) struct Problem<'a> {
    data: &'a Dataset,
    pairs: SquaredHingePairs,
    /// `c / Q`.
    coef: f64,
    /// Scores, loss derivative and Hessian scratch, one entry per document.
    z: Vec<f64>,
    gamma: Vec<f64>,
    rho: Vec<f64>,
}

impl<'a> Problem<'a> {
    /// The problem for `data` with trade-off `c`; `None` when no query has two grades.
    pub(crate) fn new(data: &'a Dataset, c: f64) -> Option<Self> {
        let pairs = SquaredHingePairs::new(data)?;
        let n = data.n_docs();
        Some(Self {
            data,
            pairs,
            coef: c / data.n_queries() as f64,
            z: vec![0.0; n],
            gamma: vec![0.0; n],
            rho: vec![0.0; n],
        })
    }

    /// Number of pairs `(i, j)` with `y_i > y_j` over all queries.
    pub(crate) fn n_pairs(&self) -> u64 {
        self.pairs.n_pairs()
    }

    fn n_features(&self) -> usize {
        self.data.n_features()
    }

    /// `out = X v` over the documents of queries with pairs.
    fn scores_into(data: &Dataset, pairs: &SquaredHingePairs, v: &[f64], out: &mut [f64]) {
        for r in pairs.query_ranges() {
            for (i, o) in r.clone().zip(&mut out[r]) {
                *o = dot(v, data.row(i));
            }
        }
    }

    /// `out = X^T a` over the documents of queries with pairs.
    fn transpose_into(&self, a: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        for r in self.pairs.query_ranges() {
            for (i, &ai) in r.clone().zip(&a[r]) {
                if ai != 0.0 {
                    for (o, &x) in out.iter_mut().zip(self.data.row(i)) {
                        *o += ai * f64::from(x);
                    }
                }
            }
        }
    }

    /// Prepares every query at the scores in `self.z`; returns the summed squared-hinge loss
    /// (unscaled) and leaves its score derivative in `self.gamma`.
    fn prepare(&mut self) -> f64 {
        self.pairs.loss_grad(&self.z, &mut self.gamma)
    }

    /// `self.rho = A^T A p` for the active pairs of the last `prepare`.
    fn hess_scores(&mut self, p: &[f64]) {
        self.pairs.active_gram(p, &mut self.rho);
    }

    /// `f(w)` and its gradient; leaves the problem prepared at `w` for [`Self::hess_vec`].
    pub(crate) fn objective_grad(&mut self, w: &[f64], grad: &mut [f64]) -> f64 {
        Self::scores_into(self.data, &self.pairs, w, &mut self.z);
        let loss = self.prepare();
        let gamma = std::mem::take(&mut self.gamma);
        self.transpose_into(&gamma, grad);
        self.gamma = gamma;
        for (g, &wj) in grad.iter_mut().zip(w) {
            *g = wj + self.coef * *g;
        }
        0.5 * dot(w, w) + self.coef * loss
    }

    /// `H v` at the point of the last [`Self::objective_grad`]; `pv` is scratch (one per document).
    pub(crate) fn hess_vec(&mut self, v: &[f64], pv: &mut [f64], out: &mut [f64]) {
        Self::scores_into(self.data, &self.pairs, v, pv);
        self.hess_scores(pv);
        let rho = std::mem::take(&mut self.rho);
        self.transpose_into(&rho, out);
        self.rho = rho;
        for (o, &vj) in out.iter_mut().zip(v) {
            *o = vj + 2.0 * self.coef * *o;
        }
    }

    /// The loss part of `phi'(t)` and `phi''(t)` along scores `z0 + t q`.
    fn line_derivs(&mut self, z0: &[f64], q: &[f64], t: f64) -> (f64, f64) {
        for r in self.pairs.query_ranges() {
            for i in r {
                self.z[i] = z0[i] + t * q[i];
            }
        }
        self.prepare();
        self.hess_scores(q);
        let (mut d1, mut d2) = (0.0, 0.0);
        for r in self.pairs.query_ranges() {
            for ((g, h), qi) in self.gamma[r.clone()].iter().zip(&self.rho[r.clone()]).zip(&q[r]) {
                d1 += g * qi;
                d2 += h * qi;
            }
        }
        (self.coef * d1, 2.0 * self.coef * d2)
    }

    /// Truncated Newton from `w = 0`.
    pub(crate) fn solve(&mut self, max_iter: usize, tol: f64) -> Solution {
        let d = self.n_features();
        let n = self.data.n_docs();
        let max_cg = 10 * (d + 1);
        let mut w = vec![0.0; d];
        let mut g = vec![0.0; d];
        let mut f = self.objective_grad(&w, &mut g);
        let g0 = dot(&g, &g).sqrt();
        let (mut delta, mut r, mut p, mut hp) = (vec![0.0; d], vec![0.0; d], vec![0.0; d], vec![0.0; d]);
        let mut pv = vec![0.0; n];
        let (mut z0, mut q) = (vec![0.0; n], vec![0.0; n]);
        let mut converged = false;
        let mut iterations = 0;
        while iterations < max_iter {
            let gnorm = dot(&g, &g).sqrt();
            if gnorm == 0.0 || gnorm <= 1e-15 * g0 {
                converged = true;
                break;
            }
            iterations += 1;
            ltr_core::progress::tick(iterations, max_iter, "iterations");
            // CG on H delta = -g.
            let eta = (gnorm / g0).sqrt().min(0.5);
            delta.iter_mut().for_each(|x| *x = 0.0);
            r.iter_mut().zip(&g).for_each(|(r, g)| *r = -g);
            p.copy_from_slice(&r);
            let mut rr = dot(&r, &r);
            for _ in 0..max_cg {
                self.hess_vec(&p, &mut pv, &mut hp);
                let php = dot(&p, &hp);
                if php.is_nan() || php <= 0.0 {
                    break;
                }
                let alpha = rr / php;
                delta.iter_mut().zip(&p).for_each(|(x, p)| *x += alpha * p);
                r.iter_mut().zip(&hp).for_each(|(r, h)| *r -= alpha * h);
                let rr_new = dot(&r, &r);
                if rr_new.sqrt() <= eta * gnorm {
                    break;
                }
                let beta = rr_new / rr;
                p.iter_mut().zip(&r).for_each(|(p, r)| *p = r + beta * *p);
                rr = rr_new;
            }
            let decrement = -dot(&g, &delta);
            if decrement.is_nan() || decrement <= tol * f {
                converged = true;
                break;
            }
            // Exact line search on phi(t) = f(w + t delta).
            Self::scores_into(self.data, &self.pairs, &w, &mut z0);
            Self::scores_into(self.data, &self.pairs, &delta, &mut q);
            let (wd, dd) = (dot(&w, &delta), dot(&delta, &delta));
            let t = self.line_search(&z0, &q, wd, dd);
            w.iter_mut().zip(&delta).for_each(|(w, d)| *w += t * d);
            let f_new = self.objective_grad(&w, &mut g);
            log::trace!(
                "ranksvm: iteration {iterations}: f {f_new:.10e}, step {t:.4}, decrement {decrement:.3e}"
            );
            f = f_new;
        }
        Solution { w, objective: f, iterations, converged }
    }

    /// The root of `phi'(t) = wd + t dd + loss'(t)` by safeguarded 1-D Newton from `t = 1`.
    fn line_search(&mut self, z0: &[f64], q: &[f64], wd: f64, dd: f64) -> f64 {
        let d0 = {
            let (l1, _) = self.line_derivs(z0, q, 0.0);
            wd + l1
        };
        if d0.is_nan() || d0 >= 0.0 {
            return 0.0;
        }
        let (mut lo, mut hi) = (0.0_f64, f64::INFINITY);
        let mut t = 1.0;
        for _ in 0..60 {
            let (l1, l2) = self.line_derivs(z0, q, t);
            let d1 = wd + t * dd + l1;
            let d2 = dd + l2;
            if d1.abs() <= 1e-12 * d0.abs() {
                return t;
            }
            if d1 < 0.0 {
                lo = t;
            } else {
                hi = t;
            }
            let mut next = t - d1 / d2;
            if !(next > lo && next < hi) {
                next = if hi.is_finite() { 0.5 * (lo + hi) } else { 2.0 * t.max(lo) };
            }
            if hi.is_finite() && hi - lo <= 1e-15 * hi {
                return lo;
            }
            t = next;
        }
        if hi.is_finite() { 0.5 * (lo + hi) } else { lo }
    }
}
