//! `ltr run SPEC`: every dataset x fold x algorithm cell of a spec into the result store.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_core::{Convention, Grade};
use ltr_data::manifest::Manifest;
use ltr_fetch::Source;
use ltr_fetch::local::{LocalRequest, resolve_local};
use ltr_harness::limits::SPEC_OVERRIDE;
use ltr_harness::spec::{DataOptions, ExperimentSpec, PathDataset, SpecLimits};
use ltr_metrics::DEFAULT_CONVENTION;
use ltr_runner::runner::{DatasetStatus, RunRecord};

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
    /// Master seed, in place of the spec's `seed` (every cell key holds the seed, so another
    /// seed computes other cells; `ltr report --seed` reports them). With --data: default 1,
    /// also the seed of the split of a single file.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run algorithms above their scale limit anyway (the spec key `scale_limits = false`).
    /// Without it, --data leaves them out of its default set, and refuses them when named.
    #[arg(long)]
    pub no_scale_limits: bool,
    #[command(flatten)]
    pub data: DataArgs,
}

impl RunArgs {
    /// Loads the spec (restricted by `--datasets`, `--algorithms`) and its manifest, resolves
    /// the datasets, runs every cell and writes the report as `report` says (`command` names
    /// the command in it).
    pub fn execute(&self, spec: &str, report: &ReportArgs, command: &str) -> anyhow::Result<RunRecord> {
        let limits = SpecLimits { max_cells: self.max_cells };
        let mut spec = Pipeline::load_spec(spec, &self.datasets, &self.algorithms, &limits)?;
        if let Some(seed) = self.seed {
            spec.seed = seed;
        }
        if self.no_scale_limits {
            spec.scale_limits = false;
        }
        let mut pipeline = Pipeline::from_spec(spec, self.manifest.as_deref())?;
        let Pipeline { spec, manifest } = &mut pipeline;
        let datasets = resolve_datasets(spec, manifest.as_ref(), self, OverLimit::Refuse(SPEC_OVERRIDE))?;
        let record = pipeline.run(&datasets, &self.results, self.force)?;
        pipeline.report_run(&self.results, report, command)?;
        Ok(record)
    }
}

/// Arguments of `ltr run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one (letor3, letor4, mslr,
    /// yahoo, istella, yandex).
    #[arg(required_unless_present = "data", conflicts_with = "data")]
    spec: Option<String>,
    /// Run a dataset of your own without a spec: a folder (Fold1..N of train/vali/test or
    /// trainingset/validationset/testset files, or the three files) or one LETOR file (split
    /// into 5 query-disjoint folds by --seed). Every algorithm with its default grid (those
    /// of experiments/letor3.toml) but those above their scale limit on this data, unless
    /// --algorithms; the result store and the report are named
    /// `<name>-<8 hex digits of the input path's sha256>`. The dataset options a spec gives:
    /// --name, --convention, --published.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Exit 0 when some cells failed but others ran (the report, written either way, names
    /// what did not run and why).
    #[arg(long)]
    allow_partial: bool,
    /// Feature normalisation of the --data dataset (fitted on each fold's training split):
    /// none, query-minmax (LETOR's QueryLevelNorm), zscore, log1p-zscore. A spec sets it per
    /// dataset (`normalize`).
    #[arg(long, default_value = "none", requires = "data",
          value_parser = crate::cmd::train::normalization_arg())]
    normalize: ltr_data::normalize::Normalization,
    /// With --data: the dataset's name in reports (default: the file's stem or the folder's
    /// name, walking up past generic ones such as Data and Fold1; a built-in dataset's name,
    /// such as OHSUMED, is refused here and gets `-local` when it comes from the path).
    #[arg(long)]
    name: Option<String>,
    /// With --data: the convention its numbers are reported with, letor3, letor4, mslr or
    /// standard (default: mslr when its grades go above 2, else letor3; the run says which).
    #[arg(long, value_parser = parse_convention)]
    convention: Option<Convention>,
    /// With --data: published numbers to show beside ours, a file in the format of
    /// reports/published/letor.toml whose rows name this dataset in `dataset`.
    #[arg(long)]
    published: Option<PathBuf>,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `ltr run`: exit 1 when a cell failed (unless `--allow-partial` and some ran) or none
/// could run.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let record = match (&args.spec, &args.data) {
        // clap's `requires` does not fire for a flag with a default value, so say it here.
        (Some(_), _) if args.normalize != ltr_data::normalize::Normalization::None => {
            anyhow::bail!("--normalize applies to --data; a spec sets `normalize` in its dataset's table")
        }
        (Some(_), _) if args.name.is_some() || args.convention.is_some() || args.published.is_some() => {
            anyhow::bail!(
                "--name, --convention and --published apply to --data; a spec gives them as its dataset's `name` and `convention` and its `published` key"
            )
        }
        (Some(spec), _) => args.run.execute(spec, &args.report, "ltr run")?,
        (None, Some(data)) => {
            // Said here once, not as every dataset's reason after the dataset's name.
            std::fs::metadata(data).map_err(|e| anyhow::anyhow!("--data {}: {e}", data.display()))?;
            let opts = DataOptions {
                name: args.name.clone(),
                convention: args.convention,
                published: args.published.clone(),
            };
            let mut spec = ExperimentSpec::for_data(
                data,
                args.run.seed.unwrap_or(1),
                &ExperimentSpec::builtin("letor3")?,
                &opts,
            )?;
            if let Some(name) = spec.datasets.first().cloned() {
                spec.set_normalization(&name, args.normalize);
            }
            spec.scale_limits = !args.run.no_scale_limits;
            // The default set leaves out what the data's size puts above a limit; an
            // algorithm asked for by name is refused.
            let over_limit = if args.run.algorithms.is_empty() {
                OverLimit::LeaveOut
            } else {
                crate::cmd::pipeline::restrict_algorithms(&mut spec, &args.run.algorithms)?;
                OverLimit::Refuse("add `--no-scale-limits` to run it anyway")
            };
            let mut pipeline = Pipeline::from_spec(spec, None)?;
            let datasets = resolve_datasets(&mut pipeline.spec, None, &args.run, over_limit)?;
            // Every fold the data has.
            if let Some(DatasetStatus::Available(d)) = datasets.first() {
                pipeline.spec.folds = d.folds.iter().map(|f| f.fold).collect();
            }
            let record = pipeline.run(&datasets, &args.run.results, args.run.force)?;
            pipeline.report_run(&args.run.results, &args.report, "ltr run --data")?;
            record
        }
        (None, None) => anyhow::bail!("give an experiment spec or --data"),
    };
    Ok(outcome(&record, args.allow_partial))
}

/// The convention a dataset given by path is scored under, and why, in words: the spec's
/// `convention` (which holds for every dataset), else the dataset's own (`--convention`),
/// else for `--data` one chosen from its grades (`mslr` when they go above 2), else the
/// suite's default.
fn convention_of(spec: &ExperimentSpec, p: &PathDataset, grades: &[Grade]) -> (Convention, String) {
    let top = grades.iter().copied().max().unwrap_or(0);
    match (spec.convention, p.convention) {
        (Some(c), _) => (c, "the spec's `convention`, for every dataset".into()),
        (None, Some(c)) => (c, "as given".into()),
        (None, None) if p.guess_convention && top > 2 => (
            Convention::Mslr,
            format!(
                "guessed from its grades 0-{top}: gains 0, 1, 3, 7, 15, relevant from 2; --convention to choose"
            ),
        ),
        (None, None) if p.guess_convention => {
            (DEFAULT_CONVENTION, format!("the default, its grades being 0-{top}; --convention to choose"))
        }
        (None, None) => (DEFAULT_CONVENTION, "the default; the dataset's `convention` key to choose".into()),
    }
}

/// Success when every cell of the run is in the store, computed now or before; with
/// `allow_partial`, also when some failed but others ran.
pub fn outcome(record: &RunRecord, allow_partial: bool) -> ExitCode {
    let some_ran = record.failed.len() < record.cells.len();
    if record.failed.is_empty() || (allow_partial && some_ran) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What [`resolve_datasets`] does with an algorithm whose scale limit the training split of
/// a dataset given by path exceeds ([`ltr_harness::limits`]).
#[derive(Debug, Clone, Copy)]
pub enum OverLimit {
    /// Refuse the run with one line ending in this advice (how the caller overrides a limit).
    Refuse(&'static str),
    /// Leave the algorithm out of the spec, printing one line that names it (the default set
    /// of `--data`, which the user did not choose).
    LeaveOut,
}

/// Every dataset of the spec as verified local files, fetched into the data cache unless
/// `--no-fetch` (datasets given by path are read where they are, their layout detected and
/// printed, their size checked against the algorithms' scale limits as `over_limit` says);
/// a dataset that cannot be had is [`DatasetStatus::Unavailable`].
pub fn resolve_datasets(
    spec: &mut ExperimentSpec,
    manifest: Option<&Manifest>,
    args: &RunArgs,
    over_limit: OverLimit,
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
    for name in spec.datasets.clone() {
        let Some(p) = spec.path_dataset(&name) else {
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
            format: p.format,
        };
        let status = match resolve_local(&req, fetcher.cache()) {
            Ok(mut local) => {
                println!("{}", local.describe());
                let (convention, why) = convention_of(spec, p, &local.labels);
                if p.guess_convention && spec.convention.is_none() {
                    local.input.convention = convention;
                }
                println!("{}: scored under the {} convention ({why})", req.name, convention.name());
                let rows = local.train_rows as u64;
                match over_limit {
                    OverLimit::Refuse(advice) => {
                        ltr_harness::limits::check_with(spec, &req.name, rows, advice)?
                    }
                    OverLimit::LeaveOut => {
                        if let Some(line) = ltr_harness::limits::leave_out(spec, rows) {
                            eprintln!(
                                "{}: {line} of the default set; the others run (add `--no-scale-limits` to run them too)",
                                req.name
                            );
                        }
                    }
                }
                local.input.folds.retain(|f| spec.folds.contains(&f.fold));
                DatasetStatus::Available(local.input)
            }
            Err(e) => DatasetStatus::Unavailable { name: req.name.clone(), reason: e.reason() },
        };
        out.push(status);
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

fn parse_convention(s: &str) -> Result<Convention, String> {
    s.parse()
}
