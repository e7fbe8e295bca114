//! `ltr eval FEATURE_FILE SCORE_FILE`: a drop-in for the official LETOR evaluation scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use ltr_format::scores::read_scores_for;
use ltr_format::{ReadOptions, read_file};
use ltr_metrics::official::{Digits, render};
use ltr_metrics::{
    Convention, ConventionParts, EvalConfig, Evaluation, Metric, NoRelevant, Ties, evaluate_dataset,
};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The official script's layout, every number at full precision.
    Text,
    /// Byte-identical to the official script (its rounding: 15 digits for 3.0, 4 decimals for 4.0).
    Official,
    /// JSON: the configuration, the means and (with --per-query) every query.
    Json,
}

/// Arguments of `ltr eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// LETOR feature file (plain or .gz) with labels, qids and docids.
    feature_file: PathBuf,
    /// Scores, one per line in the feature file's order (RankLib's 3-column output works too).
    score_file: PathBuf,
    /// Metric convention: letor3 (Eval-Score-3.0.pl), letor4 (Eval-Score-4.0.pl), mslr, standard.
    #[arg(long, default_value_t = ltr_metrics::DEFAULT_CONVENTION)]
    convention: Convention,
    /// Also print every query (the scripts' flag 1).
    #[arg(long)]
    per_query: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// What a query without relevant documents scores: 0 and counted (every named
    /// convention but standard's 1), 1 and counted (LightGBM, XGBoost), or left out of the
    /// means.
    #[arg(long, value_enum)]
    no_relevant: Option<NoRelevantArg>,
    /// Report cut-offs 1..=K (default: 16 for letor3, else 10; at most 1000).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=ltr_metrics::MAX_K as u64))]
    max_k: Option<usize>,
    /// How documents with equal scores are ordered: file (the official scripts: file order),
    /// pessimistic (relevant documents last), expected (each metric's exact mean over every
    /// order of the tied documents).
    #[arg(long, value_enum)]
    ties: Option<TiesArg>,
    /// The gain of a grade in DCG: exponential (2^g - 1, every named convention) or linear (g).
    #[arg(long, value_parser = ["exponential", "linear"])]
    gain: Option<String>,
    /// The discount of rank r: letor (1 at ranks 1 and 2, then 1/log2 r) or log2 (1/log2(r + 1)).
    #[arg(long, value_parser = ["letor", "log2"])]
    discount: Option<String>,
    /// NDCG@k of a list shorter than k: zero (the LETOR scripts) or cut (NDCG of the whole list).
    #[arg(long, value_parser = ["zero", "cut"])]
    ndcg_past_end: Option<String>,
    /// P@k of a list shorter than k: zero (Eval-Score-3.0.pl) or over-k (relevant documents over k).
    #[arg(long, value_parser = ["zero", "over-k"])]
    precision_past_end: Option<String>,
    /// The lowest grade that counts as relevant for P@k, recall@k, MAP and MRR (default: the
    /// convention's).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..))]
    relevant_from: Option<u8>,
    /// ERR's highest grade gmax, of its stop probability (2^g - 1) / 2^gmax (default: 2 for
    /// letor3 and letor4, 4 for mslr, the file's highest grade for standard; the Yahoo!
    /// challenge used 4).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..))]
    max_grade: Option<u8>,
    /// Also print these metrics, comma-separated (err@K, dcg@K, recall@K, rr, ndcg@K, p@K, map,
    /// mean-ndcg): a table after the script's layout (text), or a `metrics` object (json). Not
    /// with --format official, whose output is the script's alone.
    #[arg(long, value_delimiter = ',')]
    metrics: Vec<Metric>,
}

/// `--no-relevant` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NoRelevantArg {
    /// Scores 0 and counts.
    Zero,
    /// Scores 1 and counts (LightGBM).
    One,
    /// Left out of the means.
    Skip,
}

/// `--ties` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TiesArg {
    /// File order, as the official scripts.
    File,
    /// Relevant documents last among equal scores.
    Pessimistic,
    /// Expected over every order of the tied documents, in closed form.
    Expected,
}

impl Args {
    /// The parts set on the command line.
    fn parts(&self) -> anyhow::Result<ConventionParts> {
        fn parse<T: std::str::FromStr<Err = ltr_metrics::Error>>(
            v: &Option<String>,
        ) -> anyhow::Result<Option<T>> {
            Ok(v.as_deref().map(str::parse).transpose()?)
        }
        Ok(ConventionParts {
            gain: parse(&self.gain)?,
            discount: parse(&self.discount)?,
            ndcg_past_end: parse(&self.ndcg_past_end)?,
            precision_past_end: parse(&self.precision_past_end)?,
            no_relevant: self.no_relevant.map(|p| match p {
                NoRelevantArg::Zero => NoRelevant::Zero,
                NoRelevantArg::One => NoRelevant::One,
                NoRelevantArg::Skip => NoRelevant::Skip,
            }),
            relevant_from: self.relevant_from,
            max_grade: self.max_grade,
            ties: self.ties.map(|t| match t {
                TiesArg::File => Ties::File,
                TiesArg::Pessimistic => Ties::Pessimistic,
                TiesArg::Expected => Ties::Expected,
            }),
        })
    }

    fn config(&self) -> anyhow::Result<EvalConfig> {
        let mut cfg = EvalConfig::official(self.convention).with_parts(&self.parts()?);
        if let Some(k) = self.max_k {
            cfg.max_k = k;
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Runs `ltr eval`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = args.config()?;
    if args.format == Format::Official && !args.metrics.is_empty() {
        anyhow::bail!("--metrics adds lines the official script does not print: use --format text or json");
    }
    if !cfg.departures().is_empty() {
        eprintln!(
            "note: evaluating under {}: not the numbers of the convention's official script",
            cfg.label()
        );
    }
    let data = read_file(&args.feature_file, &ReadOptions::default())
        .with_context(|| format!("reading feature file {}", args.feature_file.display()))?
        .dataset;
    let scores = read_scores_for(&args.score_file, &data, &args.feature_file.display().to_string())?;
    let eval = evaluate_dataset(&data, &scores, &cfg)?;
    // ERR's gmax when the config sets none: the file's highest grade, as the evaluation took it.
    let gmax = cfg.max_grade.unwrap_or_else(|| data.labels().iter().copied().max().unwrap_or(1));
    // Cut-offs beyond the layout's max_k are evaluated apart, so the layout stays the script's.
    let wide = args.metrics.iter().fold(cfg, |c, m| m.config(&c));
    let extra = if wide.max_k > cfg.max_k { Some(evaluate_dataset(&data, &scores, &wide)?) } else { None };
    let extra = extra.as_ref().unwrap_or(&eval);
    let text = match args.format {
        Format::Text => {
            render(&eval, args.per_query, Digits::Full)
                + &metrics_table(extra, &args.metrics, args.per_query, gmax)
        }
        Format::Official => render(&eval, args.per_query, Digits::Script),
        Format::Json => {
            let mut v = serde_json::to_value(&eval)?;
            if let Some(obj) = v.as_object_mut() {
                if !args.per_query {
                    obj.remove("per_query");
                }
                obj.insert("err_max_grade".into(), gmax.into());
                if !args.metrics.is_empty() {
                    let means =
                        args.metrics.iter().map(|m| (m.to_string(), m.of_summary(&extra.summary).into()));
                    obj.insert("metrics".into(), serde_json::Value::Object(means.collect()));
                }
            }
            serde_json::to_string_pretty(&v)? + "\n"
        }
    };
    crate::write_stdout(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// The metrics asked for by `--metrics`, as a tab-separated table after the script's layout:
/// a header naming the convention and ERR's gmax, one row per query in file order (with
/// `--per-query`; a query left out of the means is marked), then the means.
fn metrics_table(eval: &Evaluation, metrics: &[Metric], per_query: bool, gmax: u8) -> String {
    if metrics.is_empty() {
        return String::new();
    }
    let cells = |f: &dyn Fn(Metric) -> Option<f64>| {
        metrics
            .iter()
            .map(|&m| f(m).map_or_else(|| "\t-".to_owned(), |x| format!("\t{x}")))
            .collect::<String>()
    };
    let mut out = format!("\n{} (ERR's gmax {gmax}):\nquery", eval.config.label());
    out += &metrics.iter().map(|m| format!("\t{m}")).collect::<String>();
    out.push('\n');
    if per_query {
        for q in &eval.per_query {
            let mark = if q.counted { "" } else { " (not counted)" };
            out += &format!("{}{mark}{}\n", q.qid, cells(&|m| m.of_query(q)));
        }
    }
    out += &format!("mean{}\n", cells(&|m| m.of_summary(&eval.summary)));
    out
}
