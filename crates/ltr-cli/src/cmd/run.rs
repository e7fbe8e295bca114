//! `ltr run SPEC`, `ltr reproduce COLLECTION`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use ltr_data::manifest::Manifest;
use ltr_fetch::Source;
use ltr_harness::runner::{DatasetStatus, RunOptions, RunRecord};
use ltr_harness::spec::ExperimentSpec;
use ltr_harness::store::ResultStore;

use crate::cmd::{DataArgs, fetch, report};
use crate::progress::RunBar;

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
    #[command(flatten)]
    pub data: DataArgs,
}

/// Arguments of `ltr run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4).
    spec: String,
    #[command(flatten)]
    run: RunArgs,
}

/// Arguments of `ltr reproduce`.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// Collection: letor3 or letor4 (uses experiments/<collection>.toml, or the built-in copy).
    collection: String,
    #[command(flatten)]
    run: RunArgs,
    /// Folder for the report files.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
}

/// Loads a spec by path, or by built-in name (preferring `experiments/<name>.toml` in the
/// working directory, so edits there take effect).
pub fn load_spec(spec: &str) -> anyhow::Result<ExperimentSpec> {
    let path = Path::new(spec);
    if path.is_file() {
        return Ok(ExperimentSpec::load(path)?);
    }
    let local = PathBuf::from("experiments").join(format!("{spec}.toml"));
    if local.is_file() {
        return Ok(ExperimentSpec::load(&local)?);
    }
    Ok(ExperimentSpec::builtin(spec)?)
}

/// Runs `ltr run`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = load_spec(&args.spec)?;
    let record = execute(spec, &args.run)?;
    Ok(outcome(&record))
}

/// Runs `ltr reproduce`: fetch, run, report.
pub fn reproduce(args: ReproduceArgs) -> anyhow::Result<ExitCode> {
    let spec = load_spec(&args.collection)?;
    let name = spec.name.clone();
    let record = execute(spec.clone(), &args.run)?;
    let written = report::write_report(spec, &args.run.results, &args.out)?;
    for p in written {
        println!("wrote {}", p.display());
    }
    println!("{name}: {:.1} s", record.wall_seconds);
    Ok(outcome(&record))
}

fn outcome(record: &RunRecord) -> ExitCode {
    if record.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Restricts, resolves data, runs, and prints a summary.
pub fn execute(mut spec: ExperimentSpec, args: &RunArgs) -> anyhow::Result<RunRecord> {
    if !args.datasets.is_empty() {
        spec.restrict_datasets(&args.datasets)?;
    }
    if !args.algorithms.is_empty() {
        spec.restrict_algorithms(&args.algorithms)?;
    }
    let manifest = Manifest::builtin(&spec.collection)?;
    let fetcher = fetch::fetcher_with(&args.data, args.verify_data)?;
    let source = if args.no_fetch { Source::Cache(fetcher.cache()) } else { Source::Fetch(&fetcher) };
    let datasets = ltr_fetch::resolve(&manifest, &spec.datasets, &spec.folds, source);
    for d in &datasets {
        if let DatasetStatus::Unavailable { name, reason } = d {
            eprintln!("{name}: unavailable ({reason}); the others go on");
        }
    }
    let store = ResultStore::open(&args.results, &spec.name)
        .with_context(|| format!("opening the result store under {}", args.results.display()))?;
    let bar = RunBar::new();
    let opts = RunOptions { force: args.force, code: crate::cmd::code_identity() };
    let record = ltr_harness::runner::run(&spec, &datasets, &store, &opts, &bar)?;
    bar.finish();
    println!(
        "{}: {} cells ({} computed now, {} from the store), {} failed, {:.1} s, results in {}",
        spec.name,
        record.cells.len(),
        record.computed,
        record.cells.len() - record.computed,
        record.failed.len(),
        record.wall_seconds,
        store.root().display()
    );
    for f in &record.failed {
        eprintln!("failed: {} fold {} {}: {}", f.dataset, f.fold, f.label, f.error);
    }
    Ok(record)
}
