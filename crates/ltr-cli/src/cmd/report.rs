//! `ltr report SPEC`: markdown, JSON and CSV from the result store.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ltr_data::manifest::Manifest;
use ltr_harness::spec::ExperimentSpec;
use ltr_harness::store::ResultStore;
use ltr_report::{Published, ReportInput};

use crate::cmd::code_version;
use crate::cmd::run::load_spec;

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
}

/// Runs `ltr report`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = load_spec(&args.spec)?;
    for p in write_report(spec, &args.results, &args.out)? {
        println!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds and writes the report of a spec from its store.
pub fn write_report(spec: ExperimentSpec, results: &Path, out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let store = ResultStore::open(results, &spec.name)?;
    let title =
        Manifest::builtin(&spec.collection).map(|m| m.title).unwrap_or_else(|_| spec.collection.clone());
    let name = spec.name.clone();
    let input = ReportInput::from_store(spec, &store, Published::builtin()?, title, code_version())?;
    let report = ltr_report::build(&input)?;
    Ok(ltr_report::write(&report, out, &name)?)
}
