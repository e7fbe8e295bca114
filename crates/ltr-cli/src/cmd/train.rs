//! `ltr train ALGO --train F [--vali F] [--set key=value ...] --model OUT.json`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use ltr_core::{Rng, Validation};
use ltr_data::normalize::Normalization;
use ltr_format::{ReadOptions, read_file};
use ltr_harness::ModelFile;
use ltr_harness::feature_scale::{scale_free, unnormalised_warning};
use ltr_harness::registry::{AlgoConfig, default_validation_metric};
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};

use crate::cmd::predict::{read_of_width, refuse_overwriting_inputs};

/// Arguments of `ltr train`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(help = algorithm_help())]
    algorithm: String,
    /// Training file (LETOR format, plain or .gz).
    #[arg(long)]
    train: PathBuf,
    /// Validation file: early stopping / round selection by --metric.
    #[arg(long)]
    vali: Option<PathBuf>,
    /// A hyperparameter, `key=value` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Seed of every random decision.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Validation metric (default: the algorithm's, as in the experiment specs).
    #[arg(long)]
    metric: Option<Metric>,
    /// Metric convention of the data, used by the validation metric and by learners that
    /// evaluate during training (default: letor3, as `ltr eval`).
    #[arg(long)]
    convention: Option<Convention>,
    /// Feature count (default: the highest index in the training file; at most 2^20).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=ltr_core::MAX_FEATURES as u64))]
    features: Option<usize>,
    /// Accept a validation file with fewer features than the training file (the missing
    /// ones read as 0); without --features, widths must otherwise agree.
    #[arg(long)]
    allow_width_mismatch: bool,
    /// Feature normalisation: fitted on --train alone, applied to --train and --vali, and
    /// stored in the model, so that `ltr predict` applies it to raw data.
    #[arg(long, default_value = "none", value_parser = normalization_arg())]
    normalize: Normalization,
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

/// Runs `ltr train`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = AlgoConfig::from_settings(&args.algorithm, &args.settings)?;
    let mut inputs = vec![("--train", args.train.as_path())];
    inputs.extend(args.vali.as_deref().map(|v| ("--vali", v)));
    refuse_overwriting_inputs(("--model", &args.model), &inputs)?;
    let t = Instant::now();
    let opts = ReadOptions { n_features: args.features, ..Default::default() };
    let train = read_file(&args.train, &opts)
        .with_context(|| format!("reading {}", args.train.display()))?
        .dataset
        .with_convention(args.convention);
    let vali = match &args.vali {
        // A declared width applies to both files.
        Some(p) if args.features.is_some() => Some(
            read_file(p, &opts)
                .with_context(|| format!("reading {}", p.display()))?
                .dataset
                .with_convention(args.convention),
        ),
        Some(p) => Some(
            read_of_width(p, train.n_features(), args.allow_width_mismatch, "the training data")?
                .with_convention(args.convention),
        ),
        None => None,
    };
    log::info!(
        "parsed {} queries / {} documents / {} features in {:.3} s",
        train.n_queries(),
        train.n_docs(),
        train.n_features(),
        t.elapsed().as_secs_f64()
    );
    if args.normalize.is_none() && scale_free(&config).is_none() {
        let what = args.train.display().to_string();
        let hint =
            "`--normalize query-minmax` (LETOR's QueryLevelNorm) or `--normalize zscore` normalises them";
        if let Some(w) = unnormalised_warning(&what, &train, &[config.id()], hint) {
            log::warn!("{w}");
        }
    }
    let normalizer = args.normalize.fit(&train)?;
    let (train, vali) = if normalizer.is_none() {
        (train, vali)
    } else {
        log::info!("features normalised: {} ({})", args.normalize, args.normalize.describe());
        (normalizer.apply(&train)?, vali.map(|v| normalizer.apply(&v)).transpose()?)
    };
    let metric = args.metric.unwrap_or_else(|| default_validation_metric(&args.algorithm));
    let criterion = Criterion::new(metric, EvalConfig::of(&train));
    let valid = vali.as_ref().map(|data| Validation { data, measure: &criterion });
    let mut rng = Rng::new(args.seed);
    let t = Instant::now();
    let model = crate::progress::one_fit(&args.algorithm, || config.fit(&train, valid.as_ref(), &mut rng))?;
    log::info!("trained {} in {:.3} s", args.algorithm, t.elapsed().as_secs_f64());
    if let Some(v) = &valid {
        log::info!("validation {}: {:.6}", criterion.metric, v.evaluate(&model.score_vec(v.data)?)?);
    }
    let file = ModelFile {
        ltr_version: env!("CARGO_PKG_VERSION").to_owned(),
        config,
        seed: args.seed,
        n_features: train.n_features(),
        model,
        normalizer,
    };
    let text = file.to_json()?;
    ltr_core::write_atomic(&args.model, text.as_bytes())
        .with_context(|| format!("writing {}", args.model.display()))?;
    println!("wrote {}", args.model.display());
    Ok(ExitCode::SUCCESS)
}
