//! The hyperparameters every neural ranker shares: their keys, ranges and documentation
//! (the rows of the algorithms' `Params::TABLE`), their fields and defaults
//! ([`NetworkParams`]) and their check.

use std::marker::PhantomData;

use ltr_core::{ParamInfo, Result};
use serde::{Deserialize, Serialize};

use crate::net::Activation;
use crate::optim::OptimizerKind;

/// Largest number of network parameters a fit allocates (128 MiB of `f64`, twice more for
/// the optimiser state).
pub const MAX_PARAMS: usize = 1 << 24;

/// `hidden`: units per hidden layer, 0 for a linear model.
pub const HIDDEN: ParamInfo =
    ParamInfo::int("hidden", 0, 4096, "units per hidden layer; 0 = linear model (no hidden layer)");
/// `layers`: number of hidden layers.
pub const LAYERS: ParamInfo =
    ParamInfo::int("layers", 1, 2, "hidden layers of `hidden` units (ignored when hidden = 0)");
/// `activation`: the hidden units' nonlinearity.
pub const ACTIVATION: ParamInfo = ParamInfo::choice(
    "activation",
    &["tanh", "relu"],
    "hidden units' nonlinearity (Xavier / He initialisation)",
);
/// `optimizer`: the update rule.
pub const OPTIMIZER: ParamInfo =
    ParamInfo::choice("optimizer", &["adam", "sgd"], "update rule: Adam, or SGD with momentum");
/// `learning_rate`: the step size.
pub const LEARNING_RATE: ParamInfo =
    ParamInfo::positive("learning_rate", 0.0, 10.0, "step size of the optimizer");
/// `momentum`: SGD's momentum.
pub const MOMENTUM: ParamInfo = ParamInfo::real("momentum", 0.0, 0.999, "SGD momentum (unused by Adam)");
/// `epochs`: passes over the training queries.
pub const EPOCHS: ParamInfo = ParamInfo::int("epochs", 1, 100_000, "passes over the training queries");
/// `batch`: queries per update.
pub const BATCH: ParamInfo =
    ParamInfo::int("batch", 1, 1_000_000, "queries per update (the mean of their gradients)");
/// `early_stopping`: patience in epochs.
pub const EARLY_STOPPING: ParamInfo = ParamInfo::int(
    "early_stopping",
    0,
    100_000,
    "with validation: stop after this many epochs without a better value; 0 = run every epoch",
);

/// The shared keys' rows, in documentation order (an algorithm's table lists them after
/// its own: `ltr_core::param_table!(OWN_ROWS, settings::TABLE)`).
pub const TABLE: &[ParamInfo] =
    &[HIDDEN, LAYERS, ACTIVATION, OPTIMIZER, LEARNING_RATE, MOMENTUM, EPOCHS, BATCH, EARLY_STOPPING];

/// The algorithm whose defaults a [`NetworkParams`] takes for every key it is not given
/// (RankNet's network is not ListNet's). Implemented by a marker type per algorithm crate.
pub trait NetworkDefaults: Sized {
    /// The defaults.
    const NETWORK: NetworkParams<Self>;
}

/// The network and training keys every neural ranker shares, embedded flat
/// (`#[serde(flatten)]`) in its parameters; validated, the settings of one fit ([`train`]).
/// A key left out takes the default of `D`, the algorithm ([`NetworkDefaults`]).
///
/// [`train`]: crate::train
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, bound(serialize = "", deserialize = "D: NetworkDefaults"))]
pub struct NetworkParams<D> {
    /// Units per hidden layer; 0 is a linear model.
    pub hidden: usize,
    /// Hidden layers, 1 or 2 (when `hidden > 0`).
    pub layers: usize,
    /// Hidden nonlinearity, `tanh` or `relu`.
    pub activation: Activation,
    /// `adam` or `sgd`.
    pub optimizer: OptimizerKind,
    /// Step size.
    pub learning_rate: f64,
    /// SGD momentum (unused by Adam).
    pub momentum: f64,
    /// Passes over the training queries. With validation data the best epoch is kept.
    pub epochs: usize,
    /// Queries per update.
    pub batch: usize,
    /// With validation: stop after this many epochs without improvement; 0 runs every
    /// epoch.
    pub early_stopping: usize,
    /// Whose defaults fill a key left out (no data; a `fn` type, so that the parameters are
    /// `Send` and `Sync` whatever `D`).
    #[serde(skip)]
    pub defaults: PhantomData<fn() -> D>,
}

impl<D> NetworkParams<D> {
    /// The values every algorithm shares (one hidden layer if any, Adam, 100 epochs, no
    /// early stopping), for its [`NetworkDefaults::NETWORK`] to complete:
    /// `NetworkParams { hidden: 10, ..NetworkParams::BASE }`.
    pub const BASE: Self = Self {
        hidden: 0,
        layers: 1,
        activation: Activation::Tanh,
        optimizer: OptimizerKind::Adam,
        learning_rate: 1e-3,
        momentum: 0.9,
        epochs: 100,
        batch: 1,
        early_stopping: 0,
        defaults: PhantomData,
    };

    /// Checks every key against its row of [`TABLE`].
    pub fn validate(&self) -> Result<()> {
        HIDDEN.check_int(self.hidden as u64)?;
        LAYERS.check_int(self.layers as u64)?;
        LEARNING_RATE.check_real(self.learning_rate)?;
        MOMENTUM.check_real(self.momentum)?;
        EPOCHS.check_int(self.epochs as u64)?;
        BATCH.check_int(self.batch as u64)?;
        EARLY_STOPPING.check_int(self.early_stopping as u64)?;
        Ok(())
    }

    /// The hidden layer widths (empty for a linear model).
    pub fn hidden_sizes(&self) -> Vec<usize> {
        if self.hidden == 0 { Vec::new() } else { vec![self.hidden; self.layers] }
    }
}

impl<D: NetworkDefaults> Default for NetworkParams<D> {
    fn default() -> Self {
        D::NETWORK
    }
}
