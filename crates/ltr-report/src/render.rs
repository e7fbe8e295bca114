//! Markdown rendering with tabled.

use std::collections::BTreeMap;

use ltr_metrics::{Convention, Metric};
use ltr_runner::runner::DatasetStatus;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::aggregate::{Aggregate, FoldRow, METRICS};
use crate::markdown::{escape_markdown, header_label};
use crate::{ReportInput, algorithm_info, ordered_cells};

fn table(header: Vec<String>, rows: Vec<Vec<String>>) -> String {
    let mut b = Builder::default();
    b.push_record(header);
    for r in rows {
        b.push_record(r);
    }
    let mut t = b.build();
    t.with(Style::markdown());
    t.to_string() + "\n"
}

/// `s` as inline code (a file path), unless it holds a character a code span cannot show
/// as it is inside a table (a backtick, `|`, a backslash, a line break): then as escaped text.
fn code(s: &str) -> String {
    if s.contains(['`', '|', '\\']) || s.chars().any(char::is_control) {
        escape_markdown(s)
    } else {
        format!("`{s}`")
    }
}

/// Escaped names joined with `, `.
fn escaped_list<S: AsRef<str>>(names: &[S]) -> String {
    names.iter().map(|n| escape_markdown(n.as_ref())).collect::<Vec<_>>().join(", ")
}

/// The metrics of the published-numbers tables (papers rarely report P@k).
const PUBLISHED_METRICS: [Metric; 5] =
    [Metric::Ndcg(1), Metric::Ndcg(3), Metric::Ndcg(5), Metric::Ndcg(10), Metric::Map];

/// The metrics of the difference-from-baseline tables.
const SIGNIFICANCE_METRICS: [Metric; 2] = [Metric::Ndcg(10), Metric::Map];

/// What a convention means, in one line.
pub fn describe(convention: Convention) -> &'static str {
    match convention {
        Convention::Letor3 => {
            "LETOR 3.0 script (Eval-Score-3.0.pl): gain 2^l-1; ranks 1-2 undiscounted, rank r>=3 discounted by 1/log2(r); ties in file order; NDCG@k and P@k past a query's end count 0; a query without relevant documents scores 0 and counts; relevant = grade >= 1"
        }
        Convention::Letor4 => {
            "LETOR 4.0 script (Eval-Score-4.0.pl): as letor3, except P@k past a query's end divides by k"
        }
        Convention::Mslr => {
            "MSLR script: as letor4 with grades 0-4 (gains 0, 1, 3, 7, 15) and relevant = grade >= 2"
        }
        Convention::Standard => {
            "standard: gain 2^l-1, discount 1/log2(r+1); NDCG@k past a query's end is its NDCG over the whole list, P@k past it divides by k (as trec_eval); queries without relevant documents score 1"
        }
    }
}

/// ` ± <std>` after a mean over several folds; nothing after one fold's value, which has no
/// spread over folds.
fn spread(folds: usize, std: String) -> String {
    if folds > 1 { format!(" ± {std}") } else { String::new() }
}

/// A path as a report shows it: as given when relative, only its file name when absolute (a
/// report names no folder of the machine that wrote it).
fn local_name(path: &str) -> String {
    let p = std::path::Path::new(path);
    match p.file_name() {
        Some(name) if p.is_absolute() => name.to_string_lossy().into_owned(),
        _ => path.to_owned(),
    }
}

fn fmt4(x: f64) -> String {
    if x.is_nan() { "-".into() } else { format!("{x:.4}") }
}

pub(crate) fn markdown(
    input: &ReportInput,
    aggs: &[Aggregate],
    folds: &[FoldRow],
    sig: Option<&crate::Significance>,
    strata: Option<&crate::strata::Strata>,
    summary: Option<&crate::summary::Summary>,
    (sensitivity, seeds): (&[crate::sensitivity::DatasetSensitivity], &[crate::seeds::SeedRow]),
) -> String {
    let spec = &input.spec;
    // A reproduction sets our numbers beside published ones; a user's data has none.
    let reproduction = !spec.collection.is_empty()
        && input.published.results.iter().any(|r| r.collection == spec.collection);
    let mut md =
        format!("# {}: {}\n\n", input.title, if reproduction { "reproduction report" } else { "results" });
    if !input.missing.is_empty() {
        let expected: usize = input.expected.values().sum();
        md += &format!(
            "> **Partial report**: {} of the {expected} cells this report expects {} missing from the \
             result store, so the means marked `(n/N folds)` cover fewer folds than the others \
             (written with `--allow-partial`, or by `ltr run --data`, which reports what ran). \
             Missing: {}.\n\n",
            input.missing.len(),
            if input.missing.len() == 1 { "is" } else { "are" },
            input
                .missing
                .iter()
                .map(|c| {
                    format!(
                        "{} fold {} {} ({})",
                        escape_markdown(&c.dataset),
                        c.fold,
                        escape_markdown(&c.algorithm),
                        escape_markdown(&c.reason)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let numbers = match spec.folds.as_slice() {
        [k] => format!(
            "Every number is a mean of per-query test metrics on fold {k}, the only fold run (so no \
             spread over folds); hyperparameters were selected on its validation split."
        ),
        _ => "Every number is a mean over folds of per-query test metrics, with the sample standard \
              deviation over folds; hyperparameters were selected on each fold's validation split."
            .to_owned(),
    };
    md += &format!(
        "Written by `{}` from the result store of `{}` (experiment `{}`). {numbers}\n\n",
        input.written_by,
        local_name(&spec.source),
        spec.name
    );
    if let Some(s) = sig {
        md += &s.explanation();
    }

    // Header.
    // By convention name, so the rows come in the same order whatever the spec's order.
    // Parts set one by one over a convention come after it, named.
    let conventions: BTreeMap<(&'static str, String), (Convention, Vec<String>)> =
        spec.datasets.iter().fold(BTreeMap::new(), |mut acc, d| {
            if let Some(c) = crate::convention_of(input, d) {
                let parts = crate::departures_of(input, d).describe();
                acc.entry((c.name(), parts)).or_insert_with(|| (c, Vec::new())).1.push(d.clone());
            }
            acc
        });
    let mut head: Vec<Vec<String>> = Vec::new();
    for ((_, parts), (c, ds)) in &conventions {
        let departs = if parts.is_empty() {
            String::new()
        } else {
            format!(" Departing from it (not the official script's numbers): {parts}.")
        };
        head.push(vec![
            format!("Metric convention ({})", escaped_list(ds)),
            format!("`{c}`: {}{departs}", describe(*c)),
        ]);
    }
    let mut selection: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for a in &spec.algorithms {
        selection.entry(a.validation_metric.to_string()).or_default().push(&a.label);
    }
    head.push(vec![
        "Model selection".into(),
        format!(
            "{} on the validation split; the test split takes part in no decision",
            selection
                .iter()
                .map(|(m, l)| format!("{m} ({})", escaped_list(l)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    ]);
    head.push(vec!["Master seed".into(), spec.seed.to_string()]);
    let digest = crate::digest::run_digest(crate::ordered_cells(input));
    head.push(vec![
        "Run digest".into(),
        format!(
            "`{}`: sha256 over the test scores of the {} cells (`ltr verify --report` recomputes it){}",
            digest.all,
            digest.cells,
            digest
                .datasets
                .iter()
                .map(|(d, h)| format!("; {}: `{}`", escape_markdown(d), &h[..16]))
                .collect::<String>()
        ),
    ]);
    head.push(vec!["Code version".into(), input.code_version.clone()]);
    head.push(vec!["Folds".into(), spec.folds.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")]);
    let compute: f64 = input.timings.values().map(|t| t.total_seconds).sum();
    head.push(vec![
        "Wall time".into(),
        format!(
            "{:.1} s for the last `ltr run` ({} of {} cells computed, {} threads); {:.1} s of cell compute in total",
            input.run.wall_seconds,
            input.run.computed,
            input.run.cells.len(),
            input.run.threads,
            compute
        ),
    ]);
    head.push(vec![
        "Fit times".into(),
        "`Fit s/fold`: fitting the selected grid point; `Grid s/fold`: fitting every grid point \
         (each as a fit alone spends it), summed; both means over folds"
            .into(),
    ]);
    for d in &input.run.datasets {
        match d {
            DatasetStatus::Available(x) => {
                let digest = crate::digest::combined_hash(
                    x.folds.iter().flat_map(|f| [&f.train.sha256, &f.vali.sha256, &f.test.sha256]),
                );
                let normalize = spec.normalization(&x.name);
                let normalize = if normalize.is_none() {
                    String::new()
                } else {
                    format!("; features normalised: `{normalize}`, {}", escape_markdown(normalize.describe()))
                };
                head.push(vec![
                    format!("Dataset {}", escape_markdown(&x.name)),
                    format!(
                        "{} variant, {} fold files; sha256 of their sha256s: `{}` (each file below){normalize}",
                        x.variant,
                        x.folds.len() * 3,
                        &digest[..16]
                    ),
                ]);
            }
            DatasetStatus::Unavailable { name, reason } => {
                head.push(vec![
                    format!("Dataset {}", escape_markdown(name)),
                    format!("**unavailable**: {}", escape_markdown(reason)),
                ]);
            }
        }
    }
    for name in &input.not_run {
        head.push(vec![
            format!("Dataset {}", escape_markdown(name)),
            "**not run**: not part of the last `ltr run` (left out with `--datasets`)".into(),
        ]);
    }
    if !input.run.failed.is_empty() {
        for f in &input.run.failed {
            head.push(vec![
                format!(
                    "Failed: {} fold {} {}",
                    escape_markdown(&f.dataset),
                    f.fold,
                    escape_markdown(&f.label)
                ),
                escape_markdown(&f.error),
            ]);
        }
    }
    md += &table(vec!["".into(), "".into()], head);
    md += "\n";

    // Algorithm summary.
    md += "## Algorithms\n\n";
    let mut rows = Vec::new();
    for a in &spec.algorithms {
        let info = algorithm_info(input, &a.label);
        let datasets: Vec<&str> = spec
            .datasets
            .iter()
            .filter(|d| aggs.iter().any(|g| &g.dataset == *d && g.algorithm == a.label))
            .map(String::as_str)
            .collect();
        let mut compared: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in input
            .published
            .results
            .iter()
            .filter(|r| r.collection == spec.collection && r.ids.contains(&a.id))
        {
            compared.entry(r.algorithm.clone()).or_default().push(r.dataset.clone());
        }
        let compared = if compared.is_empty() {
            "-".to_owned()
        } else {
            compared
                .iter()
                .map(|(alg, ds)| format!("published {alg} ({})", ds.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        };
        rows.push(vec![
            info.family.to_string(),
            if a.label == info.id {
                info.name.to_owned()
            } else {
                format!("{} ({})", info.name, escape_markdown(&a.label))
            },
            info.year.to_string(),
            info.loss.to_string(),
            info.optimizer.to_owned(),
            if datasets.is_empty() { "-".into() } else { escaped_list(&datasets) },
            compared,
        ]);
    }
    md += &table(
        ["Family", "Algorithm", "Year", "Loss", "Optimizer", "Datasets", "Compared with"]
            .map(String::from)
            .to_vec(),
        rows,
    );
    md += "\nReferences:\n\n";
    for a in &spec.algorithms {
        let info = algorithm_info(input, &a.label);
        md += &format!("- {}: {}\n", info.name, info.reference);
    }
    md += "\n";
    md += &summary.map(crate::summary::Summary::section).unwrap_or_default();

    // Per dataset.
    let cells = ordered_cells(input);
    let further = crate::further::rows(input);
    for d in &spec.datasets {
        let here: Vec<&Aggregate> = aggs.iter().filter(|a| &a.dataset == d).collect();
        let expected_here = spec.algorithms.iter().any(|a| input.expected_folds(d, &a.label) > 0);
        if here.is_empty() && !expected_here {
            // Not run (unavailable, or left out): the published numbers alone, for reference.
            if let Some(t) = published_table(input, d, &here) {
                md += &format!("## {d} (not run here)\n\n{t}");
            }
            continue;
        }
        let conv = crate::convention_of(input, d).map(Convention::name).unwrap_or_default();
        let parts = crate::departures_of(input, d).describe();
        if parts.is_empty() {
            md += &format!("## {d} ({conv} convention)\n\n");
        } else {
            md += &format!("## {d} ({conv} convention with {parts})\n\n");
        }
        let mut header = vec!["Algorithm".to_owned()];
        header.extend(METRICS.map(header_label));
        header.push("Fit s/fold".into());
        header.push("Grid s/fold".into());
        // Spec order (the aggregates' order), with a row for an expected algorithm that has
        // no cell at all (a partial report).
        let mut rows: Vec<Vec<String>> = spec
            .algorithms
            .iter()
            .filter(|e| !here.iter().any(|a| a.algorithm == e.label))
            .filter_map(|e| {
                let n = input.expected_folds(d, &e.label);
                (n > 0).then(|| {
                    let mut r = vec![escape_markdown(&e.label)];
                    r.extend(METRICS.map(|_| format!("- (0/{n} folds)")));
                    r.extend(["-".into(), "-".into()]);
                    r
                })
            })
            .collect();
        let rows_run: Vec<Vec<String>> = here
            .iter()
            .map(|a| {
                let marker = folds_marker(input, a);
                let mut r = vec![escape_markdown(&a.algorithm)];
                r.extend((0..METRICS.len()).map(|j| {
                    let marks = sig.map(|s| s.marks(d, &a.algorithm, METRICS[j])).unwrap_or_default();
                    format!("{}{marks}{}{marker}", fmt4(a.mean[j]), spread(a.folds, fmt4(a.std[j])))
                }));
                // The selected grid point's fit, and every point's, each a mean over folds.
                let (fits, grids): (Vec<f64>, Vec<f64>) = cells
                    .iter()
                    .filter(|c| &c.dataset == d && c.label == a.algorithm)
                    .filter_map(|c| {
                        let t = input.timings.get(&c.key)?;
                        Some((*t.fit_seconds.get(c.chosen)?, t.fit_seconds.iter().sum::<f64>()))
                    })
                    .unzip();
                for secs in [fits, grids] {
                    r.push(if secs.is_empty() {
                        "-".into()
                    } else {
                        format!("{:.3}", secs.iter().sum::<f64>() / secs.len() as f64)
                    });
                }
                r
            })
            .collect();
        let position =
            |r: &Vec<String>| spec.algorithms.iter().position(|e| escape_markdown(&e.label) == r[0]);
        rows.extend(rows_run);
        rows.sort_by_key(position);
        md += &table(header, rows);
        md += "\n";
        if !here.is_empty() {
            let links: Vec<String> = crate::plot::files(d)
                .iter()
                .map(|(file, text, _)| format!("[{text}]({}/{file})", spec.name))
                .collect();
            md += &format!("Plots: {}.\n\n", links.join(", "));
        }
        if let Some(s) = sig {
            md += &s.dataset_section(d, &SIGNIFICANCE_METRICS);
        }
        md += &strata.map(|s| s.section(d)).unwrap_or_default();
        md += &model_size_table(input, d);
        md += &model_stats_table(input, d);
        md += &crate::identical::markdown(input, d);
        md += &top_features_table(input, d);
        md += &further_table(&further, d);
        md += &crate::sensitivity::dataset_section(sensitivity, d);

        md += &published_table(input, d, &here).unwrap_or_default();
    }

    md += &crate::seeds::section(seeds);

    // Selected hyperparameters per fold.
    if !cells.is_empty() {
        md += "## Selected hyperparameters\n\n";
        md += "Per fold: the grid point chosen on the validation split, with its validation score \
               (and the grid points that could not be trained, if any).\n\n";
        let mut header = vec!["Dataset".to_owned(), "Algorithm".to_owned()];
        header.extend(spec.folds.iter().map(|f| format!("Fold {f}")));
        let mut rows = Vec::new();
        for d in &spec.datasets {
            for a in &spec.algorithms {
                let fold_cells: Vec<_> =
                    cells.iter().filter(|c| &c.dataset == d && c.label == a.label).collect();
                if fold_cells.is_empty() {
                    continue;
                }
                let mut r = vec![escape_markdown(d), escape_markdown(&a.label)];
                for f in &spec.folds {
                    r.push(match fold_cells.iter().find(|c| c.fold == *f) {
                        Some(c) => {
                            let chosen = c.grid.get(c.chosen);
                            let varied = varied_params(a.grid.iter().map(|g| g.params_json()).collect());
                            let shown = |g: Option<&ltr_runner::store::GridPoint>| {
                                let params = g.map(|g| g.config.params_json()).unwrap_or_default();
                                let shown: Vec<String> = varied
                                    .iter()
                                    .filter_map(|k| {
                                        params
                                            .get(k)
                                            .map(|v| format!("{k}={}", escape_markdown(&v.to_string())))
                                    })
                                    .collect();
                                if shown.is_empty() { "-".into() } else { shown.join(", ") }
                            };
                            let mut failed: Vec<String> =
                                c.grid.iter().filter(|g| g.error.is_some()).map(|g| shown(Some(g))).collect();
                            if failed.len() > FAILED_POINTS_SHOWN {
                                let more = failed.len() - FAILED_POINTS_SHOWN;
                                failed.truncate(FAILED_POINTS_SHOWN);
                                failed.push(format!("{more} more"));
                            }
                            format!(
                                "{} ({} {}){}",
                                shown(chosen),
                                c.validation.metric,
                                fmt4(chosen.map_or(f64::NAN, |g| g.vali)),
                                if failed.is_empty() {
                                    String::new()
                                } else {
                                    format!("; {} failed", failed.join("; "))
                                }
                            )
                        }
                        None => "-".into(),
                    });
                }
                rows.push(r);
            }
        }
        md += &table(header, rows);
        md += "\n";

        md += "## Per-fold test metrics\n\n";
        md += "Re-evaluating a cell's saved test scores (`<results>/<name>/cells/<cell>.scores`; `ltr cells <results>` lists each cell's scores and model) with `ltr eval` gives these numbers exactly.\n\n";
        let mut header =
            vec!["Dataset".to_owned(), "Algorithm".to_owned(), "Fold".to_owned(), "Cell".to_owned()];
        header.extend(METRICS.map(header_label));
        let rows = cells
            .iter()
            .map(|c| {
                let mut r = vec![
                    escape_markdown(&c.dataset),
                    escape_markdown(&c.label),
                    c.fold.to_string(),
                    format!("`{}`", &c.key[..12]),
                ];
                r.extend(crate::fold_of(folds, c).metrics.map(fmt4));
                r
            })
            .collect();
        md += &table(header, rows);
        md += "\n";
    }

    // Files.
    md += "## Dataset files\n\n";
    let mut rows = Vec::new();
    for d in &input.run.datasets {
        if let DatasetStatus::Available(x) = d {
            for f in &x.folds {
                for file in [&f.train, &f.vali, &f.test] {
                    rows.push(vec![code(&file.rel), format!("`{}`", file.sha256)]);
                }
            }
        }
    }
    rows.dedup();
    md += &table(vec!["File".into(), "sha256".into()], rows);
    md
}

/// The model statistics of dataset `d` (FenchelRank's sparsity, the cascade's cost), or
/// nothing when no algorithm has any.
/// The most important features of LambdaMART and RankSVM on dataset `d` (empty if neither ran).
fn top_features_table(input: &ReportInput, d: &str) -> String {
    let rows: Vec<Vec<String>> = input
        .top_features
        .iter()
        .filter(|r| r.dataset == d)
        .map(|r| {
            let list: Vec<String> =
                r.features.iter().map(|f| format!("{} ({:.1}%)", f.feature, 100.0 * f.share)).collect();
            vec![escape_markdown(&r.algorithm), r.kind.clone(), list.join(", "), r.folds.to_string()]
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "Top features (feature number and its share of the model's importance, mean over the folds' \
         selected models; `ltr explain MODEL` gives the full list):\n\n{}\n",
        table(["Algorithm", "Importance", "Top features", "Folds"].map(String::from).to_vec(), rows)
    )
}

/// The size statistics every model that knows them records, one row per algorithm.
const SIZE_STATS: [&str; 2] = [ltr_harness::protocol::FEATURES_USED, ltr_harness::protocol::STAGES_KEPT];

fn model_size_table(input: &ReportInput, d: &str) -> String {
    let stats: Vec<crate::ModelStatRow> = crate::model_stat_rows(input)
        .into_iter()
        .filter(|r| r.dataset == d && SIZE_STATS.contains(&r.statistic.as_str()))
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in &stats {
        let at = rows.iter().position(|row| row[0] == escape_markdown(&r.algorithm));
        let i = at.unwrap_or_else(|| {
            rows.push(vec![escape_markdown(&r.algorithm), "-".into(), "-".into(), r.folds.to_string()]);
            rows.len() - 1
        });
        let column = if r.statistic == SIZE_STATS[0] { 1 } else { 2 };
        rows[i][column] = format!("{:.1}{}", r.mean, spread(r.folds, format!("{:.1}", r.std)));
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "Model size (mean ± standard deviation over folds of the selected models: the distinct \
         features a model reads, and the rounds, stages or trees it kept; - where the model has \
         no such count):\n\n{}\n",
        table(
            ["Algorithm", "Features used", "Rounds / stages kept", "Folds"].map(String::from).to_vec(),
            rows
        )
    )
}

fn model_stats_table(input: &ReportInput, d: &str) -> String {
    let rows: Vec<Vec<String>> = crate::model_stat_rows(input)
        .into_iter()
        .filter(|r| r.dataset == d && !SIZE_STATS.contains(&r.statistic.as_str()))
        .map(|r| {
            let (what, digits) = match r.statistic.as_str() {
                "sparsity" => ("sparsity ratio: 1 - nonzero weights / features", 4),
                "cost_per_query" => ("feature evaluations per test query (unit cost)", 1),
                "cost_relative" => ("cost / cost of the same stages without pruning", 4),
                other => (other, 4),
            };
            vec![
                escape_markdown(&r.algorithm),
                what.to_owned(),
                format!("{:.digits$}{}", r.mean, spread(r.folds, format!("{:.digits$}", r.std))),
                r.folds.to_string(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "Model statistics (mean ± standard deviation over folds of the selected models):\n\n{}\n",
        table(["Algorithm", "Statistic", "Value", "Folds"].map(String::from).to_vec(), rows)
    )
}

/// The published reference numbers for dataset `d` beside ours (`here`: our aggregates on
/// `d`, empty when it was not run), or `None` when nothing was published for it.
fn published_table(input: &ReportInput, d: &str, here: &[&Aggregate]) -> Option<String> {
    let spec = &input.spec;
    let published: Vec<_> = input.published.rows(&spec.collection, d).collect();
    if published.is_empty() {
        return None;
    }
    let mut md = format!("### {d}: published reference numbers beside ours\n\n");
    md += if here.is_empty() && input.not_run.iter().any(|n| n == d) {
        "Not run here (left out of the last run): the published numbers, for reference.\n\n"
    } else if here.is_empty() {
        "Not run here (the dataset was unavailable): the published numbers, for reference.\n\n"
    } else {
        "Each cell: ours / published / difference (ours - published). Published rows without a counterpart here are shown for reference.\n\n"
    };
    let mut header = vec!["Published".to_owned(), "Ours".to_owned()];
    header.extend(PUBLISHED_METRICS.map(header_label));
    let mut rows = Vec::new();
    for p in &published {
        let ours: Vec<&&Aggregate> = here
            .iter()
            .filter(|a| spec.algorithms.iter().any(|e| e.label == a.algorithm && p.ids.contains(&e.id)))
            .collect();
        let name = match &p.note {
            Some(n) => format!("{} ({n})", p.algorithm),
            None => p.algorithm.clone(),
        };
        if ours.is_empty() {
            let mut r = vec![name.clone(), "-".into()];
            r.extend(
                PUBLISHED_METRICS.map(|m| p.metrics.get(m).map_or("-".into(), |v| format!("- / {v:.4} / -"))),
            );
            rows.push(r);
        }
        for a in ours {
            let mut r = vec![name.clone(), escape_markdown(&a.algorithm)];
            for m in PUBLISHED_METRICS {
                let ours = a.mean_of(m);
                let marker = folds_marker(input, a);
                r.push(match p.metrics.get(m) {
                    Some(v) => format!("{} / {v:.4} / {:+.4}{marker}", fmt4(ours), ours - v),
                    None => format!("{} / - / -{marker}", fmt4(ours)),
                });
            }
            rows.push(r);
        }
    }
    md += &table(header, rows);
    md += &format!("\nSource: {}\n\n", sources_of(input, &published));
    Some(md)
}

fn sources_of(input: &ReportInput, rows: &[&crate::PublishedRow]) -> String {
    let mut keys: Vec<&str> = rows.iter().map(|r| r.source.as_str()).collect();
    keys.dedup();
    keys.iter()
        .filter_map(|k| input.published.sources.get(*k))
        .map(|s| s.citation.clone())
        .collect::<Vec<_>>()
        .join(" ")
}

/// ` (n/N folds)` when an aggregate covers fewer folds than the report expects, else empty.
fn folds_marker(input: &ReportInput, a: &Aggregate) -> String {
    let n = input.expected_folds(&a.dataset, &a.algorithm);
    if a.folds < n { format!(" ({}/{n} folds)", a.folds) } else { String::new() }
}

/// The most grid points named as failed in one cell of the selected-hyperparameters table
/// (the JSON lists every one, with why).
const FAILED_POINTS_SHOWN: usize = 5;

/// Keys whose values differ across grid points (in the first point's key order).
pub fn varied_params(points: Vec<serde_json::Value>) -> Vec<String> {
    let Some(first) = points.first().and_then(|p| p.as_object()) else { return Vec::new() };
    first
        .keys()
        .filter(|k| points.iter().any(|p| p.get(k.as_str()) != first.get(k.as_str())))
        .cloned()
        .collect()
}

/// The further-metrics table of dataset `d` (empty when it has no cell).
fn further_table(rows: &[crate::further::FurtherRow], d: &str) -> String {
    let here: Vec<&crate::further::FurtherRow> = rows.iter().filter(|r| r.dataset == d).collect();
    let Some(first) = here.first() else {
        return String::new();
    };
    let gmax = match first.err_max_grade {
        Some(g) => format!("gmax = {g}"),
        None => "gmax the highest grade of each test split".into(),
    };
    let mut header = vec!["Algorithm".to_owned()];
    header.extend(crate::further::FURTHER_METRICS.map(header_label));
    let body = here
        .iter()
        .map(|r| {
            let mut row = vec![escape_markdown(&r.algorithm)];
            row.extend(crate::further::FURTHER_METRICS.map(|m| {
                let at = |v: &crate::MetricValues| v.get(m).unwrap_or(f64::NAN);
                format!("{}{}", fmt4(at(&r.mean)), spread(r.folds, fmt4(at(&r.std))))
            }));
            row
        })
        .collect();
    format!(
        "Further metrics (mean ± standard deviation over folds, same convention; ERR's stop \
         probability (2^g - 1) / 2^gmax, {gmax}; DCG@10 not divided by the ideal DCG):\n\n{}\n",
        table(header, body)
    )
}
