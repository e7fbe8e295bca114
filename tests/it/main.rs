//! End-to-end tests of the `ltr` workspace, one module per topic.
//!
//! Tests that need the real LETOR files read them from the mirror: `$LTR_MIRROR`, else
//! `../shared/datasets` beside the project. Without a mirror they are skipped with a note.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_eval;
mod cli_fetch;
mod cli_robust;
mod common;
mod compare;
mod data;
mod eval_golden;
mod harness;
mod store;
mod synth;
mod user_datasets;
