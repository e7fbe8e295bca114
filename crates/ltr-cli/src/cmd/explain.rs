//! `ltr explain MODEL [--top N] [--data FILE] [--format text|json]`: which features a model
//! relies on ([`ltr_harness::importance`]).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use ltr_harness::importance::{Importance, importance};

use super::predict::{normalized, read_model, read_of_width};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table, most important feature first.
    Text,
    /// JSON: the kind of importance and the first N features with every number.
    Json,
}

/// Arguments of `ltr explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Model written by `ltr train`.
    model: PathBuf,
    /// List the N most important features.
    #[arg(long, default_value_t = 20,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=ltr_core::MAX_FEATURES as u64))]
    top: usize,
    /// Linear models: multiply each weight by its feature's standard deviation in this LETOR
    /// file (e.g. the training data; after the model's normalisation, if it has one), so that
    /// features of different scales compare.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Accept --data with fewer features than the model, the missing ones read as 0.
    #[arg(long)]
    allow_width_mismatch: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Runs `ltr explain`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let file = read_model(&args.model)?;
    let data = match &args.data {
        Some(path) => Some(normalized(
            &file,
            read_of_width(path, file.n_features, args.allow_width_mismatch, "the model")?,
        )?),
        None => None,
    };
    let imp = importance(&file.model, data.as_ref())?;
    let data_name = args.data.as_ref().map(|p| p.display().to_string());
    let method = file.normalizer.method();
    let text = match args.format {
        Format::Text if !method.is_none() => format!(
            "features normalised before scoring: {method} ({}); the numbers below are of the \
             normalised features\n{}",
            method.describe(),
            render(&imp, args.top, data_name.as_deref())
        ),
        Format::Text => render(&imp, args.top, data_name.as_deref()),
        Format::Json => {
            let mut v = serde_json::to_value(&imp)?;
            if let Some(features) = v.get_mut("features").and_then(|f| f.as_array_mut()) {
                features.truncate(args.top);
            }
            if let (Some(obj), Some(name)) = (v.as_object_mut(), data_name) {
                obj.insert("data".into(), name.into());
            }
            if let (Some(obj), false) = (v.as_object_mut(), method.is_none()) {
                obj.insert("normalize".into(), method.name().into());
            }
            serde_json::to_string_pretty(&v)? + "\n"
        }
    };
    crate::write_stdout(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// The text table: a line saying what the numbers are, then one row per feature.
fn render(imp: &Importance, top: usize, data: Option<&str>) -> String {
    let mut s = String::new();
    match imp {
        Importance::Undefined { algorithm, reason } => {
            let _ = writeln!(s, "{algorithm}: feature importance is not defined for this model ({reason})");
        }
        Importance::Trees { algorithm, trees, features } => {
            let _ = writeln!(
                s,
                "{algorithm}, {trees} trees: importance by split gain (summed over the splits on a feature, \
                 before shrinkage) and by split count; shares of the totals"
            );
            let _ = writeln!(
                s,
                "{:>4}  {:>7}  {:>14}  {:>7}  {:>7}  {:>7}",
                "rank", "feature", "gain", "gain%", "splits", "splits%"
            );
            for (r, f) in features.iter().take(top).enumerate() {
                let _ = writeln!(
                    s,
                    "{:>4}  {:>7}  {:>14.6}  {:>6.2}%  {:>7}  {:>6.2}%",
                    r + 1,
                    f.feature,
                    f.gain,
                    100.0 * f.gain_share,
                    f.splits,
                    100.0 * f.split_share
                );
            }
        }
        Importance::Linear { algorithm, standardised, features } => {
            match (standardised, data) {
                (true, Some(d)) => {
                    let _ = writeln!(
                        s,
                        "{algorithm}, linear: importance = |weight| x the feature's standard deviation in {d} \
                         (standardised)"
                    );
                }
                _ => {
                    let _ = writeln!(
                        s,
                        "{algorithm}, linear: importance = |weight| (raw, not standardised: --data FILE \
                         multiplies each by its feature's standard deviation)"
                    );
                }
            }
            let _ = writeln!(
                s,
                "{:>4}  {:>7}  {:>14}  {:>12}  {:>14}  {:>7}",
                "rank", "feature", "weight", "std_dev", "importance", "share"
            );
            for (r, f) in features.iter().take(top).enumerate() {
                let sd = f.std_dev.map_or_else(|| "-".to_owned(), |v| format!("{v:.6}"));
                let _ = writeln!(
                    s,
                    "{:>4}  {:>7}  {:>14.6}  {:>12}  {:>14.6}  {:>6.2}%",
                    r + 1,
                    f.feature,
                    f.weight,
                    sd,
                    f.importance,
                    100.0 * f.share
                );
            }
        }
    }
    s
}
