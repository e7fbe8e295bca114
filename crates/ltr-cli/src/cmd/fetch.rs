//! `ltr fetch <collection>|--manifest FILE [--datasets A,B] [--all-variants] [--mirror DIR|URL]`.

use std::process::ExitCode;
use std::sync::Arc;

use ltr_data::manifest::Manifest;
use ltr_fetch::{Fetcher, Variants};

use crate::cmd::DataArgs;
use crate::progress::FetchBars;

/// Arguments of `ltr fetch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Collection: letor3, letor4, mslr, yahoo, istella or yandex.
    #[arg(required_unless_present = "manifest")]
    collection: Option<String>,
    /// A collection manifest file (the format of datasets/*.toml), for a collection of your
    /// own.
    #[arg(long)]
    manifest: Option<std::path::PathBuf>,
    /// Only these datasets (comma-separated; default: all of the collection).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Every feature variant of each dataset, not only the default one that runs use.
    #[arg(long)]
    all_variants: bool,
    #[command(flatten)]
    data: DataArgs,
}

/// Runs `ltr fetch`: exit code 1 if any requested dataset could not be had.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let manifest = match (&args.manifest, &args.collection) {
        (Some(file), collection) => {
            let m = Manifest::load(file)?;
            if let Some(c) = collection.as_ref().filter(|c| **c != m.collection) {
                anyhow::bail!(
                    "collection `{c}`, but the manifest {} describes `{}`",
                    file.display(),
                    m.collection
                );
            }
            m
        }
        (None, Some(c)) => Manifest::builtin(c)?,
        (None, None) => anyhow::bail!("give a collection or --manifest"),
    };
    let names: Vec<String> = if args.datasets.is_empty() {
        manifest.datasets.iter().map(|d| d.name.clone()).collect()
    } else {
        args.datasets.clone()
    };
    let fetcher = fetcher(&args.data)?;
    let mut failed = 0;
    let variants = if args.all_variants { Variants::All } else { Variants::Default };
    for (name, result) in fetcher.fetch_all(&manifest, &names, variants) {
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

/// A fetcher configured from the command line and the environment.
pub fn fetcher(data: &DataArgs) -> anyhow::Result<Fetcher> {
    fetcher_with(data, false)
}

/// [`fetcher`]; with `verify_data`, every cached file is hashed again on first use, whatever
/// its stamp says (`--verify-data`).
pub fn fetcher_with(data: &DataArgs, verify_data: bool) -> anyhow::Result<Fetcher> {
    let mut opts = data.fetch_options()?;
    if verify_data {
        opts.rehash_after = std::time::Duration::ZERO;
    }
    Ok(Fetcher::new(opts, Arc::new(FetchBars::new())))
}
