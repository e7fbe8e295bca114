//! The hyperparameters every neural ranker shares: their keys, ranges and documentation
//! (entries for the algorithms' `Params::TABLE`) and their checked form.

use ltr_core::{ParamInfo, Result, param_info};

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

/// The shared keys, in documentation order (an algorithm's table lists them after its own).
pub const SHARED_KEYS: [ParamInfo; 9] =
    [HIDDEN, LAYERS, ACTIVATION, OPTIMIZER, LEARNING_RATE, MOMENTUM, EPOCHS, BATCH, EARLY_STOPPING];

/// The network and training settings of one fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetSettings {
    /// Units per hidden layer (0: linear model).
    pub hidden: usize,
    /// Number of hidden layers (1 or 2) when `hidden > 0`.
    pub layers: usize,
    /// The hidden units' nonlinearity.
    pub activation: Activation,
    /// The update rule.
    pub optimizer: OptimizerKind,
    /// Step size.
    pub learning_rate: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// Passes over the training queries.
    pub epochs: usize,
    /// Queries per update.
    pub batch: usize,
    /// Early-stopping patience in epochs (0: none).
    pub early_stopping: usize,
}

impl NetSettings {
    /// Checks every shared key against the ranges of `table` (an algorithm's
    /// `Params::TABLE`, which holds the shared entries).
    pub fn check(&self, table: &'static [ParamInfo]) -> Result<()> {
        param_info(table, HIDDEN.key).check_int(self.hidden as u64)?;
        param_info(table, LAYERS.key).check_int(self.layers as u64)?;
        param_info(table, LEARNING_RATE.key).check_real(self.learning_rate)?;
        param_info(table, MOMENTUM.key).check_real(self.momentum)?;
        param_info(table, EPOCHS.key).check_int(self.epochs as u64)?;
        param_info(table, BATCH.key).check_int(self.batch as u64)?;
        param_info(table, EARLY_STOPPING.key).check_int(self.early_stopping as u64)?;
        Ok(())
    }

    /// The hidden layer widths (empty for a linear model).
    pub fn hidden_sizes(&self) -> Vec<usize> {
        if self.hidden == 0 { Vec::new() } else { vec![self.hidden; self.layers] }
    }
}
