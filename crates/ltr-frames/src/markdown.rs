//! The pieces of markdown text both the report and the significance tables write: escaped
//! names and metric headers.

use ltr_metrics::Metric;

/// `s` as literal markdown text, safe in a table cell and in running text: what the CSV
/// carries, the markdown shows. Every character markdown could read as syntax is
/// backslash-escaped (`|` would end the cell, `\` would escape what follows, and `*` `_`
/// `` ` `` `[` `]` `<` `>` `~` `&` `$` would start emphasis, code, a link, HTML,
/// strikethrough, an entity or math), and a line break is `<br>` (a raw one would end the
/// table row).
pub fn escape_markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push_str("<br>");
            }
            '\n' => out.push_str("<br>"),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '~' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A metric's column header (`NDCG@10`, `P@3`, `MAP`).
pub fn header_label(metric: Metric) -> String {
    match metric {
        Metric::Map => "MAP".into(),
        Metric::Mrr => "MRR".into(),
        Metric::MeanNdcg => "MeanNDCG".into(),
        Metric::Ndcg(k) => format!("NDCG@{k}"),
        Metric::Precision(k) => format!("P@{k}"),
        Metric::Err(k) => format!("ERR@{k}"),
        Metric::Dcg(k) => format!("DCG@{k}"),
        Metric::Recall(k) => format!("Recall@{k}"),
    }
}
