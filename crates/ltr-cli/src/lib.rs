//! The `ltr` command line: argument parsing (clap), progress bars (ltr-term), error
//! reporting. This is the only crate that prints.
//!
//! Raw arguments are turned into validated configurations before any work starts; `main`
//! returns an exit code and prints the whole error chain on failure.
//!
//! Exit status: 0 success, and also a closed stdout (`ltr ... | head -1` ends the program
//! quietly, as ripgrep does); 1 failure (an error, a failed cell, a check that did not pass;
//! one `error:` line with its causes on stderr); 2 a command line clap refuses (unknown flag,
//! a value out of its range).

// Every print of the CLI goes through these macros, which shadow the standard ones in every
// module below (a `macro_rules!` in scope takes precedence over the prelude's). The standard
// `println!` panics when stdout is a closed pipe (`ltr ... | head -1`): the reader has all it
// wanted, so the program ends there, quietly, with status 0, as ripgrep does. Writing to a
// closed stderr is ignored: there is nowhere left to say anything.
macro_rules! println {
    () => {
        $crate::write_stdout(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

macro_rules! eprintln {
    () => {
        $crate::write_stderr(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::write_stderr(format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

mod cmd;

/// The terminal layer, under the name the commands use.
use ltr_term as progress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Where a newcomer starts (the end of `ltr --help`).
const FIRST_STEPS: &str = "First steps:
  ltr reproduce letor3                the LETOR 3.0 benchmark (OHSUMED built in): reports/letor3.md
  ltr run --data DIR                  your own LETOR-format folds or file: reports/<name>.md
  ltr cells results                   which stored model and scores belong to which cell
  ltr train ID --train F --model M    one model (ltr algorithms lists the IDs); then predict, explain";

/// The largest `--threads` (and `RAYON_NUM_THREADS`): far above any machine this runs on,
/// low enough that a typo cannot make the process spawn threads until it hangs.
const MAX_THREADS: usize = 1024;

/// Learning to rank, measured the same way every time: which ranking algorithm is better on
/// which data.
///
/// Trains and compares 21 learning-to-rank algorithms on LETOR-format data: the public
/// LETOR, MSLR, Yahoo, Istella and Yandex collections (fetched and sha256-verified; OHSUMED and
/// MQ2008 are built in) or your own. Fixed-seed cross-validation, model selection on the
/// validation split only, the official metric conventions, and reports (markdown, JSON, CSV,
/// plots, significance tests) with the published numbers beside ours.
#[derive(Debug, Parser)]
#[command(name = "ltr", version, propagate_version = true, after_help = FIRST_STEPS)]
struct Cli {
    /// More log output (-v: debug, -vv: trace). `RUST_LOG` overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only warnings and errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Worker threads, at most 1024 (default: all cores; `RAYON_NUM_THREADS` also works).
    #[arg(long, global = true, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_THREADS as u64))]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Download (or copy from a mirror), verify and install datasets into the data cache.
    Fetch(cmd::fetch::Args),
    /// Run an experiment spec (or your data: --data DIR) and write its report: every dataset x
    /// fold x algorithm, selection on vali.
    Run(cmd::run::Args),
    /// Write the report (reports/<name>.md, .json, .csv) from the result store again.
    Report(cmd::report::Args),
    /// Fetch, run and report a collection (letor3, letor4).
    Reproduce(cmd::reproduce::Args),
    /// Compare a run's mean metrics with a checked-in baseline (CI regression).
    Check(cmd::check::Args),
    /// Train one model on a file.
    Train(cmd::train::Args),
    /// Score a file with a trained model (scores, or a TREC run with --format trec).
    Predict(cmd::predict::Args),
    /// Write the TREC qrels of a LETOR file (the labels of `ltr predict --format trec` runs).
    Qrels(cmd::qrels::Args),
    /// Feature importance of a trained model: split gains of trees, weights of linear models.
    Explain(cmd::explain::Args),
    /// Evaluate a score file against a LETOR file, like the official evaluation scripts.
    Eval(cmd::eval::Args),
    /// Compare score files of any tools on one feature file, with significance tests.
    Compare(cmd::compare::Args),
    /// The predicted time of a spec before it runs: every fit priced from its algorithm's
    /// measured cost, scaled by rows, features and grid; nothing fetched or read.
    Estimate(cmd::estimate::Args),
    /// Cut a spec's cells into tasks for Slurm, Kubernetes or GNU parallel (a plan folder).
    Plan(cmd::plan::Args),
    /// Run one task of a plan into a result store (cells already there are skipped).
    RunCell(cmd::run_cell::Args),
    /// Merge the result stores a plan's tasks wrote into one; name the missing cells.
    Collect(cmd::collect::Args),
    /// Whether the order of a result store's algorithms depends on the metric convention:
    /// Kendall's tau and the significant pairs that change under a panel of conventions.
    Sensitivity(cmd::sensitivity::Args),
    /// Check what is on disk against what was recorded (--data: rehash the data cache).
    Verify(cmd::verify::Args),
    /// List the cells of a result store: dataset, fold, algorithm, selected parameters,
    /// validation and test value, and the model and score files (for `ltr explain`/`predict`).
    Cells(cmd::cells::Args),
    /// Write synthetic LETOR folds with the shape of a large collection (MSLR-WEB, Yahoo!, Istella).
    Synth(cmd::synth::Args),
    /// List the registered algorithms: family, year, loss, optimizer, validation metric, scale
    /// limit, whether feature scales matter, and every parameter (default, valid range,
    /// meaning); `--format ids|tsv|json|markdown` for scripts and the README's table.
    Algorithms(cmd::algorithms::Args),
    /// The survey's summary table mapped to the registry, with the datasets each algorithm has
    /// reported numbers on (`reports/survey.md`).
    Survey(cmd::survey::Args),
}

/// Entry point of the `ltr` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    if cli.threads.is_none()
        && let Some(n) = std::env::var("RAYON_NUM_THREADS").ok().and_then(|v| v.trim().parse::<u64>().ok())
        && n > MAX_THREADS as u64
    {
        eprintln!("error: RAYON_NUM_THREADS={n}: at most {MAX_THREADS} threads");
        return ExitCode::FAILURE;
    }
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
        Command::Qrels(args) => cmd::qrels::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Estimate(args) => cmd::estimate::run(args),
        Command::Plan(args) => cmd::plan::run(args),
        Command::RunCell(args) => cmd::run_cell::run(args),
        Command::Collect(args) => cmd::collect::run(args),
        Command::Sensitivity(args) => cmd::sensitivity::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Cells(args) => cmd::cells::run(args),
        Command::Synth(args) => cmd::synth::run(args),
        Command::Algorithms(args) => cmd::algorithms::run(args),
        Command::Survey(args) => cmd::survey::run(args),
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
    progress::BarLogger::install(
        env_logger::Builder::from_env(env).format_timestamp(None).format_target(false).build(),
    );
}

/// Writes `bytes` to stdout and flushes them. A closed stdout ends the program with status 0
/// (see the `println!` above); any other failure to write ends it with status 1 and one line
/// on stderr, since a command whose output is lost has failed.
pub(crate) fn write_stdout(bytes: &[u8]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            write_stderr(format!("error: writing to stdout: {e}\n").as_bytes());
            std::process::exit(1);
        }
    }
}

/// Writes `bytes` to stderr (above the progress bar, if one is drawn), ignoring failures (a
/// closed stderr leaves nowhere to report them).
pub(crate) fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    progress::above_bar(|| {
        let _ = std::io::stderr().lock().write_all(bytes);
    });
}

/// Prints `error: <message>` and every cause on its own line.
fn report_error(err: &anyhow::Error) {
    eprintln!("error: {err}");
    for cause in err.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
}
