//! `ltr qrels FEATURE_FILE [--out F]`: the TREC qrels of a LETOR file, matching the runs of
//! `ltr predict --format trec`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use ltr_format::{ReadOptions, read_file};

/// Arguments of `ltr qrels`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// LETOR feature file (plain or .gz) with labels, qids and docids.
    feature_file: PathBuf,
    /// Output file, written atomically (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs `ltr qrels`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.out {
        crate::cmd::predict::refuse_overwriting_inputs(
            ("--out", out),
            &[("FEATURE_FILE", &args.feature_file)],
        )?;
    }
    let source = args.feature_file.display().to_string();
    let data = read_file(&args.feature_file, &ReadOptions::default())
        .with_context(|| format!("reading feature file {source}"))?
        .dataset;
    let text = ltr_format::trec::qrels_file(&data, &source)?;
    match &args.out {
        Some(out) => {
            ltr_core::write_atomic(out, text.as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
            println!(
                "wrote the qrels of {} documents in {} queries to {}",
                data.n_docs(),
                data.n_queries(),
                out.display()
            );
        }
        None => crate::write_stdout(text.as_bytes()),
    }
    Ok(ExitCode::SUCCESS)
}
