//! A user's own LETOR data on disk: which layout a folder has, and what its files hold.
//!
//! Layouts recognised ([`detect`]):
//!
//! * `Fold1/ .. FoldN/`, each with `train`, `vali`, `test` (LETOR 3.0/4.0, MSLR-WEB) or
//!   `trainingset`, `validationset`, `testset` (LETOR 2.0), each `.txt` or `.txt.gz`;
//! * the three files directly in the folder (one fold: Istella-S, a user's single split);
//! * one file, which the caller splits into query-disjoint subsets ([`crate::split`]).
//!
//! [`inspect`] streams one file (plain or gzip) once: its sha256, rows, queries, highest
//! feature index and the grades that occur, without building the dense matrix, so that
//! the folds of a large collection can be checked against each other before anything is
//! parsed for real.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use ltr_core::Grade;
use ltr_core::fs::open_regular;
use sha2::{Digest, Sha256};

use ltr_format::reader::hex;
use ltr_format::tokens::{comment_qid, grade_of};
use ltr_format::{DataError, LineFormat, ParseErrorKind};

use crate::manifest::MAX_FOLDS;
use crate::rotation::Split;

/// The split file names recognised in a fold folder, in order of preference.
pub const SPLIT_NAMES: [[&str; 3]; 2] =
    [["train", "vali", "test"], ["trainingset", "validationset", "testset"]];

/// The files of one fold of a local dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldPaths {
    /// Fold number (1-based).
    pub fold: u32,
    /// Training split.
    pub train: PathBuf,
    /// Validation split.
    pub vali: PathBuf,
    /// Test split.
    pub test: PathBuf,
}

impl FoldPaths {
    /// The path of one split.
    pub fn of(&self, split: Split) -> &Path {
        match split {
            Split::Train => &self.train,
            Split::Vali => &self.vali,
            Split::Test => &self.test,
        }
    }
}

/// What [`detect`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Fold folders (or one fold's files directly in the folder): the folder and its folds.
    Folds {
        /// The dataset folder.
        root: PathBuf,
        /// The folds, numbered from 1.
        folds: Vec<FoldPaths>,
        /// The split names used (`train/vali/test`).
        names: String,
    },
    /// One file, to be split into query-disjoint subsets.
    Single(PathBuf),
}

/// Detects the layout of `path` (a folder or one file). Fails, naming the path and what was
/// looked for, when it is neither.
pub fn detect(path: &Path) -> Result<Layout, DataError> {
    let unavailable = |reason: String| DataError::Unavailable { dataset: path.display().to_string(), reason };
    let meta = std::fs::metadata(path).map_err(|source| DataError::Io { path: path.to_owned(), source })?;
    if meta.is_file() {
        return Ok(Layout::Single(path.to_owned()));
    }
    let mut numbered: Vec<(u32, PathBuf)> = Vec::new();
    for entry in read_dir(path)? {
        let name = entry.0.to_ascii_lowercase();
        if let Some(k) = name.strip_prefix("fold").and_then(|k| k.parse::<u32>().ok())
            && entry.1.is_dir()
        {
            numbered.push((k, entry.1));
        }
    }
    numbered.sort();
    if numbered.is_empty() {
        return match split_files(path)? {
            Some((train, vali, test, names)) => Ok(Layout::Folds {
                root: path.to_owned(),
                folds: vec![FoldPaths { fold: 1, train, vali, test }],
                names,
            }),
            None => Err(unavailable(format!(
                "no Fold1..FoldN folders and no {} files (.txt or .txt.gz) in it",
                SPLIT_NAMES.map(|n| n.join("/")).join(" or ")
            ))),
        };
    }
    if numbered.len() > MAX_FOLDS as usize {
        return Err(unavailable(format!("more than {MAX_FOLDS} fold folders")));
    }
    // `Fold1` and `Fold01` (or `fold1`) are one fold number twice, not a gap after it.
    if let Some(pair) = numbered.windows(2).find(|p| p[0].0 == p[1].0) {
        return Err(unavailable(format!(
            "{} and {} are both fold {}: keep one of them",
            pair[0].1.display(),
            pair[1].1.display(),
            pair[0].0
        )));
    }
    let mut folds = Vec::new();
    let mut used: Option<String> = None;
    for (i, (k, dir)) in numbered.into_iter().enumerate() {
        if k as usize != i + 1 {
            return Err(unavailable(format!(
                "fold folders must be numbered 1..N without gaps; found {}",
                dir.display()
            )));
        }
        let (train, vali, test, names) = split_files(&dir)?.ok_or_else(|| {
            unavailable(format!(
                "{} holds no {} files (.txt or .txt.gz)",
                dir.display(),
                SPLIT_NAMES.map(|n| n.join("/")).join(" or ")
            ))
        })?;
        match &used {
            Some(u) if *u != names => {
                return Err(unavailable(format!(
                    "{} uses {names} files, the folds before it {u}",
                    dir.display()
                )));
            }
            _ => used = Some(names),
        }
        folds.push(FoldPaths { fold: k, train, vali, test });
    }
    Ok(Layout::Folds { root: path.to_owned(), folds, names: used.unwrap_or_default() })
}

/// (name, path) of the entries of a folder, sorted by name.
fn read_dir(dir: &Path) -> Result<Vec<(String, PathBuf)>, DataError> {
    let io = |source| DataError::Io { path: dir.to_owned(), source };
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io)? {
        let e = e.map_err(io)?;
        out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    out.sort();
    Ok(out)
}

/// The train, vali and test files of a folder under one of [`SPLIT_NAMES`] (ASCII case
/// ignored; `.txt` preferred over `.txt.gz`), with the names used.
fn split_files(dir: &Path) -> Result<Option<(PathBuf, PathBuf, PathBuf, String)>, DataError> {
    let entries = read_dir(dir)?;
    let find = |stem: &str| -> Option<PathBuf> {
        ["txt", "txt.gz"].iter().find_map(|ext| {
            let want = format!("{stem}.{ext}");
            entries.iter().find(|(n, p)| n.eq_ignore_ascii_case(&want) && p.is_file()).map(|(_, p)| p.clone())
        })
    };
    for names in SPLIT_NAMES {
        if let (Some(a), Some(b), Some(c)) = (find(names[0]), find(names[1]), find(names[2])) {
            return Ok(Some((a, b, c, names.join("/"))));
        }
    }
    Ok(None)
}

/// What one file holds, from one streaming pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    /// sha256 of the uncompressed bytes.
    pub sha256: String,
    /// Uncompressed size in bytes.
    pub bytes: u64,
    /// Documents.
    pub rows: usize,
    /// Queries (runs of one query id).
    pub queries: usize,
    /// The highest feature index used.
    pub max_index: usize,
    /// The grades that occur, ascending.
    pub labels: Vec<Grade>,
}

/// Opens a regular file ([`ltr_core::fs::open_regular`]), decompressing it when it is gzip
/// (by its magic bytes, not its name).
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead>, DataError> {
    let io = |source| DataError::Io { path: path.to_owned(), source };
    let mut f = open_regular(path).map_err(io)?;
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(io)?;
    let f = open_regular(path).map_err(io)?;
    Ok(if n == 2 && magic == [0x1f, 0x8b] {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(f)))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, f))
    })
}

/// Calls `on_line(line_no, content)` for every line of a file (plain or gzip), the content
/// without its line end; returns the byte count and the sha256 of the uncompressed bytes.
/// A line longer than [`ltr_format::options::MAX_LINE_BYTES`] is an error.
pub fn for_each_line(
    path: &Path,
    mut on_line: impl FnMut(usize, &[u8]) -> Result<(), DataError>,
) -> Result<(u64, String), DataError> {
    let name = path.display().to_string();
    let mut reader = open_text(path)?;
    let mut hasher = Sha256::new();
    let mut buf = Vec::with_capacity(4096);
    let mut bytes = 0u64;
    let mut line_no = 0usize;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(ltr_format::options::MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| DataError::Io { path: path.to_owned(), source })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if n > ltr_format::options::MAX_LINE_BYTES {
            return Err(DataError::Parse {
                file: name,
                line: line_no,
                token: String::new(),
                kind: ParseErrorKind::LineTooLong { max: ltr_format::options::MAX_LINE_BYTES },
            });
        }
        hasher.update(&buf);
        bytes += n as u64;
        let mut line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        line = line.strip_suffix(b"\r").unwrap_or(line);
        if line_no == 1 {
            line = line.strip_prefix(ltr_format::tokens::BOM).unwrap_or(line);
        }
        on_line(line_no, line)?;
    }
    Ok((bytes, hex(&hasher.finalize())))
}

/// A data line's grade, query id and last token.
pub(crate) type LineHead<'l> = (Grade, &'l [u8], &'l [u8]);

/// The label and query id of a data line (and its last token), `None` for a blank or
/// comment-only line, the file's [`LineFormat`] applied. Only what the split and the summary
/// need is checked; the reader checks the rest.
pub(crate) fn label_and_qid<'l>(
    file: &str,
    line_no: usize,
    line: &'l [u8],
    format: LineFormat,
) -> Result<Option<LineHead<'l>>, DataError> {
    let (data, comment) = match memchr::memchr(b'#', line) {
        Some(p) => (&line[..p], Some(&line[p + 1..])),
        None => (line, None),
    };
    let mut tokens = data.split(|b| *b == b' ' || *b == b'\t').filter(|t| !t.is_empty());
    let Some(label) = tokens.next() else { return Ok(None) };
    let err = |kind, token: &[u8]| DataError::Parse {
        file: file.to_owned(),
        line: line_no,
        token: String::from_utf8_lossy(&token[..token.len().min(40)]).into_owned(),
        kind,
    };
    let (grade, _) = grade_of(label, format).map_err(|kind| err(kind, label))?;
    let qid = if format.qid_in_comment {
        comment_qid(comment).ok_or_else(|| err(ParseErrorKind::CommentQid, line))?
    } else {
        let qid_tok = tokens.next().ok_or_else(|| err(ParseErrorKind::MissingQid, data))?;
        let qid = qid_tok.strip_prefix(b"qid:").ok_or_else(|| err(ParseErrorKind::MissingQid, qid_tok))?;
        if qid.is_empty() {
            return Err(err(ParseErrorKind::EmptyQid, qid_tok));
        }
        qid
    };
    let rest = tokens.next_back().unwrap_or(b"");
    Ok(Some((grade, qid, rest)))
}

/// Streams a file once (written in `format`): hash, rows, queries, highest feature index and
/// grades.
pub fn inspect(path: &Path, format: LineFormat) -> Result<FileSummary, DataError> {
    let name = path.display().to_string();
    let mut rows = 0usize;
    let mut queries = 0usize;
    let mut max_index = 0usize;
    let mut labels = BTreeSet::new();
    let mut last_qid: Vec<u8> = Vec::new();
    let (bytes, sha256) = for_each_line(path, |line_no, line| {
        let Some((grade, qid, last)) = label_and_qid(&name, line_no, line, format)? else { return Ok(()) };
        rows += 1;
        labels.insert(grade);
        if rows == 1 || qid != last_qid.as_slice() {
            queries += 1;
            last_qid.clear();
            last_qid.extend_from_slice(qid);
        }
        // Indices increase along a line, so its last `index:value` has its highest index.
        if let Some(colon) = memchr::memchr(b':', last)
            && let Some(i) = std::str::from_utf8(&last[..colon]).ok().and_then(|s| s.parse::<usize>().ok())
        {
            max_index = max_index.max(i);
        }
        Ok(())
    })?;
    if rows == 0 {
        return Err(DataError::Empty { file: name });
    }
    Ok(FileSummary { sha256, bytes, rows, queries, max_index, labels: labels.into_iter().collect() })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn fold_folders_of_either_naming_and_a_single_fold_are_found() {
        let d = tempfile::tempdir().unwrap();
        for k in 1..=3 {
            for s in SPLIT_NAMES[1] {
                write(d.path(), &format!("Fold{k}/{s}.txt"), "0 qid:1 1:1\n");
            }
        }
        let Layout::Folds { folds, names, .. } = detect(d.path()).unwrap() else { panic!() };
        assert_eq!(folds.len(), 3);
        assert_eq!(names, "trainingset/validationset/testset");
        assert!(folds[2].vali.ends_with("Fold3/validationset.txt"));

        let one = tempfile::tempdir().unwrap();
        for s in ["train.txt.gz", "VALI.txt", "test.txt"] {
            write(one.path(), s, "");
        }
        let Layout::Folds { folds, .. } = detect(one.path()).unwrap() else { panic!() };
        assert_eq!(folds.len(), 1);
        assert!(folds[0].vali.ends_with("VALI.txt"));

        let file = one.path().join("test.txt");
        assert_eq!(detect(&file).unwrap(), Layout::Single(file));
    }

    #[test]
    fn gaps_mixed_names_and_empty_folders_are_errors() {
        let d = tempfile::tempdir().unwrap();
        for k in [1, 3] {
            for s in SPLIT_NAMES[0] {
                write(d.path(), &format!("Fold{k}/{s}.txt"), "");
            }
        }
        assert!(detect(d.path()).unwrap_err().to_string().contains("without gaps"));
        for s in SPLIT_NAMES[1] {
            write(d.path(), &format!("Fold2/{s}.txt"), "");
        }
        let e = detect(d.path()).unwrap_err().to_string();
        assert!(e.contains("Fold3") && e.contains("train/vali/test") || e.contains("uses"), "{e}");
        let empty = tempfile::tempdir().unwrap();
        assert!(detect(empty.path()).unwrap_err().to_string().contains("no Fold1..FoldN"));
    }

    #[test]
    fn two_folders_of_one_fold_number_are_a_duplicate_not_a_gap() {
        for (names, a, b) in [
            (["Fold1", "Fold01", "Fold2"], "Fold01", "Fold1"),
            (["Fold1", "Fold2", "fold2"], "Fold2", "fold2"),
        ] {
            let d = tempfile::tempdir().unwrap();
            for n in names {
                for s in SPLIT_NAMES[0] {
                    write(d.path(), &format!("{n}/{s}.txt"), "0 qid:1 1:1\n");
                }
            }
            let e = detect(d.path()).unwrap_err().to_string();
            assert!(e.contains("fold 2") || e.contains("fold 1"), "{e}");
            assert!(e.contains(a) && e.contains(b) && !e.contains("gaps"), "{e}");
        }
    }

    #[test]
    fn inspect_counts_and_hashes_plain_and_gzip_alike() {
        let text = "2 qid:1 1:0.5 3:1 # docid = a\r\n0 qid:1 2:1\r\n\r\n1 qid:7 1:1 25:0.1\r\n";
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "a.txt", text);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        std::fs::write(d.path().join("a.txt.gz"), gz.finish().unwrap()).unwrap();
        let a = inspect(&d.path().join("a.txt"), LineFormat::default()).unwrap();
        assert_eq!((a.rows, a.queries, a.max_index, a.labels.clone()), (3, 2, 25, vec![0, 1, 2]));
        assert_eq!(a.sha256, hex(&Sha256::digest(text.as_bytes())));
        assert_eq!(inspect(&d.path().join("a.txt.gz"), LineFormat::default()).unwrap(), a);
        // Query ids in comments, real labels graded by the rule.
        write(d.path(), "imat.txt", "0.5 1:1 # 7\n2 245:0.5 # 7\n1.4 3:1 # 9\n");
        let format =
            LineFormat { qid_in_comment: true, fractional_labels: Some(ltr_format::LabelRounding::Round) };
        let i = inspect(&d.path().join("imat.txt"), format).unwrap();
        assert_eq!((i.rows, i.queries, i.max_index, i.labels), (3, 2, 245, vec![1, 2]));
        assert!(inspect(&d.path().join("imat.txt"), LineFormat::default()).is_err());
        write(d.path(), "bad.txt", "0 qid:1 1:1\nx qid:2 1:1\n");
        assert!(
            inspect(&d.path().join("bad.txt"), LineFormat::default())
                .unwrap_err()
                .to_string()
                .contains("bad.txt:2")
        );
    }

    #[test]
    fn a_read_against_a_recorded_hash_checks_the_bytes_parsed_plain_or_gzip() {
        // Resolution records what `local::inspect` hashes (the uncompressed bytes); a read
        // hashes the same bytes, whether the file on disk is compressed or not.
        let text = "2 qid:1 1:0.5 #docid = a\r\n0 qid:1 1:0.25 #docid = b\r\n";
        let d = tempfile::tempdir().unwrap();
        let plain = d.path().join("a.txt");
        std::fs::write(&plain, text).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let zipped = d.path().join("b.txt.gz");
        std::fs::write(&zipped, gz.finish().unwrap()).unwrap();
        let opts = ltr_format::ReadOptions::default();
        for p in [&plain, &zipped] {
            let recorded = inspect(p, LineFormat::default()).unwrap().sha256;
            let loaded = ltr_format::reader::read_file_as_hashed(p, &opts, &recorded).unwrap();
            assert_eq!(loaded.dataset.n_docs(), 2);
            let other = "0".repeat(64);
            let e = ltr_format::reader::read_file_as_hashed(p, &opts, &other).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, DataError::NotAsHashed { .. }), "{msg}");
            assert!(msg.contains(&recorded) && msg.contains(&other) && msg.contains(".txt"), "{msg}");
        }
    }
}
