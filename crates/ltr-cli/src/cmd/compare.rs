//! `ltr compare FEATURE_FILE NAME=SCORES [NAME=SCORES ...]`: score files of any tool evaluated
//! under one convention, with the significance tests of the reports.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use ltr_format::scores::read_scores_for;
use ltr_format::{ReadOptions, read_file};
use ltr_metrics::{Convention, EvalConfig, Metric, evaluate_dataset};
use ltr_report::significance::{
    MAX_PERMUTATIONS, MAX_SYSTEMS, SignificanceConfig, compare_systems, format_p, letter,
};
use ltr_stats::PairedTest;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text.
    Text,
    /// Markdown tables.
    Markdown,
    /// JSON (p-values in `p_value`, Holm-corrected in `p_holm`).
    Json,
}

/// The test against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TestArg {
    /// Paired two-sided Student t-test.
    T,
    /// Fisher's paired randomisation test (seeded).
    Randomization,
}

/// Arguments of `ltr compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// LETOR feature file (plain or .gz) with labels, qids and docids.
    feature_file: PathBuf,
    /// Score files as NAME=PATH (one score per line in the feature file's order, or
    /// RankLib's 3-column output); the first is the baseline unless --baseline names one.
    #[arg(required = true, value_name = "NAME=SCORES")]
    systems: Vec<String>,
    /// The baseline's name.
    #[arg(long)]
    baseline: Option<String>,
    /// Metric convention (default: the suite's default, letor3).
    #[arg(long, default_value_t = ltr_metrics::DEFAULT_CONVENTION)]
    convention: Convention,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The paired test against the baseline (Holm-corrected across the systems).
    #[arg(long, value_enum, default_value_t = TestArg::T)]
    test: TestArg,
    /// Also compare all pairs with the randomised Tukey HSD test, and mark from it.
    #[arg(long)]
    all_pairs: bool,
    /// Permutations of the randomised tests (at most 100000).
    #[arg(long, default_value_t = ltr_stats::DEFAULT_PERMUTATIONS)]
    permutations: usize,
    /// Seed of the randomised tests.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

/// Runs `ltr compare`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.permutations == 0 || args.permutations > MAX_PERMUTATIONS {
        bail!(
            "--permutations {}: must be between 1 and {MAX_PERMUTATIONS} (p-values resolve to \
             1/{}, finer than the tables show)",
            args.permutations,
            MAX_PERMUTATIONS + 1
        );
    }
    if args.systems.len() > MAX_SYSTEMS {
        bail!("at most {MAX_SYSTEMS} score files");
    }
    let mut names: Vec<String> = Vec::new();
    let mut paths: Vec<PathBuf> = Vec::new();
    for s in &args.systems {
        let Some((name, path)) = s.split_once('=').filter(|(n, p)| !n.is_empty() && !p.is_empty()) else {
            bail!("`{s}`: expected NAME=SCORE_FILE");
        };
        if names.iter().any(|n| n == name) {
            bail!("the name `{name}` is given twice");
        }
        names.push(name.to_owned());
        paths.push(PathBuf::from(path));
    }
    let baseline = match &args.baseline {
        Some(b) => names
            .iter()
            .position(|n| n == b)
            .with_context(|| format!("--baseline {b}: not one of {}", names.join(", ")))?,
        None => 0,
    };
    let cfg = EvalConfig::official(args.convention);
    let data = read_file(&args.feature_file, &ReadOptions::default())
        .with_context(|| format!("reading feature file {}", args.feature_file.display()))?
        .dataset;
    let mut evals = Vec::with_capacity(paths.len());
    for p in &paths {
        let scores = read_scores_for(p, &data, &p.display().to_string())?;
        evals.push(
            evaluate_dataset(&data, &scores, &cfg).with_context(|| format!("evaluating {}", p.display()))?,
        );
    }
    let sig = SignificanceConfig {
        test: match args.test {
            TestArg::T => PairedTest::T,
            TestArg::Randomization => PairedTest::Randomization,
        },
        all_pairs: args.all_pairs,
        baseline: Some(names[baseline].clone()),
        permutations: args.permutations,
        seed: args.seed,
        alpha: ltr_stats::ALPHA,
    };

    let compared = compare_systems(names, &evals, baseline, &Metric::REPORT, sig);
    let (names, metrics, means, sig) =
        (&compared.names, &compared.metrics, &compared.means, &compared.config);
    let comparisons = compared.comparisons();

    let text = match args.format {
        Format::Json => {
            let mut doc = compared.to_json();
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("feature_file".into(), serde_json::json!(args.feature_file));
                obj.insert("convention".into(), serde_json::json!(args.convention));
                if let Some(systems) = obj.get_mut("systems").and_then(|s| s.as_array_mut()) {
                    for (system, path) in systems.iter_mut().zip(&paths) {
                        if let Some(system) = system.as_object_mut() {
                            system.insert("scores".into(), serde_json::json!(path));
                        }
                    }
                }
            }
            serde_json::to_string_pretty(&doc)? + "\n"
        }
        Format::Text | Format::Markdown => {
            let md = args.format == Format::Markdown;
            // Names as given in text; escaped in markdown, where `|` would shift a row.
            let shown = |name: &str| if md { ltr_report::escape_markdown(name) } else { name.to_owned() };
            let mut header = vec!["System".to_owned()];
            header.extend(metrics.iter().map(|m| m.to_string()));
            let rows: Vec<Vec<String>> = names
                .iter()
                .enumerate()
                .map(|(s, n)| {
                    let mut r = vec![format!("{} {}", letter(s), shown(n))];
                    r.extend(metrics.iter().enumerate().map(|(j, _)| {
                        let k = compared.marks(s, j);
                        match (k.is_empty(), md) {
                            (true, _) => format!("{:.4}", means[s][j]),
                            (false, true) => format!("{:.4}<sup>{k}</sup>", means[s][j]),
                            (false, false) => format!("{:.4}^{k}", means[s][j]),
                        }
                    }));
                    r
                })
                .collect();
            let mut out = format!(
                "{} queries, {} convention; baseline {}; {} test, Holm-corrected, alpha {}{}\n\n",
                data.n_queries(),
                args.convention,
                shown(&names[baseline]),
                sig.test.name(),
                sig.alpha,
                if args.all_pairs { "; marks from the randomised Tukey HSD test over all pairs" } else { "" },
            );
            out += &render_table(header, rows, md);
            out += "\nA letter on a value: significantly better than the system of that letter.\n\n";
            let mut header = vec!["System".to_owned(), "Metric".into(), "Δ".into(), "95% CI".into()];
            header.extend(["d".into(), "p".into(), "p (Holm)".into()]);
            let rows = comparisons
                .iter()
                .map(|c| {
                    vec![
                        shown(&c.algorithm),
                        c.metric.clone(),
                        format!("{:+.4}", c.mean_diff),
                        format!("[{:+.4}, {:+.4}]", c.ci_low, c.ci_high),
                        format!("{:.2}", c.cohens_d),
                        format_p(c.p_value),
                        format_p(c.p_holm),
                    ]
                })
                .collect();
            out += &render_table(header, rows, md);
            out
        }
    };
    crate::write_stdout(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}

fn render_table(header: Vec<String>, rows: Vec<Vec<String>>, markdown: bool) -> String {
    let mut b = tabled::builder::Builder::default();
    b.push_record(header);
    for r in rows {
        b.push_record(r);
    }
    let mut t = b.build();
    if markdown {
        t.with(tabled::settings::Style::markdown());
    } else {
        t.with(tabled::settings::Style::blank());
    }
    t.to_string() + "\n"
}
