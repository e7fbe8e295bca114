//! Errors of the data layer. Every variant names the file (and line) it is about.

use std::path::PathBuf;

/// What is wrong with one line of a LETOR file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The first token is not an integer grade 0..=255.
    #[error("label is not an integer grade 0-255")]
    Label,
    /// A label that is a real number, not an integer, with no rule declared to make it a grade.
    #[error(
        "label is a real number, not an integer grade; a dataset whose labels are real values reads with `fractional_labels = \"round\"` (or \"floor\"), which says how they become grades"
    )]
    FractionalLabel,
    /// No `qid:` token after the label.
    #[error(
        "expected `qid:<id>` after the label (a file that writes the query id as the comment, `# <qid>`, reads with `qid_in_comment = true`)"
    )]
    MissingQid,
    /// The query id is declared to be the comment, and the comment is not one token.
    #[error("expected the query id as the line's comment, `# <qid>` (one token)")]
    CommentQid,
    /// `qid:` with nothing after it.
    #[error("empty query id")]
    EmptyQid,
    /// A token that is not `index:value`.
    #[error("expected `index:value`")]
    Feature,
    /// Index 0.
    #[error("feature index 0 (indices start at 1)")]
    ZeroIndex,
    /// An index not greater than the one before it.
    #[error("feature index not greater than the previous one ({previous})")]
    OutOfOrder {
        /// The previous index on the line.
        previous: usize,
    },
    /// A value that does not parse as a number.
    #[error("feature value is not a number")]
    Value,
    /// inf or NaN.
    #[error("feature value is not a finite number")]
    NonFinite,
    /// An index above the declared feature count.
    #[error("feature index beyond the declared feature count {limit}")]
    TooManyFeatures {
        /// The declared count.
        limit: usize,
    },
    /// An index above [`crate::options::MAX_UNDECLARED_FEATURES`] with no declared count.
    #[error("feature index above {max}, the most accepted without a declared feature count")]
    IndexTooLarge {
        /// The largest index accepted.
        max: usize,
    },
    /// A qid seen before, after another query started.
    #[error("query id reappears after another query started (its query began at line {first_line})")]
    QidReappears {
        /// Line where the query first started.
        first_line: usize,
    },
    /// A qid or docid that is not UTF-8.
    #[error("not valid UTF-8")]
    Utf8,
    /// A query or document id holding a control or whitespace character (vertical tab, form
    /// feed, NUL, no-break space, ...), which whitespace-separated formats such as TREC run
    /// and qrels files would read as a field break.
    #[error("{what} holds {ch:?} (U+{:04X}), a control or whitespace character: TREC files and other tools would split the id there", u32::from(*ch))]
    IdCharacter {
        /// `query id` or `document id`.
        what: &'static str,
        /// The character.
        ch: char,
    },
    /// A carriage return inside a line: the file's lines end with CR alone (classic Mac
    /// OS), which is not accepted.
    #[error(
        "CR-only line endings (a carriage return inside a line); convert the file to LF or CRLF line endings"
    )]
    CrOnly,
    /// A blank line where every line must hold a value (score files).
    #[error("blank line (a score file holds one score on every line)")]
    BlankLine,
    /// A score-file line that is not one number or RankLib's `qid index score`.
    #[error("expected a score: one number, or RankLib's `qid<TAB>index<TAB>score`")]
    Score,
    /// A score-file line whose layout (one field or RankLib's three) is not the first line's.
    #[error("{}", if *ranklib_first { "one field where the first line has RankLib's three (`qid index score`)" } else { "three fields where the first line has one score" })]
    ScoreLayout {
        /// Whether the first line has RankLib's layout.
        ranklib_first: bool,
    },
    /// A line longer than the reader holds.
    #[error("line longer than {max} bytes")]
    LineTooLong {
        /// The longest line accepted.
        max: usize,
    },
}

/// Which limit a dense feature matrix would exceed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenseLimit {
    /// No feature count was declared and the matrix would be more than
    /// [`crate::options::MAX_DENSE_EXPANSION`] times the text it is read from (and more than
    /// [`crate::options::SPARSE_FLOOR_BYTES`]).
    Sparse {
        /// Bytes of text read.
        text_bytes: u64,
    },
    /// The caller's limit ([`crate::ReadOptions::max_dense_bytes`]).
    Limit {
        /// The limit in bytes.
        bytes: u64,
    },
    /// Three quarters of the memory the system reports available.
    Memory {
        /// Available memory in bytes.
        available: u64,
    },
    /// The allocator refused it (or it exceeds the address space).
    Allocation,
}

impl std::fmt::Display for DenseLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Sparse { text_bytes } => write!(
                f,
                "{} times the {} of text it is read from (and more than {})",
                crate::options::MAX_DENSE_EXPANSION,
                human_bytes(*text_bytes),
                human_bytes(crate::options::SPARSE_FLOOR_BYTES)
            ),
            Self::Limit { bytes } => write!(f, "the limit of {}", human_bytes(*bytes)),
            Self::Memory { available } => {
                write!(f, "three quarters of the {} of memory available", human_bytes(*available))
            }
            Self::Allocation => f.write_str("what can be allocated"),
        }
    }
}

/// `5.0 GiB`, `340.2 KiB`, `12 bytes`.
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} bytes");
    }
    let mut v = b as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

fn too_large(
    file: &str,
    cause: &Option<(usize, String)>,
    rows: usize,
    width: usize,
    bytes: u64,
    limit: &DenseLimit,
) -> String {
    let what = match cause {
        Some((line, token)) => format!("{file}:{line}: feature index {width} (`{token}`) makes"),
        None => format!("{file}: the declared feature count {width} makes"),
    };
    format!(
        "{what} the dense feature matrix {rows} rows x {width} features x 4 bytes = {}, more than {limit}; \
         ltr stores every row densely, so sparse input with large feature indices does not fit: \
         renumber the features 1..N (N = the number of distinct features) or declare the real \
         feature count",
        human_bytes(bytes)
    )
}

/// Errors of `ltr-data`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// A malformed line.
    #[error("{file}:{line}: {kind}: `{token}`")]
    Parse {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The offending token (truncated, escaped).
        token: String,
        /// What is wrong.
        kind: ParseErrorKind,
    },
    /// A dense feature matrix that would exceed a memory limit: refused before allocating.
    #[error("{}", too_large(file, cause, *rows, *width, *bytes, limit))]
    TooLarge {
        /// File name.
        file: String,
        /// Line and token of the feature index that sets the width; `None` when the width
        /// is the declared feature count.
        cause: Option<(usize, String)>,
        /// Documents in the file.
        rows: usize,
        /// Features per row.
        width: usize,
        /// Bytes the matrix would take.
        bytes: u64,
        /// The limit it exceeds.
        limit: DenseLimit,
    },
    /// Input that changed between the reader's two passes.
    #[error("{file}: changed while it was being read; read it again")]
    Changed {
        /// File name.
        file: String,
    },
    /// A score file with another number of scores than the feature file has documents.
    #[error("{file} holds {scores} scores but {data_file} has {docs} documents")]
    ScoreCount {
        /// The score file.
        file: String,
        /// Scores in it.
        scores: usize,
        /// The feature file.
        data_file: String,
        /// Documents in it.
        docs: usize,
    },
    /// A RankLib score line for another document than the feature file's on that line.
    #[error(
        "{file}:{line}: scores query `{qid}` index {index}, but document {line} of {data_file} is \
         query `{expected_qid}` index {expected_index}"
    )]
    ScoreQuery {
        /// The score file.
        file: String,
        /// 1-based line (= document number).
        line: usize,
        /// Query id on the line.
        qid: String,
        /// In-query index on the line.
        index: u64,
        /// The feature file.
        data_file: String,
        /// The document's query id.
        expected_qid: String,
        /// The document's 0-based index in its query.
        expected_index: u64,
    },
    /// A file with no document at all.
    #[error("{file}: no documents")]
    Empty {
        /// File name.
        file: String,
    },
    /// Parsed parts that do not form a data set.
    #[error("{file}: {source}")]
    Invalid {
        /// File name.
        file: String,
        /// The core error.
        source: ltr_core::Error,
    },
    /// An I/O failure on a path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A manifest that does not parse or is inconsistent.
    #[error("manifest {}: {reason}", path.display())]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A collection, dataset, variant or fold that the manifest does not have.
    #[error("{0}")]
    NotInManifest(String),
    /// A file whose sha256 is not the manifest's.
    #[error("sha256 mismatch for {file}: expected {expected}, got {actual}")]
    Checksum {
        /// The file (relative path in the collection, or the embedded piece).
        file: String,
        /// Hash from the manifest (or the local record).
        expected: String,
        /// Hash of what was received.
        actual: String,
    },
    /// A file whose content, hashed as it was read, is not the content its sha256 was
    /// recorded from (it changed after its dataset was resolved): nothing read from it is
    /// used.
    #[error(
        "{file}: changed after its dataset was resolved: sha256 {actual} as read, {expected} as \
         recorded; nothing was computed from it (restore the file, or run again to use the new \
         content)"
    )]
    NotAsHashed {
        /// The file.
        file: String,
        /// The hash recorded when the dataset was resolved.
        expected: String,
        /// The hash of the bytes read.
        actual: String,
    },
    /// Embedded data that is missing from this build or cannot be used.
    #[error("embedded data {path}: {reason}")]
    Embedded {
        /// The piece (relative to `datasets/embedded/`) or the file to rebuild.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A dataset whose files are not where they were looked for.
    #[error("{dataset} is unavailable: {reason}")]
    Unavailable {
        /// Dataset name.
        dataset: String,
        /// Why.
        reason: String,
    },
}

impl DataError {
    /// The message for a line that already names the dataset: the bare reason of
    /// [`DataError::Unavailable`] (whose own message starts `"<dataset> is unavailable"`),
    /// the whole message otherwise.
    pub fn reason(&self) -> String {
        match self {
            Self::Unavailable { reason, .. } => reason.clone(),
            e => e.to_string(),
        }
    }
}
