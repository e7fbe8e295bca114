//! `ltr run SPEC`: every dataset x fold x algorithm cell of a spec into the result store.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_data::manifest::Manifest;
use ltr_fetch::Source;
use ltr_fetch::local::{LocalRequest, resolve_local};
use ltr_harness::runner::{DatasetStatus, RunRecord};
use ltr_harness::spec::{ExperimentSpec, SpecLimits};

use crate::cmd::pipeline::Pipeline;
use crate::cmd::{DataArgs, ReportArgs, fetch};

/// What to run (shared by `run` and `reproduce`).
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Only these datasets (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Recompute cells that are already in the result store.
    #[arg(long)]
    pub force: bool,
    /// Result store folder (default: $LTR_RESULTS_DIR, else ./results).
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    pub results: PathBuf,
    /// Use only files already in the data cache (no fetching).
    #[arg(long)]
    pub no_fetch: bool,
    /// Hash every data file again before using it, even if its stamp says it is unchanged.
    #[arg(long)]
    pub verify_data: bool,
    /// A collection manifest file (the format of datasets/*.toml) instead of the built-in
    /// manifest of the spec's collection.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
    /// The most model fits (grid points x datasets x folds) the spec may ask for; a spec
    /// over it is refused before anything runs.
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    pub max_cells: u64,
    #[command(flatten)]
    pub data: DataArgs,
}

impl RunArgs {
    /// Loads the spec (restricted by `--datasets`, `--algorithms`) and its manifest, resolves
    /// the datasets, runs every cell and writes the report as `report` says (`command` names
    /// the command in it).
    pub fn execute(&self, spec: &str, report: &ReportArgs, command: &str) -> anyhow::Result<RunRecord> {
        let limits = SpecLimits { max_cells: self.max_cells };
        let spec = Pipeline::load_spec(spec, &self.datasets, &self.algorithms, &limits)?;
        let pipeline = Pipeline::from_spec(spec, self.manifest.as_deref())?;
        let datasets = resolve_datasets(&pipeline.spec, pipeline.manifest.as_ref(), self)?;
        let record = pipeline.run(&datasets, &self.results, self.force)?;
        pipeline.report_run(&record, &self.results, report, command)?;
        Ok(record)
    }
}

/// Arguments of `ltr run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4, mslr,
    /// yahoo, istella).
    #[arg(required_unless_present = "data", conflicts_with = "data")]
    spec: Option<String>,
    /// Run a dataset of your own without a spec: a folder (Fold1..N of train/vali/test or
    /// trainingset/validationset/testset files, or the three files) or one LETOR file (split
    /// into 5 query-disjoint folds by --seed). Every algorithm with its default grid (those
    /// of experiments/letor3.toml), unless --algorithms.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Master seed with --data (also the seed of the split of a single file).
    #[arg(long, default_value_t = 1, requires = "data")]
    seed: u64,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `ltr run`: exit 1 when a cell failed or none could run.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let record = match (&args.spec, &args.data) {
        (Some(spec), _) => args.run.execute(spec, &args.report, "ltr run")?,
        (None, Some(data)) => {
            // Said here once, not as every dataset's reason after the dataset's name.
            std::fs::metadata(data).map_err(|e| anyhow::anyhow!("--data {}: {e}", data.display()))?;
            let mut spec = ExperimentSpec::for_data(data, args.seed, &ExperimentSpec::builtin("letor3")?)?;
            if !args.run.algorithms.is_empty() {
                crate::cmd::pipeline::restrict_algorithms(&mut spec, &args.run.algorithms)?;
            }
            let mut pipeline = Pipeline::from_spec(spec, None)?;
            let datasets = resolve_datasets(&pipeline.spec, None, &args.run)?;
            // Every fold the data has.
            if let Some(DatasetStatus::Available(d)) = datasets.first() {
                pipeline.spec.folds = d.folds.iter().map(|f| f.fold).collect();
            }
            let record = pipeline.run(&datasets, &args.run.results, args.run.force)?;
            pipeline.report_run(&record, &args.run.results, &args.report, "ltr run --data")?;
            record
        }
        (None, None) => anyhow::bail!("give an experiment spec or --data"),
    };
    Ok(outcome(&record))
}

/// Success when every cell of the run is in the store, computed now or before.
pub fn outcome(record: &RunRecord) -> ExitCode {
    if record.failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Every dataset of the spec as verified local files, fetched into the data cache unless
/// `--no-fetch` (datasets given by path are read where they are, their layout detected and
/// printed); a dataset that cannot be had is [`DatasetStatus::Unavailable`].
pub fn resolve_datasets(
    spec: &ExperimentSpec,
    manifest: Option<&Manifest>,
    args: &RunArgs,
) -> anyhow::Result<Vec<DatasetStatus>> {
    let fetcher = fetch::fetcher_with(&args.data, args.verify_data)?;
    let source = if args.no_fetch { Source::Cache(fetcher.cache()) } else { Source::Fetch(&fetcher) };
    let named: Vec<String> =
        spec.datasets.iter().filter(|d| spec.path_dataset(d).is_none()).cloned().collect();
    let mut from_manifest = match manifest {
        Some(m) if !named.is_empty() => ltr_fetch::resolve(m, &named, &spec.folds, source),
        _ => Vec::new(),
    }
    .into_iter();
    let mut out = Vec::new();
    for name in &spec.datasets {
        let Some(p) = spec.path_dataset(name) else {
            out.extend(from_manifest.next());
            continue;
        };
        let req = LocalRequest {
            name: p.name.clone(),
            path: p.path.clone(),
            convention: p.convention.or(spec.convention).unwrap_or(ltr_metrics::DEFAULT_CONVENTION),
            features: p.features,
            missing_token: p.missing_token.clone(),
            split_seed: p.split_seed.unwrap_or(spec.seed),
        };
        out.push(match resolve_local(&req, fetcher.cache()) {
            Ok(mut local) => {
                println!("{}", local.describe());
                ltr_harness::limits::check(spec, &p.name, local.train_rows as u64)?;
                local.input.folds.retain(|f| spec.folds.contains(&f.fold));
                DatasetStatus::Available(local.input)
            }
            Err(e) => DatasetStatus::Unavailable { name: p.name.clone(), reason: e.reason() },
        });
    }
    // Reasons go into the run record and the reports: without this machine's cache folder.
    let cache = fetcher.cache().root();
    let mut named_cache = false;
    for d in &mut out {
        if let DatasetStatus::Unavailable { reason, .. } = d {
            let general = crate::cmd::without_cache_path(reason, cache);
            named_cache |= general != *reason;
            *reason = general;
        }
    }
    if named_cache {
        eprintln!("<data cache> below is {}", cache.display());
    }
    Ok(out)
}
