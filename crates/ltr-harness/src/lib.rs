//! The experiment harness of `ltr`: specs, the algorithm registry, the cross-validation
//! runner with its result store, and the baseline check.
//!
//! * [`spec`]: `experiments/*.toml` -> a checked [`spec::ExperimentSpec`] with typed grids.
//! * [`registry`]: the closed enum over every algorithm's parameters and models.
//! * [`runner`]: dataset x fold x algorithm cells, in parallel, persisted as they finish.
//! * [`store`]: the result store keyed by the sha256 of what determines a cell.
//! * [`check`]: CI regression of mean metrics against checked-in baselines.

pub mod check;
mod error;
pub mod registry;
pub mod runner;
pub mod spec;
pub mod store;

pub use error::{HarnessError, Result};
pub use registry::{ALGORITHMS, AlgoConfig, AnyModel};
pub use spec::ExperimentSpec;
