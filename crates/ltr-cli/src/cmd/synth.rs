//! `ltr synth --shape NAME --out DIR [--seed N] [--queries N] [--folds 1]`: LETOR-format folds
//! with the shape of a large collection and a learnable hidden relevance (`ltr-synth`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use ltr_synth::{Shape, SynthOptions, generate};

/// Arguments of `ltr synth`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The collection whose shape to copy: mslr-web30k, mslr-web10k, yahoo, istella,
    /// yandex-im2009 (the release's two files as it ships them), or small (400 queries of 20
    /// documents, 20 features, for tests).
    #[arg(long)]
    shape: String,
    /// Output folder (created if needed).
    #[arg(long)]
    out: PathBuf,
    /// Master seed: the same shape, queries and seed give the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of queries (default: the collection's), to scale the shape down or up
    /// (yandex-im2009: of the learning file; its test file scales with it).
    #[arg(long)]
    queries: Option<usize>,
    /// Only these folds (comma-separated) of a five-fold shape: `--folds 1` writes each row
    /// once.
    #[arg(long, value_delimiter = ',')]
    folds: Vec<u32>,
}

/// Runs `ltr synth`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let shape = Shape::named(&args.shape)?;
    let started = Instant::now();
    let opts = SynthOptions { shape, queries: args.queries, seed: args.seed, folds: args.folds };
    let report = generate(&opts, &args.out)?;
    for f in &report.files {
        println!("{}: {} queries, {} rows", args.out.join(&f.rel).display(), f.queries, f.rows);
    }
    println!(
        "{}: {} queries, {} documents, {} features, seed {} ({:.1} s)",
        opts.shape.name,
        report.queries,
        report.documents,
        report.features,
        args.seed,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
