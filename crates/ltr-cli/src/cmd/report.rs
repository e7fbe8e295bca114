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
    /// Without --allow-partial, a report over missing or damaged cells fails, naming each.
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `ltr report`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = SpecLimits { max_cells: args.max_cells };
    let spec = Pipeline::load_spec(&args.spec, &args.datasets, &args.algorithms, &limits)?;
    Pipeline::from_spec(spec, args.manifest.as_deref())?.report(&args.results, &args.report, "ltr report")?;
    Ok(ExitCode::SUCCESS)
}
