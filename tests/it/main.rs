//! End-to-end tests of the `ltr` workspace, one module per topic.
//!
//! Every test runs on a fresh clone, offline: the real LETOR data (OHSUMED QueryLevelNorm and
//! MQ2008) is installed from the pieces compiled into `ltr` into a cache under `target/`, and
//! the official scripts' outputs are committed under `tests/fixtures/`. Nothing is skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod algorithms;
mod cli_eval;
mod cli_fetch;
mod cli_robust;
mod cli_run;
mod cluster;
mod common;
mod compare;
mod cross_dataset;
mod data;
mod estimate;
mod eval_golden;
mod explain;
mod harness;
mod layering;
mod metrics_fixture;
mod normalize;
mod refit;
mod reports;
mod seed_runs;
mod seeds;
mod store;
mod synth;
mod trec;
mod user_datasets;
