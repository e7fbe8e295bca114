//! Structure-aware fuzzing of the data layer's parsers, as library functions that a fuzz
//! command (or a test) runs millions of times on the stable toolchain.
//!
//! Random bytes die at the first token. Inputs here start from real LETOR lines (the
//! OHSUMED and MQ2008 pieces compiled into `ltr`) and are edited the way files go wrong:
//! tokens swapped, dropped or repeated, huge feature indices, NaN and infinities, bad
//! labels, a query id that comes back, truncation, CR-only or mixed line ends, byte-order
//! marks, blank lines, stray bytes. Everything is drawn from one seed ([`ltr_core::Rng`]),
//! so a failing case is reproduced from its seed and case number.
//!
//! Targets ([`Target`]):
//! * [`Target::Reader`]: [`ltr_format::reader::parse_bytes`] and the chunked two-pass
//!   [`ltr_format::reader::read_from`] on the same input must agree (same data set, or the same
//!   error);
//! * [`Target::Scores`]: a score file (plain or RankLib's layout) for a real query, edited,
//!   read by [`ltr_format::scores::parse_score_file`] and checked against the feature file by
//!   [`ltr_format::scores::ScoreFile::scores_for`].
//!
//! ```no_run
//! let corpus = ltr_fuzz::data::Corpus::builtin()?;
//! for target in ltr_fuzz::data::Target::ALL {
//!     let stats = ltr_fuzz::data::run(&corpus, target, 1, 1_000_000);
//!     assert_eq!(stats.failures, 0, "{stats}");
//! }
//! # Ok::<(), ltr_format::DataError>(())
//! ```

use ltr_core::Rng;

use ltr_format::DataError;
use ltr_format::ReadOptions;
use ltr_format::reader::{parse_bytes, read_from};
use ltr_format::scores::parse_score_file;

use ltr_data::{Manifest, Split};

pub use crate::driver::Stats;
use crate::driver::{self, guarded};

/// Real LETOR lines grouped by query, the material inputs are made of.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Queries, each its lines (without line ends), in file order.
    queries: Vec<Vec<Vec<u8>>>,
}

impl Corpus {
    /// The test split of fold 1 of OHSUMED and of MQ2008, rebuilt from the embedded pieces.
    pub fn builtin() -> Result<Self, DataError> {
        let mut queries = Vec::new();
        for (collection, dataset) in [("letor3", "OHSUMED"), ("letor4", "MQ2008")] {
            let manifest = Manifest::builtin(collection)?;
            let variant = manifest.dataset(dataset)?.default_variant();
            let pieces = ltr_data::embedded::Pieces::open(variant)?;
            let file = variant.fold_file(1, Split::Test);
            let bytes = pieces.build(&file)?.ok_or_else(|| DataError::Embedded {
                path: variant.rel_path(&file),
                reason: "the embedded pieces do not make this file".into(),
            })?;
            queries.extend(Self::from_text(&bytes).queries);
        }
        Ok(Self { queries })
    }

    /// Lines of LETOR text, grouped by the qid token (the second token of a line).
    pub fn from_text(text: &[u8]) -> Self {
        let mut queries: Vec<Vec<Vec<u8>>> = Vec::new();
        let mut last_qid: Option<Vec<u8>> = None;
        for raw in text.split(|&b| b == b'\n') {
            let line = raw.strip_suffix(b"\r").unwrap_or(raw);
            let Some(qid) = line.split(|&b| b == b' ').nth(1) else { continue };
            if last_qid.as_deref() != Some(qid) {
                queries.push(Vec::new());
                last_qid = Some(qid.to_vec());
            }
            if let Some(q) = queries.last_mut() {
                q.push(line.to_vec());
            }
        }
        Self { queries }
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.queries.len()
    }

    /// Whether there are no queries.
    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }
}

/// What is fuzzed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The LETOR reader, in memory and chunked.
    Reader,
    /// Score files, checked against a feature file.
    Scores,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 2] = [Target::Reader, Target::Scores];

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Scores => "scores",
        }
    }
}

/// Runs `cases` inputs of `target` made from `corpus` with `seed`. Case `i` uses the child
/// stream `i` of the seed, so any case can be rerun alone with [`case`]. Panics are caught
/// and counted, never propagated. Cases run in parallel; the statistics do not depend on the
/// thread count.
pub fn run(corpus: &Corpus, target: Target, seed: u64, cases: u64) -> Stats {
    driver::run(target.name(), cases, |i| case(corpus, target, seed, i))
}

/// Case number `i` of a run: the input, and whether it parsed (`Err`: a failure, said how).
pub fn case(corpus: &Corpus, target: Target, seed: u64, i: u64) -> (Vec<u8>, Result<bool, String>) {
    let mut rng = Rng::new(ltr_core::derive_seed(seed, &[target.name(), &i.to_string()]));
    match target {
        Target::Reader => {
            let input = feature_file(corpus, &mut rng);
            let opts = read_options(&mut rng);
            let outcome = guarded(|| reader_agrees(&input, &opts));
            (input, outcome)
        }
        Target::Scores => {
            let (features, scores) = score_case(corpus, &mut rng);
            let outcome = guarded(|| scores_for(&features, &scores));
            (scores, outcome)
        }
    }
}

/// Reads `input` in memory and through the chunked reader: both must give the same result.
fn reader_agrees(input: &[u8], opts: &ReadOptions) -> Result<bool, String> {
    let direct = parse_bytes(input, "fuzz", opts);
    let chunked = read_from(std::io::Cursor::new(input), "fuzz", opts).map(|l| l.dataset);
    match (&direct, &chunked) {
        (Ok(a), Ok(b)) if a == b => Ok(true),
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Ok(false),
        _ => Err(format!(
            "in memory and chunked reading disagree: {:?} vs {:?}",
            direct.map(|d| d.n_docs()).map_err(|e| e.to_string()),
            chunked.map(|d| d.n_docs()).map_err(|e| e.to_string())
        )),
    }
}

fn scores_for(features: &[u8], scores: &[u8]) -> Result<bool, String> {
    let Ok(data) = parse_bytes(features, "f.txt", &ReadOptions::default()) else {
        return Err("the feature file of a score case does not parse".into());
    };
    Ok(parse_score_file(scores, "s.txt").and_then(|s| s.scores_for(&data, "f.txt")).is_ok())
}

fn read_options(rng: &mut Rng) -> ReadOptions {
    ReadOptions {
        n_features: match rng.index(8) {
            0 => Some(46),
            1 => Some(45),
            2 => Some(1 + rng.index(50)),
            3 => Some(136),
            _ => None,
        },
        missing_token: (rng.index(4) == 0).then(|| "NULL".to_owned()),
        sha256: rng.index(2) == 0,
        // Small, so that no input can make a case allocate much.
        max_dense_bytes: Some(16 << 20),
        clip: None,
        format: ltr_format::LineFormat::default(),
    }
}

/// A few queries' lines (prefixes of real queries), then 0..=5 edits.
fn feature_file(corpus: &Corpus, rng: &mut Rng) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    if !corpus.is_empty() {
        for _ in 0..1 + rng.index(4) {
            let q = &corpus.queries[rng.index(corpus.len())];
            lines.extend(q.iter().take(1 + rng.index(q.len().min(8))).cloned());
        }
    }
    for _ in 0..rng.index(6) {
        edit_lines(&mut lines, rng);
    }
    let end: &[u8] = if rng.index(2) == 0 { b"\n" } else { b"\r\n" };
    let mut text = lines.join(end);
    if rng.index(3) != 0 {
        text.extend_from_slice(end);
    }
    if rng.index(4) == 0 {
        edit_bytes(&mut text, rng);
    }
    text
}

const HUGE_INDICES: [&[u8]; 8] =
    [b"0", b"47", b"65536", b"65537", b"999999999", b"1000000000", b"4294967297", b"18446744073709551616"];

const ODD_VALUES: [&[u8]; 14] = [
    b"NaN",
    b"nan",
    b"inf",
    b"-inf",
    b"Infinity",
    b"1e39",
    b"-1e39",
    b"1e-50",
    b"",
    b"NULL",
    b"-0",
    b"0x10",
    b"1.2.3",
    b"  ",
];

const ODD_LABELS: [&[u8]; 9] =
    [b"256", b"-1", b"1.5", b"x", b"", b"999", b"00000001", b"+1", b"\xef\xbb\xbf0"];

/// One line-level edit.
fn edit_lines(lines: &mut Vec<Vec<u8>>, rng: &mut Rng) {
    if lines.is_empty() {
        lines.push(b"0 qid:1 1:0".to_vec());
    }
    let at = rng.index(lines.len());
    let mut tokens: Vec<Vec<u8>> = lines[at].split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
    let t = rng.index(tokens.len());
    match rng.index(16) {
        0 => {
            let u = rng.index(tokens.len());
            tokens.swap(t, u);
        }
        1 => {
            tokens.remove(t);
        }
        2 => {
            let copy = tokens[t].clone();
            tokens.insert(t, copy);
        }
        3 => set_index(&mut tokens[t], HUGE_INDICES[rng.index(HUGE_INDICES.len())]),
        4 => set_value(&mut tokens[t], ODD_VALUES[rng.index(ODD_VALUES.len())]),
        5 => tokens[0] = ODD_LABELS[rng.index(ODD_LABELS.len())].to_vec(),
        6 => {
            // A query that comes back after another started.
            let line = lines[at].clone();
            lines.push(line);
            return;
        }
        7 => {
            lines.insert(at, Vec::new());
            return;
        }
        8 => {
            lines.insert(at, b"# a comment line".to_vec());
            return;
        }
        9 => {
            let cut = rng.index(lines[at].len() + 1);
            lines[at].truncate(cut);
            return;
        }
        10 => {
            // A line broken in two.
            let line = std::mem::take(&mut lines[at]);
            let cut = rng.index(line.len() + 1);
            lines[at] = line[..cut].to_vec();
            lines.insert(at + 1, line[cut..].to_vec());
            return;
        }
        11 => tokens[t] = tokens[t].repeat(1 + rng.index(200)),
        12 => {
            if let Some(q) = tokens.get_mut(1) {
                *q = q.strip_prefix(b"qid:").map_or_else(|| b"qid:".to_vec(), <[u8]>::to_vec);
            }
        }
        13 => tokens[t] = format!("{}", rng.next_u64()).into_bytes(),
        14 => tokens[t].push(b'\t'),
        _ => {
            lines.remove(at);
            return;
        }
    }
    lines[at] = tokens.join(&b' ');
}

/// One byte-level edit of a whole file.
fn edit_bytes(text: &mut Vec<u8>, rng: &mut Rng) {
    match rng.index(8) {
        0 => {
            let cut = rng.index(text.len() + 1);
            text.truncate(cut);
        }
        1 => {
            // CR-only line ends.
            let mut out = Vec::with_capacity(text.len());
            let mut bytes = text.iter().copied().peekable();
            while let Some(b) = bytes.next() {
                match b {
                    b'\r' if bytes.peek() == Some(&b'\n') => {}
                    b'\n' => out.push(b'\r'),
                    b => out.push(b),
                }
            }
            *text = out;
        }
        2 => text.splice(0..0, *b"\xef\xbb\xbf").for_each(drop),
        3 => {
            let at = rng.index(text.len() + 1);
            text.splice(at..at, *b"\xef\xbb\xbf").for_each(drop);
        }
        4 if !text.is_empty() => {
            let at = rng.index(text.len());
            text[at] = rng.next_u64() as u8;
        }
        5 => {
            let at = rng.index(text.len() + 1);
            let stray: &[u8] = [&b"\0"[..], b"\xff", b"\r", b"\n\n", b"#", b":", b"\t"][rng.index(7)];
            text.splice(at..at, stray.iter().copied()).for_each(drop);
        }
        6 => {
            // Mixed line ends.
            let mut out = Vec::with_capacity(text.len());
            for &b in text.iter() {
                if b == b'\n' && rng.index(3) == 0 {
                    out.push(b'\r');
                }
                out.push(b);
            }
            *text = out;
        }
        _ => text.extend_from_slice(b"\n\n\n"),
    }
}

fn set_index(token: &mut Vec<u8>, index: &[u8]) {
    match token.iter().position(|&b| b == b':') {
        Some(c) => {
            let mut t = index.to_vec();
            t.extend_from_slice(&token[c..]);
            *token = t;
        }
        None => {
            *token = index.to_vec();
            token.extend_from_slice(b":1");
        }
    }
}

fn set_value(token: &mut Vec<u8>, value: &[u8]) {
    let c = token.iter().position(|&b| b == b':').map_or(token.len(), |c| c + 1);
    token.truncate(c);
    if c == 0 {
        token.extend_from_slice(b"1:");
    }
    token.extend_from_slice(value);
}

/// A valid feature file of 1..=3 real queries, and a score file for it (plain or RankLib's
/// layout), then 0..=3 edits of the score file.
fn score_case(corpus: &Corpus, rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    let mut features = Vec::new();
    let mut ids: Vec<(Vec<u8>, usize)> = Vec::new();
    if !corpus.is_empty() {
        let first = rng.index(corpus.len());
        for q in corpus.queries.iter().cycle().skip(first).take(1 + rng.index(3)) {
            for (i, line) in q.iter().take(1 + rng.index(q.len().min(8))).enumerate() {
                features.extend_from_slice(line);
                features.push(b'\n');
                let qid = line.split(|&b| b == b' ').nth(1).and_then(|t| t.strip_prefix(b"qid:"));
                ids.push((qid.unwrap_or(b"?").to_vec(), i));
            }
        }
    }
    let ranklib = rng.index(2) == 0;
    let mut lines: Vec<Vec<u8>> = ids
        .iter()
        .map(|(qid, i)| {
            let score = format!("{:.6}", rng.normal());
            if ranklib {
                let mut l = qid.clone();
                l.extend_from_slice(format!("\t{i}\t{score}").as_bytes());
                l
            } else {
                score.into_bytes()
            }
        })
        .collect();
    for _ in 0..rng.index(4) {
        if lines.is_empty() {
            break;
        }
        let at = rng.index(lines.len());
        match rng.index(9) {
            0 => lines.insert(at, Vec::new()),
            1 => {
                lines.remove(at);
            }
            2 => {
                let u = rng.index(lines.len());
                lines.swap(at, u);
            }
            3 => lines[at] = b"NaN".to_vec(),
            4 => lines[at] = b"1 2".to_vec(),
            5 => lines[at] = b"x\t0\t1".to_vec(),
            6 => lines[at].extend_from_slice(b"\r"),
            7 => lines[at].splice(0..0, *b"\xef\xbb\xbf").for_each(drop),
            _ => {
                let line = lines[at].clone();
                lines.push(line);
            }
        }
    }
    let end: &[u8] = if rng.index(2) == 0 { b"\n" } else { b"\r\n" };
    let mut scores = lines.join(end);
    scores.extend_from_slice(end);
    if rng.index(6) == 0 {
        scores.retain(|&b| b != b'\n');
    }
    (features, scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzing_finds_no_panic_or_disagreement_in_a_short_run() {
        let corpus = Corpus::builtin().unwrap();
        assert!(corpus.len() > 100);
        for target in Target::ALL {
            let stats = run(&corpus, target, 7, 3000);
            assert_eq!(stats.failures, 0, "{stats}");
            // Some inputs parse, some do not: the edits reach past the first token.
            assert!(stats.parsed > stats.cases / 20 && stats.parsed < stats.cases, "{stats}");
        }
    }

    /// The long run: `cargo test -p ltr-data --release --lib -- --ignored --nocapture
    /// fuzz_a_million` (`LTR_FUZZ_CASES` changes the count per target).
    #[test]
    #[ignore = "long; run on demand"]
    fn fuzz_a_million_cases_per_target() {
        let cases = driver::long_run_cases();
        let corpus = Corpus::builtin().unwrap();
        for target in Target::ALL {
            let t = std::time::Instant::now();
            let stats = run(&corpus, target, 1, cases);
            eprintln!("{stats} in {:.1} s", t.elapsed().as_secs_f64());
            assert_eq!(stats.failures, 0, "{stats}");
        }
    }

    #[test]
    fn a_case_is_reproduced_from_its_seed_and_number() {
        let corpus = Corpus::builtin().unwrap();
        for target in Target::ALL {
            assert_eq!(case(&corpus, target, 3, 41), case(&corpus, target, 3, 41));
            assert_ne!(case(&corpus, target, 3, 41).0, case(&corpus, target, 3, 42).0);
        }
    }
}
