//! `ltr check --baseline B`: CI regression of mean metrics.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use ltr_report::{MeansFile, compare};
use tabled::builder::Builder;
use tabled::settings::Style;

/// Arguments of `ltr check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Checked-in baseline (reports/baselines/<name>.json).
    #[arg(long)]
    baseline: PathBuf,
    /// The run's report JSON (default: <reports>/<baseline name>.json, the reports folder
    /// being $LTR_REPORTS_DIR, else ./reports, as for `ltr run` and `ltr report`).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Largest accepted |run - baseline| per number (finite, >= 0).
    #[arg(long, default_value_t = 0.005, value_parser = parse_tolerance, allow_negative_numbers = true)]
    tolerance: f64,
    /// Write the baseline from the results instead of checking (after a reviewed change).
    #[arg(long)]
    write: bool,
}

/// A tolerance must be a finite number >= 0 (NaN would pass every comparison).
fn parse_tolerance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        Ok(t) => Err(format!("{t} is not a finite number >= 0")),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs `ltr check`: exit 1 when a number moved beyond the tolerance or a row is missing.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.write {
        let results = args.results.clone().context("--write needs --results <report json>")?;
        let current = MeansFile::load(&results)?;
        let text = serde_json::to_string_pretty(&current)? + "\n";
        if let Some(dir) = args.baseline.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&args.baseline, text)?;
        println!("wrote {} ({} rows)", args.baseline.display(), current.means.len());
        return Ok(ExitCode::SUCCESS);
    }
    let baseline = MeansFile::load(&args.baseline)?;
    let results = args.results.clone().unwrap_or_else(|| {
        let dir = std::env::var_os("LTR_REPORTS_DIR").filter(|d| !d.is_empty()).unwrap_or("reports".into());
        PathBuf::from(dir).join(format!("{}.json", baseline.name))
    });
    let current = MeansFile::load(&results)?;
    let outcome = compare(&baseline, &current, args.tolerance);
    for k in &outcome.new {
        println!("note: {k} is not in the baseline");
    }
    if outcome.passed() {
        let digests = match (&baseline.digest, &current.digest) {
            (Some(b), Some(c)) if args.tolerance == 0.0 => {
                let both = b.datasets.keys().filter(|d| c.datasets.contains_key(*d)).count();
                format!(" (and the test scores of {both} datasets, by run digest)")
            }
            _ => String::new(),
        };
        println!(
            "check passed: {} numbers of {} within {} of {}{digests}",
            outcome.compared,
            results.display(),
            args.tolerance,
            args.baseline.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !outcome.moved.is_empty() {
        let mut b = Builder::default();
        b.push_record(["dataset", "algorithm", "metric", "baseline", "run", "difference"]);
        for m in &outcome.moved {
            b.push_record([
                ltr_report::escape_markdown(&m.dataset),
                ltr_report::escape_markdown(&m.algorithm),
                m.metric.to_string(),
                format!("{:.4}", m.baseline),
                format!("{:.4}", m.current),
                format!("{:+.4}", m.current - m.baseline),
            ]);
        }
        let mut t = b.build();
        t.with(Style::markdown());
        eprintln!("{} numbers moved beyond {}:\n{t}", outcome.moved.len(), args.tolerance);
    }
    for k in &outcome.missing {
        eprintln!("missing from the run: {k}");
    }
    for d in &outcome.digests {
        eprintln!("test scores differ: {d}");
    }
    eprintln!("check FAILED against {}", args.baseline.display());
    Ok(ExitCode::FAILURE)
}
