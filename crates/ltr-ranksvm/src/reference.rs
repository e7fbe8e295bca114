//! The obvious all-pairs RankSVM solvers, for checking the fast solvers (the crate's unit
//! tests) and as the speed baseline of the bench. Compiled into those two only (the bench
//! includes this file by path), never into the library.
//!
//! [`AllPairs`] materialises every difference vector `x_i - x_j` (`y_i > y_j`, same query);
//! memory and time are proportional to the number of pairs.
//!
//! * Squared hinge ([`AllPairs::solve`]): Newton's method with the explicit `d x d`
//!   generalised Hessian `I + 2 (c/Q) sum_active d d^T`, solved by Cholesky, and an exact line
//!   search (bisection on the piecewise linear derivative, pair by pair).
//! * Plain hinge ([`AllPairs::solve_hinge`]): exact dual coordinate descent over the pairs
//!   (Hsieh, Chang, Lin, Keerthi & Sundararajan, "A dual coordinate descent method for
//!   large-scale linear SVM", ICML 2008, without shrinking) on
//!   `max_beta sum_p beta_p - 1/2 |sum_p beta_p d_p|^2`, `0 <= beta_p <= c/Q`, with
//!   `w = sum_p beta_p d_p`; pairs are visited in a fresh permutation every epoch (fixed seed).

use ltr_core::{Dataset, Rng};
use ltr_linear::{PivotFloor, cholesky, dot};

/// All pairs of a training set, with the objective's scaling.
#[derive(Debug, Clone)]
pub struct AllPairs {
    d: usize,
    /// Difference vectors, row-major, one row per pair.
    diffs: Vec<f64>,
    coef: f64,
}

impl AllPairs {
    /// Enumerates the pairs of `data` for trade-off `c` (both objectives scaled as in
    /// `RankSvmParams`: `c / Q` per pair, `Q` all queries).
    pub fn new(data: &Dataset, c: f64) -> Self {
        let d = data.n_features();
        let mut diffs = Vec::new();
        for q in data.queries() {
            for i in 0..q.len() {
                for j in 0..q.len() {
                    if q.labels[i] > q.labels[j] {
                        diffs.extend(
                            q.row(i).iter().zip(q.row(j)).map(|(&a, &b)| f64::from(a) - f64::from(b)),
                        );
                    }
                }
            }
        }
        Self { d, diffs, coef: c / data.n_queries().max(1) as f64 }
    }

    /// Number of pairs.
    pub fn n_pairs(&self) -> usize {
        self.diffs.len() / self.d.max(1)
    }

    pub(crate) fn rows(&self) -> impl Iterator<Item = &[f64]> + '_ {
        self.diffs.chunks_exact(self.d.max(1))
    }

    /// Squared hinge: `1/2 |w|^2 + (c/Q) sum_pairs max(0, 1 - w.(x_i - x_j))^2`.
    pub fn objective(&self, w: &[f64]) -> f64 {
        let loss: f64 = self
            .rows()
            .map(|row| {
                let r = 1.0 - dot(row, w);
                if r > 0.0 { r * r } else { 0.0 }
            })
            .sum();
        0.5 * dot(w, w) + self.coef * loss
    }

    /// The gradient of [`Self::objective`].
    pub fn gradient(&self, w: &[f64]) -> Vec<f64> {
        let mut g = w.to_vec();
        for row in self.rows() {
            let r = 1.0 - dot(row, w);
            if r > 0.0 {
                g.iter_mut().zip(row).for_each(|(g, x)| *g -= 2.0 * self.coef * r * x);
            }
        }
        g
    }

    /// The generalised Hessian at `w` applied to `v`.
    pub fn hess_vec(&self, w: &[f64], v: &[f64]) -> Vec<f64> {
        let mut out = v.to_vec();
        for row in self.rows() {
            if 1.0 - dot(row, w) > 0.0 {
                let dv = dot(row, v);
                out.iter_mut().zip(row).for_each(|(o, x)| *o += 2.0 * self.coef * dv * x);
            }
        }
        out
    }

    /// Squared hinge: Newton's method from `w = 0` until the Newton decrement is below `tol * f` (or
    /// `max_iter` iterations); returns `(w, f(w))`.
    pub fn solve(&self, max_iter: usize, tol: f64) -> (Vec<f64>, f64) {
        let d = self.d;
        let mut w = vec![0.0; d];
        for _ in 0..max_iter {
            let g = self.gradient(&w);
            let mut h = vec![0.0; d * d];
            for a in 0..d {
                h[a * d + a] = 1.0;
            }
            for row in self.rows() {
                if 1.0 - dot(row, &w) > 0.0 {
                    for a in 0..d {
                        for b in 0..d {
                            h[a * d + b] += 2.0 * self.coef * row[a] * row[b];
                        }
                    }
                }
            }
            let neg_g: Vec<f64> = g.iter().map(|x| -x).collect();
            let Ok(delta) = cholesky::solve(&h, &neg_g, PivotFloor::Largest(0.0)) else { break };
            let decrement = -dot(&g, &delta);
            if decrement.is_nan() || decrement <= tol * self.objective(&w) {
                break;
            }
            let t = self.line_search(&w, &delta);
            w.iter_mut().zip(&delta).for_each(|(w, d)| *w += t * d);
        }
        let f = self.objective(&w);
        (w, f)
    }

    /// The exact step along `delta`: the root of `phi'(t)`, `phi(t) = f(w + t delta)` convex,
    /// by doubling then bisection to the last bit (slower than the fast solver's safeguarded
    /// Newton steps, and independent of them).
    fn line_search(&self, w: &[f64], delta: &[f64]) -> f64 {
        // phi'(t) = w.delta + t delta.delta - 2 coef sum_{a - t b > 0} (a - t b) b,
        // a = 1 - d.w, b = d.delta.
        let ab: Vec<(f64, f64)> = self.rows().map(|row| (1.0 - dot(row, w), dot(row, delta))).collect();
        let (wd, dd) = (dot(w, delta), dot(delta, delta));
        let deriv = |t: f64| {
            let r: f64 = ab.iter().map(|&(a, b)| (a - t * b).max(0.0) * b).sum();
            wd + t * dd - 2.0 * self.coef * r
        };
        let d0 = deriv(0.0);
        if d0.is_nan() || d0 >= 0.0 {
            return 0.0;
        }
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        while deriv(hi) < 0.0 && hi < f64::MAX / 2.0 {
            lo = hi;
            hi *= 2.0;
        }
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                return mid;
            }
            if deriv(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }

    /// Plain hinge: `1/2 |w|^2 + (c/Q) sum_pairs max(0, 1 - w.(x_i - x_j))`.
    pub fn objective_hinge(&self, w: &[f64]) -> f64 {
        let loss: f64 = self.rows().map(|row| (1.0 - dot(row, w)).max(0.0)).sum();
        0.5 * dot(w, w) + self.coef * loss
    }

    /// Plain hinge: dual coordinate descent from `beta = 0` until an epoch's largest projected
    /// gradient is `<= pg_tol`, or (checked every 4 epochs) the duality gap is `<= gap_tol`, or
    /// `max_epochs`.
    pub fn solve_hinge(&self, pg_tol: f64, gap_tol: f64, max_epochs: usize) -> HingeSolution {
        let (d, m, u) = (self.d, self.n_pairs(), self.coef);
        let qdiag: Vec<f64> = self.rows().map(|r| dot(r, r)).collect();
        let mut beta = vec![0.0; m];
        let mut w = vec![0.0; d];
        let mut order: Vec<usize> = (0..m).collect();
        let mut rng = Rng::new(0x5eed);
        let mut epochs = 0;
        let mut gap = f64::INFINITY;
        while epochs < max_epochs {
            epochs += 1;
            rng.shuffle(&mut order);
            let mut max_pg = 0.0_f64;
            for &p in &order {
                let row = &self.diffs[p * d..(p + 1) * d];
                let g = dot(row, &w) - 1.0;
                let b = beta[p];
                let pg = if b <= 0.0 {
                    g.min(0.0)
                } else if b >= u {
                    g.max(0.0)
                } else {
                    g
                };
                max_pg = max_pg.max(pg.abs());
                if pg != 0.0 {
                    let nb = if qdiag[p] > 0.0 { (b - g / qdiag[p]).clamp(0.0, u) } else { u };
                    let step = nb - b;
                    if step != 0.0 {
                        beta[p] = nb;
                        w.iter_mut().zip(row).for_each(|(w, x)| *w += step * x);
                    }
                }
            }
            let converged = max_pg <= pg_tol;
            if converged || (gap_tol > 0.0 && epochs % 4 == 0) {
                // Recompute w exactly from beta (no drift), then the gap.
                w.iter_mut().for_each(|x| *x = 0.0);
                for (row, &b) in self.rows().zip(&beta) {
                    if b != 0.0 {
                        w.iter_mut().zip(row).for_each(|(w, x)| *w += b * x);
                    }
                }
                let dual = beta.iter().sum::<f64>() - 0.5 * dot(&w, &w);
                gap = self.objective_hinge(&w) - dual;
                if converged || gap <= gap_tol {
                    break;
                }
            }
        }
        let objective = self.objective_hinge(&w);
        HingeSolution { w, objective, gap, epochs }
    }
}

/// What [`AllPairs::solve_hinge`] reached.
#[derive(Debug, Clone)]
pub struct HingeSolution {
    /// The weights `sum_p beta_p d_p`.
    pub w: Vec<f64>,
    /// The primal objective at `w`.
    pub objective: f64,
    /// The duality gap at the last check (infinite if never checked).
    pub gap: f64,
    /// Epochs run.
    pub epochs: usize,
}
