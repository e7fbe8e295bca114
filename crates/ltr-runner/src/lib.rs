//! Runs and keeps `ltr`'s cells: what the harness (`ltr-harness`) decides, scheduled and
//! filed. Nothing here changes a number: a cell's key hashes the code that can
//! ([`code`]), and this crate is not part of it.
//!
//! * [`runner`]: every cell of a spec, in parallel, persisted as they finish.
//! * [`progress`]: the time a run has left, from its cells' measured times.
//! * [`store`]: the result store, keyed by the sha256 of what determines a cell
//!   ([`store::cell_key`]), each cell sealed by hashes.
//! * [`verify`]: a whole store checked, and its cells re-evaluated against their data.
//! * [`code`]: the source hashes and dependency graph of the workspace (build time), and the
//!   crates a cell's numbers go through.
//! * [`plan`]: a spec's cells cut into tasks for Slurm, Kubernetes or GNU parallel.
//! * [`scripts`]: the engine files that run a plan's tasks.
//! * [`collect`]: the stores a plan's tasks filled, merged into one.
//! * [`estimate`]: the predicted time of a spec, from the algorithms' measured costs.

pub mod code;
pub mod collect;
mod error;
pub mod estimate;
#[cfg(test)]
mod fixture;
pub mod plan;
pub mod progress;
pub mod runner;
pub mod scripts;
pub mod store;
pub mod verify;

pub use code::CodeHashes;
pub use error::{Result, RunnerError};
