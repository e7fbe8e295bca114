//! Pointwise linear rankers: each document is scored on its own from a model fitted to the
//! relevance grades, ignoring which query it belongs to.
//!
//! * [`regression`]: ridge regression on the grade, solved exactly from the normal equations
//!   (Cholesky, in `f64`, unpenalised intercept). The LETOR "Regression" baseline.
//! * [`prank`]: PRank (Crammer & Singer 2001), the perceptron for ordinal regression, averaged,
//!   with the number of epochs selected on the validation split.
//!
//! Both models rank by the linear score `w.x` (plus an intercept for regression), computed by
//! `ltr-linear`; see each module for the exact objective and the defaults. This crate does no
//! I/O.

pub mod prank;
pub mod regression;

pub use prank::{INFO as PRANK_INFO, Prank, PrankModel, PrankParams};
pub use regression::{INFO as REGRESSION_INFO, Regression, RegressionModel, RegressionParams};
