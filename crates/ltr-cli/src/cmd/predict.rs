//! `ltr predict --model M --data F --scores OUT.txt`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use ltr_data::{ReadOptions, read_file};
use ltr_harness::ModelFile;
use ltr_harness::store::format_scores;

/// Arguments of `ltr predict`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Model written by `ltr train`.
    #[arg(long)]
    model: PathBuf,
    /// Data to score (LETOR format, plain or .gz).
    #[arg(long)]
    data: PathBuf,
    /// Output: one score per input line, in input order (works with `ltr eval` and the official scripts).
    #[arg(long)]
    scores: PathBuf,
}

/// Runs `ltr predict`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = std::fs::read(&args.model).with_context(|| format!("reading {}", args.model.display()))?;
    let file = ModelFile::from_json(&text)
        .with_context(|| format!("{} is not a usable ltr model file", args.model.display()))?;
    let t = Instant::now();
    let opts = ReadOptions { n_features: Some(file.n_features), ..Default::default() };
    let data =
        read_file(&args.data, &opts).with_context(|| format!("reading {}", args.data.display()))?.dataset;
    log::info!("parsed {} documents in {:.3} s", data.n_docs(), t.elapsed().as_secs_f64());
    let t = Instant::now();
    let scores = file.model.score_vec(&data)?;
    log::info!("scored in {:.3} s", t.elapsed().as_secs_f64());
    ltr_core::write_atomic(&args.scores, format_scores(&scores).as_bytes())
        .with_context(|| format!("writing {}", args.scores.display()))?;
    println!("wrote {} scores to {}", scores.len(), args.scores.display());
    Ok(ExitCode::SUCCESS)
}
