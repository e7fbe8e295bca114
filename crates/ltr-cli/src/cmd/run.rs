//! `ltr run SPEC`: every dataset x fold x algorithm cell of a spec into the result store.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_data::manifest::Manifest;
use ltr_fetch::Source;
use ltr_harness::runner::{DatasetStatus, RunRecord};
use ltr_harness::spec::{ExperimentSpec, SpecLimits};

use crate::cmd::pipeline::Pipeline;
use crate::cmd::{DataArgs, fetch};

/// What to run (shared by `run` and `reproduce`).
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Only these datasets (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Recompute cells that are already in the result store.
    #[arg(long)]
    pub force: bool,
    /// Result store folder (default: $LTR_RESULTS_DIR, else ./results).
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    pub results: PathBuf,
    /// Use only files already in the data cache (no fetching).
    #[arg(long)]
    pub no_fetch: bool,
    /// Hash every data file again before using it, even if its stamp says it is unchanged.
    #[arg(long)]
    pub verify_data: bool,
    /// The most model fits (grid points x datasets x folds) the spec may ask for; a spec
    /// over it is refused before anything runs.
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    pub max_cells: u64,
    #[command(flatten)]
    pub data: DataArgs,
}

impl RunArgs {
    /// Loads the spec (restricted by `--datasets`, `--algorithms`) and its manifest, resolves
    /// the datasets and runs every cell.
    pub fn execute(&self, spec: &str) -> anyhow::Result<(Pipeline, RunRecord)> {
        let limits = SpecLimits { max_cells: self.max_cells };
        let pipeline = Pipeline::load(spec, &self.datasets, &self.algorithms, &limits)?;
        let datasets = resolve_datasets(&pipeline.spec, &pipeline.manifest, self)?;
        let record = pipeline.run(&datasets, &self.results, self.force)?;
        Ok((pipeline, record))
    }
}

/// Arguments of `ltr run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4).
    spec: String,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `ltr run`: exit 1 when a cell failed or none could run.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (_, record) = args.run.execute(&args.spec)?;
    Ok(outcome(&record))
}

/// Success when every cell of the run is in the store, computed now or before.
pub fn outcome(record: &RunRecord) -> ExitCode {
    if record.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Every dataset of the spec as verified local files, fetched into the data cache unless
/// `--no-fetch`; a dataset that cannot be had is [`DatasetStatus::Unavailable`].
pub fn resolve_datasets(
    spec: &ExperimentSpec,
    manifest: &Manifest,
    args: &RunArgs,
) -> anyhow::Result<Vec<DatasetStatus>> {
    let fetcher = fetch::fetcher_with(&args.data, args.verify_data)?;
    let source = if args.no_fetch { Source::Cache(fetcher.cache()) } else { Source::Fetch(&fetcher) };
    Ok(ltr_fetch::resolve(manifest, &spec.datasets, &spec.folds, source))
}
