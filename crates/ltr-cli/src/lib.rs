//! The `ltr` command line: argument parsing (clap), progress bars (indicatif), error
//! reporting. This is the only crate that prints.
//!
//! Raw arguments are turned into validated configurations before any work starts; `main`
//! returns an exit code and prints the whole error chain on failure.

mod cmd;
mod progress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Learning-to-rank benchmark and reproducibility suite.
#[derive(Debug, Parser)]
#[command(name = "ltr", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// More log output (-v: debug, -vv: trace). `RUST_LOG` overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only warnings and errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Worker threads (default: all cores; `RAYON_NUM_THREADS` also works).
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Download (or copy from a mirror), verify and install datasets into the data cache.
    Fetch(cmd::fetch::Args),
    /// Run an experiment spec: every dataset x fold x algorithm, selection on vali.
    Run(cmd::run::Args),
    /// Write reports/<name>.md, .json and .csv from the result store.
    Report(cmd::report::Args),
    /// Fetch, run and report a collection (letor3, letor4).
    Reproduce(cmd::reproduce::Args),
    /// Compare a run's mean metrics with a checked-in baseline (CI regression).
    Check(cmd::check::Args),
    /// Train one model on a file.
    Train(cmd::train::Args),
    /// Score a file with a trained model.
    Predict(cmd::predict::Args),
    /// Evaluate a score file against a LETOR file, like the official evaluation scripts.
    Eval(cmd::eval::Args),
    /// Compare score files of any tools on one feature file, with significance tests.
    Compare(cmd::compare::Args),
    /// Check what is on disk against what was recorded (--data: rehash the data cache).
    Verify(cmd::verify::Args),
    /// List the registered algorithms with every parameter: default, valid range, meaning.
    Algorithms,
}

/// Entry point of the `ltr` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    if let Some(n) = cli.threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global()
    {
        eprintln!("error: --threads {n}: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Reproduce(args) => cmd::reproduce::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Train(args) => cmd::train::run(args),
        Command::Predict(args) => cmd::predict::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Algorithms => list_algorithms(),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            report_error(&err);
            ExitCode::FAILURE
        }
    }
}

fn list_algorithms() -> anyhow::Result<ExitCode> {
    for (i, a) in ltr_harness::ALGORITHMS.iter().enumerate() {
        if i > 0 {
            println!();
        }
        println!("{:<14} {:<14} {:<10} {} {:<18} {}", a.id, a.name, a.family, a.year, a.loss, a.optimizer);
        let params = ltr_harness::registry::parameters(a.id)?;
        let rows: Vec<[String; 4]> = params
            .iter()
            .map(|p| {
                [
                    p.key.clone(),
                    p.default.to_string(),
                    p.range.map_or_else(|| "-".to_owned(), |r| r.to_string()),
                    p.doc.unwrap_or("(not documented in the parameter table)").to_owned(),
                ]
            })
            .collect();
        let width = |j: usize| rows.iter().map(|r| r[j].chars().count()).max().unwrap_or(0);
        let (w0, w1, w2) = (width(0), width(1), width(2));
        for [key, default, range, doc] in &rows {
            println!("    {key:<w0$}  {default:<w1$}  {range:<w2$}  {doc}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn init_logging(verbose: u8, quiet: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "warn",
        (false, 0) => "info",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    let env = env_logger::Env::default().default_filter_or(level);
    env_logger::Builder::from_env(env).format_timestamp(None).format_target(false).init();
}

/// Prints `error: <message>` and every cause on its own line.
fn report_error(err: &anyhow::Error) {
    eprintln!("error: {err}");
    for cause in err.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
}
