//! The dual QP of the cutting-plane method: a small dense convex QP on a scaled simplex,
//!
//! ```text
//! min_alpha f(alpha) = 1/2 alpha^T G alpha - b^T alpha,   alpha >= 0,   sum_k alpha_k = c,
//! ```
//!
//! with `G = A A^T` the Gram matrix of the planes (positive semidefinite, usually singular: at
//! most `d + 1` planes are affinely independent). Optimality (KKT): with `g = G alpha - b`,
//! every plane with weight has the same `g_k = mu` and no plane has `g_k < mu`; the violation
//! `max_{alpha_k > 0} g_k - min_k g_k` bounds the dual error by `c` times itself.
//!
//! [`QpSolver::active_set`] is a primal active-set method in the style of Wolfe's minimum-norm
//! point algorithm (and Lawson & Hanson's NNLS): it keeps a support `S` whose planes are
//! affinely independent, minimises `f` exactly on `{alpha_S : sum = c}` (eliminating one
//! reference plane and solving the reduced normal equations by Cholesky), walks back to the
//! feasible region with a ratio test when that minimiser leaves it (dropping the blocking
//! plane), and adds the most violating plane while one exists. When a plane to add is affinely
//! dependent on `S` (a vanishing Cholesky pivot), the objective is linear along the dependency,
//! so it moves along that zero-curvature descent direction until a plane's weight reaches 0.
//! It terminates in a finite number of steps in exact arithmetic and reaches the KKT tolerance
//! to rounding level; warm-started from the previous solution, a new cutting plane typically
//! costs one or two reduced solves of size `|S| <= d + 1`.
//!
//! [`QpSolver::smo`] (pairwise coordinate steps with a second-order choice of the partner) is
//! kept as the fallback should the active-set method stall on rounding (never observed).

use ltr_linear::{PivotFloor, cholesky};

/// A Cholesky pivot below this fraction of its diagonal entry marks an affine dependency.
const PIVOT_REL: f64 = 1e-11;

/// A support whose gradients still differ after a second exact solve is accepted as level when
/// they differ by less than this fraction of the size of their terms (rounding).
const ROUNDING_REL: f64 = 1e-12;

/// Scratch space, reused across solves.
#[derive(Debug, Clone, Default)]
pub(crate) struct QpSolver {
    /// The support, in insertion order.
    s: Vec<usize>,
    /// Reduced system (row-major `n x n`, overwritten by its Cholesky factor), right-hand side,
    /// the support minus the reference plane, and the candidate / direction on `s`.
    h: Vec<f64>,
    rhs: Vec<f64>,
    t: Vec<usize>,
    x: Vec<f64>,
}

/// The outcome of a reduced solve.
enum Sub {
    /// `x` holds the minimiser on the affine hull (aligned with `s`).
    Full,
    /// `x` holds a zero-curvature direction (aligned with `s`, summing to 0).
    Null,
}

/// `g = G alpha - b`, summing over the support only.
pub(crate) fn gradient(gram: &[f64], b: &[f64], alpha: &[f64], grad: &mut [f64]) {
    let k = b.len();
    for l in 0..k {
        let row = &gram[l * k..(l + 1) * k];
        let mut s = 0.0;
        for (m, &a) in alpha.iter().enumerate() {
            if a != 0.0 {
                s += row[m] * a;
            }
        }
        grad[l] = s - b[l];
    }
}

/// `max_{alpha_k > 0} g_k - min_k g_k`.
pub(crate) fn violation(alpha: &[f64], grad: &[f64]) -> f64 {
    let (mut gmax, mut gmin) = (f64::NEG_INFINITY, f64::INFINITY);
    for (&a, &g) in alpha.iter().zip(grad) {
        if a > 0.0 {
            gmax = gmax.max(g);
        }
        gmin = gmin.min(g);
    }
    gmax - gmin
}

impl QpSolver {
    /// The active-set method from the feasible `alpha`; `true` when the KKT violation is
    /// `<= tol` on exact gradients (left in `grad`), or the support's gradients are level to
    /// rounding (`ROUNDING_REL`) with nothing left to add; `false` if it gave up (then `alpha`
    /// is still feasible and no worse). `work` counts reduced solves.
    #[expect(clippy::too_many_arguments, reason = "the QP's data, its state and the work counter")]
    pub(crate) fn active_set(
        &mut self,
        gram: &[f64],
        b: &[f64],
        alpha: &mut [f64],
        c: f64,
        tol: f64,
        grad: &mut [f64],
        work: &mut usize,
    ) -> bool {
        let k = b.len();
        self.s.clear();
        self.s.extend((0..k).filter(|&l| alpha[l] > 0.0));
        let mut retried = false;
        for _major in 0..4 * k + 50 {
            gradient(gram, b, alpha, grad);
            let (mut smax, mut smin) = (f64::NEG_INFINITY, f64::INFINITY);
            for &l in &self.s {
                smax = smax.max(grad[l]);
                smin = smin.min(grad[l]);
            }
            let (mut add, mut gout) = (usize::MAX, f64::INFINITY);
            for l in 0..k {
                if alpha[l] == 0.0 && grad[l] < gout {
                    (add, gout) = (l, grad[l]);
                }
            }
            let new = if add != usize::MAX && gout < smax - tol {
                self.s.push(add);
                retried = false;
                add
            } else if smax - smin <= tol {
                return true;
            } else if retried {
                // Level to rounding (relative to the size of the terms of g)?
                let mut scale = 0.0_f64;
                for &l in &self.s {
                    let row = &gram[l * k..(l + 1) * k];
                    let t: f64 = self.s.iter().map(|&m| (row[m] * alpha[m]).abs()).sum();
                    scale = scale.max(t + b[l].abs());
                }
                return smax - smin <= ROUNDING_REL * scale;
            } else {
                // The support is not level (rounding): solve on it once more.
                retried = true;
                usize::MAX
            };
            let mut settled = false;
            for _minor in 0..2 * k + 10 {
                *work += 1;
                let sub = self.reduced_solve(gram, b, alpha, c);
                let (n, x) = (self.s.len(), &mut self.x);
                if let Sub::Full = sub
                    && x[..n].iter().all(|&v| v > 0.0)
                {
                    for (&l, &v) in self.s.iter().zip(x.iter()) {
                        alpha[l] = v;
                    }
                    settled = true;
                    break;
                }
                // Direction on the support: towards the minimiser, or the null direction
                // oriented downhill.
                if let Sub::Full = sub {
                    for (v, &l) in x.iter_mut().zip(&self.s) {
                        *v -= alpha[l];
                    }
                } else {
                    let mut slope = 0.0;
                    for (i, &l) in self.s.iter().enumerate() {
                        let row = &gram[l * k..(l + 1) * k];
                        let gl: f64 = self.s.iter().map(|&m| row[m] * alpha[m]).sum::<f64>() - b[l];
                        slope += gl * x[i];
                    }
                    if slope > 0.0 {
                        x[..n].iter_mut().for_each(|v| *v = -*v);
                    }
                }
                // Ratio test: the largest step in (0, 1] (Full) or (0, inf) (Null) keeping
                // alpha >= 0.
                let mut theta = if let Sub::Full = sub { 1.0 } else { f64::INFINITY };
                let mut block = usize::MAX;
                for (i, &l) in self.s.iter().enumerate() {
                    if x[i] < 0.0 {
                        let r = alpha[l] / -x[i];
                        if r < theta || block == usize::MAX && r <= theta {
                            (theta, block) = (r, i);
                        }
                    }
                }
                if block == usize::MAX || (theta <= 0.0 && self.s[block] == new) {
                    // No way to move, or the plane just added leaves at once: give up.
                    self.s.retain(|&l| alpha[l] > 0.0);
                    return false;
                }
                for (i, &l) in self.s.iter().enumerate() {
                    alpha[l] = (alpha[l] + theta * x[i]).max(0.0);
                }
                alpha[self.s[block]] = 0.0;
                self.s.retain(|&l| alpha[l] > 0.0);
                if self.s.is_empty() {
                    return false;
                }
            }
            if !settled {
                self.s.retain(|&l| alpha[l] > 0.0);
                return false;
            }
        }
        false
    }

    /// Minimises `f` on `{alpha_S : sum = c}`: eliminates a reference plane `r` (plane 0 if in
    /// the support, else the heaviest), `alpha_r = c - sum beta`, and solves
    /// `(P^T G P) beta = P^T b - c P^T G e_r` with `P e_i = e_{t_i} - e_r` by Cholesky.
    fn reduced_solve(&mut self, gram: &[f64], b: &[f64], alpha: &[f64], c: f64) -> Sub {
        let k = b.len();
        let m = self.s.len();
        let ri = match self.s.iter().position(|&l| l == 0) {
            Some(p) => p,
            None => {
                let mut best = 0;
                for (i, &l) in self.s.iter().enumerate() {
                    if alpha[l] > alpha[self.s[best]] {
                        best = i;
                    }
                }
                best
            }
        };
        let r = self.s[ri];
        self.t.clear();
        self.t.extend(self.s.iter().enumerate().filter(|&(i, _)| i != ri).map(|(_, &l)| l));
        let n = m - 1;
        self.h.clear();
        self.h.resize(n * n, 0.0);
        self.rhs.clear();
        self.x.clear();
        self.x.resize(m, 0.0);
        let grr = gram[r * k + r];
        for (i, &ti) in self.t.iter().enumerate() {
            let gir = gram[ti * k + r];
            for (j, &tj) in self.t.iter().enumerate().take(i + 1) {
                let v = gram[ti * k + tj] - gir - gram[r * k + tj] + grr;
                self.h[i * n + j] = v;
                self.h[j * n + i] = v;
            }
            self.rhs.push((b[ti] - b[r]) - c * (gir - grr));
        }
        // In-place Cholesky (lower triangle), stopping at a vanishing pivot; the upper triangle
        // keeps H's columns.
        let singular = match cholesky::factor(&mut self.h, n, PivotFloor::Own(PIVOT_REL)) {
            Ok(()) => None,
            Err(ltr_linear::Error::NotPositiveDefinite { index, .. }) => Some(index),
        };
        let h = &self.h;
        // Position in `s` of the i-th element of `t`.
        let pos = |i: usize| if i < ri { i } else { i + 1 };
        if let Some(j) = singular {
            // Null vector: beta_j = 1, beta_{<j} = -H_{<j,<j}^{-1} H_{<j,j}, the rest 0. The
            // column H_{<j,j} is still intact in the upper triangle (row p, column j).
            let mut y: Vec<f64> = (0..j).map(|p| h[p * n + j]).collect();
            cholesky::solve_lower(h, n, &mut y);
            cholesky::solve_upper(h, n, &mut y);
            let mut sum = 1.0;
            for (p, &v) in y.iter().enumerate() {
                self.x[pos(p)] = -v;
                sum -= v;
            }
            self.x[pos(j)] = 1.0;
            self.x[ri] = -sum;
            return Sub::Null;
        }
        let y = &mut self.rhs;
        cholesky::solve_lower(h, n, y);
        cholesky::solve_upper(h, n, y);
        let mut sum = 0.0;
        for (p, &v) in y.iter().enumerate() {
            self.x[pos(p)] = v;
            sum += v;
        }
        self.x[ri] = c - sum;
        Sub::Full
    }

    /// Pairwise coordinate steps (SMO) until the KKT violation is `<= tol` on exact gradients
    /// or `max_steps`; returns the steps taken.
    pub(crate) fn smo(
        gram: &[f64],
        b: &[f64],
        alpha: &mut [f64],
        tol: f64,
        grad: &mut [f64],
        max_steps: usize,
    ) -> usize {
        let k = b.len();
        let mut steps = 0;
        for _refresh in 0..4 {
            gradient(gram, b, alpha, grad);
            let mut done = false;
            while steps < max_steps {
                // j: largest gradient among planes with weight (to decrease).
                let (mut j, mut gmax, mut gmin) = (usize::MAX, f64::NEG_INFINITY, f64::INFINITY);
                for l in 0..k {
                    let g = grad[l];
                    if alpha[l] > 0.0 && g > gmax {
                        gmax = g;
                        j = l;
                    }
                    gmin = gmin.min(g);
                }
                if j == usize::MAX || gmax - gmin <= tol {
                    done = true;
                    break;
                }
                // i: the partner with the largest exact decrease of the step j -> i.
                let (aj, gjj) = (alpha[j], gram[j * k + j]);
                let (mut i, mut best, mut best_t) = (usize::MAX, 0.0, 0.0);
                for l in 0..k {
                    let diff = gmax - grad[l];
                    if diff <= 0.0 {
                        continue;
                    }
                    let eta = gjj + gram[l * k + l] - 2.0 * gram[j * k + l];
                    let (t, gain) = if eta > 0.0 && diff < eta * aj {
                        (diff / eta, 0.5 * diff * diff / eta)
                    } else {
                        (aj, aj * diff - 0.5 * eta.max(0.0) * aj * aj)
                    };
                    if gain > best {
                        (i, best, best_t) = (l, gain, t);
                    }
                }
                if i == usize::MAX {
                    done = true;
                    break;
                }
                steps += 1;
                let t = best_t;
                alpha[i] += t;
                alpha[j] = if t >= aj { 0.0 } else { aj - t };
                let (ri, rj) = (i * k, j * k);
                for l in 0..k {
                    // G is symmetric: entry (l, i) = entry (i, l).
                    grad[l] += t * (gram[ri + l] - gram[rj + l]);
                }
            }
            if !done {
                break;
            }
            gradient(gram, b, alpha, grad);
            if violation(alpha, grad) <= tol {
                break;
            }
        }
        steps
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::Rng;
    use ltr_linear::dot;

    use super::*;

    /// Planes in dimension `d` (plane 0 = origin), some duplicated and some affinely
    /// dependent, as the cutting plane produces them.
    fn problem(rng: &mut Rng, k: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
        let mut a = vec![0.0; k * d];
        let mut b = vec![0.0; k];
        for l in 1..k {
            match rng.below(4) {
                0 if l > 2 => {
                    // Affine combination of two earlier planes.
                    let (p, q, t) = (1 + rng.index(l - 1), 1 + rng.index(l - 1), rng.uniform());
                    for j in 0..d {
                        a[l * d + j] = t * a[p * d + j] + (1.0 - t) * a[q * d + j];
                    }
                    b[l] = t * b[p] + (1.0 - t) * b[q] + 0.3 * rng.normal();
                }
                _ => {
                    for j in 0..d {
                        a[l * d + j] = rng.normal();
                    }
                    b[l] = 1.0 + rng.uniform() * 3.0;
                }
            }
        }
        let mut gram = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..k {
                gram[i * k + j] = dot(&a[i * d..(i + 1) * d], &a[j * d..(j + 1) * d]);
            }
        }
        (gram, b)
    }

    fn objective(gram: &[f64], b: &[f64], alpha: &[f64]) -> f64 {
        let k = b.len();
        let mut f = 0.0;
        for i in 0..k {
            for j in 0..k {
                f += 0.5 * alpha[i] * gram[i * k + j] * alpha[j];
            }
            f -= b[i] * alpha[i];
        }
        f
    }

    #[test]
    fn active_set_and_smo_agree_on_degenerate_problems() {
        let mut rng = Rng::new(3);
        let mut solver = QpSolver::default();
        for trial in 0..1500 {
            let d = 1 + rng.index(12);
            let k = 2 + rng.index(70);
            let c = [0.01, 1.0, 100.0][trial % 3];
            let (gram, b) = problem(&mut rng, k, d);
            let mut a1 = vec![0.0; k];
            a1[0] = c;
            let mut g = vec![0.0; k];
            let mut work = 0;
            let ok = solver.active_set(&gram, &b, &mut a1, c, 1e-12, &mut g, &mut work);
            assert!(ok, "trial {trial}: active set gave up");
            assert!(a1.iter().all(|&v| v >= 0.0));
            assert!((a1.iter().sum::<f64>() - c).abs() <= 1e-12 * c);
            gradient(&gram, &b, &a1, &mut g);
            // Level to the tolerance, or to rounding relative to the terms (c up to 100).
            assert!(
                violation(&a1, &g) <= 1e-12 * c.max(1.0) * 100.0,
                "trial {trial}: {}",
                violation(&a1, &g)
            );
            let mut a2 = vec![0.0; k];
            a2[0] = c;
            QpSolver::smo(&gram, &b, &mut a2, 1e-10, &mut g, 10_000_000);
            let (f1, f2) = (objective(&gram, &b, &a1), objective(&gram, &b, &a2));
            assert!(f1 <= f2 + 1e-9 * f2.abs().max(1.0), "trial {trial}: {f1} vs {f2}");
        }
    }

    #[test]
    fn two_planes_by_hand() {
        // Planes a_1 = 1, b_1 = 1 and plane 0; c = 0.5: f = alpha_1^2 / 2 - alpha_1 on
        // [0, 0.5]: minimum at the bound alpha_1 = 0.5 (gradient -0.5 < 0 = plane 0's).
        // With c = 2: alpha_1 = 1 (gradient 0 = plane 0's), alpha_0 = 1.
        let gram = [0.0, 0.0, 0.0, 1.0];
        let b = [0.0, 1.0];
        let mut solver = QpSolver::default();
        for (c, want) in [(0.5, [0.0, 0.5]), (2.0, [1.0, 1.0])] {
            let mut alpha = [c, 0.0];
            let mut g = [0.0; 2];
            let mut work = 0;
            assert!(solver.active_set(&gram, &b, &mut alpha, c, 1e-14, &mut g, &mut work));
            assert_eq!(alpha, want);
        }
    }
}
