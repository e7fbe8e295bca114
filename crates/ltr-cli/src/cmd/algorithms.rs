//! `ltr algorithms [--format F]`: the registered algorithms with what the registry knows of
//! each (family, year, loss, optimizer, validation metric, scale limit, whether feature scales
//! matter) and every parameter, for people (`text`), scripts (`ids`, `tsv`, `json`) and the
//! README's algorithm table (`markdown`).

use std::fmt::Write as _;
use std::process::ExitCode;

use ltr_core::AlgorithmInfo;
use ltr_harness::catalogue::scale_free_default;
use ltr_harness::limits::thousands;
use ltr_harness::registry::{default_validation_metric, parameters};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A block per algorithm: its facts, then every parameter with its default, valid range
    /// and meaning.
    Text,
    /// One id per line, in registry order.
    Ids,
    /// Tab-separated, with a header row: id, family, loss, validation metric, and the most
    /// training rows per fold it is run on (`-`: no limit).
    Tsv,
    /// JSON: one object per algorithm with its facts and parameters.
    Json,
    /// The README's algorithm table (a row per algorithm, by family).
    Markdown,
}

/// Arguments of `ltr algorithms`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Lists the algorithms.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let algorithms = ltr_harness::ALGORITHMS;
    let out = match args.format {
        Format::Text => text(algorithms)?,
        Format::Ids => algorithms.iter().map(|a| format!("{}\n", a.id)).collect(),
        Format::Tsv => tsv(algorithms),
        Format::Json => serde_json::to_string_pretty(&ltr_harness::catalogue::catalogue(algorithms)?)? + "\n",
        Format::Markdown => markdown(algorithms),
    };
    crate::write_stdout(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}

fn text(algorithms: &[AlgorithmInfo]) -> anyhow::Result<String> {
    let mut out = String::new();
    for (i, a) in algorithms.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{:<14} {:<14} {:<10} {} {:<18} {}",
            a.id, a.name, a.family, a.year, a.loss, a.optimizer
        );
        let _ = writeln!(
            out,
            "    validation metric: {} (unless the spec sets `validation_metric`)",
            default_validation_metric(a.id)
        );
        if let Some(l) = a.scale_limit {
            let _ = writeln!(
                out,
                "    scale limit: {} training rows per fold ({})",
                thousands(l.max_train_rows),
                l.measured
            );
        }
        match scale_free_default(a.id)? {
            Some(why) => {
                let _ = writeln!(out, "    feature scales do not matter: {why}");
            }
            None => {
                let _ = writeln!(
                    out,
                    "    feature scales matter: normalise raw features (`normalize`, `--normalize`)"
                );
            }
        }
        let rows: Vec<[String; 4]> = parameters(a.id)?
            .iter()
            .map(|p| {
                [
                    p.key.clone(),
                    p.default.to_string(),
                    p.range.map_or_else(|| "-".to_owned(), |r| r.to_string()),
                    p.doc.unwrap_or("(not documented in the parameter table)").to_owned(),
                ]
            })
            .collect();
        let width = |j: usize| rows.iter().map(|r| r[j].chars().count()).max().unwrap_or(0);
        let (w0, w1, w2) = (width(0), width(1), width(2));
        for [key, default, range, doc] in &rows {
            let _ = writeln!(out, "    {key:<w0$}  {default:<w1$}  {range:<w2$}  {doc}");
        }
    }
    Ok(out)
}

fn tsv(algorithms: &[AlgorithmInfo]) -> String {
    let mut out = String::from("id\tfamily\tloss\tvalidation_metric\tmax_train_rows\n");
    for a in algorithms {
        let limit = a.scale_limit.map_or_else(|| "-".to_owned(), |l| l.max_train_rows.to_string());
        let _ =
            writeln!(out, "{}\t{}\t{}\t{}\t{limit}", a.id, a.family, a.loss, default_validation_metric(a.id));
    }
    out
}

/// The README's algorithm table: a row per algorithm, grouped by family (in the survey's
/// order), registry order within a family.
pub fn markdown(algorithms: &[AlgorithmInfo]) -> String {
    let mut sorted: Vec<&AlgorithmInfo> = algorithms.iter().collect();
    sorted.sort_by_key(|a| a.family);
    let mut out = String::from(
        "| family | id | algorithm | year | loss | validation metric | scale limit (training rows) | note |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for a in sorted {
        let limit = a.scale_limit.map_or_else(String::new, |l| thousands(l.max_train_rows));
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} | {limit} | {} |",
            a.family,
            a.id,
            a.name,
            a.year,
            a.loss,
            default_validation_metric(a.id),
            a.summary
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The line before the README's generated table.
    const BEGIN: &str = "<!-- algorithms: generated by `ltr algorithms --format markdown`; do not edit -->\n";
    /// The line after it.
    const END: &str = "<!-- end of the generated algorithm table -->\n";

    /// The root README's algorithm table is the registry's: a new algorithm regenerates it
    /// (`ltr algorithms --format markdown`) instead of editing it by hand.
    #[test]
    fn the_readme_algorithm_table_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let start = readme.find(BEGIN).expect("README.md has the table's opening marker") + BEGIN.len();
        let len = readme[start..].find(END).expect("README.md has the table's closing marker");
        let want = markdown(ltr_harness::ALGORITHMS);
        assert!(
            readme[start..start + len] == want,
            "README.md's algorithm table is out of date; replace it with the output of \
             `ltr algorithms --format markdown`:\n{want}"
        );
    }

    #[test]
    fn the_table_has_a_row_per_algorithm_by_family() {
        let table = markdown(ltr_harness::ALGORITHMS);
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(rows.len(), ltr_harness::ALGORITHMS.len());
        assert!(
            rows[0].starts_with("| Regression | `regression` | Regression | 2007 | pointwise | map |"),
            "{}",
            rows[0]
        );
        let pcrank = rows.iter().find(|r| r.contains("`pcrank`")).unwrap();
        assert!(pcrank.contains("| 150,000 |"), "{pcrank}");
        let lambdamart = rows.iter().find(|r| r.contains("`lambdamart`")).unwrap();
        assert!(lambdamart.contains("| ndcg@10 |"), "{lambdamart}");
    }

    #[test]
    fn tsv_lists_every_id_with_its_limit() {
        let tsv = tsv(ltr_harness::ALGORITHMS);
        let lines: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(lines[0], ["id", "family", "loss", "validation_metric", "max_train_rows"]);
        assert_eq!(lines.len(), ltr_harness::ALGORITHMS.len() + 1);
        assert!(lines.contains(&vec!["pcrank", "Boosting", "pairwise", "map", "150000"]));
        assert!(lines.contains(&vec!["lambdamart", "Trees", "listwise", "ndcg@10", "-"]));
    }
}
