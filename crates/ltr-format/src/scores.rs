//! Score files: one score per line, in the order of the feature file's lines, as written by
//! `ltr predict` and expected by the official evaluation scripts. RankLib's `-score` output
//! (`qid<TAB>index<TAB>score`) is accepted too: the last field of a line is the score.
//!
//! Every line must hold a score: a blank line is an error (skipping it would move every later
//! score onto the wrong document). LF or CRLF line ends; CR-only line ends are refused by
//! name; a UTF-8 byte-order mark at the start is skipped.

use std::path::Path;

use ltr_core::Dataset;

use crate::error::{DataError, ParseErrorKind};
use crate::tokens::line_content;

/// A score file as read.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreFile {
    /// The file, as named in errors.
    pub source: String,
    /// One score per line.
    pub scores: Vec<f64>,
    /// RankLib's layout (`qid<TAB>index<TAB>score`): every line's query id and the
    /// document's 0-based index in its query. `None` for one score per line.
    pub ranklib: Option<Vec<(String, u64)>>,
}

impl ScoreFile {
    /// The scores, once checked against the data set they score (read from `data_source`):
    /// one per document and, in RankLib's layout, each line's query id and index in the
    /// query those of the document on the same line of the feature file.
    pub fn scores_for(self, data: &Dataset, data_source: &str) -> Result<Vec<f64>, DataError> {
        if self.scores.len() != data.n_docs() {
            return Err(DataError::ScoreCount {
                file: self.source,
                scores: self.scores.len(),
                data_file: data_source.to_owned(),
                docs: data.n_docs(),
            });
        }
        if let Some(lines) = &self.ranklib {
            let offsets = data.query_offsets();
            let expected = data
                .query_ids()
                .iter()
                .enumerate()
                .flat_map(|(q, qid)| (0..offsets[q + 1] - offsets[q]).map(move |i| (qid, i as u64)));
            for (doc, ((found, index), (qid, expected_index))) in lines.iter().zip(expected).enumerate() {
                if found != qid || *index != expected_index {
                    return Err(DataError::ScoreQuery {
                        file: self.source,
                        line: doc + 1,
                        qid: found.clone(),
                        index: *index,
                        data_file: data_source.to_owned(),
                        expected_qid: qid.clone(),
                        expected_index,
                    });
                }
            }
        }
        Ok(self.scores)
    }
}

/// Reads a score file and checks it against the data set it scores (see
/// [`ScoreFile::scores_for`]): what `ltr eval` uses.
pub fn read_scores_for(path: &Path, data: &Dataset, data_source: &str) -> Result<Vec<f64>, DataError> {
    read_score_file(path)?.scores_for(data, data_source)
}

/// Reads a score file. Every line must hold a number (NaN is kept: the metrics reject it
/// with the query it belongs to); errors name `file:line`.
pub fn read_scores(path: &Path) -> Result<Vec<f64>, DataError> {
    Ok(read_score_file(path)?.scores)
}

/// Parses score-file text; `source` names it in errors.
pub fn parse_scores(text: &[u8], source: &str) -> Result<Vec<f64>, DataError> {
    Ok(parse_score_file(text, source)?.scores)
}

/// The largest score file read (1 GiB, some 40 million scores): its scores are held whole,
/// and data sets of more documents do not fit the dense reader anyway.
pub const MAX_SCORE_FILE_BYTES: u64 = 1 << 30;

/// Reads a score file (a regular file of at most [`MAX_SCORE_FILE_BYTES`]), keeping
/// RankLib's query ids and indices when it has them.
pub fn read_score_file(path: &Path) -> Result<ScoreFile, DataError> {
    let text = ltr_core::fs::read_bounded(path, MAX_SCORE_FILE_BYTES)
        .map_err(|source| DataError::Io { path: path.to_owned(), source })?;
    parse_score_file(&text, &path.display().to_string())
}

/// Parses score-file text, keeping RankLib's query ids and indices when it has them;
/// `source` names it in errors. All lines must have the layout of the first.
pub fn parse_score_file(text: &[u8], source: &str) -> Result<ScoreFile, DataError> {
    let mut scores = Vec::new();
    let mut ranklib: Option<Vec<(String, u64)>> = None;
    // The final line end closes the last line; it does not open a blank one.
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let lines = if body.is_empty() { None } else { Some(body.split(|&b| b == b'\n')) };
    for (i, raw) in lines.into_iter().flatten().enumerate() {
        let err = |kind, token: &[u8]| DataError::Parse {
            file: source.to_owned(),
            line: i + 1,
            token: String::from_utf8_lossy(token).chars().take(40).flat_map(char::escape_debug).collect(),
            kind,
        };
        let line = line_content(raw, i == 0);
        if let Some(p) = line.iter().position(|&b| b == b'\r') {
            return Err(err(ParseErrorKind::CrOnly, &line[p..]));
        }
        let fields: Vec<&[u8]> = line.split(|&b| b == b' ' || b == b'\t').filter(|f| !f.is_empty()).collect();
        let Some(&last) = fields.last() else {
            return Err(err(ParseErrorKind::BlankLine, line));
        };
        let three = match fields.len() {
            1 => false,
            3 => true,
            _ => return Err(err(ParseErrorKind::Score, line)),
        };
        if i > 0 && three != ranklib.is_some() {
            return Err(err(ParseErrorKind::ScoreLayout { ranklib_first: ranklib.is_some() }, line));
        }
        let value = std::str::from_utf8(last)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| err(ParseErrorKind::Score, last))?;
        scores.push(value);
        if three {
            let qid = std::str::from_utf8(fields[0]).map_err(|_| err(ParseErrorKind::Utf8, fields[0]))?;
            let index = std::str::from_utf8(fields[1])
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| err(ParseErrorKind::Score, fields[1]))?;
            ranklib.get_or_insert_with(Vec::new).push((qid.to_owned(), index));
        }
    }
    Ok(ScoreFile { source: source.to_owned(), scores, ranklib })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_ranklib_layouts() {
        assert_eq!(parse_scores(b"1\r\n-0.5\n2e3\n", "s").unwrap(), vec![1.0, -0.5, 2000.0]);
        assert_eq!(parse_scores(b"10\t0\t0.25\n10\t1\t-1\n", "s").unwrap(), vec![0.25, -1.0]);
        let e = parse_scores(b"1\nabc\n", "s.txt").unwrap_err().to_string();
        assert!(e.starts_with("s.txt:2:") && e.contains("abc"), "{e}");
        assert!(parse_scores(b"1 2\n", "s").is_err());
        // The final newline ends the last line; it does not start a blank one.
        assert_eq!(parse_scores(b"1\n2", "s").unwrap(), vec![1.0, 2.0]);
        assert_eq!(parse_scores(b"1\r\n2\r\n", "s").unwrap(), vec![1.0, 2.0]);
    }

    fn data(text: &str) -> Dataset {
        crate::reader::parse_bytes(text.as_bytes(), "f.txt", &crate::ReadOptions::default()).unwrap()
    }

    #[test]
    fn ranklib_query_ids_must_match_the_feature_file() {
        let d = data("2 qid:10 1:1\n0 qid:10 1:2\n1 qid:11 1:3\n");
        let good = b"10\t0\t0.5\n10\t1\t-1\n11\t0\t2\n";
        let f = parse_score_file(good, "s.txt").unwrap();
        assert_eq!(f.ranklib.as_deref().map(<[_]>::len), Some(3));
        assert_eq!(f.scores_for(&d, "f.txt").unwrap(), vec![0.5, -1.0, 2.0]);
        // Plain scores carry no query ids: only the count is checked.
        let plain = parse_score_file(b"1\n2\n3\n", "s.txt").unwrap();
        assert_eq!(plain.ranklib, None);
        assert_eq!(plain.scores_for(&d, "f.txt").unwrap().len(), 3);
        // Another query's scores, the same count: refused, naming the line and both queries.
        let e = parse_score_file(b"10\t0\t0.5\n11\t0\t-1\n11\t1\t2\n", "s.txt")
            .unwrap()
            .scores_for(&d, "f.txt")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s.txt:2:") && e.contains("`11`") && e.contains("`10`"), "{e}");
        assert!(e.contains("f.txt"), "{e}");
        // Documents of one query in another order.
        let e = parse_score_file(b"10\t1\t0.5\n10\t0\t-1\n11\t0\t2\n", "s.txt")
            .unwrap()
            .scores_for(&d, "f.txt")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s.txt:1:") && e.contains("index 1") && e.contains("index 0"), "{e}");
        // Too few scores.
        let e = parse_score_file(b"1\n2\n", "s.txt").unwrap().scores_for(&d, "f.txt").unwrap_err();
        assert!(e.to_string().contains("2 scores") && e.to_string().contains("3 documents"), "{e}");
        // Layouts cannot be mixed.
        let e = parse_score_file(b"10\t0\t0.5\n1\n", "s.txt").unwrap_err().to_string();
        assert!(e.starts_with("s.txt:2:"), "{e}");
    }

    #[test]
    fn blank_line_in_a_score_file_is_an_error_naming_file_and_line() {
        // Skipping it shifted every later score onto the wrong document.
        for (text, line) in
            [(&b"1\n\n2\n"[..], 2), (b"1\n \t\n2\n", 2), (b"1\r\n\r\n2\r\n", 2), (b"1\n2\n\n", 3)]
        {
            let e = parse_scores(text, "s.txt").unwrap_err().to_string();
            assert!(e.starts_with(&format!("s.txt:{line}:")) && e.contains("blank line"), "{e}");
        }
    }

    #[test]
    fn cr_only_score_file_is_refused_by_name() {
        let e = parse_scores(b"1\r2\r3\r", "s.txt").unwrap_err().to_string();
        assert!(e.starts_with("s.txt:1:") && e.contains("CR-only line endings"), "{e}");
    }

    #[test]
    fn utf8_byte_order_mark_in_a_score_file_is_accepted() {
        assert_eq!(parse_scores("\u{feff}1\n-2\n".as_bytes(), "s").unwrap(), vec![1.0, -2.0]);
        assert_eq!(parse_scores("\u{feff}7\t0\t0.5\n".as_bytes(), "s").unwrap(), vec![0.5]);
    }
}
