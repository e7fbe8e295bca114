//! `ltr verify [RESULTS] [--data [--data-dir DIR]]`: check that what is on disk is what was
//! recorded.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use ltr_data::manifest::{BUILTIN, Manifest};
use ltr_fetch::DataCache;
use ltr_fetch::cache::Check;

use crate::cmd::DataArgs;

/// Arguments of `ltr verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A result store folder to check.
    pub results: Option<PathBuf>,
    /// Hash every file of the data cache again and compare it with the manifests' (or the
    /// locally recorded) sha256.
    #[arg(long)]
    pub data: bool,
    /// Data cache folder (default: $XDG_CACHE_HOME/ltr, else ~/.cache/ltr).
    #[arg(long, env = "LTR_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

/// Runs `ltr verify`: exit code 1 if anything checked is damaged or missing.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.results.is_none() && !args.data {
        bail!("nothing to verify: give a result store folder, or --data for the data cache");
    }
    let mut sound = true;
    if args.data {
        sound &= verify_data(&args)?;
    }
    if let Some(results) = &args.results {
        bail!("checking a result store ({}) is not available yet; `ltr verify --data` is", results.display());
    }
    Ok(if sound { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Rehashes the data cache and prints every file that is not right, then a summary.
/// Returns whether nothing is damaged or missing (files without a known hash are listed
/// but are not a failure).
fn verify_data(args: &Args) -> anyhow::Result<bool> {
    let opts = DataArgs { mirror: None, data_dir: args.data_dir.clone() }.fetch_options()?;
    let cache = DataCache::new(&opts.data_dir);
    let manifests = BUILTIN.iter().map(|(name, _)| Manifest::builtin(name)).collect::<Result<Vec<_>, _>>()?;
    let findings = cache.verify_all(&manifests)?;
    let (mut ok, mut damaged, mut missing, mut unknown) = (0, 0, 0, 0);
    for f in &findings {
        match &f.check {
            Check::Ok => ok += 1,
            Check::Mismatch { expected, actual } => {
                damaged += 1;
                println!("DAMAGED {}: sha256 {actual}, expected {expected}", f.rel);
            }
            Check::Missing => {
                missing += 1;
                println!("MISSING {}", f.rel);
            }
            Check::Unknown => {
                unknown += 1;
                println!("UNKNOWN {} (no sha256 known for it)", f.rel);
            }
        }
    }
    println!(
        "data cache {}: {} files, {ok} ok, {damaged} damaged, {missing} missing, {unknown} without a known hash",
        cache.root().display(),
        findings.len()
    );
    if damaged + missing > 0 {
        println!("`ltr fetch` replaces damaged and missing files");
    }
    Ok(damaged + missing == 0)
}
