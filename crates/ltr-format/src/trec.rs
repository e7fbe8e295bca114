//! TREC run and qrels files, so that trec_eval, pytrec_eval and ranx users can check ltr's
//! rankings and numbers with their own tools.
//!
//! ```text
//! run:    qid Q0 docid rank score name      (rank 1.. by descending score, per query)
//! qrels:  qid 0 docid label
//! ```
//!
//! Document names ([`doc_names`]): the `#docid = ...` comments of the LETOR file when every
//! document has one, else each document's position in the file counting from 1 (its line in
//! an `ltr predict` score file). Names must be unique within a query, as the TREC tools
//! assume.
//!
//! Ties: documents of equal score keep their order in the file, and get consecutive ranks in
//! that order, as everywhere in ltr ([`ltr_core::rank_order`]). trec_eval ignores the
//! rank column and breaks ties by document name instead, so on a run with tied scores its
//! numbers can differ from ltr's; a run without ties evaluates the same under both.
//!
//! [`parse_run`] and [`parse_qrels`] read such files back, and [`evaluation_input`] turns a
//! run and its qrels into a dataset and scores that `ltr_metrics` evaluates.

use std::collections::HashMap;

use ltr_core::{Dataset, Grade};

/// A TREC run or qrels file that cannot be written or read back.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct TrecError {
    /// The file (or data) concerned.
    pub source_name: String,
    /// The 1-based line, when one is at fault.
    pub line: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

/// Result alias.
pub type Result<T, E = TrecError> = std::result::Result<T, E>;

/// The TREC name of every document of `data`, in file order: its `#docid` when every
/// document has one, else its position counting from 1. Every query id and name is checked
/// to be one TREC field ([`crate::tokens::id_flaw`]).
///
/// # Errors
/// Two documents of one query with the same name, or a query id or name holding a control or
/// whitespace character (`source` names the data in the error).
pub fn doc_names(data: &Dataset, source: &str) -> Result<Vec<String>> {
    let names: Vec<String> = match data.doc_ids() {
        Some(ids) if ids.iter().all(|d| !d.is_empty()) => ids.to_vec(),
        Some(_) => {
            log::warn!(
                "{source}: some documents have no #docid comment; naming every document by its position"
            );
            (1..=data.n_docs()).map(|i| i.to_string()).collect()
        }
        None => (1..=data.n_docs()).map(|i| i.to_string()).collect(),
    };
    let one_field = |what: &str, id: &str| match crate::tokens::id_flaw(id) {
        Some(ch) => Err(trec_error(
            source,
            None,
            format!(
                "{what} {id:?} holds {ch:?}, a control or whitespace character: it would split the TREC line"
            ),
        )),
        None => Ok(()),
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for q in data.queries() {
        one_field("query id", q.qid)?;
        seen.clear();
        for i in q.range() {
            one_field("document id", &names[i])?;
            if let Some(first) = seen.insert(&names[i], i) {
                return Err(trec_error(
                    source,
                    None,
                    format!(
                        "query {}: documents {} and {} are both named {:?}; TREC files need names unique \
                         within a query",
                        q.qid,
                        first + 1,
                        i + 1,
                        names[i]
                    ),
                ));
            }
        }
    }
    Ok(names)
}

/// The TREC run of `scores` (one per document of `data`, file order) under `run_name`.
///
/// # Errors
/// A score count other than the document count, a score that is not finite, a run name that
/// is empty or holds whitespace, or document names that are not unique within a query.
pub fn run_file(data: &Dataset, scores: &[f64], run_name: &str, source: &str) -> Result<String> {
    check_run_name(run_name)?;
    if scores.len() != data.n_docs() {
        return Err(trec_error(
            source,
            None,
            format!("{} scores for {} documents", scores.len(), data.n_docs()),
        ));
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(trec_error(
            source,
            None,
            format!("document {}: score {} is not finite", i + 1, scores[i]),
        ));
    }
    let names = doc_names(data, source)?;
    let mut out = String::with_capacity(data.n_docs() * 48);
    let mut order = Vec::new();
    for q in data.queries() {
        let range = q.range();
        ltr_core::rank_order(&scores[range.clone()], &mut order);
        for (rank, &j) in order.iter().enumerate() {
            let i = range.start + j;
            out += &format!("{} Q0 {} {} {} {run_name}\n", q.qid, names[i], rank + 1, scores[i]);
        }
    }
    Ok(out)
}

/// The TREC qrels of `data`: every document with its label, in file order.
///
/// # Errors
/// Document names that are not unique within a query.
pub fn qrels_file(data: &Dataset, source: &str) -> Result<String> {
    let names = doc_names(data, source)?;
    let mut out = String::with_capacity(data.n_docs() * 32);
    for q in data.queries() {
        for i in q.range() {
            out += &format!("{} 0 {} {}\n", q.qid, names[i], data.labels()[i]);
        }
    }
    Ok(out)
}

/// A run name as the TREC tools read it: one non-empty token.
///
/// # Errors
/// An empty name or one holding whitespace.
pub fn check_run_name(name: &str) -> Result<()> {
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err(trec_error("run name", None, format!("{name:?}: must be one word, without whitespace")));
    }
    Ok(())
}

/// One line of a run file.
#[derive(Debug, Clone, PartialEq)]
pub struct RunLine {
    /// Query id.
    pub qid: String,
    /// Document name.
    pub doc: String,
    /// The rank column (trec_eval ignores it; so does [`evaluation_input`]).
    pub rank: u64,
    /// Score.
    pub score: f64,
    /// Run name.
    pub name: String,
}

/// One line of a qrels file.
#[derive(Debug, Clone, PartialEq)]
pub struct QrelsLine {
    /// Query id.
    pub qid: String,
    /// Document name.
    pub doc: String,
    /// Relevance label (negative labels, used by some collections for "unjudged", read as 0).
    pub label: Grade,
}

fn fields<'a>(line: &'a str, n: usize, what: &str, source: &str, line_no: usize) -> Result<Vec<&'a str>> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() != n {
        return Err(trec_error(source, Some(line_no), format!("{} fields, a {what} line has {n}", f.len())));
    }
    Ok(f)
}

/// Reads a run file's text (blank lines skipped). `source` names it in errors.
///
/// # Errors
/// A line without six fields, or whose rank or score does not parse.
pub fn parse_run(text: &str, source: &str) -> Result<Vec<RunLine>> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = fields(line, 6, "run", source, k + 1)?;
        let bad =
            |what: &str, tok: &str| trec_error(source, Some(k + 1), format!("{what} {tok:?} does not parse"));
        let rank = f[3].parse().map_err(|_| bad("rank", f[3]))?;
        let score: f64 = f[4].parse().map_err(|_| bad("score", f[4]))?;
        if !score.is_finite() {
            return Err(bad("score", f[4]));
        }
        out.push(RunLine { qid: f[0].into(), doc: f[2].into(), rank, score, name: f[5].into() });
    }
    Ok(out)
}

/// Reads a qrels file's text (blank lines skipped). `source` names it in errors.
///
/// # Errors
/// A line without four fields, or whose label is not an integer of at most 255.
pub fn parse_qrels(text: &str, source: &str) -> Result<Vec<QrelsLine>> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = fields(line, 4, "qrels", source, k + 1)?;
        let label: i64 = f[3]
            .parse()
            .map_err(|_| trec_error(source, Some(k + 1), format!("label {:?} does not parse", f[3])))?;
        let label = Grade::try_from(label.max(0))
            .map_err(|_| trec_error(source, Some(k + 1), format!("label {label} is above 255")))?;
        out.push(QrelsLine { qid: f[0].into(), doc: f[2].into(), label });
    }
    Ok(out)
}

/// A run and its qrels as a dataset (no features; labels from the qrels, 0 when a document
/// is not judged) and scores, one query per query of the run in order of first appearance,
/// its documents in run order. Queries judged but not in the run are left out, as trec_eval
/// does by default.
///
/// # Errors
/// A query's lines not contiguous in the run, a document listed twice for a query, or a
/// relevant document (label > 0) of a run query that the run does not list: its absence
/// would change MAP and NDCG in trec_eval but not here, so the numbers would silently differ.
pub fn evaluation_input(run: &[RunLine], qrels: &[QrelsLine], source: &str) -> Result<(Dataset, Vec<f64>)> {
    let mut judged: HashMap<(&str, &str), Grade> = HashMap::new();
    for q in qrels {
        judged.insert((q.qid.as_str(), q.doc.as_str()), q.label);
    }
    let mut labels = Vec::with_capacity(run.len());
    let mut scores = Vec::with_capacity(run.len());
    let mut docs = Vec::with_capacity(run.len());
    let mut offsets = vec![0];
    let mut qids: Vec<String> = Vec::new();
    let mut listed: HashMap<(&str, &str), ()> = HashMap::new();
    let mut query_of: HashMap<&str, ()> = HashMap::new();
    for (k, line) in run.iter().enumerate() {
        if qids.last() != Some(&line.qid) {
            if query_of.insert(&line.qid, ()).is_some() {
                return Err(trec_error(
                    source,
                    None,
                    format!("query {}: its lines are not together (line {})", line.qid, k + 1),
                ));
            }
            if !qids.is_empty() {
                offsets.push(labels.len());
            }
            qids.push(line.qid.clone());
        }
        if listed.insert((&line.qid, &line.doc), ()).is_some() {
            return Err(trec_error(
                source,
                None,
                format!("query {}: document {} listed twice", line.qid, line.doc),
            ));
        }
        labels.push(judged.get(&(line.qid.as_str(), line.doc.as_str())).copied().unwrap_or(0));
        scores.push(line.score);
        docs.push(line.doc.clone());
    }
    if labels.is_empty() {
        return Err(trec_error(source, None, "the run is empty".into()));
    }
    offsets.push(labels.len());
    if let Some(q) = qrels.iter().find(|q| {
        q.label > 0
            && query_of.contains_key(q.qid.as_str())
            && !listed.contains_key(&(q.qid.as_str(), q.doc.as_str()))
    }) {
        return Err(trec_error(
            source,
            None,
            format!("query {}: relevant document {} is not in the run", q.qid, q.doc),
        ));
    }
    let data = Dataset::from_parts(0, Vec::new(), labels, offsets, qids, Some(docs))
        .map_err(|e| trec_error(source, None, e.to_string()))?;
    Ok((data, scores))
}

fn trec_error(source: &str, line: Option<usize>, reason: String) -> TrecError {
    TrecError { source_name: source.to_owned(), line, reason }
}
