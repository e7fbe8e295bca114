//! The survey's summary table (`reports/published/survey.toml`): its rows with the survey's
//! own spelling, type and year, each mapped to the registry ids that implement it or marked not
//! implemented with the reason, rendered beside the registry's family, loss and optimiser and
//! the datasets each id has numbers for.
//!
//! The measured datasets are not in the file: they come from the reports the caller reads, so
//! a row cannot claim numbers that no report holds.
//!
//! * [`Survey`]: the table's rows, checked against the registry.
//! * [`measured`]: the datasets each id has numbers for in the reports.
//! * [`page`]: `reports/survey.md`, the page `ltr survey` writes.
//!
//! Reading the table and the reports is this crate's only I/O; it never prints.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use ltr_core::AlgorithmInfo;
use serde::Deserialize;

use ltr_report::escape_markdown;

/// A survey table or a report that cannot be read, parsed or matched to the registry, naming
/// the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct SurveyError {
    /// The file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

/// The shipped table, compiled in.
pub const BUILTIN: &str = include_str!("../../../reports/published/survey.toml");

/// Where [`BUILTIN`] comes from, for messages.
const BUILTIN_PATH: &str = "reports/published/survey.toml";

/// One row of the survey's table, or a system it details outside the table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurveyRow {
    /// The name as the survey spells it (`SortRank`, `SRankBoost`).
    pub name: String,
    /// The survey section that describes it (`23.17`).
    pub section: String,
    /// The survey's type column (`ANN`, `SVM`, `Boosting`, ...; empty where the extracted text
    /// has none).
    #[serde(rename = "type")]
    pub kind: String,
    /// The survey's year, where it gives one.
    #[serde(default)]
    pub year: Option<u16>,
    /// Whether the row is in the summary table (false: a system detailed elsewhere).
    #[serde(default = "yes")]
    pub in_table: bool,
    /// The registry ids that implement it (empty: see `not_implemented`).
    #[serde(default)]
    pub ids: Vec<String>,
    /// Why no id implements it.
    #[serde(default)]
    pub not_implemented: Option<String>,
    /// A caveat about the survey's text (spelling, a missing cell).
    #[serde(default)]
    pub note: Option<String>,
}

fn yes() -> bool {
    true
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Survey {
    /// Where the table is in the survey.
    pub source: String,
    /// Rows in the survey's order, then the systems outside the table.
    pub rows: Vec<SurveyRow>,
}

impl Survey {
    /// The shipped table, checked against `algorithms` (the registry).
    pub fn builtin(algorithms: &[AlgorithmInfo]) -> Result<Self, SurveyError> {
        Self::parse(BUILTIN, Path::new(BUILTIN_PATH), algorithms)
    }

    /// Reads a table and checks it against `algorithms`: every row names registered ids or
    /// says why it has none, never both, and no id stands in two rows.
    pub fn parse(text: &str, path: &Path, algorithms: &[AlgorithmInfo]) -> Result<Self, SurveyError> {
        let bad = |reason: String| SurveyError { path: path.to_owned(), reason };
        let survey: Survey = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        let mut seen = BTreeSet::new();
        for row in &survey.rows {
            match (row.ids.is_empty(), &row.not_implemented) {
                (true, None) => {
                    return Err(bad(format!("{}: neither `ids` nor `not_implemented`", row.name)));
                }
                (false, Some(_)) => {
                    return Err(bad(format!("{}: both `ids` and `not_implemented`", row.name)));
                }
                _ => {}
            }
            for id in &row.ids {
                if !algorithms.iter().any(|a| a.id == id.as_str()) {
                    return Err(bad(format!("{}: `{id}` is not a registered algorithm", row.name)));
                }
                if !seen.insert(id.as_str()) {
                    return Err(bad(format!("{}: `{id}` already stands in another row", row.name)));
                }
            }
        }
        Ok(survey)
    }

    /// The registered ids no row names, in registry order.
    pub fn unlisted<'a>(&self, algorithms: &'a [AlgorithmInfo]) -> Vec<&'a str> {
        algorithms
            .iter()
            .map(|a| a.id)
            .filter(|id| !self.rows.iter().any(|r| r.ids.iter().any(|i| i == id)))
            .collect()
    }

    /// The table as markdown: a row per survey row and id, with the registry's family, loss
    /// and optimiser, and `measured` (id -> the datasets it has reported numbers on).
    pub fn markdown(
        &self,
        algorithms: &[AlgorithmInfo],
        measured: &BTreeMap<String, BTreeSet<String>>,
    ) -> String {
        let mut md = String::from(
            "| Survey row | Section | Survey type | Year | ltr id | Family | Loss | Optimiser | Measured on |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        let year = |y: Option<u16>| y.map_or_else(|| "-".to_owned(), |y| y.to_string());
        for row in &self.rows {
            let name = if row.in_table {
                escape_markdown(&row.name)
            } else {
                format!("({})", escape_markdown(&row.name))
            };
            let kind = if row.kind.is_empty() { "-".to_owned() } else { escape_markdown(&row.kind) };
            let head = format!("| {name} | {} | {kind} | {} |", row.section, year(row.year));
            if let Some(why) = &row.not_implemented {
                let _ = writeln!(md, "{head} - | | | {} | |", escape_markdown(why));
                continue;
            }
            for id in &row.ids {
                let Some(info) = algorithms.iter().find(|a| a.id == id.as_str()) else { continue };
                let on = measured.get(id.as_str()).map(|d| d.iter().cloned().collect::<Vec<_>>().join(", "));
                let _ = writeln!(
                    md,
                    "{head} `{id}` | {} | {} | {} | {} |",
                    info.family,
                    info.loss,
                    escape_markdown(info.optimizer),
                    on.filter(|s| !s.is_empty()).unwrap_or_else(|| "-".to_owned()),
                );
            }
        }
        md
    }
}

/// The part of a report JSON that says which ids have numbers on which datasets.
#[derive(Deserialize)]
struct ReportIds {
    collection: String,
    algorithms: Vec<ReportAlgorithm>,
    means: Vec<ltr_report::MeanRow>,
}

/// An algorithm of a report: its label and registry id.
#[derive(Deserialize)]
struct ReportAlgorithm {
    label: String,
    info: ReportInfo,
}

/// The id of a report's algorithm.
#[derive(Deserialize)]
struct ReportInfo {
    id: String,
}

/// Registry id -> the datasets (`OHSUMED (letor3)`) the report JSON files at `paths` hold
/// means for (over at least one fold).
pub fn measured(paths: &[std::path::PathBuf]) -> Result<BTreeMap<String, BTreeSet<String>>, SurveyError> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let bytes = ltr_core::fs::read_bounded(path, ltr_report::check::MAX_MEANS_FILE_BYTES)
            .map_err(|e| SurveyError { path: path.to_owned(), reason: e.to_string() })?;
        let report: ReportIds = serde_json::from_slice(&bytes)
            .map_err(|e| SurveyError { path: path.to_owned(), reason: e.to_string() })?;
        for mean in report.means.iter().filter(|m| m.folds > 0) {
            if let Some(a) = report.algorithms.iter().find(|a| a.label == mean.algorithm) {
                out.entry(a.info.id.clone())
                    .or_default()
                    .insert(format!("{} ({})", mean.dataset, report.collection));
            }
        }
    }
    Ok(out)
}

/// The page `ltr survey` writes (`reports/survey.md`): a header naming its inputs, the table,
/// and the registered ids the survey does not list; `reports` are the report JSON files whose
/// means say where each id was measured.
pub fn page(reports: &[std::path::PathBuf], algorithms: &[AlgorithmInfo]) -> Result<String, SurveyError> {
    let survey = Survey::builtin(algorithms)?;
    let measured = measured(reports)?;
    let names: Vec<String> =
        reports.iter().filter_map(|p| p.file_name().map(|n| format!("`{}`", n.to_string_lossy()))).collect();
    let mut md = String::from("# The survey's summary table, mapped to ltr\n\n");
    md += "Generated by `ltr survey` from `reports/published/survey.toml` and the report files ";
    md += &if names.is_empty() { "(none found)".to_owned() } else { names.join(", ") };
    md += "; do not edit. Rows are the survey's, with its spelling, type and year; rows in ";
    md += "parentheses are systems it details outside the table. Family, loss and optimiser are ";
    md +=
        "the registry's; \"measured on\" lists the datasets whose committed report holds the id's means.\n\n";
    md += &format!("Source: {}.\n\n", survey.source);
    md += &survey.markdown(algorithms, &measured);
    let unlisted = survey.unlisted(algorithms);
    if !unlisted.is_empty() {
        let ids: Vec<String> = unlisted.iter().map(|id| format!("`{id}`")).collect();
        md += &format!("\nRegistered but not in the survey: {}.\n", ids.join(", "));
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ltr_core::{Family, LossType};

    const A: AlgorithmInfo = AlgorithmInfo {
        id: "a",
        name: "A",
        family: Family::Boosting,
        loss: LossType::Pairwise,
        optimizer: "rounds",
        ..AlgorithmInfo::DEFAULT
    };
    const B: AlgorithmInfo = AlgorithmInfo { id: "b", name: "B", ..A };

    fn parse(text: &str) -> Result<Survey, SurveyError> {
        Survey::parse(text, Path::new("survey.toml"), &[A, B])
    }

    #[test]
    fn rows_map_to_registered_ids_or_say_why_not() {
        let s = parse(
            "source = \"s\"\n[[rows]]\nname = \"A-Rank\"\nsection = \"1\"\ntype = \"ANN\"\nyear = 2001\nids = [\"a\"]\n\
             [[rows]]\nname = \"C\"\nsection = \"2\"\ntype = \"\"\nnot_implemented = \"no paper\"\n",
        )
        .unwrap();
        assert_eq!(s.unlisted(&[A, B]), ["b"]);
        let measured = BTreeMap::from([("a".to_owned(), BTreeSet::from(["OHSUMED (letor3)".to_owned()]))]);
        let md = s.markdown(&[A, B], &measured);
        assert!(
            md.contains(
                "| A-Rank | 1 | ANN | 2001 | `a` | Boosting | pairwise | rounds | OHSUMED (letor3) |"
            ),
            "{md}"
        );
        assert!(md.contains("| C | 2 | - | - | - | | | no paper | |"), "{md}");
    }

    #[test]
    fn a_row_cannot_name_an_unregistered_id_both_or_neither_or_an_id_twice() {
        let row = |rest: &str| {
            format!("source = \"s\"\n[[rows]]\nname = \"X\"\nsection = \"1\"\ntype = \"\"\n{rest}")
        };
        for (rest, want) in [
            ("ids = [\"zz\"]\n", "`zz` is not a registered algorithm"),
            ("ids = [\"a\"]\nnot_implemented = \"x\"\n", "both"),
            ("", "neither"),
            ("ids = [\"a\", \"a\"]\n", "already stands"),
            ("ids = [\"a\"]\nscore = 1\n", "unknown field"),
        ] {
            let e = parse(&row(rest)).unwrap_err().to_string();
            assert!(e.contains(want), "{rest}: {e}");
        }
    }

    /// `reports/survey.md` is what `ltr survey` writes from the committed reports and the
    /// registry: regenerate it (`ltr survey --out reports/survey.md`) after either changes.
    #[test]
    fn the_committed_survey_page_is_the_generated_one() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let reports = ["letor3.json", "letor4.json"].map(|n| root.join("reports").join(n));
        let want = page(&reports, ltr_harness::ALGORITHMS).unwrap();
        let have = std::fs::read_to_string(root.join("reports/survey.md")).unwrap_or_default();
        assert!(
            have == want,
            "reports/survey.md is out of date; regenerate it with `ltr survey --out reports/survey.md`:\n{want}"
        );
    }

    #[test]
    fn the_shipped_table_lists_the_surveys_thirty_two_rows() {
        let s: Survey = toml::from_str(BUILTIN).unwrap();
        assert_eq!(s.rows.iter().filter(|r| r.in_table).count(), 32);
    }
}
