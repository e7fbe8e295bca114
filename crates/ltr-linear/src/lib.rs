//! What the linear learners share: the model `w.x + b` ([`LinearModel`]), the dot products
//! ([`dot`], and [`dot_lanes`] for vectorised hot loops), dense Cholesky factorisation and triangular solves ([`cholesky`]), damped
//! Newton's method with the logistic loss ([`newton`]), and the outer loop of an iterative
//! learner with validation checkpoints ([`sgd`]); [`ranker_of_linear!`] makes a model that
//! wraps a [`LinearModel`] a ranker scoring as it does, and [`learner_of_fit_with_stats!`] a
//! learner with a `fit_with_stats` method a [`ltr_core::Learner`].
//!
//! Used by ridge regression and PRank (`ltr-pointwise`), RankSVM, IR SVM, CRR, PCRank,
//! RankLR, RankRLS and SLR. Every
//! floating-point operation keeps one fixed order, so a model fitted twice is bit-identical.
//! This crate does no I/O.

pub mod cholesky;
mod model;
pub mod newton;
pub mod sgd;

pub use cholesky::PivotFloor;
pub use model::LinearModel;

/// For [`ranker_of_linear!`]'s expansion in crates that name `ltr_core` otherwise.
#[doc(hidden)]
pub use ltr_core as __ltr_core;

/// Errors of this crate.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum Error {
    /// A Cholesky pivot that is not safely positive: the matrix is singular, indefinite or
    /// too ill-conditioned for a meaningful solution in `f64`.
    #[error("the matrix is not numerically positive definite: pivot {index} is {pivot:.3e}")]
    NotPositiveDefinite {
        /// Index of the failing pivot (row of the matrix, 0-based).
        index: usize,
        /// The pivot found (before its square root).
        pivot: f64,
    },
}

/// `w . x`, each product in `f64`, summed left to right from `-0.0` (the neutral element of
/// addition, as in `Iterator::sum`, so an all-zero product keeps its sign).
///
/// One function for feature rows (`x: &[f32]`) and for vectors of the solvers
/// (`x: &[f64]`). The lengths need not match: the shorter one ends the sum.
#[inline]
pub fn dot<X: Copy + Into<f64>>(w: &[f64], x: &[X]) -> f64 {
    let mut s = -0.0;
    for (&wj, &xj) in w.iter().zip(x) {
        s += wj * xj.into();
    }
    s
}

/// `w . x` in four fixed lanes (`j mod 4`, each summed from `0.0`), then
/// `(l0 + l1) + (l2 + l3) + tail`: another fixed order, which the compiler can vectorise. For
/// the hot loops that score every document many times (RankSVM's separation oracle); models
/// fitted with it stay bit-identical across runs, not equal to [`dot`] to the last bit.
#[inline]
pub fn dot_lanes<X: Copy + Into<f64>>(w: &[f64], x: &[X]) -> f64 {
    let n = w.len().min(x.len());
    let (w, x) = (&w[..n], &x[..n]);
    let mut acc = [0.0f64; 4];
    let body = n / 4 * 4;
    for (xc, wc) in x.chunks_exact(4).zip(w.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += xc[l].into() * wc[l];
        }
    }
    let mut tail = 0.0;
    for (&xj, &wj) in x[body..].iter().zip(&w[body..]) {
        tail += xj.into() * wj;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sums_left_to_right_like_iterator_sum() {
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0f32, 5.0, 6.0]), 32.0);
        assert_eq!(dot(&[0.5, -1.0], &[2.0f64, 0.25]), 0.75);
        // Left to right: (1e16 + 1) + 1 rounds each time; 1e16 + (1 + 1) would not.
        let (w, x) = ([1e16, 1.0, 1.0], [1.0f64, 1.0, 1.0]);
        assert_eq!(dot(&w, &x), 1e16);
        let v = [0.1, 0.7, -0.3, 1e-3];
        let xs = [0.3f32, -0.1, 0.9, 7.0];
        let by_sum: f64 = v.iter().zip(&xs).map(|(a, &b)| a * f64::from(b)).sum();
        assert_eq!(dot(&v, &xs).to_bits(), by_sum.to_bits());
        assert!(dot::<f64>(&[], &[]).is_sign_negative());
        assert!(dot(&[-1.0], &[0.0f32]).is_sign_negative());
        assert_eq!(dot(&[1.0, 1.0], &[2.0f32]), 2.0);
    }

    #[test]
    fn dot_lanes_sums_by_lane() {
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let x = [1.0f32; 6];
        assert_eq!(dot_lanes(&w, &x), 21.0);
        // 2^53 + 1 rounds back to 2^53. Lane 1 sums the two ones first (2), which survives;
        // left to right, each one is lost.
        let big = 2f64.powi(53);
        let w = [big, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        let x = [1.0f64; 8];
        assert_eq!(dot_lanes(&w, &x), big + 2.0);
        assert_eq!(dot(&w, &x), big);
        assert_eq!(dot_lanes(&w[..3], &x), big, "a short vector is all tail");
    }
}
