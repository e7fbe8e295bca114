//! A fast, strict reader for the LETOR / SVMlight ranking format.
//!
//! ```text
//! <grade> qid:<id> <index>:<value> <index>:<value> ... [# docid = <id> [inc = <x> prob = <y>]]
//! ```
//!
//! * plain or gzip input (detected by magic bytes, not by name); CRLF or LF;
//! * sparse rows: features that are absent are 0 (MSLR / SVMlight style);
//! * strictly increasing 1-based indices; finite values; integer grades 0..=255;
//! * two departures, only when [`ReadOptions::format`] declares them ([`LineFormat`]): the
//!   query id written as the line's comment instead of a `qid:` token (`<grade> 1:0.5 ... #
//!   3382`, Yandex's Internet Mathematics 2009 files), and real-valued labels (means of
//!   assessors' grades, `0.5`, `2.16049`) made grades by a stated rule, counted and logged;
//! * the documents of one query are contiguous: a qid that reappears after another query
//!   started is an error;
//! * blank lines and lines holding only a `#` comment are skipped;
//! * a UTF-8 byte-order mark at the start of the file is skipped; CR-only line endings
//!   (classic Mac OS) are refused by name ([`ParseErrorKind::CrOnly`]), since read as LF
//!   files they make one line whose first comment hides every later document.
//!
//! Every error names `file:line` and the offending token.
//!
//! Rows are stored densely, so the reader makes two passes. The first finds the number of
//! documents and the width (the declared feature count, else the highest index); the matrix
//! is then checked against the memory it may take ([`ReadOptions::max_dense_bytes`], and
//! without a declared count [`MAX_DENSE_EXPANSION`] times the text) and allocated once, at
//! its final size, before the second pass fills it. Memory stays at one chunk of input (or
//! one line, if longer) plus the dense result. Lines are found in one look per byte however
//! long they are, up to [`MAX_LINE_BYTES`].

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use ltr_core::fs::open_regular;
use ltr_core::{Dataset, Grade};
use sha2::{Digest, Sha256};

use crate::error::{DataError, DenseLimit, ParseErrorKind};
use crate::options::{
    LineFormat, MAX_DENSE_EXPANSION, MAX_LINE_BYTES, MAX_UNDECLARED_FEATURES, ReadOptions, SPARSE_FLOOR_BYTES,
};
use crate::tokens::{
    Tokens, comment_qid, doc_id_of, grade_of, id_flaw, is_decimal, line_content, parse_f32, parse_index,
    show_token,
};

/// A parsed file.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The data.
    pub dataset: Dataset,
    /// Lowercase hex sha256 of the uncompressed bytes, if requested.
    pub sha256: Option<String>,
    /// Uncompressed size in bytes.
    pub bytes: u64,
}

/// Reads a LETOR file (plain or gzip) from disk: two passes over the file (decompressing
/// twice if it is gzip). It must be a regular file ([`ltr_core::fs::open_regular`]): a FIFO
/// or a device cannot be read twice, and `/dev/zero` would be read for ever.
pub fn read_file(path: &Path, opts: &ReadOptions) -> Result<Loaded, DataError> {
    let io = |source| DataError::Io { path: path.to_owned(), source };
    let name = path.display().to_string();
    let mut magic = [0u8; 2];
    let n = read_up_to(&mut open_regular(path).map_err(io)?, &mut magic).map_err(io)?;
    let gzip = n == 2 && magic == [0x1f, 0x8b];
    let open = || -> Result<Box<dyn Read>, DataError> {
        let file = open_regular(path).map_err(io)?;
        Ok(if gzip { Box::new(MultiGzDecoder::new(file)) } else { Box::new(file) })
    };
    let survey = survey_reader(open()?, &name, opts)?;
    parse_reader(open()?, &name, opts, &survey)
}

/// Reads a file whose sha256 is known (`ltr_data::resolved::DataFile::sha256`): the hash of
/// the bytes parsed (uncompressed, as `DataFile` hashes are) is computed in the same pass that
/// parses them, and the data set is returned only if it is `expected`; otherwise
/// [`DataError::NotAsHashed`], naming the file and both hashes. What is returned is thus
/// always the content the hash records, however the file changes meanwhile.
pub fn read_file_as_hashed(path: &Path, opts: &ReadOptions, expected: &str) -> Result<Loaded, DataError> {
    let loaded = read_file(path, &ReadOptions { sha256: true, ..opts.clone() })?;
    match loaded.sha256.as_deref() {
        Some(actual) if actual == expected => Ok(loaded),
        actual => Err(DataError::NotAsHashed {
            file: path.display().to_string(),
            expected: expected.to_owned(),
            actual: actual.unwrap_or_default().to_owned(),
        }),
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Reads LETOR text (already decompressed) from its current position to its end, twice:
/// the reader is sought back for the second pass. `source` names it in errors.
pub fn read_from<R: Read + Seek>(
    mut reader: R,
    source: &str,
    opts: &ReadOptions,
) -> Result<Loaded, DataError> {
    let io = |e| DataError::Io { path: source.into(), source: e };
    let start = reader.stream_position().map_err(io)?;
    let survey = survey_reader(&mut reader, source, opts)?;
    reader.seek(SeekFrom::Start(start)).map_err(io)?;
    parse_reader(&mut reader, source, opts, &survey)
}

/// Parses LETOR text held in memory.
pub fn parse_bytes(bytes: &[u8], source: &str, opts: &ReadOptions) -> Result<Dataset, DataError> {
    let mut surveyor = Surveyor::new(opts);
    lines_of(bytes, |line| {
        surveyor.line(line);
        Ok(())
    })?;
    let survey = surveyor.finish(bytes.len() as u64);
    let mut parser = Parser::new(source, opts, &survey)?;
    lines_of(bytes, |line| parser.line(line))?;
    parser.finish()
}

/// Calls `on_line` with every `\n`-separated piece of `bytes` (as `split` would: the piece
/// after a final newline is an empty line).
fn lines_of(bytes: &[u8], mut on_line: impl FnMut(&[u8]) -> Result<(), DataError>) -> Result<(), DataError> {
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        on_line(&bytes[start..nl])?;
        start = nl + 1;
    }
    on_line(&bytes[start..])
}

fn survey_reader(reader: impl Read, source: &str, opts: &ReadOptions) -> Result<Survey, DataError> {
    let mut surveyor = Surveyor::new(opts);
    let (bytes, _) = split_lines(reader, source, None, MAX_LINE_BYTES, |line| {
        surveyor.line(line);
        Ok(())
    })?;
    Ok(surveyor.finish(bytes))
}

fn parse_reader(
    reader: impl Read,
    source: &str,
    opts: &ReadOptions,
    survey: &Survey,
) -> Result<Loaded, DataError> {
    let mut parser = Parser::new(source, opts, survey)?;
    let mut hasher = opts.sha256.then(Sha256::new);
    let (bytes, _) = split_lines(reader, source, hasher.as_mut(), MAX_LINE_BYTES, |line| parser.line(line))?;
    if bytes != survey.bytes {
        return Err(parser.changed());
    }
    let dataset = parser.finish()?;
    let sha256 = hasher.map(|h| hex(&h.finalize()));
    Ok(Loaded { dataset, sha256, bytes })
}

/// Work done by [`split_lines`], counted so that tests can check it is linear in the input:
/// bytes examined by the line-end search, and bytes moved within the buffer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Work {
    scanned: u64,
    moved: u64,
}

/// Reads `reader` in large chunks and calls `on_line` with every line (without its `\n`),
/// the last one even without a final newline. A line longer than `max_line` bytes is an
/// error. Returns the byte count and the work done.
fn split_lines<R: Read>(
    mut reader: R,
    source: &str,
    mut hasher: Option<&mut Sha256>,
    max_line: usize,
    mut on_line: impl FnMut(&[u8]) -> Result<(), DataError>,
) -> Result<(u64, Work), DataError> {
    const CHUNK: usize = 1 << 20;
    let mut buf: Vec<u8> = Vec::with_capacity(2 * CHUNK);
    let mut bytes = 0u64;
    let mut lines = 0usize;
    let mut work = Work::default();
    loop {
        let old = buf.len();
        if old > max_line {
            return Err(DataError::Parse {
                file: source.to_owned(),
                line: lines + 1,
                token: show_token(&buf),
                kind: ParseErrorKind::LineTooLong { max: max_line },
            });
        }
        buf.resize(old + CHUNK.min(max_line + 1 - old), 0);
        let n = loop {
            match reader.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(DataError::Io { path: source.into(), source: e });
                }
            }
        };
        buf.truncate(old + n);
        if let Some(h) = hasher.as_mut() {
            h.update(&buf[old..]);
        }
        bytes += n as u64;
        if n == 0 {
            // Last line without a newline.
            if !buf.is_empty() {
                on_line(&buf)?;
            }
            break;
        }
        // Every byte before `old` is known to hold no newline: search the new bytes only, so
        // a line spanning many chunks costs one look per byte, not one per chunk.
        let mut start = 0;
        let mut from = old;
        while let Some(p) = memchr::memchr(b'\n', &buf[from..]) {
            work.scanned += (p + 1) as u64;
            lines += 1;
            on_line(&buf[start..from + p])?;
            start = from + p + 1;
            from = start;
        }
        work.scanned += (buf.len() - from) as u64;
        if start > 0 {
            // What is left is shorter than the chunk just read.
            work.moved += (buf.len() - start) as u64;
            buf.drain(..start);
        }
    }
    Ok((bytes, work))
}

/// Lowercase hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// The memory the system reports available for new allocations without swapping
/// (`MemAvailable` in `/proc/meminfo`), in bytes; `None` where that cannot be read.
pub fn available_memory() -> Option<u64> {
    meminfo_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kb = line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    kb.checked_mul(1024)
}

/// What the first pass learns: data rows, the widest index that the second pass could
/// accept (with where it is), and the byte count.
#[derive(Debug, Clone, Default)]
struct Survey {
    rows: usize,
    max_index: usize,
    /// Line and token of `max_index`.
    at: Option<(usize, String)>,
    bytes: u64,
}

/// The first pass. It never fails: every line it cannot make sense of fails the second
/// pass with the right message. A line's widest index is its last one (indices increase).
struct Surveyor {
    /// Indices above this fail the second pass, so they do not widen the matrix.
    cap: usize,
    /// Whether the width is declared: then only rows are counted.
    declared: bool,
    line_no: usize,
    survey: Survey,
}

impl Surveyor {
    fn new(opts: &ReadOptions) -> Self {
        Self {
            cap: opts.n_features.unwrap_or(MAX_UNDECLARED_FEATURES),
            declared: opts.n_features.is_some(),
            line_no: 0,
            survey: Survey::default(),
        }
    }

    fn line(&mut self, raw: &[u8]) {
        self.line_no += 1;
        let line = line_content(raw, self.line_no == 1);
        let is_space = |b: &u8| *b == b' ' || *b == b'\t';
        // A line holds a document when its first token comes before any comment.
        match line.iter().find(|b| !is_space(b)) {
            None | Some(b'#') => return,
            Some(_) => self.survey.rows += 1,
        }
        if self.declared {
            return;
        }
        let data = match memchr::memchr(b'#', line) {
            Some(p) => &line[..p],
            None => line,
        };
        let Some(end) = data.iter().rposition(|b| !is_space(b)) else { return };
        let start = data[..end].iter().rposition(is_space).map_or(0, |p| p + 1);
        let last = &data[start..=end];
        let index = last.iter().position(|&b| b == b':').and_then(|colon| parse_index(&last[..colon]));
        if let Some(index) = index
            && index > self.survey.max_index
            && index <= self.cap
        {
            self.survey.max_index = index;
            self.survey.at = Some((self.line_no, show_token(last)));
        }
    }

    fn finish(mut self, bytes: u64) -> Survey {
        self.survey.bytes = bytes;
        self.survey
    }
}

/// The width of the dense matrix for a surveyed file, after checking that rows x width x 4
/// bytes is within the limits (see [`ReadOptions::max_dense_bytes`], [`MAX_DENSE_EXPANSION`]).
fn dense_width(source: &str, survey: &Survey, opts: &ReadOptions) -> Result<usize, DataError> {
    let width = opts.n_features.unwrap_or(survey.max_index);
    let bytes = u64::try_from(survey.rows)
        .ok()
        .zip(u64::try_from(width).ok())
        .and_then(|(r, w)| r.checked_mul(w)?.checked_mul(4))
        .unwrap_or(u64::MAX);
    let refuse = |limit| DataError::TooLarge {
        file: source.to_owned(),
        cause: if opts.n_features.is_some() { None } else { survey.at.clone() },
        rows: survey.rows,
        width,
        bytes,
        limit,
    };
    if opts.n_features.is_none()
        && bytes > SPARSE_FLOOR_BYTES.max(survey.bytes.saturating_mul(MAX_DENSE_EXPANSION))
    {
        return Err(refuse(DenseLimit::Sparse { text_bytes: survey.bytes }));
    }
    match opts.max_dense_bytes {
        Some(max) if bytes > max => return Err(refuse(DenseLimit::Limit { bytes: max })),
        Some(_) => {}
        None => {
            if let Some(available) = available_memory()
                && bytes > available / 4 * 3
            {
                return Err(refuse(DenseLimit::Memory { available }));
            }
        }
    }
    if usize::try_from(bytes).map_or(true, |b| b > isize::MAX as usize) {
        return Err(refuse(DenseLimit::Allocation));
    }
    Ok(width)
}

/// The second pass: parses every line into a matrix allocated once, at the surveyed size.
struct Parser<'a> {
    source: &'a str,
    limit: Option<usize>,
    missing: Option<&'a [u8]>,
    clip: Option<f32>,
    format: LineFormat,
    /// Real-valued labels made grades ([`LineFormat::fractional_labels`]): how many, the
    /// smallest and the largest.
    fractional: (usize, f64, f64),
    line_no: usize,
    /// Row width in `features`: the declared count, else the surveyed widest index.
    width: usize,
    /// Data rows found by the first pass.
    rows: usize,
    max_index: usize,
    features: Vec<f32>,
    labels: Vec<Grade>,
    offsets: Vec<usize>,
    qids: Vec<String>,
    doc_ids: Vec<String>,
    any_doc_id: bool,
    /// qid -> line where its query started.
    seen: HashMap<String, usize>,
    /// Read by the tests, which check that the matrix is allocated once.
    #[cfg_attr(not(test), allow(dead_code))]
    stats: MatrixStats,
}

/// How the feature matrix was allocated while parsing: the number of allocations and
/// reallocations, and the most elements alive at once (both buffers during a copy).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct MatrixStats {
    allocations: u32,
    peak_elems: usize,
}

impl<'a> Parser<'a> {
    /// Checks the dense size of the surveyed file and allocates its matrix.
    fn new(source: &'a str, opts: &'a ReadOptions, survey: &Survey) -> Result<Self, DataError> {
        let width = dense_width(source, survey, opts)?;
        let elems = survey.rows * width; // no overflow: checked by `dense_width`
        let mut features: Vec<f32> = Vec::new();
        features.try_reserve_exact(elems).map_err(|_| DataError::TooLarge {
            file: source.to_owned(),
            cause: if opts.n_features.is_some() { None } else { survey.at.clone() },
            rows: survey.rows,
            width,
            bytes: elems as u64 * 4,
            limit: DenseLimit::Allocation,
        })?;
        let stats = MatrixStats { allocations: 1, peak_elems: features.capacity() };
        Ok(Self {
            source,
            limit: opts.n_features,
            missing: opts.missing_token.as_deref().map(str::as_bytes),
            clip: opts.clip,
            format: opts.format,
            fractional: (0, f64::INFINITY, f64::NEG_INFINITY),
            line_no: 0,
            width,
            rows: survey.rows,
            max_index: 0,
            features,
            labels: Vec::with_capacity(survey.rows),
            offsets: vec![0],
            qids: Vec::new(),
            doc_ids: Vec::with_capacity(survey.rows),
            any_doc_id: false,
            seen: HashMap::new(),
            stats,
        })
    }

    fn err(&self, kind: ParseErrorKind, token: &[u8]) -> DataError {
        DataError::Parse { file: self.source.to_owned(), line: self.line_no, token: show_token(token), kind }
    }

    /// The input differs from what the first pass read.
    fn changed(&self) -> DataError {
        DataError::Changed { file: self.source.to_owned() }
    }

    fn line(&mut self, raw: &[u8]) -> Result<(), DataError> {
        self.line_no += 1;
        let line = line_content(raw, self.line_no == 1);
        if let Some(p) = memchr::memchr(b'\r', line) {
            return Err(self.err(ParseErrorKind::CrOnly, &line[p..]));
        }
        let (data, comment) = match memchr::memchr(b'#', line) {
            Some(p) => (&line[..p], Some(&line[p + 1..])),
            None => (line, None),
        };
        let mut tokens = Tokens { s: data, i: 0 };
        let Some(label_tok) = tokens.next() else {
            return Ok(()); // blank or comment-only line
        };
        let (label, real) = grade_of(label_tok, self.format).map_err(|kind| self.err(kind, label_tok))?;
        if let Some(v) = real {
            let (n, lo, hi) = &mut self.fractional;
            *n += 1;
            *lo = lo.min(v);
            *hi = hi.max(v);
        }

        let (qid, qid_tok) = if self.format.qid_in_comment {
            let qid = comment_qid(comment).ok_or_else(|| self.err(ParseErrorKind::CommentQid, line))?;
            (qid, qid)
        } else {
            let qid_tok = tokens.next().ok_or_else(|| self.err(ParseErrorKind::MissingQid, data))?;
            let qid =
                qid_tok.strip_prefix(b"qid:").ok_or_else(|| self.err(ParseErrorKind::MissingQid, qid_tok))?;
            if qid.is_empty() {
                return Err(self.err(ParseErrorKind::EmptyQid, qid_tok));
            }
            (qid, qid_tok)
        };
        if self.labels.len() == self.rows {
            return Err(self.changed());
        }
        let same_query = self.qids.last().is_some_and(|q| q.as_bytes() == qid);
        if !same_query {
            let qid_str = std::str::from_utf8(qid).map_err(|_| self.err(ParseErrorKind::Utf8, qid_tok))?;
            if let Some(ch) = id_flaw(qid_str) {
                return Err(self.err(ParseErrorKind::IdCharacter { what: "query id", ch }, qid_tok));
            }
            if let Some(&first) = self.seen.get(qid_str) {
                return Err(self.err(ParseErrorKind::QidReappears { first_line: first }, qid_tok));
            }
            self.seen.insert(qid_str.to_owned(), self.line_no);
            if !self.qids.is_empty() {
                self.offsets.push(self.labels.len());
            }
            self.qids.push(qid_str.to_owned());
        }

        // The row, written in place (within the capacity reserved for every row).
        let row_start = self.features.len();
        self.features.resize(row_start + self.width, 0.0);
        let mut prev = 0usize;
        // An index beyond the surveyed width can only be on a line that fails below (its
        // indices do not increase up to its last one), or in input that changed since the
        // first pass.
        let mut beyond = false;
        for tok in tokens {
            let colon =
                tok.iter().position(|&b| b == b':').ok_or_else(|| self.err(ParseErrorKind::Feature, tok))?;
            let index = parse_index(&tok[..colon]).ok_or_else(|| self.err(ParseErrorKind::Feature, tok))?;
            if index == 0 {
                return Err(self.err(ParseErrorKind::ZeroIndex, tok));
            }
            if index <= prev {
                return Err(self.err(ParseErrorKind::OutOfOrder { previous: prev }, tok));
            }
            prev = index;
            let value_tok = &tok[colon + 1..];
            let value = if self.missing == Some(value_tok) {
                0.0
            } else {
                let v = parse_f32(value_tok).ok_or_else(|| self.err(ParseErrorKind::Value, tok))?;
                match self.clip {
                    Some(c) if v.abs() > c && !v.is_nan() && is_decimal(value_tok) => c.copysign(v),
                    _ if !v.is_finite() => return Err(self.err(ParseErrorKind::NonFinite, tok)),
                    _ => v,
                }
            };
            if let Some(limit) = self.limit
                && index > limit
            {
                return Err(self.err(ParseErrorKind::TooManyFeatures { limit }, tok));
            }
            if index > MAX_UNDECLARED_FEATURES && self.limit.is_none() {
                return Err(self.err(ParseErrorKind::IndexTooLarge { max: MAX_UNDECLARED_FEATURES }, tok));
            }
            if index > self.width {
                beyond = true;
                continue;
            }
            self.features[row_start + index - 1] = value;
            self.max_index = self.max_index.max(index);
        }
        if beyond {
            return Err(self.changed());
        }
        self.labels.push(label);

        let doc_id = if self.format.qid_in_comment { None } else { comment.and_then(doc_id_of) };
        self.any_doc_id |= doc_id.is_some();
        let doc_id = match doc_id {
            Some(d) => {
                let id = std::str::from_utf8(d).map_err(|_| self.err(ParseErrorKind::Utf8, d))?;
                if let Some(ch) = id_flaw(id) {
                    return Err(self.err(ParseErrorKind::IdCharacter { what: "document id", ch }, d));
                }
                id.to_owned()
            }
            None => String::new(),
        };
        self.doc_ids.push(doc_id);
        Ok(())
    }

    fn finish(mut self) -> Result<Dataset, DataError> {
        if self.labels.is_empty() {
            return Err(DataError::Empty { file: self.source.to_owned() });
        }
        let undeclared_width_moved = self.limit.is_none() && self.max_index != self.width;
        if self.labels.len() != self.rows || undeclared_width_moved {
            return Err(self.changed());
        }
        self.offsets.push(self.labels.len());
        if let (n @ 1.., lo, hi) = self.fractional
            && let Some(rule) = self.format.fractional_labels
        {
            log::warn!(
                "{}: {n} of {} labels are real values, not grades (from {lo} to {hi}); {} \
                 (fractional_labels = \"{}\")",
                self.source,
                self.labels.len(),
                rule.describe(),
                rule.as_str()
            );
        }
        let doc_ids = self.any_doc_id.then_some(self.doc_ids);
        Dataset::from_parts(self.width, self.features, self.labels, self.offsets, self.qids, doc_ids)
            .map_err(|e| DataError::Invalid { file: self.source.to_owned(), source: e })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::LabelRounding;

    /// `parse_bytes`, also returning how the feature matrix was allocated.
    fn parse_with_stats(bytes: &[u8], opts: &ReadOptions) -> (Result<Dataset, DataError>, MatrixStats) {
        let mut surveyor = Surveyor::new(opts);
        for line in bytes.split(|&b| b == b'\n') {
            surveyor.line(line);
        }
        let survey = surveyor.finish(bytes.len() as u64);
        let mut parser = match Parser::new("t.txt", opts, &survey) {
            Ok(p) => p,
            Err(e) => return (Err(e), MatrixStats::default()),
        };
        for line in bytes.split(|&b| b == b'\n') {
            if let Err(e) = parser.line(line) {
                return (Err(e), parser.stats);
            }
        }
        let stats = parser.stats;
        (parser.finish(), stats)
    }

    fn parse(text: &str) -> Result<Dataset, DataError> {
        parse_bytes(text.as_bytes(), "t.txt", &ReadOptions::default())
    }

    fn err_of(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_letor4_lines_with_crlf_and_comments() {
        let text = "2 qid:10 1:0.5 2:1 #docid = GX1 inc = 1 prob = 0.08\r\n0 qid:10 1:0.25 2:0 #docid = GX2 inc = 0.003 prob = 0.1\r\n1 qid:11 2:3 #docid = GX3\r\n";
        let d = parse(text).unwrap();
        assert_eq!(d.n_features(), 2);
        assert_eq!(d.n_queries(), 2);
        assert_eq!(d.labels(), &[2, 0, 1]);
        assert_eq!(d.features(), &[0.5, 1.0, 0.25, 0.0, 0.0, 3.0]);
        assert_eq!(d.query_ids(), &["10".to_string(), "11".to_string()]);
        assert_eq!(d.doc_ids().unwrap(), &["GX1".to_string(), "GX2".to_string(), "GX3".to_string()]);
    }

    #[test]
    fn sparse_rows_widen_and_pad() {
        let d = parse("0 qid:1 3:1\n1 qid:1 20:2\n0 qid:2 1:5\n").unwrap();
        assert_eq!(d.n_features(), 20);
        assert_eq!(d.row(0)[2], 1.0);
        assert_eq!(d.row(1)[19], 2.0);
        assert_eq!(d.row(2)[0], 5.0);
        assert_eq!(d.row(2)[1..].iter().filter(|&&v| v != 0.0).count(), 0);
        let opts = ReadOptions { n_features: Some(25), ..Default::default() };
        let d = parse_bytes(b"0 qid:1 3:1\n", "t", &opts).unwrap();
        assert_eq!(d.n_features(), 25);
        let opts = ReadOptions { n_features: Some(2), ..Default::default() };
        let e = parse_bytes(b"0 qid:1 3:1\n", "t", &opts).unwrap_err().to_string();
        assert!(e.contains("t:1") && e.contains("3:1"), "{e}");
    }

    #[test]
    fn errors_name_file_line_and_token() {
        // Each input with what its message must start with and contain.
        let cases: &[(&str, &str, &[&str])] = &[
            ("0 qid:1 1:1\nx qid:1 1:1\n", "t.txt:2:", &["`x`"]),
            ("0 1:1\n", "", &["t.txt:1:", "qid"]),
            ("0 qid: 1:1\n", "", &["qid"]),
            ("0 qid:1 0:1\n", "", &["index 0", "`0:1`"]),
            ("0 qid:1 2:1 1:1\n", "", &["`1:1`", "previous"]),
            ("0 qid:1 1:1 1:2\n", "", &["`1:2`"]),
            ("0 qid:1 1:abc\n", "", &["`1:abc`"]),
            ("0 qid:1 1:inf\n", "", &["finite", "`1:inf`"]),
            ("0 qid:1 1:NaN\n", "", &["finite"]),
            ("0 qid:1 1:1\n0 qid:2 1:1\n0 qid:1 1:1\n", "t.txt:3:", &["line 1"]),
            ("0 qid:1 1\n", "", &["index:value"]),
            ("256 qid:1 1:1\n", "", &["`256`"]),
            ("-1 qid:1 1:1\n", "", &["`-1`"]),
        ];
        for (text, start, parts) in cases {
            let e = err_of(text);
            assert!(e.starts_with(start) && parts.iter().all(|p| e.contains(p)), "{text:?}: {e}");
        }
        assert!(err_of("\n\n# nothing\n").contains("no documents"));
        // A line with only a label names the line itself.
        let e = err_of("0 qid:1 1:1\n2\n");
        assert!(e.starts_with("t.txt:2:") && e.contains("qid") && e.contains("`2`"), "{e}");
        // A stray huge index is an error, not a dense row of that width.
        let e = err_of("0 qid:1 1:1 99999999:1\n");
        assert!(e.contains("above 65536") && e.contains("`99999999:1`"), "{e}");
        let wide = format!("0 qid:1 {MAX_UNDECLARED_FEATURES}:1\n");
        assert_eq!(parse(&wide).unwrap().n_features(), MAX_UNDECLARED_FEATURES);
    }

    #[test]
    fn dense_matrix_is_allocated_once_at_its_final_size() {
        // The width grows along the file (3, then 40, then 700): the matrix must still be
        // allocated once, at rows x final width, with no copy alive beside it.
        let mut text = String::new();
        for q in 0..300 {
            let top = match q {
                0..100 => 3,
                100..200 => 40,
                _ => 700,
            };
            text += &format!("{} qid:{q} 1:0.5 {top}:1\n", q % 3);
        }
        for opts in [ReadOptions::default(), ReadOptions { n_features: Some(700), ..Default::default() }] {
            let (d, stats) = parse_with_stats(text.as_bytes(), &opts);
            let d = d.unwrap();
            assert_eq!((d.n_docs(), d.n_features()), (300, 700));
            assert_eq!(stats, MatrixStats { allocations: 1, peak_elems: 300 * 700 }, "{opts:?}");
        }
    }

    #[test]
    fn dense_matrix_beyond_the_memory_limit_is_refused_before_allocating() {
        // Tiny sparse text, a huge dense matrix: 2,000 rows x 65,536 features x 4 bytes.
        let text: String = (0..2000).map(|q| format!("0 qid:{q} 65536:1\n")).collect();
        let opts = ReadOptions { max_dense_bytes: Some(64 << 20), ..Default::default() };
        let (r, stats) = parse_with_stats(text.as_bytes(), &opts);
        let e = r.unwrap_err().to_string();
        for part in ["t.txt:1:", "`65536:1`", "2000 rows x 65536 features x 4 bytes", "sparse"] {
            assert!(e.contains(part), "{part:?} not in {e}");
        }
        assert_eq!(stats.peak_elems, 0, "allocated before refusing");
        // Without an explicit limit the same file is refused as well: its dense matrix would
        // be thousands of times its text (whatever memory the machine has).
        let e = parse_with_stats(text.as_bytes(), &ReadOptions::default()).0.unwrap_err().to_string();
        assert!(e.contains("`65536:1`") && e.contains("sparse"), "{e}");
        // The same rows at a declared width that fits are fine.
        let narrow: String = (0..2000).map(|q| format!("0 qid:{q} 6:1\n")).collect();
        assert!(parse_with_stats(narrow.as_bytes(), &opts).0.is_ok());
        // A declared feature count that cannot fit is refused before anything is allocated.
        let huge = ReadOptions { n_features: Some(1 << 28), ..opts };
        let (r, stats) = parse_with_stats(b"0 qid:1 1:1\n", &huge);
        let e = r.unwrap_err().to_string();
        assert!(e.contains("declared feature count"), "{e}");
        assert_eq!(stats.peak_elems, 0);
    }

    #[test]
    fn sparse_lines_with_the_largest_accepted_index_do_not_allocate_gigabytes() {
        // 20,000 lines of `0 qid:N 65536:1` (380 KB) asked for 8 GiB; whatever the machine
        // has, a dense matrix 15,000 times the text is refused.
        let text: String = (0..20_000).map(|q| format!("0 qid:{q} 65536:1\n")).collect();
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains("20000 rows x 65536 features x 4 bytes = 4.9 GiB"), "{e}");
        assert!(e.contains("64 times the 379.8 KiB of text"), "{e}");
    }

    #[test]
    fn available_memory_comes_from_meminfo() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   21000000 kB\n";
        assert_eq!(meminfo_available(text), Some(21_000_000 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
        assert_eq!(meminfo_available("MemAvailable: lots\n"), None);
    }

    #[test]
    fn input_changed_between_the_passes_is_an_error() {
        // A reader whose second pass sees other bytes than its first.
        struct Flip {
            first: std::io::Cursor<Vec<u8>>,
            second: std::io::Cursor<Vec<u8>>,
            passes: u32,
        }
        impl Read for Flip {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.passes == 0 { self.first.read(buf) } else { self.second.read(buf) }
            }
        }
        impl Seek for Flip {
            fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
                if pos == SeekFrom::Current(0) {
                    return Ok(0);
                }
                self.passes += 1;
                self.second.seek(pos)
            }
        }
        for (a, b) in [
            ("0 qid:1 1:1\n", "0 qid:1 1:1 2:1\n"),
            ("0 qid:1 1:1\n", "0 qid:1 1:1\n0 qid:1 1:1\n"),
            ("0 qid:1 1:1 3:1\n", "0 qid:1 1:1 2:1\n"),
        ] {
            let flip = Flip {
                first: std::io::Cursor::new(a.as_bytes().to_vec()),
                second: std::io::Cursor::new(b.as_bytes().to_vec()),
                passes: 0,
            };
            let e = read_from(flip, "t", &ReadOptions::default()).unwrap_err();
            assert!(matches!(e, DataError::Changed { .. }), "{a:?} -> {b:?}: {e}");
        }
    }

    #[test]
    fn cr_only_line_endings_are_refused_by_name() {
        // Classic Mac OS line ends: read as one line, the first comment swallowed the rest of
        // the file and it became one document.
        let text = "2 qid:1 1:0.5 #docid = a\r0 qid:1 1:0.25 #docid = b\r1 qid:2 1:1 #docid = c\r";
        let e = err_of(text);
        assert!(e.starts_with("t.txt:1:") && e.contains("CR-only line endings"), "{e}");
        let e = read_from(std::io::Cursor::new(text), "t.txt", &ReadOptions::default()).unwrap_err();
        assert!(e.to_string().contains("CR-only line endings"), "{e}");
        // CRLF stays fine.
        assert_eq!(parse(&text.replace('\r', "\r\n")).unwrap().n_docs(), 3);
    }

    #[test]
    fn control_and_whitespace_characters_in_ids_are_refused_with_their_line() {
        // Tools that split TREC files on whitespace (trec_eval on ASCII, Python on Unicode)
        // would read such an id as two fields, and NUL ends C strings.
        for bad in ["\u{b}", "\u{c}", "\0", "\u{1f}", "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}"] {
            let text = format!("0 qid:1 1:1 #docid = a\n1 qid:2{bad}x 1:1 #docid = b\n");
            let e = err_of(&text);
            assert!(e.starts_with("t.txt:2:") && e.contains("query id"), "{bad:?}: {e}");
            let text = format!("0 qid:1 1:1 #docid = a\n1 qid:1 1:1 #docid = b{bad}x\n");
            let e = err_of(&text);
            assert!(e.starts_with("t.txt:2:") && e.contains("document id"), "{bad:?}: {e}");
        }
        // Printable non-ASCII ids are fine.
        let d = parse("0 qid:é1 1:1 #docid = ü-2\n").unwrap();
        assert_eq!((d.query_ids()[0].as_str(), d.doc_ids().unwrap()[0].as_str()), ("é1", "ü-2"));
    }

    #[test]
    fn utf8_byte_order_mark_is_accepted_at_the_start() {
        let text = "\u{feff}2 qid:1 1:0.5\r\n0 qid:1 1:0.25\r\n";
        let d = parse(text).unwrap();
        assert_eq!((d.labels(), d.n_features()), (&[2u8, 0][..], 1));
        let loaded = read_from(std::io::Cursor::new(text), "t", &ReadOptions::default()).unwrap();
        assert_eq!(loaded.dataset, d);
        // Anywhere else it is not a label.
        let e = err_of("2 qid:1 1:0.5\n\u{feff}0 qid:1 1:0.25\n");
        assert!(e.starts_with("t.txt:2:") && e.contains("label"), "{e}");
    }

    #[test]
    fn missing_token_reads_as_zero_only_when_declared() {
        assert!(parse("0 qid:1 1:NULL 2:1\n").is_err());
        let opts = ReadOptions { missing_token: Some("NULL".into()), ..Default::default() };
        let d = parse_bytes(b"0 qid:1 1:NULL 2:1\n", "t", &opts).unwrap();
        assert_eq!(d.row(0), &[0.0, 1.0]);
    }

    /// Yandex's IM2009 lines: no `qid:` token, the query id as the comment, real labels.
    const IMAT: &str = "1 1:0.000023 7:0.704953 # 3382\n0.5 7:0.273423 245:1 # 3382\n\
                        2.16049 3:0.0068 # 11800\n0 2:1 # 11800\n2.5 1:1 # 11800\n";

    fn imat(rule: Option<LabelRounding>) -> LineFormat {
        LineFormat { qid_in_comment: true, fractional_labels: rule }
    }

    #[test]
    fn query_ids_in_comments_and_real_labels_read_by_the_declared_rule() {
        let opts = ReadOptions { format: imat(Some(LabelRounding::Round)), ..Default::default() };
        let d = parse_bytes(IMAT.as_bytes(), "imat.txt", &opts).unwrap();
        assert_eq!(d.labels(), &[1, 1, 2, 0, 3], "0.5 and 2.5 up, 2.16049 down");
        assert_eq!(d.query_ids(), &["3382".to_string(), "11800".to_string()]);
        assert_eq!((d.n_features(), d.row(1)[244], d.row(2)[2]), (245, 1.0, 0.0068));
        assert!(d.doc_ids().is_none(), "the comment is the query id, not a document id");
        let opts = ReadOptions { format: imat(Some(LabelRounding::Floor)), ..Default::default() };
        let d = parse_bytes(IMAT.as_bytes(), "imat.txt", &opts).unwrap();
        assert_eq!(d.labels(), &[1, 0, 2, 0, 2]);
        // Integer labels written as decimals are grades under a rule, not moved.
        assert_eq!(grade_of(b"3.000", imat(Some(LabelRounding::Floor))), Ok((3, None)));
        assert_eq!(grade_of(b"0.25", imat(Some(LabelRounding::Round))), Ok((0, Some(0.25))));
    }

    #[test]
    fn real_labels_and_missing_query_ids_are_refused_unless_declared() {
        // No rule: a real label is refused with the key that reads it.
        let e = err_of("0.5 qid:1 1:1\n");
        assert!(e.starts_with("t.txt:1:") && e.contains("fractional_labels") && e.contains("`0.5`"), "{e}");
        let opts = ReadOptions { format: imat(None), ..Default::default() };
        let e = parse_bytes(IMAT.as_bytes(), "imat.txt", &opts).unwrap_err().to_string();
        assert!(e.starts_with("imat.txt:2:") && e.contains("real number"), "{e}");
        // The LETOR form: no `qid:` token.
        let e = parse_bytes(IMAT.as_bytes(), "imat.txt", &ReadOptions::default()).unwrap_err().to_string();
        assert!(e.starts_with("imat.txt:1:") && e.contains("qid"), "{e}");
        // The comment form: the comment must be the one token.
        let round = ReadOptions { format: imat(Some(LabelRounding::Round)), ..Default::default() };
        for bad in ["1 1:1\n", "1 1:1 #\n", "1 1:1 # docid = 7\n"] {
            let e = parse_bytes(bad.as_bytes(), "c.txt", &round).unwrap_err().to_string();
            assert!(e.starts_with("c.txt:1:") && e.contains("# <qid>"), "{bad:?}: {e}");
        }
        // Withheld labels (IM2009's test file writes -1) and labels past 255 are no grades.
        for bad in ["-1 1:1 # 5\n", "255.5 1:1 # 5\n", "nan 1:1 # 5\n", "inf 1:1 # 5\n"] {
            let e = parse_bytes(bad.as_bytes(), "c.txt", &round).unwrap_err().to_string();
            assert!(e.contains("label is not an integer grade"), "{bad:?}: {e}");
        }
        assert_eq!(LabelRounding::Round.grade(255.49), Some(255));
        assert_eq!(LabelRounding::Floor.grade(1.99), Some(1));
        assert_eq!(
            "ceil".parse::<LabelRounding>().unwrap_err(),
            "`ceil` is not a rule for fractional labels (round, floor)"
        );
    }

    #[test]
    fn clip_bounds_values_and_takes_istella_sentinels_but_not_inf() {
        let line = b"0 qid:1 1:1.79769313486232e+308 2:-3e7 3:0.5 4:-1.79769313486232E+308\n";
        assert!(parse(std::str::from_utf8(line).unwrap()).is_err(), "refused without a clip");
        let opts = ReadOptions { clip: Some(1e6), ..Default::default() };
        let d = parse_bytes(line, "t", &opts).unwrap();
        assert_eq!(d.row(0), &[1e6, -1e6, 0.5, -1e6]);
        for bad in ["inf", "-inf", "nan", "NaN"] {
            let text = format!("0 qid:1 1:{bad}\n");
            assert!(parse_bytes(text.as_bytes(), "t", &opts).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_long_line_is_split_in_linear_time() {
        // One 50 MB line spanning many read chunks, then a short one: every byte must be
        // looked at a bounded number of times, not once per chunk read after it.
        let mut text = b"0 qid:1 1:1 #docid = x ".to_vec();
        text.resize(50 << 20, b'a');
        text.extend_from_slice(b"\n1 qid:1 1:2\n");
        let mut lines = Vec::new();
        let (bytes, work) = split_lines(std::io::Cursor::new(&text), "long", None, MAX_LINE_BYTES, |l| {
            lines.push(l.len());
            Ok(())
        })
        .unwrap();
        assert_eq!(bytes, text.len() as u64);
        assert_eq!(lines, vec![50 << 20, 11]);
        let len = text.len() as u64;
        assert!(work.scanned <= len + 1 && work.moved <= len, "{work:?} for {len} bytes");
        let loaded = read_from(std::io::Cursor::new(&text), "long", &ReadOptions::default()).unwrap();
        assert_eq!(loaded.dataset.n_docs(), 2);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_refused_before_it_is_held() {
        let mut text = b"0 qid:1 1:1 #".to_vec();
        text.resize(5000, b'a');
        text.extend_from_slice(b"\n1 qid:1 1:2\n");
        let e = split_lines(std::io::Cursor::new(&text), "t.txt", None, 1000, |_| Ok(())).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("t.txt:1:") && e.contains("longer than 1000 bytes"), "{e}");
        let e = split_lines(std::io::Cursor::new(&text), "t.txt", None, 4000, |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("longer than 4000 bytes"), "{e}");
        assert!(split_lines(std::io::Cursor::new(&text), "t.txt", None, 5000, |_| Ok(())).is_ok());
    }

    #[test]
    fn last_line_without_newline_and_chunked_reader() {
        let text = "1 qid:1 1:1\n0 qid:1 1:2";
        let loaded =
            read_from(std::io::Cursor::new(text), "t", &ReadOptions { sha256: true, ..Default::default() })
                .unwrap();
        assert_eq!(loaded.dataset.n_docs(), 2);
        assert_eq!(loaded.bytes, text.len() as u64);
        assert_eq!(loaded.sha256.unwrap(), hex(&Sha256::digest(text.as_bytes())));
    }
}
