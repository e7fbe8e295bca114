//! `ltr sensitivity RESULTS [--datasets D,..] [--algorithms A,..] [--format F]`: whether the
//! order of a result store's algorithms depends on the metric convention: the report's
//! convention-sensitivity section ([`ltr_report::sensitivity`]) for any store, from the cells
//! of its last run; and, when they were run with several seeds, the report's seed-sensitivity
//! section ([`ltr_report::seeds`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use ltr_report::SignificanceConfig;
use ltr_report::seeds::{self, SeedRow};
use ltr_report::sensitivity::{self, DatasetSensitivity};
use ltr_runner::runner::RunRecord;
use ltr_runner::store::{CellCheck, CellRecord};
use serde::Serialize;

use crate::cmd::pipeline::Pipeline;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The report's section, one per dataset.
    Markdown,
    /// JSON: per store, its name, seed and the panel of every dataset (the report JSON's
    /// `sensitivity`, and `seed_sensitivity` when the cells ran with several seeds); an array
    /// when RESULTS holds several stores.
    Json,
}

/// Arguments of `ltr sensitivity`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A result store (`results/letor4`), or a folder of them (`results`).
    results: PathBuf,
    /// Only these datasets (comma-separated, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Only these algorithms (spec labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
}

/// The panel of one store.
#[derive(Debug, Serialize)]
struct StorePanel {
    name: String,
    seed: u64,
    sensitivity: Vec<DatasetSensitivity>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    seed_sensitivity: Vec<SeedRow>,
}

/// Runs `ltr sensitivity`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut panels = Vec::new();
    for dir in super::stores_in(&args.results)? {
        let store = super::open_store(&dir)?;
        let run: RunRecord = store
            .load_json("run.json")
            .with_context(|| format!("{}: no run recorded (`ltr run` writes run.json)", dir.display()))?;
        let mut cells: Vec<CellRecord> = Vec::with_capacity(run.cells.len());
        for key in &run.cells {
            match store.check(key) {
                CellCheck::Sound(r) => cells.push(*r),
                CellCheck::Missing => {
                    log::warn!("{}: cell {key} of the last run is missing; left out", dir.display())
                }
                CellCheck::Damaged(why) => {
                    log::warn!("{}: cell {key} is damaged ({why}); left out", dir.display())
                }
            }
        }
        let cells = restrict(cells, &args.datasets, &args.algorithms)?;
        let started = std::time::Instant::now();
        let stored = sensitivity::load(&store, &run, &cells);
        let read = started.elapsed().as_secs_f64();
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let sensitivity = sensitivity::compute(&refs, &stored, &significance_of(&run))?;
        log::info!(
            "{}: convention sensitivity of {} cells: scores and test files read in {read:.2} s, evaluated in {:.2} s",
            dir.display(),
            cells.len(),
            started.elapsed().as_secs_f64() - read
        );
        let seed_sensitivity = if cells.iter().any(|c| c.seed_runs.as_ref().is_some_and(|r| r.seeds > 1)) {
            let frame = ltr_report::aggregate::query_frame(&refs)?;
            let aggs = ltr_report::aggregate::aggregate(&ltr_report::aggregate::fold_rows(&frame)?)?;
            seeds::compute(&refs, &aggs)
        } else {
            Vec::new()
        };
        panels.push(StorePanel { name: run.name, seed: run.seed, sensitivity, seed_sensitivity });
    }
    match args.format {
        Format::Markdown => {
            for p in &panels {
                println!(
                    "## {}: convention sensitivity (seed {})\n",
                    ltr_report::escape_markdown(&p.name),
                    p.seed
                );
                for d in &p.sensitivity {
                    print!("{}", sensitivity::dataset_section(std::slice::from_ref(d), &d.dataset));
                }
                print!("{}", seeds::section(&p.seed_sensitivity));
            }
        }
        Format::Json => {
            let text = match panels.as_slice() {
                [one] => serde_json::to_string_pretty(one)?,
                all => serde_json::to_string_pretty(all)?,
            };
            println!("{text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `cells` restricted to the named datasets (case-insensitive) and algorithms (labels or ids);
/// a name no cell has is refused, naming those there are.
fn restrict(
    cells: Vec<CellRecord>,
    datasets: &[String],
    algorithms: &[String],
) -> anyhow::Result<Vec<CellRecord>> {
    let known = |names: Vec<&str>| {
        let mut n = names;
        n.sort_unstable();
        n.dedup();
        n.join(", ")
    };
    for d in datasets {
        if !cells.iter().any(|c| c.dataset.eq_ignore_ascii_case(d)) {
            bail!(
                "--datasets: no cell of `{d}` in the store (it has: {})",
                known(cells.iter().map(|c| c.dataset.as_str()).collect())
            );
        }
    }
    for a in algorithms {
        if !cells.iter().any(|c| c.label == *a || c.algorithm == *a) {
            bail!(
                "--algorithms: no cell of `{a}` in the store (it has: {})",
                known(cells.iter().map(|c| c.label.as_str()).collect())
            );
        }
    }
    Ok(cells
        .into_iter()
        .filter(|c| datasets.is_empty() || datasets.iter().any(|d| c.dataset.eq_ignore_ascii_case(d)))
        .filter(|c| algorithms.is_empty() || algorithms.iter().any(|a| c.label == *a || c.algorithm == *a))
        .collect())
}

/// The significance test of the run's report: its spec's (baseline and test) when the spec it
/// was run from still loads under that name, else a paired t-test against the first algorithm;
/// seeded by the run's seed either way.
fn significance_of(run: &RunRecord) -> SignificanceConfig {
    let limits = ltr_harness::spec::SpecLimits::default();
    let spec = [run.spec_source.as_str(), run.name.as_str()]
        .into_iter()
        .find_map(|s| Pipeline::load_spec(s, &[], &[], &limits).ok().filter(|spec| spec.name == run.name));
    match spec {
        Some(spec) => SignificanceConfig { seed: run.seed, ..SignificanceConfig::of_spec(&spec) },
        None => {
            log::info!("the spec of `{}` does not load here: a t-test against the first algorithm", run.name);
            SignificanceConfig { seed: run.seed, ..SignificanceConfig::default() }
        }
    }
}
