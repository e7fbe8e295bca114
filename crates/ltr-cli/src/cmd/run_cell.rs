//! `ltr run-cell --plan DIR --task N`: one task of a plan ([`ltr_runner::plan`]), as a
//! Slurm array task, a Kubernetes Job index or a GNU parallel job runs it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use ltr_fetch::lock::FetchLock;
use ltr_harness::limits::SPEC_OVERRIDE;
use ltr_harness::spec::SpecLimits;
use ltr_runner::plan::{Plan, check_task_data, task_cells_here};
use ltr_runner::runner::{NoProgress, PlannedCell, RunOptions, run_cells};
use ltr_runner::store::ResultStore;

use crate::cmd::DataArgs;
use crate::cmd::pipeline::Pipeline;
use crate::cmd::run::{OverLimit, RunArgs, resolve_datasets};

/// A test hook: the task stops after this many of its cells and waits to be killed, so that
/// a test can kill it at a known point (not a race).
pub const PAUSE_AFTER_CELLS: &str = "LTR_TEST_PAUSE_AFTER_CELLS";
/// With [`PAUSE_AFTER_CELLS`]: only this task pauses (default: every task).
pub const PAUSE_TASK: &str = "LTR_TEST_PAUSE_TASK";

/// How long a task waits for another task on the host to finish fetching, and how old a
/// fetch lock of another host must be to count as abandoned.
const FETCH_LOCK_WAIT: Duration = Duration::from_secs(6 * 3600);

/// Arguments of `ltr run-cell`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The plan folder (`ltr plan --out`).
    #[arg(long)]
    plan: PathBuf,
    /// The task (0-based: `$SLURM_ARRAY_TASK_ID`, `$JOB_COMPLETION_INDEX`).
    #[arg(long)]
    task: usize,
    /// Result store folder the task writes its cells into.
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    results: PathBuf,
    /// Use only files already in the data cache (no fetching).
    #[arg(long)]
    no_fetch: bool,
    /// Hash every data file again before using it.
    #[arg(long)]
    verify_data: bool,
    #[command(flatten)]
    data: DataArgs,
}

/// `N` (every task) or `N` with `LTR_TEST_PAUSE_TASK=T` (task T only).
fn pause_after(task: usize) -> anyhow::Result<Option<usize>> {
    let Ok(n) = std::env::var(PAUSE_AFTER_CELLS) else { return Ok(None) };
    let n: usize = n.trim().parse().with_context(|| format!("{PAUSE_AFTER_CELLS}={n}: not a count"))?;
    match std::env::var(PAUSE_TASK) {
        Ok(t) if t.trim().parse::<usize>().with_context(|| format!("{PAUSE_TASK}={t}"))? != task => Ok(None),
        _ => Ok(Some(n)),
    }
}

/// Runs `ltr run-cell`: exit 1 when a cell failed.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let plan = Plan::load(&args.plan)?;
    let task = args.task;
    let wanted = plan.task_cells(task)?;
    // The plan was made under the planner's `--max-cells`; its grids are bounded all the same.
    let limits = SpecLimits { max_cells: u64::MAX };
    let spec = plan.spec(&limits).context("the plan's spec")?;
    // Only the datasets this task reads are resolved (and fetched if missing).
    let mut needed: Vec<String> = wanted.iter().map(|c| c.dataset.clone()).collect();
    needed.dedup();
    let mut data_spec = spec.clone();
    data_spec.restrict_datasets(&needed)?;
    let mut pipeline = Pipeline::from_spec(data_spec, plan.header.manifest.as_deref())?;
    let run_args = RunArgs {
        datasets: needed,
        algorithms: Vec::new(),
        force: false,
        results: args.results.clone(),
        no_fetch: args.no_fetch,
        verify_data: args.verify_data,
        manifest: plan.header.manifest.clone(),
        max_cells: limits.max_cells,
        seed: None,
        no_scale_limits: false,
        data: args.data.clone(),
    };
    let datasets = {
        // Tasks starting together on one host fetch once: the others wait, then find the
        // files in the cache.
        let cache = args.data.fetch_options()?.data_dir;
        let _lock = FetchLock::acquire(&cache, FETCH_LOCK_WAIT, FETCH_LOCK_WAIT)?;
        resolve_datasets(
            &mut pipeline.spec,
            pipeline.manifest.as_ref(),
            &run_args,
            OverLimit::Refuse(SPEC_OVERRIDE),
        )?
    };
    // Nothing is computed, nor the store touched, unless every file and key is the plan's.
    check_task_data(&plan, task, &datasets)?;
    let code = ltr_runner::CodeHashes::builtin();
    let cells = task_cells_here(&plan, task, &spec, &datasets, &code)?;
    let store = ResultStore::open(&args.results, &spec.name)
        .with_context(|| format!("opening the result store under {}", args.results.display()))?;
    let opts = RunOptions::new(crate::cmd::binary_sha256());
    let refs: Vec<&PlannedCell<'_>> = cells.iter().collect();
    if let Some(n) = pause_after(task)?
        && n < refs.len()
    {
        let o = run_cells(&spec, &datasets, &refs[..n], &store, &opts, &NoProgress);
        eprintln!(
            "task {task}: paused after {n} cells ({} computed, {} failed) by {PAUSE_AFTER_CELLS}; waiting to be killed",
            o.computed,
            o.failed.len()
        );
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    // A task's log shows the time left and, every 30 s, any fit that runs long.
    let bar = crate::progress::RunBar::new();
    let o = run_cells(&spec, &datasets, &refs, &store, &opts, &bar);
    bar.finish();
    let (computed, skipped, failed) = (o.computed, o.skipped, o.failed);
    println!(
        "task {task} of {}: {} cells ({computed} computed now, {skipped} already in the store), {} failed, in {}",
        plan.header.tasks,
        refs.len(),
        failed.len(),
        store.root().display()
    );
    for f in &failed {
        eprintln!("failed: {} fold {} {}: {}", f.dataset, f.fold, f.label, f.error);
    }
    Ok(if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
