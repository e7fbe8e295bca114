//! The network crate of the neural rankers (RankNet, LambdaRank, ListNet, ListMLE): a
//! scoring network `f(x)` with a hand-written forward and backward pass, feature
//! standardisation stored in the model, SGD with momentum and Adam, and one deterministic
//! training loop that takes a per-query loss gradient ([`QueryObjective`]).
//!
//! * [`Network`]: linear, or 1-2 hidden layers of `tanh` or ReLU units, parameters in one
//!   flat `f64` vector; Xavier / He initialisation from the fit's `Rng`.
//! * [`Standardizer`]: per-feature mean and `1 / std` from the training split.
//! * [`Optimizer`]: Adam or SGD with momentum.
//! * [`train`]: epochs of whole-query mini-batches; each batch's per-query gradients are
//!   computed in parallel into separate buffers and summed in a fixed order, so the model is
//!   byte-identical at any thread count; the epoch is chosen on the validation split with
//!   `ltr_core::BestCheckpoint`, with optional early stopping.
//! * [`settings`]: the shared hyperparameter keys, their ranges, defaults and check
//!   ([`NetworkParams`], embedded in each algorithm's parameters).
//!
//! No tensor framework: the networks are small, and a hand-written pass on slices keeps the
//! build lean and the floating-point order fixed.
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod model;
mod net;
mod optim;
pub mod settings;
mod standardize;
mod train;

pub use model::NeuralModel;
pub use net::{Activation, NetScratch, Network};
pub use optim::{Optimizer, OptimizerKind};
pub use settings::{NetworkDefaults, NetworkParams};
pub use standardize::{RowSource, Standardizer};
pub use train::{
    QueryObjective, TrainReport, has_two_grades, total_cost, total_gradient, train, train_from, train_on_rows,
};

/// The worst relative error between [`total_gradient`] and central finite differences of
/// [`total_cost`] over every parameter of `model` (step `eps`; the relative error of a pair
/// is `|fd - g| / max(|fd|, |g|, floor)`, so a gradient that is 0 by symmetry, such as the
/// output bias under a pairwise cost, is held to an absolute error of `floor` times the
/// bound instead of to the noise of the differences). For the gradient checks of the
/// algorithm crates.
pub fn gradient_check<O: QueryObjective>(
    objective: &O,
    data: &ltr_core::Dataset,
    model: &NeuralModel,
    eps: f64,
    floor: f64,
) -> ltr_core::Result<f64> {
    let grad = total_gradient(objective, data, model);
    let mut worst = 0.0f64;
    let mut probe = model.clone();
    for (k, &g) in grad.iter().enumerate() {
        let p = model.network.params[k];
        probe.network.params[k] = p + eps;
        let up = total_cost(objective, data, &probe)?;
        probe.network.params[k] = p - eps;
        let dn = total_cost(objective, data, &probe)?;
        probe.network.params[k] = p;
        let fd = (up - dn) / (2.0 * eps);
        worst = worst.max((fd - g).abs() / fd.abs().max(g.abs()).max(floor));
    }
    Ok(worst)
}

/// The core types [`network_learner!`] names, reachable through `$crate` so that a learner crate
/// needs no imports for the macro.
#[doc(hidden)]
pub use ltr_core as __core;

/// `fit_with_report` and `ltr_core::Learner` for a validated network learner (a type with a
/// field `settings: NetworkParams<_>`): [`train`] with the objective that the closure-like last
/// argument builds from the learner and the training set. One definition, so every listwise
/// learner trains through the same loop with the same report.
#[macro_export]
macro_rules! network_learner {
    ($learner:ty, $info:expr, |$this:ident, $train:ident| $objective:expr) => {
        impl $learner {
            /// Fits and also reports what training did.
            pub fn fit_with_report(
                &self,
                train: &$crate::__core::Dataset,
                valid: Option<&$crate::__core::Validation<'_>>,
                rng: &mut $crate::__core::Rng,
            ) -> $crate::__core::Result<($crate::NeuralModel, $crate::TrainReport)> {
                let ($this, $train) = (self, train);
                let mut objective = $objective;
                $crate::train($info.id, train, valid, &self.settings, &mut objective, rng)
            }
        }

        impl $crate::__core::Learner for $learner {
            type Model = $crate::NeuralModel;

            fn fit(
                &self,
                train: &$crate::__core::Dataset,
                valid: Option<&$crate::__core::Validation<'_>>,
                rng: &mut $crate::__core::Rng,
            ) -> $crate::__core::Result<$crate::NeuralModel> {
                self.fit_with_report(train, valid, rng).map(|(m, _)| m)
            }
        }
    };
}
