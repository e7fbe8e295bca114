//! The text layouts of the official LETOR evaluation scripts.
//!
//! [`render`] lays an [`Evaluation`] out exactly as `Eval-Score-3.0.pl` (convention `letor3`)
//! or `Eval-Score-4.0.pl` (`letor4`, `mslr`, `standard`) print it. With [`Digits::Script`]
//! the numbers are formatted as the scripts format them (`%.15g`-like Perl stringification
//! for 3.0, `%.4f` for 4.0), so the output is byte-identical to the script's; with
//! [`Digits::Full`] every number is printed with the shortest representation that reads
//! back to the same `f64`.

use crate::eval::{Evaluation, QueryMetrics, script_order};
use ltr_core::Convention;

/// How numbers are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Shortest round-trip representation (all the precision there is).
    Full,
    /// What the script prints.
    Script,
}

/// Renders the evaluation in its convention's script layout. `per_query` adds the per-query
/// lines (the scripts' flag 1).
pub fn render(eval: &Evaluation, per_query: bool, digits: Digits) -> String {
    match eval.config.convention {
        Convention::Letor3 => render_letor3(eval, per_query, digits),
        _ => render_letor4(eval, per_query, digits),
    }
}

fn number(x: f64, digits: Digits, script: fn(f64) -> String) -> String {
    match digits {
        Digits::Full => format!("{x}"),
        Digits::Script => script(x),
    }
}

fn perl(x: f64) -> String {
    format_g(x, 15)
}

fn fixed4(x: f64) -> String {
    format!("{x:.4}")
}

/// `Eval-Score-3.0.pl`: precision, MAP and NDCG blocks, queries named `query0..` in the
/// order the evaluation lists them.
fn render_letor3(eval: &Evaluation, per_query: bool, digits: Digits) -> String {
    let n = |x: f64| number(x, digits, perl);
    let row = |xs: &[f64]| xs.iter().map(|&x| format!("\t{}", n(x))).collect::<String>() + "\t";
    let s = &eval.summary;
    let queries = listed(eval);
    let mut out = String::new();
    if per_query {
        for (i, q) in queries.iter().enumerate() {
            out += &format!("precision of query{i}:{}\n", row(&q.precision));
        }
    }
    out += &format!("precision:{}\n\n", row(&s.precision));
    if per_query {
        for (i, q) in queries.iter().enumerate() {
            out += &format!("Map of query{i}:\t{}\n", n(q.average_precision));
        }
    }
    out += &format!("MAP:\t{}\n\n", n(s.map));
    if per_query {
        for (i, q) in queries.iter().enumerate() {
            out += &format!("NDCG of query{i}:{}\n", row(&q.ndcg));
        }
    }
    out += &format!("NDCG:{}\n\n", row(&s.ndcg));
    out
}

/// `Eval-Score-4.0.pl`: a precision table and an NDCG table, one row per query (by qid) and
/// an `Average` row.
fn render_letor4(eval: &Evaluation, per_query: bool, digits: Digits) -> String {
    let n = |x: f64| number(x, digits, fixed4);
    let k = eval.config.max_k;
    let cells = |xs: &[f64]| xs.iter().map(|&x| format!("\t{}", n(x))).collect::<String>();
    let s = &eval.summary;
    let queries = listed(eval);
    let mut out = String::from("qid");
    out += &(1..=k).map(|i| format!("\tP@{i}")).collect::<String>();
    out += "\tMAP\n";
    if per_query {
        for q in &queries {
            out += &format!("{}{}\t{}\n", q.qid, cells(&q.precision), n(q.average_precision));
        }
    }
    out += &format!("Average{}\t{}\n\n", cells(&s.precision), n(s.map));
    out += "qid";
    out += &(1..=k).map(|i| format!("\tNDCG@{i}")).collect::<String>();
    out += "\tMeanNDCG\n";
    if per_query {
        for q in &queries {
            out += &format!("{}{}\t{}\n", q.qid, cells(&q.ndcg), n(q.mean_ndcg));
        }
    }
    out += &format!("Average{}\t{}\n\n", cells(&s.ndcg), n(s.mean_ndcg));
    out
}

fn listed(eval: &Evaluation) -> Vec<&QueryMetrics> {
    script_order(&eval.per_query).into_iter().map(|i| &eval.per_query[i]).collect()
}

/// C's `%.{sig}g`, which is how Perl stringifies numbers (`sig` = 15): the exponent of the
/// rounded scientific form decides between fixed and scientific notation; trailing zeros
/// are removed.
pub fn format_g(x: f64, sig: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{:.*e}", sig - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= sig as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_fraction(mantissa), exp.unsigned_abs())
    } else {
        let decimals = (sig as i32 - 1 - exp).max(0) as usize;
        trim_fraction(&format!("{x:.decimals$}")).to_owned()
    }
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_number_formatting() {
        assert_eq!(format_g(0.0, 15), "0");
        assert_eq!(format_g(1.0, 15), "1");
        assert_eq!(format_g(0.25, 15), "0.25");
        assert_eq!(format_g(5.0 / 11.0, 15), "0.454545454545455");
        assert_eq!(format_g(1.0 / 11.0, 15), "0.0909090909090909");
        assert_eq!(format_g(0.000_090_909_090_909_090_9, 15), "9.09090909090909e-05");
        assert_eq!(format_g(0.579_557_327_039_360_1, 15), "0.57955732703936");
        assert_eq!(format_g(123_456_789_012_345_680.0, 15), "1.23456789012346e+17");
        assert_eq!(format_g(0.999_999_999_999_999_9, 15), "1");
    }
}
