//! `ltr plan SPEC --out DIR`: a spec's cells cut into tasks, with the files that hand them to
//! Slurm, Kubernetes or GNU parallel ([`ltr_runner::plan`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use ltr_harness::limits::SPEC_OVERRIDE;
use ltr_harness::spec::SpecLimits;
use ltr_runner::plan::{Plan, PlanSpec, time_limit_minutes};
use ltr_runner::scripts::Engines;
use ltr_runner::store::ResultStore;

use crate::cmd::DataArgs;
use crate::cmd::pipeline::{Pipeline, SpecArg, locate_spec};
use crate::cmd::run::{OverLimit, RunArgs, resolve_datasets};

/// Arguments of `ltr plan`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one.
    spec: String,
    /// Only these datasets (comma-separated).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// The plan folder (on a file system every node of the cluster sees).
    #[arg(long)]
    out: PathBuf,
    /// Cells per task (K): a task runs K cells one after the other.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    cells_per_task: u64,
    /// Tasks running at once (P: Slurm's `%P`, the Job's parallelism, parallel's --jobs).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    parallel: u64,
    /// Cores per task.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1024))]
    cpus_per_task: u64,
    /// The result store the tasks write into (shared by all nodes); its timings, where it
    /// has the cells already, set the time limit.
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    results: PathBuf,
    /// The `ltr` executable as the nodes see it (default: this one).
    #[arg(long)]
    program: Option<String>,
    /// The container image of the Kubernetes Job.
    #[arg(long, default_value = "ltr:latest")]
    image: String,
    /// Use only files already in the data cache (no fetching).
    #[arg(long)]
    no_fetch: bool,
    /// A collection manifest file instead of the built-in one.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The most model fits the spec may ask for (as for `ltr run`).
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    max_cells: u64,
    #[command(flatten)]
    data: DataArgs,
}

/// The text of the spec `ltr run` would load for `spec` ([`locate_spec`]).
fn spec_text(spec: &str) -> anyhow::Result<String> {
    match locate_spec(spec)? {
        SpecArg::File(p) => ltr_core::fs::read_bounded_to_string(&p, ltr_harness::spec::MAX_SPEC_BYTES)
            .with_context(|| format!("reading {}", p.display())),
        SpecArg::Builtin(_, text) => Ok(text.to_owned()),
    }
}

fn absolute(p: &Path) -> anyhow::Result<String> {
    let abs = std::path::absolute(p).with_context(|| format!("{}: no absolute path", p.display()))?;
    abs.to_str().map(str::to_owned).ok_or_else(|| anyhow::anyhow!("{}: not UTF-8", abs.display()))
}

/// Runs `ltr plan`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = SpecLimits { max_cells: args.max_cells };
    let spec = Pipeline::load_spec(&args.spec, &args.datasets, &args.algorithms, &limits)?;
    let text = spec_text(&args.spec)?;
    let mut pipeline = Pipeline::from_spec(spec, args.manifest.as_deref())?;
    let run_args = RunArgs {
        datasets: args.datasets.clone(),
        algorithms: args.algorithms.clone(),
        force: false,
        results: args.results.clone(),
        no_fetch: args.no_fetch,
        verify_data: false,
        manifest: args.manifest.clone(),
        max_cells: args.max_cells,
        seed: None,
        no_scale_limits: false,
        data: args.data.clone(),
    };
    let datasets = resolve_datasets(
        &mut pipeline.spec,
        pipeline.manifest.as_ref(),
        &run_args,
        OverLimit::Refuse(SPEC_OVERRIDE),
    )?;
    for d in &datasets {
        if let ltr_runner::runner::DatasetStatus::Unavailable { name, reason } = d {
            eprintln!("{name}: unavailable ({reason}); not planned");
        }
    }
    let manifest = args.manifest.as_deref().map(std::path::absolute).transpose()?;
    let ps = PlanSpec {
        spec: &pipeline.spec,
        text: &text,
        datasets: &args.datasets,
        algorithms: &args.algorithms,
        manifest: manifest.as_deref(),
    };
    let k = usize::try_from(args.cells_per_task)?;
    let plan = Plan::new(&ps, &datasets, &ltr_runner::CodeHashes::builtin(), k)?;
    // The tasks rebuild the spec from the plan: it must be this one.
    anyhow::ensure!(
        plan.spec(&limits)? == pipeline.spec,
        "{}: the spec read back from the plan differs from the one loaded",
        args.spec
    );
    let store_dir = args.results.join(&plan.header.name);
    let store =
        store_dir.is_dir().then(|| ResultStore::open(&args.results, &plan.header.name)).transpose()?;
    let minutes = time_limit_minutes(&plan, |key| {
        store.as_ref().and_then(|s| s.load_timing(key)).map(|t| t.total_seconds)
    });
    let program = match &args.program {
        Some(p) => p.clone(),
        None => absolute(&std::env::current_exe().context("locating the ltr executable")?)?,
    };
    let data_dir = args.data.data_dir.as_ref().filter(|d| !d.as_os_str().is_empty());
    let engines = Engines {
        plan_dir: absolute(&args.out)?,
        results: absolute(&args.results)?,
        data_dir: data_dir.map(|d| absolute(d)).transpose()?,
        program,
        parallel: usize::try_from(args.parallel)?,
        cpus_per_task: usize::try_from(args.cpus_per_task)?,
        time_limit_minutes: minutes,
        image: args.image.clone(),
    };
    let written = plan.write(&args.out, &engines)?;
    let h = &plan.header;
    println!(
        "{}: {} cells in {} tasks of at most {} (time limit {} min per task)",
        h.name, h.cells, h.tasks, h.cells_per_task, minutes
    );
    for p in &written {
        println!("wrote {}", p.display());
    }
    let dir = &engines.plan_dir;
    println!(
        "submit: sbatch {dir}/slurm.sbatch | kubectl apply -f {dir}/k8s-job.yaml | bash {dir}/parallel.sh"
    );
    println!("then:   ltr collect --plan {dir} --into MERGED {}", engines.results);
    Ok(ExitCode::SUCCESS)
}
