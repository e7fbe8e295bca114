//! The per-query interval problem of IntervalRank, solved by a log-barrier method whose
//! Newton systems are solved by (Jacobi-preconditioned) conjugate gradient.
//!
//! For a query whose grades `g_1 < ... < g_k` are present, with `S_a` the scores of the
//! documents of grade `g_a`, find intervals `[l_a, u_a]`, widths bounds `xi_a` and margin
//! slacks `eps_a` minimising
//!
//! ```text
//! F = 1/2 sum_a sum_{j in S_a} [(l_a - f_j)_+^2 + (f_j - u_a)_+^2]
//!     + lambda1/2 |eps|^2 + lambda2/2 |xi|^2
//! s.t. u_a - l_a >= 0,  l_a + xi_a - u_a >= 0   (a = 1..k)
//!      l_{a+1} - u_a - (g_{a+1} - g_a) + eps_a >= 0   (a = 1..k-1)
//! ```
//!
//! Variables, in order: `l_1..l_k, u_1..u_k, xi_1..xi_k, eps_1..eps_{k-1}` (`4k - 1`).

// Index loops read more clearly than iterator chains in the small dense linear algebra here.
#![allow(clippy::needless_range_loop)]

use ltr_linear::dot;

/// Barrier weight of the first outer iteration.
pub const MU0: f64 = 1e-5;
/// Outer iterations; the barrier weight is halved after each (the last uses `MU0 / 16`).
pub const OUTER: usize = 5;
/// Newton iterations per outer iteration, at most.
const MAX_NEWTON: usize = 60;
/// Newton stops when half the squared Newton decrement falls below this (last outer
/// iteration; the earlier ones only need to be near their central point: 1e-8)...
const NEWTON_TOL: f64 = 1e-16;
const NEWTON_TOL_EARLY: f64 = 1e-8;
/// ... or when every component of the barrier gradient is below this.
const GRAD_TOL: f64 = 1e-10;
/// Armijo sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;
/// Fraction of the step to the boundary of the feasible set.
const TO_BOUNDARY: f64 = 0.99;

/// One linear constraint `c(x) = sum coef * x[var] + constant >= 0`.
#[derive(Debug, Clone)]
struct Constraint {
    terms: Vec<(usize, f64)>,
    constant: f64,
}

impl Constraint {
    fn value(&self, x: &[f64]) -> f64 {
        self.terms.iter().map(|&(v, c)| c * x[v]).sum::<f64>() + self.constant
    }
    fn dot(&self, d: &[f64]) -> f64 {
        self.terms.iter().map(|&(v, c)| c * d[v]).sum()
    }
}

/// One query's interval problem.
#[derive(Debug, Clone)]
pub struct IntervalProblem {
    /// Scores of the documents of each grade present, grades ascending.
    pub groups: Vec<Vec<f64>>,
    /// Required gap between consecutive grades' intervals (`g_{a+1} - g_a`).
    pub margins: Vec<f64>,
    /// Weight of the margin slacks.
    pub lambda1: f64,
    /// Weight of the interval widths.
    pub lambda2: f64,
    constraints: Vec<Constraint>,
}

/// What the solver did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolveStats {
    /// Newton iterations over all outer iterations.
    pub newton: usize,
    /// Conjugate-gradient iterations over all Newton iterations.
    pub cg: usize,
    /// The final barrier weight.
    pub mu: f64,
}

impl IntervalProblem {
    /// A problem for `groups` (scores per grade, grades ascending, at least two groups, none
    /// empty) with the given margins (`groups.len() - 1` of them).
    pub fn new(groups: Vec<Vec<f64>>, margins: Vec<f64>, lambda1: f64, lambda2: f64) -> Self {
        let k = groups.len();
        let mut constraints = Vec::with_capacity(3 * k);
        for a in 0..k {
            // u_a - l_a >= 0
            constraints.push(Constraint { terms: vec![(k + a, 1.0), (a, -1.0)], constant: 0.0 });
            // l_a + xi_a - u_a >= 0
            constraints
                .push(Constraint { terms: vec![(a, 1.0), (2 * k + a, 1.0), (k + a, -1.0)], constant: 0.0 });
        }
        for (a, &m) in margins.iter().enumerate().take(k.saturating_sub(1)) {
            // l_{a+1} - u_a - m_a + eps_a >= 0
            constraints.push(Constraint {
                terms: vec![(a + 1, 1.0), (k + a, -1.0), (3 * k + a, 1.0)],
                constant: -m,
            });
        }
        Self { groups, margins, lambda1, lambda2, constraints }
    }

    /// Number of grades `k`.
    pub fn k(&self) -> usize {
        self.groups.len()
    }

    /// Number of variables, `4k - 1`.
    pub fn n_vars(&self) -> usize {
        4 * self.k() - 1
    }

    /// Every constraint's value at `x` (all must be positive for a barrier iterate).
    pub fn constraint_values(&self, x: &[f64]) -> Vec<f64> {
        self.constraints.iter().map(|c| c.value(x)).collect()
    }

    /// A strictly feasible starting point from the scores: each interval spans its
    /// documents' scores widened by 1/2 on each side, every slack 1.
    pub fn cold_start(&self) -> Vec<f64> {
        let k = self.k();
        let mut x = vec![0.0; self.n_vars()];
        for (a, g) in self.groups.iter().enumerate() {
            let lo = g.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = g.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            x[a] = lo - 0.5;
            x[k + a] = hi + 0.5;
            x[2 * k + a] = x[k + a] - x[a] + 1.0;
        }
        for a in 0..k - 1 {
            let gap = x[a + 1] - x[k + a] - self.margins[a];
            x[3 * k + a] = (-gap).max(0.0) + 1.0;
        }
        x
    }

    /// `F(x)`.
    pub fn objective(&self, x: &[f64]) -> f64 {
        let k = self.k();
        let mut f = 0.0;
        for (a, g) in self.groups.iter().enumerate() {
            let (l, u) = (x[a], x[k + a]);
            for &s in g {
                let below = (l - s).max(0.0);
                let above = (s - u).max(0.0);
                f += 0.5 * (below * below + above * above);
            }
            f += 0.5 * self.lambda2 * x[2 * k + a] * x[2 * k + a];
        }
        for a in 0..k - 1 {
            f += 0.5 * self.lambda1 * x[3 * k + a] * x[3 * k + a];
        }
        f
    }

    /// The gradient of `F` and the diagonal of its (generalised) Hessian.
    pub fn objective_derivatives(&self, x: &[f64], grad: &mut [f64], hdiag: &mut [f64]) {
        let k = self.k();
        grad.fill(0.0);
        hdiag.fill(0.0);
        for (a, g) in self.groups.iter().enumerate() {
            let (l, u) = (x[a], x[k + a]);
            for &s in g {
                if l > s {
                    grad[a] += l - s;
                    hdiag[a] += 1.0;
                }
                if s > u {
                    grad[k + a] -= s - u;
                    hdiag[k + a] += 1.0;
                }
            }
            grad[2 * k + a] = self.lambda2 * x[2 * k + a];
            hdiag[2 * k + a] = self.lambda2;
        }
        for a in 0..k - 1 {
            grad[3 * k + a] = self.lambda1 * x[3 * k + a];
            hdiag[3 * k + a] = self.lambda1;
        }
    }

    /// The barrier function `F(x) - mu sum log c_i(x)` (`+inf` outside the feasible set).
    fn barrier(&self, x: &[f64], mu: f64) -> f64 {
        let mut logs = 0.0;
        for c in &self.constraints {
            let v = c.value(x);
            if v <= 0.0 || !v.is_finite() {
                return f64::INFINITY;
            }
            logs += v.ln();
        }
        self.objective(x) - mu * logs
    }

    /// Solves the barrier problems for `mu = MU0, MU0/2, ..., MU0/16` in turn, starting
    /// from `x` (which must be strictly feasible; use [`IntervalProblem::cold_start`]).
    pub fn solve(&self, x: &mut [f64]) -> SolveStats {
        let m = self.n_vars();
        let mut ws = Workspace::new(m);
        let mut stats = SolveStats::default();
        let mut mu = MU0;
        for outer in 0..OUTER {
            if outer > 0 {
                mu *= 0.5;
            }
            for _ in 0..MAX_NEWTON {
                stats.newton += 1;
                self.objective_derivatives(x, &mut ws.grad, &mut ws.hdiag);
                ws.h.fill(0.0);
                for i in 0..m {
                    ws.h[i * m + i] = ws.hdiag[i] + 1e-12;
                }
                for c in &self.constraints {
                    let v = c.value(x);
                    let (w1, w2) = (mu / v, mu / (v * v));
                    for &(p, cp) in &c.terms {
                        ws.grad[p] -= w1 * cp;
                        for &(q, cq) in &c.terms {
                            ws.h[p * m + q] += w2 * cp * cq;
                        }
                    }
                }
                if ws.grad.iter().all(|g| g.abs() <= GRAD_TOL) {
                    break;
                }
                for i in 0..m {
                    ws.rhs[i] = -ws.grad[i];
                }
                stats.cg += conjugate_gradient(&ws.h, &ws.rhs, &mut ws.d, m, &mut ws.cg);
                let slope = dot(&ws.grad, &ws.d);
                let tol = if outer + 1 == OUTER { NEWTON_TOL } else { NEWTON_TOL_EARLY };
                if -slope / 2.0 <= tol || !slope.is_finite() || slope >= 0.0 {
                    break;
                }
                // Largest step keeping every constraint strictly positive.
                let mut step = 1.0f64;
                for c in &self.constraints {
                    let cd = c.dot(&ws.d);
                    if cd < 0.0 {
                        step = step.min(TO_BOUNDARY * c.value(x) / -cd);
                    }
                }
                let phi = self.barrier(x, mu);
                let mut accepted = false;
                for _ in 0..60 {
                    for i in 0..m {
                        ws.trial[i] = x[i] + step * ws.d[i];
                    }
                    if self.barrier(&ws.trial, mu) <= phi + ARMIJO * step * slope {
                        accepted = true;
                        break;
                    }
                    step *= 0.5;
                }
                if !accepted {
                    break;
                }
                x.copy_from_slice(&ws.trial);
            }
        }
        stats.mu = mu;
        stats
    }

    /// The KKT residuals of a barrier solution with multipliers `mu / c_i`: (stationarity
    /// `max |grad F - sum lambda_i grad c_i|`, complementarity `max lambda_i c_i`, least
    /// constraint value, least multiplier).
    pub fn kkt(&self, x: &[f64], mu: f64) -> (f64, f64, f64, f64) {
        let m = self.n_vars();
        let (mut grad, mut hd) = (vec![0.0; m], vec![0.0; m]);
        self.objective_derivatives(x, &mut grad, &mut hd);
        let (mut comp, mut min_c, mut min_l) = (0.0f64, f64::INFINITY, f64::INFINITY);
        for c in &self.constraints {
            let v = c.value(x);
            let lambda = mu / v;
            for &(p, cp) in &c.terms {
                grad[p] -= lambda * cp;
            }
            comp = comp.max((lambda * v).abs());
            min_c = min_c.min(v);
            min_l = min_l.min(lambda);
        }
        let stat = grad.iter().fold(0.0f64, |a, g| a.max(g.abs()));
        (stat, comp, min_c, min_l)
    }
}

/// Buffers of one solve.
#[derive(Debug)]
struct Workspace {
    grad: Vec<f64>,
    hdiag: Vec<f64>,
    h: Vec<f64>,
    rhs: Vec<f64>,
    d: Vec<f64>,
    trial: Vec<f64>,
    cg: [Vec<f64>; 4],
}

impl Workspace {
    fn new(m: usize) -> Self {
        Self {
            grad: vec![0.0; m],
            hdiag: vec![0.0; m],
            h: vec![0.0; m * m],
            rhs: vec![0.0; m],
            d: vec![0.0; m],
            trial: vec![0.0; m],
            cg: [vec![0.0; m], vec![0.0; m], vec![0.0; m], vec![0.0; m]],
        }
    }
}

/// Solves `A x = b` (`A` dense symmetric positive (semi)definite, `m x m`, row-major) by
/// conjugate gradient with Jacobi preconditioning, from `x = 0`. Returns the iterations.
fn conjugate_gradient(a: &[f64], b: &[f64], x: &mut [f64], m: usize, buf: &mut [Vec<f64>; 4]) -> usize {
    let [r, z, p, ap] = buf;
    x.fill(0.0);
    r.copy_from_slice(b);
    let inv_diag = |i: usize| {
        let d = a[i * m + i];
        if d > 0.0 { 1.0 / d } else { 1.0 }
    };
    for i in 0..m {
        z[i] = r[i] * inv_diag(i);
    }
    p.copy_from_slice(z);
    let mut rz = dot(r, z);
    let b_norm = dot(b, b).sqrt();
    if b_norm == 0.0 {
        return 0;
    }
    let max_iter = 10 * m;
    for it in 0..max_iter {
        for i in 0..m {
            ap[i] = dot(&a[i * m..(i + 1) * m], p);
        }
        let pap = dot(p, ap);
        if pap <= 0.0 || !pap.is_finite() {
            return it;
        }
        let alpha = rz / pap;
        for i in 0..m {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let r_norm = dot(r, r).sqrt();
        if r_norm <= 1e-13 * b_norm {
            return it + 1;
        }
        for i in 0..m {
            z[i] = r[i] * inv_diag(i);
        }
        let rz_new = dot(r, z);
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..m {
            p[i] = z[i] + beta * p[i];
        }
    }
    max_iter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conjugate_gradient_solves_a_small_system() {
        // [[4, 1], [1, 3]] x = [1, 2]  =>  x = [1/11, 7/11].
        let a = [4.0, 1.0, 1.0, 3.0];
        let mut x = [0.0; 2];
        let mut buf = [vec![0.0; 2], vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]];
        let it = conjugate_gradient(&a, &[1.0, 2.0], &mut x, 2, &mut buf);
        assert!(it <= 2);
        assert!((x[0] - 1.0 / 11.0).abs() < 1e-14 && (x[1] - 7.0 / 11.0).abs() < 1e-14);
    }

    /// Grades 0 and 1 with one document each at 0 and 2, margin 1. The optimum is the
    /// zero-cost point l0 = u0 = 0, l1 = u1 = 2, xi = 0, eps = 0 (the margin constraint
    /// holds with slack 1), so F* = 0. The barrier solution is near it: the widths are
    /// O(sqrt(mu / lambda2)) (about 1e-3 at mu = 6.25e-7), the rest O(mu).
    /// Variables in order: l0, l1, u0, u1, xi0, xi1, eps0.
    #[test]
    fn separated_singletons_by_hand() {
        let p = IntervalProblem::new(vec![vec![0.0], vec![2.0]], vec![1.0], 1.0, 1.0);
        let mut x = p.cold_start();
        let stats = p.solve(&mut x);
        let want = [0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0];
        for (got, want) in x.iter().zip(want) {
            assert!((got - want).abs() < 2e-3, "{x:?}");
        }
        assert!(x[0] < x[2] && x[1] < x[3], "{x:?}");
        assert!(p.objective(&x) < 2e-6);
        let (stat, comp, min_c, min_l) = p.kkt(&x, stats.mu);
        assert!(stat < 1e-6 && comp <= 1e-6 && min_c > 0.0 && min_l > 0.0, "{stat} {comp} {min_c} {min_l}");
    }

    /// Grades 0, 1, 2 with overlapping scores: (0.0, 0.3 | 0.2, 1.0 | 1.5), margins 1.
    /// Every constraint holds, and the KKT conditions hold to 1e-6 with multipliers
    /// mu / c_i.
    #[test]
    fn hand_sized_query_satisfies_constraints_and_kkt() {
        for (l1, l2) in [(1.0, 1.0), (0.1, 10.0), (10.0, 0.1)] {
            let p =
                IntervalProblem::new(vec![vec![0.0, 0.3], vec![0.2, 1.0], vec![1.5]], vec![1.0, 1.0], l1, l2);
            let mut x = p.cold_start();
            let stats = p.solve(&mut x);
            assert_eq!(x.len(), 11);
            let c = p.constraint_values(&x);
            assert_eq!(c.len(), 8);
            assert!(c.iter().all(|&v| v > 0.0), "{c:?}");
            let (stat, comp, min_c, min_l) = p.kkt(&x, stats.mu);
            assert!(stat < 1e-6, "stationarity {stat} ({l1}, {l2})");
            assert!(comp <= 1e-6, "complementarity {comp}");
            assert!(min_c > 0.0 && min_l > 0.0);
        }
    }
}
