//! `ltr fetch <collection> [--datasets A,B] [--mirror DIR|URL]`.

use std::process::ExitCode;
use std::sync::Arc;

use ltr_data::fetch::{Fetcher, Mirror};
use ltr_data::manifest::Manifest;

use crate::cmd::DataArgs;
use crate::progress::FetchBars;

/// Arguments of `ltr fetch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Collection: letor3, letor4 or mslr.
    collection: String,
    /// Only these datasets (comma-separated; default: all of the collection).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    #[command(flatten)]
    data: DataArgs,
}

/// Runs `ltr fetch`: exit code 1 if any requested dataset could not be had.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let manifest = Manifest::builtin(&args.collection)?;
    let names: Vec<String> = if args.datasets.is_empty() {
        manifest.datasets.iter().map(|d| d.name.clone()).collect()
    } else {
        args.datasets.clone()
    };
    let fetcher = fetcher(&args.data)?;
    let mut failed = 0;
    for (name, result) in fetcher.fetch_all(&manifest, &names) {
        match result {
            Ok(r) => {
                let unverified = if r.unverified.is_empty() {
                    String::new()
                } else {
                    format!(", {} UNVERIFIED (hash recorded)", r.unverified.len())
                };
                println!(
                    "{name}: {} installed, {} already present{unverified} (from {})",
                    r.installed.len(),
                    r.already_present.len(),
                    r.source
                );
            }
            Err(e) => {
                failed += 1;
                eprintln!("{name}: unavailable: {}", e.reason());
            }
        }
    }
    println!("data cache: {}", fetcher.cache().root().display());
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// A fetcher configured from the environment and the command line.
pub fn fetcher(data: &DataArgs) -> anyhow::Result<Fetcher> {
    let mut opts = ltr_data::fetch::FetchOptions::from_env();
    if let Some(dir) = &data.data_dir {
        opts.data_dir = dir.clone();
    }
    if let Some(m) = data.mirror.as_ref().filter(|m| !m.trim().is_empty()) {
        opts.mirror = Some(m.parse::<Mirror>().map_err(|e| anyhow::anyhow!("--mirror {m}: {e}"))?);
    }
    Ok(Fetcher::new(opts, Arc::new(FetchBars::new())))
}
