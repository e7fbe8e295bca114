//! `ltr survey [--reports DIR] [--out FILE]`: the survey's summary table
//! (`reports/published/survey.toml`) beside the registry's family, loss and optimiser and the
//! datasets each id has numbers for in the report JSON files of `DIR` (`reports/survey.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Arguments of `ltr survey`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder of report JSON files (`ltr report` / `ltr reproduce` output) whose means say
    /// which datasets each algorithm was measured on.
    #[arg(long, default_value = "reports")]
    reports: PathBuf,
    /// Write the markdown here (atomically) instead of printing it.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Renders the table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = &args.reports;
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry.with_context(|| format!("reading {}", dir.display()))?.path();
        if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            paths.push(path);
        }
    }
    paths.sort();
    let text = ltr_survey::page(&paths, ltr_harness::ALGORITHMS)?;
    match &args.out {
        Some(out) => ltr_core::write_atomic(out, text.as_bytes())
            .with_context(|| format!("writing {}", out.display()))?,
        None => crate::write_stdout(text.as_bytes()),
    }
    Ok(ExitCode::SUCCESS)
}
