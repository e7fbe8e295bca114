//! Damped Newton's method for the smooth, strictly convex objectives of the linear learners
//! (RankLR's pairwise logit loss, the logistic regressions of SLR), and the logistic loss
//! they share.
//!
//! Each iteration factors the `d x d` Hessian by Cholesky ([`crate::cholesky`]), takes the
//! step `delta = -H^{-1} g` with backtracking (Armijo constant `1e-4`, halving, at most 60
//! halvings), and training stops when the Newton decrement `-g.delta` falls below
//! `tol * F(w)` or after `max_iter` iterations. Every operation keeps one fixed order, so a
//! minimisation repeated on the same objective gives the same bits.

use crate::{Error, PivotFloor, cholesky, dot};

/// A smooth, strictly convex objective `F(w) > 0` of `d` parameters (the stopping rule is
/// relative to `F`).
pub trait SmoothObjective {
    /// `F(w)`.
    fn value(&mut self, w: &[f64]) -> f64;

    /// `F(w)`, with its gradient written into `g` (length `d`) and its Hessian into the lower
    /// triangle of `h` (row-major `d x d`; the strict upper triangle is not read).
    fn derivs(&mut self, w: &[f64], g: &mut [f64], h: &mut [f64]) -> f64;
}

/// Settings of [`minimize`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonConfig {
    /// Maximum Newton iterations.
    pub max_iter: usize,
    /// Stop when the Newton decrement `-g.delta` is below `tol * F(w)`.
    pub tol: f64,
    /// The smallest Cholesky pivot accepted for the Hessian.
    pub floor: PivotFloor,
    /// The learner's name, for trace logs.
    pub name: &'static str,
}

/// What [`minimize`] reached.
#[derive(Debug, Clone, PartialEq)]
pub struct NewtonOutcome {
    /// The minimiser found.
    pub w: Vec<f64>,
    /// `F(w)`.
    pub objective: f64,
    /// Newton iterations taken.
    pub iterations: usize,
    /// Whether the stopping rule was met within `max_iter`.
    pub converged: bool,
}

/// Why [`minimize`] failed.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum NewtonError {
    /// The objective is not finite at an iterate (non-finite inputs).
    #[error("the objective is not finite (non-finite feature values?)")]
    NotFinite,
    /// The Hessian could not be factored.
    #[error("Newton system: {0}")]
    System(#[from] Error),
}

/// Minimises `obj` from `w0` by damped Newton steps.
///
/// # Errors
/// A non-finite objective, or a Hessian whose factorisation fails against `config.floor`.
pub fn minimize(
    obj: &mut dyn SmoothObjective,
    w0: Vec<f64>,
    config: &NewtonConfig,
) -> Result<NewtonOutcome, NewtonError> {
    let d = w0.len();
    let (mut g, mut h) = (vec![0.0; d], vec![0.0; d * d]);
    let mut w = w0;
    let mut f = obj.derivs(&w, &mut g, &mut h);
    let (mut iterations, mut converged) = (0, false);
    let mut trial = vec![0.0; d];
    while iterations < config.max_iter {
        if !f.is_finite() {
            return Err(NewtonError::NotFinite);
        }
        let neg_g: Vec<f64> = g.iter().map(|x| -x).collect();
        let delta = cholesky::solve(&h, &neg_g, config.floor)?;
        let decrement = dot(&neg_g, &delta);
        if decrement.is_nan() || decrement <= config.tol * f {
            converged = true;
            break;
        }
        iterations += 1;
        ltr_core::progress::tick(iterations, config.max_iter, "iterations");
        let mut t = 1.0;
        let (mut accepted, mut stalled) = (false, false);
        for _ in 0..60 {
            if t < 1.0 && 1e-4 * t * decrement <= f64::EPSILON * f {
                // The Armijo bound is at F's last bit: no shorter step can show a decrease.
                stalled = true;
                break;
            }
            for ((x, &wk), &dk) in trial.iter_mut().zip(&w).zip(&delta) {
                *x = wk + t * dk;
            }
            let ft = obj.value(&trial);
            // Near the optimum the decrease falls below the rounding of F: the full Newton
            // step is then taken as long as F does not visibly grow.
            let rounding = t == 1.0 && decrement <= 1e-10 * f && ft <= f + 4.0 * f64::EPSILON * f;
            if ft <= f - 1e-4 * t * decrement || rounding {
                accepted = true;
                // The Armijo bound rounds to F itself once `t * decrement` is below F's last
                // bit: a step that does not lower F at all is no progress.
                stalled = !rounding && ft >= f;
                break;
            }
            t *= 0.5;
        }
        if !accepted || stalled {
            // No decrease representable along the Newton direction: at the optimum to
            // rounding (the objective's own rounding, summed over many terms, hides the rest).
            converged = true;
            break;
        }
        std::mem::swap(&mut w, &mut trial);
        f = obj.derivs(&w, &mut g, &mut h);
        log::trace!(
            "{}: iteration {iterations}: F {f:.12e}, step {t}, decrement {decrement:.3e}",
            config.name
        );
    }
    Ok(NewtonOutcome { w, objective: f, iterations, converged })
}

/// The logistic loss `L(m) = ln(1 + e^{-m})`, without overflow for either sign.
#[inline]
pub fn logit_loss(m: f64) -> f64 {
    if m > 0.0 { (-m).exp().ln_1p() } else { -m + m.exp().ln_1p() }
}

/// `sigma(-m) = 1 / (1 + e^m) = -L'(m)`.
#[inline]
pub fn sigma_neg(m: f64) -> f64 {
    1.0 / (1.0 + m.exp())
}

/// Adds `c * x y^T` to the lower triangle of `h` (row-major `d x d`).
#[inline]
pub fn add_outer_lower(h: &mut [f64], d: usize, c: f64, x: &[f64], y: &[f64]) {
    for a in 0..d {
        let ca = c * x[a];
        for (hb, &yb) in h[a * d..a * d + a + 1].iter_mut().zip(y) {
            *hb += ca * yb;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// `F(w) = 10 + sum_k (e^{w_k} - a_k w_k)`: minimum at `w_k = ln a_k`, positive for the
    /// `a_k` below.
    struct Exp(Vec<f64>);

    impl SmoothObjective for Exp {
        fn value(&mut self, w: &[f64]) -> f64 {
            10.0 + w.iter().zip(&self.0).map(|(&x, &a)| x.exp() - a * x).sum::<f64>()
        }
        fn derivs(&mut self, w: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
            let d = w.len();
            h.iter_mut().for_each(|x| *x = 0.0);
            for k in 0..d {
                g[k] = w[k].exp() - self.0[k];
                h[k * d + k] = w[k].exp();
            }
            self.value(w)
        }
    }

    fn config() -> NewtonConfig {
        NewtonConfig { max_iter: 100, tol: 1e-30, floor: PivotFloor::Largest(0.0), name: "test" }
    }

    #[test]
    fn minimises_a_separable_objective() {
        let out = minimize(&mut Exp(vec![2.0, 0.5, 7.0]), vec![0.0; 3], &config()).unwrap();
        for (w, a) in out.w.iter().zip([2.0f64, 0.5, 7.0]) {
            assert!((w - a.ln()).abs() < 1e-12, "{out:?}");
        }
        assert!(out.converged && out.iterations < 30, "{out:?}");
        let capped =
            minimize(&mut Exp(vec![2.0]), vec![0.0], &NewtonConfig { max_iter: 1, ..config() }).unwrap();
        assert!(!capped.converged && capped.iterations == 1);
    }

    #[test]
    fn reports_non_finite_objectives_and_singular_hessians() {
        let e = minimize(&mut Exp(vec![f64::NAN]), vec![0.0], &config()).unwrap_err();
        assert!(matches!(e, NewtonError::NotFinite | NewtonError::System(_)), "{e}");
        // e^w - 0 w: the Hessian e^w underflows to 0 far out.
        let e = minimize(&mut Exp(vec![1.0]), vec![-800.0], &config()).unwrap_err();
        assert!(matches!(e, NewtonError::System(_)), "{e}");
    }

    #[test]
    fn logit_loss_and_sigmoid_are_stable() {
        assert!((logit_loss(0.0) - std::f64::consts::LN_2).abs() < 1e-16);
        assert_eq!(logit_loss(800.0), 0.0);
        assert_eq!(logit_loss(-800.0), 800.0);
        assert!((logit_loss(2.0) - (1.0 + (-2.0f64).exp()).ln()).abs() < 1e-15);
        assert_eq!(sigma_neg(0.0), 0.5);
        assert_eq!(sigma_neg(800.0), 0.0);
        assert_eq!(sigma_neg(-800.0), 1.0);
        let mut h = vec![0.0; 4];
        add_outer_lower(&mut h, 2, 2.0, &[1.0, 2.0], &[3.0, 4.0]);
        assert_eq!(h, vec![6.0, 0.0, 12.0, 16.0]);
    }
}
