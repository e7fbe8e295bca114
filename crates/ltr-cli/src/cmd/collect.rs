//! `ltr collect --plan DIR --into RESULTS STORE...`: the stores a plan's tasks filled, merged
//! into one that `ltr report` renders ([`ltr_runner::collect::collect`]).

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_runner::collect::{array_list, collect};
use ltr_runner::plan::Plan;
use ltr_runner::store::ResultStore;

/// Arguments of `ltr collect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The plan folder (`ltr plan --out`).
    #[arg(long)]
    plan: PathBuf,
    /// The result store folder to merge into (it may also be one of the STOREs).
    #[arg(long)]
    into: PathBuf,
    /// Result store folders the tasks wrote into (`ltr run-cell --results`).
    #[arg(required = true)]
    stores: Vec<PathBuf>,
}

/// Runs `ltr collect`: exit 1 when cells are missing (they are named, with the tasks to
/// submit again).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let plan = Plan::load(&args.plan)?;
    let name = &plan.header.name;
    let mut sources = Vec::new();
    for dir in &args.stores {
        if !dir.join(name).join("cells").is_dir() {
            anyhow::bail!("{}: no result store of `{name}` (no folder {name}/cells)", dir.display());
        }
        sources.push(ResultStore::open(dir, name)?);
    }
    let into = ResultStore::open(&args.into, name)?;
    let c = collect(&plan, &sources, &into)?;
    for (store, index, why) in &c.damaged {
        eprintln!(
            "warning: {}: cell {index} ({}) is damaged: {why}",
            store.display(),
            plan.cells[*index].name()
        );
    }
    println!(
        "{name}: {} of {} cells in {} ({} copied now, {} already there)",
        c.copied + c.present,
        plan.cells.len(),
        into.root().display(),
        c.copied,
        c.present
    );
    if c.missing.is_empty() {
        let mut select = String::new();
        for (flag, list) in
            [("datasets", &plan.header.select_datasets), ("algorithms", &plan.header.select_algorithms)]
        {
            if !list.is_empty() {
                select += &format!(" --{flag} {}", list.join(","));
            }
        }
        println!("report: ltr report {} --results {}{select}", plan.header.spec_source, args.into.display());
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("missing {} cells: {}", c.missing.len(), array_list(&c.missing));
    for &i in &c.missing {
        eprintln!("  cell {i} (task {}): {}", plan.cells[i].task, plan.cells[i].name());
    }
    eprintln!("resubmit: sbatch --array={} {}", c.resubmit(&plan), args.plan.join("slurm.sbatch").display());
    Ok(ExitCode::FAILURE)
}
