//! Score files: one score per line, in the order of the feature file's lines, as written by
//! `ltr predict` and expected by the official evaluation scripts. RankLib's `-score` output
//! (`qid<TAB>index<TAB>score`) is accepted too: the last field of a line is the score.
//!
//! Every line must hold a score: a blank line is an error (skipping it would move every later
//! score onto the wrong document). LF or CRLF line ends; CR-only line ends are refused by
//! name; a UTF-8 byte-order mark at the start is skipped.

use std::path::Path;

use crate::error::{DataError, ParseErrorKind};
use crate::reader::line_content;

/// Reads a score file. Every line must hold a number (NaN is kept: the metrics reject it
/// with the query it belongs to); errors name `file:line`.
pub fn read_scores(path: &Path) -> Result<Vec<f64>, DataError> {
    let text = std::fs::read(path).map_err(|source| DataError::Io { path: path.to_owned(), source })?;
    parse_scores(&text, &path.display().to_string())
}

/// Parses score-file text; `source` names it in errors.
pub fn parse_scores(text: &[u8], source: &str) -> Result<Vec<f64>, DataError> {
    let mut out = Vec::new();
    // The final line end closes the last line; it does not open a blank one.
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    if body.is_empty() {
        return Ok(out);
    }
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
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
        if fields.len() != 1 && fields.len() != 3 {
            return Err(err(ParseErrorKind::Score, line));
        }
        let value = std::str::from_utf8(last)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| err(ParseErrorKind::Score, last))?;
        out.push(value);
    }
    Ok(out)
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
