//! `ltr verify [RESULTS] [--data [--data-dir DIR]]`: check that what is on disk is what was
//! recorded.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use ltr_data::manifest::{BUILTIN, Manifest};
use ltr_fetch::DataCache;
use ltr_fetch::cache::Check;
use ltr_report::digest::{RunDigest, run_digest};
use ltr_runner::store::CellCheck;
use ltr_runner::verify::verify_store;

use crate::cmd::DataArgs;

/// Arguments of `ltr verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A result store to check (`results/letor3`), or a folder of them (`results`): every
    /// cell's hashes, and its saved scores and model re-evaluated on its test file.
    pub results: Option<PathBuf>,
    /// Hash every file of the data cache again and compare it with the manifests' (or the
    /// locally recorded) sha256.
    #[arg(long)]
    pub data: bool,
    /// A report's JSON (`reports/letor3.json`): recompute its run digest from the cells of
    /// RESULTS it lists (each checked by its hashes) and compare. Needs RESULTS.
    #[arg(long, requires = "results")]
    pub report: Option<PathBuf>,
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
        match &args.report {
            Some(report) => sound &= verify_digest(results, report)?,
            None => sound &= verify_results(results)?,
        }
    }
    Ok(if sound { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Checks one result store, or every store in a folder: prints a line per bad cell (`BAD`),
/// per cell that could not be re-evaluated (`NOTE`), and a summary per store. Returns
/// whether every cell is sound.
fn verify_results(path: &Path) -> anyhow::Result<bool> {
    let mut sound = true;
    for dir in super::stores_in(path)? {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let store = super::open_store(&dir)?;
        let v = verify_store(&store, true)?;
        for b in &v.bad {
            let cell = if b.cell.is_empty() { String::new() } else { format!(" {}", b.cell) };
            println!("BAD {}/{}{cell}: {}", name, b.key, b.problem);
        }
        for (key, why) in &v.not_reevaluated {
            println!("NOTE {name}/{key}: hashes match, not re-evaluated: {why}");
        }
        println!(
            "result store {}: {} cells, {} sound, {} bad; {} re-evaluated against their test files",
            dir.display(),
            v.checked,
            v.sound,
            v.bad.len(),
            v.reevaluated
        );
        sound &= v.bad.is_empty();
    }
    if !sound {
        println!("`ltr run` recomputes missing and damaged cells");
    }
    Ok(sound)
}

/// The most bytes of a report JSON read (the committed ones are well under 10 MB).
const MAX_REPORT_BYTES: u64 = 1 << 30;

/// Recomputes the run digest of the report `report` from the cells of the result store
/// (`results`, or the store of the report's name under it) and compares it with the one the
/// report states. Returns whether they are equal and every cell listed is sound.
fn verify_digest(results: &Path, report: &Path) -> anyhow::Result<bool> {
    #[derive(serde::Deserialize)]
    struct Listed {
        name: String,
        digest: RunDigest,
        folds: Vec<Cell>,
    }
    #[derive(serde::Deserialize)]
    struct Cell {
        cell: String,
    }
    let bytes = ltr_core::fs::read_bounded(report, MAX_REPORT_BYTES)
        .with_context(|| format!("reading {}", report.display()))?;
    let listed: Listed = serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a report JSON with a run digest", report.display()))?;
    let stores = super::stores_in(results)?;
    let dir = match stores.iter().find(|d| d.file_name().is_some_and(|n| n.to_string_lossy() == listed.name))
    {
        Some(d) => d.clone(),
        None if stores.len() == 1 => stores[0].clone(),
        None => {
            bail!("{}: no result store named {} for {}", results.display(), listed.name, report.display())
        }
    };
    let store = super::open_store(&dir)?;
    let mut records = Vec::with_capacity(listed.folds.len());
    let mut sound = true;
    for f in &listed.folds {
        match store.check(&f.cell) {
            CellCheck::Sound(record) => records.push(*record),
            CellCheck::Missing => {
                sound = false;
                println!("BAD {}/{}: missing from the store", listed.name, f.cell);
            }
            CellCheck::Damaged(why) => {
                sound = false;
                println!("BAD {}/{}: {why}", listed.name, f.cell);
            }
        }
    }
    let got = run_digest(&records);
    if sound && got == listed.digest {
        println!(
            "run digest of {}: {} over {} cells of {}, as the report states",
            report.display(),
            got.all,
            got.cells,
            dir.display()
        );
        return Ok(true);
    }
    if sound {
        println!("run digest of {}: {} recomputed, {} stated", report.display(), got.all, listed.digest.all);
        for d in ltr_report::digest::differences(&listed.digest, &got) {
            println!("DIFFERS {d}");
        }
    }
    Ok(false)
}

/// Rehashes the data cache and prints every file that is not right, then a summary.
/// Returns whether nothing is damaged or missing (files without a known hash are listed
/// but are not a failure).
fn verify_data(args: &Args) -> anyhow::Result<bool> {
    let opts = DataArgs {
        mirror: None,
        data_dir: args.data_dir.clone(),
        min_speed: 0,
        speed_window: 60,
        timeout: 20,
        max_time: 14_400,
    }
    .fetch_options()?;
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
