//! `ltr reproduce COLLECTION`: fetch, run and report a collection in one invocation.

use std::process::ExitCode;

use crate::cmd::ReportArgs;
use crate::cmd::run::{RunArgs, outcome};

/// Arguments of `ltr reproduce`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Collection: letor3 or letor4 (uses experiments/<collection>.toml, or the built-in copy).
    collection: String,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    report: ReportArgs,
    /// Exit 0 when some cells failed but others ran (the report, written either way, names
    /// what did not run and why).
    #[arg(long)]
    allow_partial: bool,
}

/// Runs `ltr reproduce`: the run, then the report of what is in the store (also when some
/// cells failed, so the report names them).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let record = args.run.execute(&args.collection, &args.report, "ltr reproduce")?;
    Ok(outcome(&record, args.allow_partial))
}
