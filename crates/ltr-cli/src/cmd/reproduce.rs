//! `ltr reproduce COLLECTION`: fetch, run and report a collection in one invocation.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cmd::run::{RunArgs, outcome};

/// Arguments of `ltr reproduce`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Collection: letor3 or letor4 (uses experiments/<collection>.toml, or the built-in copy).
    collection: String,
    #[command(flatten)]
    run: RunArgs,
    /// Folder for the report files.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Write the report even if some cells are missing (e.g. failed): a banner names them and
    /// every affected mean is marked `(n/N folds)`.
    #[arg(long)]
    allow_partial: bool,
}

/// Runs `ltr reproduce`: the run, then the report of what is in the store (also when some
/// cells failed, so the report names them).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (pipeline, record) = args.run.execute(&args.collection)?;
    pipeline.report(&args.run.results, &args.out, args.allow_partial)?;
    println!("{}: {:.1} s", pipeline.spec.name, record.wall_seconds);
    Ok(outcome(&record))
}
