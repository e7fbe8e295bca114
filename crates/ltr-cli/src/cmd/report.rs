//! `ltr report SPEC`: markdown, JSON and CSV from the result store.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_harness::spec::SpecLimits;

use crate::cmd::ReportArgs;
use crate::cmd::pipeline::Pipeline;

/// Arguments of `ltr report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4).
    spec: String,
    /// Result store folder, the one `ltr run` wrote into (default: $LTR_RESULTS_DIR, else
    /// ./results).
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    results: PathBuf,
    /// Only these datasets (comma-separated), as `ltr run --datasets` ran.
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated), as `ltr run --algorithms` ran.
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// The collection manifest file the spec was run with (`ltr run --manifest`).
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The most model fits (grid points x datasets x folds) the spec may describe (as for
    /// `ltr run`).
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    max_cells: u64,
    /// Write the report even if cells it needs are missing or damaged in the store: a banner
    /// at the top names them and every affected mean is marked `(n/N folds)`. Without it,
    /// such a report fails, naming each missing cell.
    #[arg(long)]
    allow_partial: bool,
    /// The master seed `ltr run --seed` ran with, in place of the spec's `seed`.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `ltr report`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = SpecLimits { max_cells: args.max_cells };
    let mut spec = Pipeline::load_spec(&args.spec, &args.datasets, &args.algorithms, &limits)?;
    if let Some(seed) = args.seed {
        spec.seed = seed;
    }
    Pipeline::from_spec(spec, args.manifest.as_deref())?.report(
        &args.results,
        &args.report.out,
        args.allow_partial,
        "ltr report",
    )?;
    Ok(ExitCode::SUCCESS)
}
