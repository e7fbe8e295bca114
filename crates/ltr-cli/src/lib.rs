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
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate a score file against a LETOR file, like the official evaluation scripts.
    Eval(cmd::eval::Args),
}

/// Entry point of the `ltr` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    let result = match cli.command {
        Command::Eval(args) => cmd::eval::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            report_error(&err);
            ExitCode::FAILURE
        }
    }
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
