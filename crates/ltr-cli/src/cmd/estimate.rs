//! `ltr estimate SPEC`: the predicted time of a spec before it runs, from every algorithm's
//! measured cost of one fit scaled to the spec's datasets, grids and budgets
//! ([`ltr_runner::estimate`]), printed as `ltr_report::estimate::text` renders it or as JSON.
//! A collection's datasets are priced from its manifest: nothing is fetched or read.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_harness::spec::SpecLimits;
use ltr_runner::estimate::MAX_JOBS;

use crate::cmd::pipeline::{Pipeline, manifest_of};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table per dataset and the totals, for reading.
    Table,
    /// One JSON object, every number unrounded, for scripts.
    Json,
}

/// Arguments of `ltr estimate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one.
    spec: String,
    /// Only these datasets (comma-separated).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Fits running at once, for the predicted wall time (each at the threads its cost was
    /// measured with).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_JOBS)))]
    jobs: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// A collection manifest file instead of the built-in one.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The most model fits the spec may ask for (as for `ltr run`).
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    max_cells: u64,
}

/// Runs `ltr estimate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = SpecLimits { max_cells: args.max_cells };
    let spec = Pipeline::load_spec(&args.spec, &args.datasets, &args.algorithms, &limits)?;
    let manifest = manifest_of(&spec, args.manifest.as_deref())?;
    let shapes = ltr_runner::estimate::shapes(&spec, manifest.as_ref(), ltr_fetch::local::SPLIT_PARTS)?;
    let estimate = ltr_runner::estimate::estimate(&spec, &shapes, args.jobs);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&estimate)?),
        Format::Table => print!("{}", ltr_report::estimate::text(&estimate, &spec.source)),
    }
    Ok(ExitCode::SUCCESS)
}
