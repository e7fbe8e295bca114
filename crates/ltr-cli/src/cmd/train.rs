//! `ltr train ALGO --train F [--vali F] [--set key=value ...] --model OUT.json`, and
//! `ltr train --cell KEY --results DIR --model OUT.json`: a stored cell's model fitted again.
//!
//! Both forms fit through the protocol's one-point fit ([`protocol::fit_point`]) with the
//! same reading, normalisation and validation, so that the plain form given a cell's files,
//! parameters, seed and settings writes the model the cell stored, byte for byte.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use ltr_core::Dataset;
use ltr_data::normalize::Normalization;
use ltr_data::resolved::{DatasetInput, DatasetStatus, FoldFiles};
use ltr_format::reader::read_file_as_hashed;
use ltr_format::{ReadOptions, read_file};
use ltr_harness::ModelFile;
use ltr_harness::feature_scale::{scale_free, unnormalised_warning};
use ltr_harness::protocol;
use ltr_harness::registry::{AlgoConfig, default_validation_metric};
use ltr_metrics::{Convention, ConventionParts, Metric};
use ltr_runner::store::{CellCheck, CellRecord, ResultStore};

use crate::cmd::predict::{of_width, read_own_width, refuse_overwriting_inputs};

/// The end of `ltr train --help`: how its seed relates to a run's.
const AFTER_HELP: &str = "\
The model behind a report's number:
  ltr train --cell KEY --results DIR --model m.json
fits a stored cell's selected grid point again (`ltr cells DIR` lists the keys; a unique prefix
is enough) on its fold's training and validation files, read, normalised and validated as the
run did, with the point's seed; it says whether the model is the stored one byte for byte and
prints the plain command below that writes the same model.

Seeds: a run never seeds a fit with its master seed. Each grid point has its own seed, derived
from the master seed, the sha256 of the fold's three files and the point's parameters; it is
the `seed` of the cell's model file and of `ltr cells --format json`. `ltr train` uses --seed as
it is, so
  ltr train ID --train TRAIN --vali VALI --set KEY=VALUE... --seed SEED --metric M
    --convention C --features N [--normalize N] --model m.json
with the cell's algorithm, files, parameters and seed, and the run's validation metric,
convention, feature count and normalisation, writes the cell's model (the `train` field of
`ltr cells --format json` is that command).";

/// Arguments of `ltr train`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[arg(help = algorithm_help(), required_unless_present = "cell", conflicts_with = "cell")]
    algorithm: Option<String>,
    /// Training file (LETOR format, plain or .gz).
    #[arg(long, required_unless_present = "cell", conflicts_with = "cell")]
    train: Option<PathBuf>,
    /// Validation file: early stopping / round selection by --metric.
    #[arg(long, conflicts_with = "cell")]
    vali: Option<PathBuf>,
    /// A hyperparameter, `key=value` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", conflicts_with = "cell")]
    settings: Vec<String>,
    /// Seed of every random decision, used as it is (a run derives one per grid point: see
    /// below).
    #[arg(long, default_value_t = 42, conflicts_with = "cell")]
    seed: u64,
    /// The training split's seed: what a learner must draw the same on every grid point of a
    /// fold comes from it (the grades SSRankBoost hides; no other learner reads it). A run
    /// derives it from the master seed and the fold's files; without it such a learner draws
    /// from --seed.
    #[arg(long, conflicts_with = "cell")]
    split_seed: Option<u64>,
    /// Validation metric (default: the algorithm's, as in the experiment specs).
    #[arg(long, conflicts_with = "cell")]
    metric: Option<Metric>,
    /// Metric convention of the data, used by the validation metric and by learners that
    /// evaluate during training (default: letor3, as `ltr eval`).
    #[arg(long, conflicts_with = "cell")]
    convention: Option<Convention>,
    /// Feature count (default: the highest index in the training file; at most 2^20).
    #[arg(long, conflicts_with = "cell", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=ltr_core::MAX_FEATURES as u64))]
    features: Option<usize>,
    /// Accept a validation file with fewer features than the training file (the missing
    /// ones read as 0); without --features, widths must otherwise agree.
    #[arg(long, conflicts_with = "cell")]
    allow_width_mismatch: bool,
    /// Feature normalisation: fitted on --train alone, applied to --train and --vali, and
    /// stored in the model, so that `ltr predict` applies it to raw data.
    #[arg(long, default_value = "none", value_parser = normalization_arg(), conflicts_with = "cell")]
    normalize: Normalization,
    /// A stored cell, by key or a unique prefix of it (`ltr cells` lists them): fit its
    /// selected grid point again, as the run did, instead of ALGORITHM on --train.
    #[arg(long, value_name = "KEY")]
    cell: Option<String>,
    /// The result store holding --cell, or a folder of stores (default: $LTR_RESULTS_DIR,
    /// else ./results).
    #[arg(long, env = "LTR_RESULTS_DIR", default_value = "results")]
    results: PathBuf,
    /// Where to write the model (JSON; replaced atomically: the old file stays whole on error).
    #[arg(long)]
    model: PathBuf,
}

/// The values of `--normalize`: none (features as read), query-minmax (LETOR's
/// QueryLevelNorm), zscore, log1p-zscore.
pub(crate) fn normalization_arg() -> impl clap::builder::TypedValueParser<Value = Normalization> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Normalization::ALL.map(Normalization::name))
        .try_map(|s| s.parse::<Normalization>())
}

/// The help of the algorithm argument: the registered ids.
fn algorithm_help() -> String {
    format!("Algorithm id: {} (`ltr algorithms` lists their parameters)", ltr_harness::registry::known_ids())
}

/// Everything one fit depends on: what the flags say, or what a stored cell says.
pub(crate) struct Job {
    config: AlgoConfig,
    train: PathBuf,
    vali: Option<PathBuf>,
    /// How the files are read; a declared width (`n_features`) applies to both.
    read: ReadOptions,
    allow_width_mismatch: bool,
    /// The sha256 the training and validation files must have (a stored cell's).
    sha256: Option<(String, String)>,
    convention: Option<Convention>,
    /// Parts of the convention a stored cell was selected under, beyond its preset.
    parts: ConventionParts,
    metric: Metric,
    normalize: Normalization,
    /// The seed of the fit, used as it is.
    pub(crate) seed: u64,
    /// The training split's seed ([`ltr_core::Dataset::split_seed`]).
    split_seed: Option<u64>,
}

/// Runs `ltr train`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (job, cell) = match &args.cell {
        Some(key) => {
            let (job, cell) = cell_job(&args.results, key)?;
            (job, Some(cell))
        }
        None => (plain_job(&args)?, None),
    };
    let mut inputs = vec![("--train", job.train.as_path())];
    inputs.extend(job.vali.as_deref().map(|v| ("--vali", v)));
    if let Some(c) = &cell {
        inputs.push(("the stored model", c.model.as_path()));
    }
    refuse_overwriting_inputs(("--model", &args.model), &inputs)?;
    let text = fit(&job)?.to_json()?;
    ltr_core::write_atomic(&args.model, text.as_bytes())
        .with_context(|| format!("writing {}", args.model.display()))?;
    println!("wrote {}", args.model.display());
    if let Some(c) = cell {
        let stored = std::fs::read(&c.model).with_context(|| format!("reading {}", c.model.display()))?;
        if stored == text.as_bytes() {
            println!("the model of cell {} ({}), byte for byte: {}", c.key, c.name, c.model.display());
        } else {
            eprintln!(
                "warning: the model differs from the stored one of cell {} ({}): {}: another build of ltr \
                 computed it (its files are the run's, checked by their sha256)",
                c.key,
                c.name,
                c.model.display()
            );
        }
        match c.command {
            Ok(command) => {
                println!("the same model: {command} --model {}", shell_word(&args.model.to_string_lossy()))
            }
            Err(why) => println!("no plain `ltr train` command gives the same model: {why}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The job of the plain form: its flags.
fn plain_job(args: &Args) -> anyhow::Result<Job> {
    let (Some(algorithm), Some(train)) = (&args.algorithm, &args.train) else {
        bail!("give ALGORITHM and --train, or --cell");
    };
    Ok(Job {
        config: AlgoConfig::from_settings(algorithm, &args.settings)?,
        train: train.clone(),
        vali: args.vali.clone(),
        read: ReadOptions { n_features: args.features, ..Default::default() },
        allow_width_mismatch: args.allow_width_mismatch,
        sha256: None,
        convention: args.convention,
        metric: args.metric.unwrap_or_else(|| default_validation_metric(algorithm)),
        normalize: args.normalize,
        seed: args.seed,
        split_seed: args.split_seed,
        parts: ConventionParts::default(),
    })
}

/// Reads, normalises and fits as `job` says; the model file to write.
fn fit(job: &Job) -> anyhow::Result<ModelFile> {
    let t = Instant::now();
    let read = |path: &Path, sha256: Option<&str>| -> anyhow::Result<Dataset> {
        let loaded = match sha256 {
            Some(s) => read_file_as_hashed(path, &job.read, s),
            None => read_file(path, &job.read),
        };
        Ok(loaded
            .with_context(|| format!("reading {}", path.display()))?
            .dataset
            .with_convention(job.convention))
    };
    let (train_sha, vali_sha) = job.sha256.as_ref().map(|(t, v)| (t.as_str(), v.as_str())).unzip();
    // The two files are parsed at once (each parse is one thread's work); the validation
    // file's width is checked against the training data's afterwards, and an error of the
    // training file is reported first, as when they were read one after the other.
    let declared = job.read.n_features.is_some();
    let (train, vali) = rayon::join(
        || read(&job.train, train_sha),
        || match &job.vali {
            // A declared width applies to both files.
            Some(p) if declared => read(p, vali_sha).map(Some),
            Some(p) => read_own_width(p).map(Some),
            None => Ok(None),
        },
    );
    let train = train?;
    let vali = match (vali?, &job.vali) {
        (Some(v), Some(p)) if !declared => Some(
            of_width(v, p, train.n_features(), job.allow_width_mismatch, "the training data")?
                .with_convention(job.convention),
        ),
        (v, _) => v,
    };
    log::info!(
        "parsed {} queries / {} documents / {} features in {:.3} s",
        train.n_queries(),
        train.n_docs(),
        train.n_features(),
        t.elapsed().as_secs_f64()
    );
    let config = &job.config;
    if job.normalize.is_none() && scale_free(config).is_none() {
        let what = job.train.display().to_string();
        let hint =
            "`--normalize query-minmax` (LETOR's QueryLevelNorm) or `--normalize zscore` normalises them";
        if let Some(w) = unnormalised_warning(&what, &train, &[config.id()], hint) {
            log::warn!("{w}");
        }
    }
    // As the protocol normalises a fold: fitted on the training split alone.
    let single =
        protocol::SingleFit::new(train, vali, job.normalize, job.split_seed, job.metric, &job.parts)?;
    if !single.normalizer.is_none() {
        log::info!("features normalised: {} ({})", job.normalize, job.normalize.describe());
    }
    let t = Instant::now();
    let model = crate::progress::one_fit(config.id(), || single.fit(config, job.seed))?;
    log::info!("trained {} in {:.3} s", config.id(), t.elapsed().as_secs_f64());
    if let Some(v) = &single.validation() {
        log::info!("validation {}: {:.6}", single.criterion.metric, v.evaluate(&model.score_vec(v.data)?)?);
    }
    Ok(single.into_model_file(config, job.seed, model))
}

/// A stored cell being fitted again.
struct Cell {
    key: String,
    /// `OHSUMED fold 1 lambdamart`.
    name: String,
    /// Its stored model file.
    model: PathBuf,
    /// The plain command that fits the same model (without `--model`), or why there is none.
    command: Result<String, String>,
}

/// The part of `run.json` a cell's refit needs: the master seed and where the data is.
#[derive(serde::Deserialize)]
struct RunFile {
    seed: u64,
    datasets: Vec<DatasetStatus>,
}

/// The job that fits cell `key` (or the one cell whose key starts with it) of the store(s)
/// under `results` again ([`cell_fit`]), checking that the run's master seed derives the seed
/// its model was fitted with.
fn cell_job(results: &Path, key: &str) -> anyhow::Result<(Job, Cell)> {
    let (store, key) = find_cell(results, key)?;
    let record = match store.check(&key) {
        CellCheck::Sound(r) => r,
        CellCheck::Missing => bail!("cell {key}: no record in {}", store.root().display()),
        CellCheck::Damaged(why) => bail!("cell {key} of {} is damaged: {why}", store.root().display()),
    };
    let name = format!("{} fold {} {}", record.dataset, record.fold, record.label);
    let run: RunFile = store
        .load_json("run.json")
        .with_context(|| format!("{}: the run's datasets and seed", store.root().display()))?;
    let job =
        cell_fit(&store, &record, &run.datasets, run.seed).with_context(|| format!("cell {key} ({name})"))?;
    let (dataset, fold) = cell_data(&record, &run.datasets)?;
    let derived = protocol::point_seed(run.seed, dataset, fold.fold, &record.label, &job.config)?;
    if derived != job.seed {
        log::warn!(
            "cell {key}: the master seed of run.json, {}, derives the seed {derived}, its model was \
             fitted with {} (the cell is not of the last run); fitting with the model's",
            run.seed,
            job.seed
        );
    }
    let command = plain_command(&job);
    Ok((job, Cell { key: key.clone(), name, model: store.model_path(&key), command }))
}

/// The job that fits a stored cell's selected grid point again as the run did: on its fold's
/// training and validation files (as `datasets`, the run's, name them), read and normalised
/// as the run read and normalised them, validated by its criterion, seeded with the seed its
/// stored model was fitted with (the point's derived seed).
pub(crate) fn cell_fit(
    store: &ResultStore,
    record: &CellRecord,
    datasets: &[DatasetStatus],
    master_seed: u64,
) -> anyhow::Result<Job> {
    let (dataset, fold) = cell_data(record, datasets)?;
    let config = record
        .grid
        .get(record.chosen)
        .map(|g| g.config.clone())
        .with_context(|| format!("grid point {} chosen of {}", record.chosen, record.grid.len()))?;
    let seed = model_seed(&store.model_path(&record.key))?;
    let locate = |rel: &str| {
        ltr_data::folds::locate(&dataset.root, rel).with_context(|| {
            format!("{rel} not found under {} (fetch the dataset again)", dataset.root.display())
        })
    };
    Ok(Job {
        config,
        train: locate(&fold.train.rel)?,
        vali: Some(locate(&fold.vali.rel)?),
        read: protocol::read_options(dataset),
        allow_width_mismatch: false,
        sha256: Some((fold.train.sha256.clone(), fold.vali.sha256.clone())),
        convention: Some(record.eval.convention),
        parts: record.eval.departures(),
        metric: record.validation.metric,
        normalize: record.normalizer.method(),
        seed,
        split_seed: Some(protocol::training_split_seed(master_seed, dataset, fold.fold)?),
    })
}

/// The seed a model file was fitted with (the rest of the file is not checked).
pub(crate) fn model_seed(path: &Path) -> anyhow::Result<u64> {
    #[derive(serde::Deserialize)]
    struct Seeded {
        seed: u64,
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(serde_json::from_slice::<Seeded>(&bytes).with_context(|| format!("{}: no seed", path.display()))?.seed)
}

/// The store under `results` holding the cell whose key is `key` or starts with it.
fn find_cell(results: &Path, key: &str) -> anyhow::Result<(ResultStore, String)> {
    let mut found = Vec::new();
    for dir in super::stores_in(results)? {
        let store = super::open_store(&dir)?;
        let keys = store.record_keys()?;
        if keys.contains(key) {
            return Ok((store, key.to_owned()));
        }
        let matching: Vec<String> = keys.into_iter().filter(|k| k.starts_with(key)).collect();
        found.extend(matching.into_iter().map(|k| (dir.clone(), k)));
    }
    match found.len() {
        0 => bail!("no cell {key} in {} (`ltr cells {0}` lists them)", results.display()),
        1 => {
            let (dir, k) = found.remove(0);
            Ok((super::open_store(&dir)?, k))
        }
        n => bail!(
            "{n} cells of {} start with {key} ({}): give more of the key",
            results.display(),
            found.iter().take(3).map(|(_, k)| k.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The dataset and fold files of `record` among a run's datasets: the dataset of its name and
/// variant, whose fold has the test file the record names.
fn cell_data<'a>(
    record: &CellRecord,
    datasets: &'a [DatasetStatus],
) -> anyhow::Result<(&'a DatasetInput, &'a FoldFiles)> {
    let dataset = datasets
        .iter()
        .find_map(|d| match d {
            DatasetStatus::Available(d) if d.name == record.dataset && d.variant == record.variant => Some(d),
            _ => None,
        })
        .with_context(|| format!("the run has no dataset {} ({})", record.dataset, record.variant))?;
    let fold = protocol::fold_files(dataset, record.fold)?;
    if fold.test.sha256 != record.test_sha256 {
        bail!(
            "fold {}'s test file {} is not the one the cell was computed on (sha256 {}, recorded {})",
            record.fold,
            fold.test.rel,
            fold.test.sha256,
            record.test_sha256
        );
    }
    Ok((dataset, fold))
}

/// The plain `ltr train` command (without `--model`) that fits what `job` fits, or why no flag
/// says how its files are read. Parameters at their default are left out.
pub(crate) fn plain_command(job: &Job) -> Result<String, String> {
    let train = job.train.display();
    if let Some(t) = &job.read.missing_token {
        return Err(format!("{train} writes missing values as {t}, which only --cell reads"));
    }
    if job.read.clip.is_some() {
        return Err(format!("{train} has its values clipped when read, which only --cell does"));
    }
    if !job.read.format.is_letor() {
        return Err(format!("{train} is not in the LETOR line form, which only --cell reads"));
    }
    if !job.parts.is_empty() {
        return Err(format!(
            "the cell was selected under {}, which only --cell applies",
            job.parts.describe()
        ));
    }
    let id = job.config.id();
    let mut words = vec!["ltr".to_owned(), "train".to_owned(), id.to_owned()];
    let mut flag = |f: &str, v: &str| words.extend([f.to_owned(), shell_word(v)]);
    flag("--train", &job.train.to_string_lossy());
    if let Some(v) = &job.vali {
        flag("--vali", &v.to_string_lossy());
    }
    let defaults = AlgoConfig::default_for(id).map(|c| c.params_json()).unwrap_or_default();
    if let serde_json::Value::Object(params) = job.config.params_json() {
        for (k, v) in &params {
            if defaults.get(k) != Some(v) {
                let value = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                flag("--set", &format!("{k}={value}"));
            }
        }
    }
    flag("--seed", &job.seed.to_string());
    if let Some(s) = job.split_seed {
        flag("--split-seed", &s.to_string());
    }
    flag("--metric", &job.metric.to_string());
    if let Some(c) = job.convention {
        flag("--convention", &c.to_string());
    }
    if let Some(n) = job.read.n_features {
        flag("--features", &n.to_string());
    }
    if !job.normalize.is_none() {
        flag("--normalize", job.normalize.name());
    }
    Ok(words.join(" "))
}

/// `s` as one word of a POSIX shell command: as it is when it holds no character the shell
/// treats specially, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=@:,+%".contains(c));
    if plain { s.to_owned() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}
