//! `ltr report SPEC`: markdown, JSON and CSV from the result store.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cmd::pipeline::Pipeline;

/// Arguments of `ltr report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4).
    spec: String,
    /// Result store folder.
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    results: PathBuf,
    /// Folder for the report files.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// The collection manifest file the spec was run with (`ltr run --manifest`).
    #[arg(long)]
    manifest: Option<PathBuf>,
}

/// Runs `ltr report`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = Pipeline::load_spec(&args.spec, &[], &[])?;
    Pipeline::from_spec(spec, args.manifest.as_deref())?.report(&args.results, &args.out)?;
    Ok(ExitCode::SUCCESS)
}
