//! Synthetic LETOR data with the shape of the large collections, so that scale can be tested
//! and benchmarked without their (license-gated, multi-gigabyte) files.
//!
//! A [`Shape`] fixes the number of queries, the distribution of documents per query, the
//! feature count, the grade distribution and the file layout of a collection:
//!
//! | shape | queries | docs/query (mean) | features | layout |
//! |---|---|---|---|---|
//! | `mslr-web30k` | 31,531 | 119.6 | 136 | `Fold1..5/{train,vali,test}.txt` (Fold1 train: about 2.27 M rows) |
//! | `mslr-web10k` | 10,000 | 120.0 | 136 | as MSLR-WEB30K |
//! | `yahoo` | 29,921 | 23.7 | 700 (sparse) | one fold, `{train,vali,test}.txt` (Set 1's split) |
//! | `istella` | 33,018 | 103.2 | 220 | one fold (Istella-S's split) |
//! | `yandex-im2009` | 9,124 + 10,845 | 10.7 | 245 (sparse, in [0, 1]) | the release's two files (below) |
//! | `small` | 400 | 20 | 20 | 5 folds (tests) |
//!
//! The hidden relevance: every document has ten latent factors (standard normals) and its
//! query one offset. The relevance is a sum of a linear part and interactions (a product of
//! two factors, a factor gated by a threshold on another, a square), plus noise; grades 0-4
//! come from global thresholds on it, fixed so that the grades occur about as often as in the
//! collection. Features are monotone transforms (counts, [0, 1] scores, quantised levels) of
//! single factors or of mixtures of two or three, with noise; some are query-level and some
//! pure noise. A tree ensemble can learn the interactions; a linear model cannot, so
//! LambdaMART beats ridge regression clearly (tested).
//!
//! `yandex-im2009` copies Yandex's Internet Mathematics 2009 release as it ships, so that
//! `datasets/yandex.toml` can be tried end to end (`ltr fetch yandex --mirror DIR` with the
//! output at `DIR/yandex/IM2009`): `imat2009_learning.txt` (9,124 queries, about 97,290
//! documents) and `imat2009_test.txt` (about 115,643 documents, labels withheld as `-1`; the
//! contest scored 21,103 of them on its public leaderboard), lines `<label> <index>:<value>
//! ... # <qid>` with no `qid:` token, and about one label in twenty a real value, the mean of
//! two or three assessors' grades (`1.5`, `0.3333`), as in the release.
//!
//! Everything comes from the seed through the pinned ChaCha8 stream ([`ltr_core::Rng`]), in
//! one sequential pass: the same shape, query count and seed give the same bytes. Files are
//! written through large buffers with the workspace's atomic writer
//! ([`ltr_core::fs::AtomicFile`]: a unique temporary name beside each file, `fsync`, rename),
//! all renamed into place once every one is complete, so a failed run (a full disk) leaves
//! neither partial nor temporary files. Runs into one folder take turns (an advisory lock on
//! the folder), so concurrent runs leave the folder as one complete run, never a mix of two
//! seeds; temporary files of a run that was killed are removed by the next run.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ltr_core::Rng;
use ltr_core::fs::AtomicFile;
use ltr_data::Split;
use ltr_data::rotation::rotation;

/// Errors of the generator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SynthError {
    /// An unknown shape name or an option out of range.
    #[error("{0}")]
    Invalid(String),
    /// Writing a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The most queries a generated dataset may have (about 100 times MSLR-WEB30K).
pub const MAX_QUERIES: usize = 4_000_000;
/// The most documents a query may have.
pub const MAX_DOCS_PER_QUERY: usize = 10_000;

/// How a shape's files are laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// Five subsets rotated into `Fold1..5/{train,vali,test}.txt` (LETOR, MSLR-WEB).
    Folds,
    /// One fold, `{train,vali,test}.txt`, with these fractions of the queries in train and
    /// vali (the rest is test).
    OneFold {
        /// Fraction of queries in train.
        train: f64,
        /// Fraction of queries in vali.
        vali: f64,
    },
    /// Yandex's IM2009 release: `imat2009_learning.txt` with the shape's queries, labels real
    /// where assessors disagreed, and `imat2009_test.txt` with labels withheld (`-1`); query
    /// ids in the comment.
    Imat2009 {
        /// Test queries per learning query.
        test: f64,
    },
}

/// The shape of a collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Name on the command line.
    pub name: &'static str,
    /// Queries.
    pub queries: usize,
    /// Mean documents per query.
    pub mean_docs: f64,
    /// Spread of the documents per query (standard deviation of its logarithm).
    pub docs_sigma: f64,
    /// Features.
    pub features: usize,
    /// Fraction of feature values that are absent (written sparsely), as in Yahoo!'s files.
    pub sparsity: f64,
    /// How often each grade 0..=4 occurs.
    pub grades: [f64; 5],
    /// Feature values are mapped into [0, 1] (Yandex's IM2009 features are).
    pub unit_features: bool,
    /// File layout.
    pub layout: Layout,
}

/// MSLR-WEB30K; the other shapes take from it every field they do not set (MSLR-WEB's grade
/// frequencies, dense unmapped features, five folds).
const MSLR: Shape = Shape {
    name: "mslr-web30k",
    queries: 31_531,
    mean_docs: 3_771_125.0 / 31_531.0,
    docs_sigma: 0.6,
    features: 136,
    sparsity: 0.0,
    grades: [0.514, 0.326, 0.134, 0.018, 0.008],
    unit_features: false,
    layout: Layout::Folds,
};

/// Every shape, in [`Shape::NAMES`] order.
const SHAPES: [Shape; 6] = [
    MSLR,
    Shape { name: "mslr-web10k", queries: 10_000, mean_docs: 120.0192, ..MSLR },
    Shape {
        name: "yahoo",
        queries: 29_921,
        mean_docs: 709_877.0 / 29_921.0,
        docs_sigma: 0.5,
        features: 700,
        sparsity: 0.6,
        grades: [0.261, 0.358, 0.280, 0.078, 0.023],
        layout: Layout::OneFold { train: 19_944.0 / 29_921.0, vali: 2_994.0 / 29_921.0 },
        ..MSLR
    },
    Shape {
        name: "istella",
        queries: 33_018,
        mean_docs: 3_408_630.0 / 33_018.0,
        docs_sigma: 0.5,
        features: 220,
        grades: [0.886, 0.047, 0.036, 0.019, 0.012],
        layout: Layout::OneFold { train: 19_245.0 / 33_018.0, vali: 7_211.0 / 33_018.0 },
        ..MSLR
    },
    // The grades as the learning file's labels round to (counted on a 1,000-line cut of the
    // release); about half the features present on a line.
    Shape {
        name: "yandex-im2009",
        queries: 9_124,
        mean_docs: 97_290.0 / 9_124.0,
        features: 245,
        sparsity: 0.5,
        grades: [0.295, 0.338, 0.326, 0.032, 0.009],
        unit_features: true,
        layout: Layout::Imat2009 { test: 115_643.0 / 97_290.0 },
        ..MSLR
    },
    Shape { name: "small", queries: 400, mean_docs: 20.0, docs_sigma: 0.4, features: 20, ..MSLR },
];

impl Shape {
    /// Every shape's name.
    pub const NAMES: [&'static str; 6] = {
        let mut names = [""; 6];
        let mut i = 0;
        while i < names.len() {
            names[i] = SHAPES[i].name;
            i += 1;
        }
        names
    };

    /// A shape by name.
    pub fn named(name: &str) -> Result<Self, SynthError> {
        SHAPES.iter().find(|s| s.name == name).cloned().ok_or_else(|| {
            SynthError::Invalid(format!("unknown shape `{name}` (known: {})", Self::NAMES.join(", ")))
        })
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthOptions {
    /// The shape.
    pub shape: Shape,
    /// Queries (`None`: the shape's), to scale a shape down or up.
    pub queries: Option<usize>,
    /// Master seed.
    pub seed: u64,
    /// Folds to write, for [`Layout::Folds`] shapes (empty: all five). Writing only Fold1
    /// writes each row once.
    pub folds: Vec<u32>,
}

/// One written file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenFile {
    /// Path relative to the output folder.
    pub rel: String,
    /// Documents.
    pub rows: usize,
    /// Queries.
    pub queries: usize,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthReport {
    /// Files, in a fixed order.
    pub files: Vec<WrittenFile>,
    /// Features.
    pub features: usize,
    /// Documents generated (each once, however many files it is in).
    pub documents: usize,
    /// Queries generated.
    pub queries: usize,
}

/// Latent factors per document.
const LATENT: usize = 10;

/// How one feature is made from the latent factors.
#[derive(Debug, Clone)]
struct Feature {
    /// Factors mixed and their weights (empty: pure noise).
    mix: Vec<(usize, f64)>,
    /// Query-level: the same value for every document of a query.
    query_level: bool,
    /// Noise amplitude.
    noise: f64,
    /// The monotone transform.
    transform: Transform,
}

#[derive(Debug, Clone, Copy)]
enum Transform {
    /// As is (4 decimals).
    Identity,
    /// A count: `round(exp(x))`.
    Count,
    /// A [0, 1] score: the logistic function.
    Score,
    /// One of 10 levels.
    Levels,
}

/// The hidden relevance of a document from its factors and its query's offset (no noise).
fn relevance(z: &[f64; LATENT], offset: f64) -> f64 {
    let gate = if z[5] > 0.5 { 1.0 } else { 0.0 };
    0.45 * z[0] + 0.35 * z[1] + 0.9 * z[2] * z[3] + 1.1 * gate * z[6] + 0.4 * (z[4] * z[4] - 1.0) + offset
}

/// The features of a shape (fixed by the seed).
fn design(shape: &Shape, rng: &mut Rng) -> Vec<Feature> {
    (0..shape.features)
        .map(|j| {
            let kind = rng.index(20);
            let transform = match rng.index(4) {
                0 => Transform::Identity,
                1 => Transform::Count,
                2 => Transform::Score,
                _ => Transform::Levels,
            };
            // The first features expose every factor on its own, so each is measured.
            let mix = if j < LATENT {
                vec![(j, 1.0)]
            } else if kind < 9 {
                vec![(rng.index(LATENT), 1.0)]
            } else if kind < 16 {
                let n = 2 + rng.index(2);
                (0..n).map(|_| (rng.index(LATENT), rng.uniform() * 2.0 - 1.0)).collect()
            } else if kind < 18 {
                vec![(0, 1.0)] // query-level, see below
            } else {
                Vec::new()
            };
            Feature {
                query_level: (16..18).contains(&kind) && j >= LATENT,
                noise: 0.2 + 0.6 * rng.uniform(),
                mix,
                transform,
            }
        })
        .collect()
}

/// Global thresholds on the noisy relevance such that grade g occurs with frequency
/// `shape.grades[g]`, from a sample of documents.
fn thresholds(shape: &Shape, rng: &mut Rng) -> [f64; 4] {
    let n = 200_000;
    let mut r: Vec<f64> = (0..n)
        .map(|_| {
            let z: [f64; LATENT] = std::array::from_fn(|_| rng.normal());
            relevance(&z, 0.5 * rng.normal()) + NOISE * rng.normal()
        })
        .collect();
    r.sort_by(f64::total_cmp);
    let mut cum = 0.0;
    std::array::from_fn(|g| {
        cum += shape.grades[g];
        r[((cum * n as f64) as usize).min(n - 1)]
    })
}

/// Label noise on the relevance.
const NOISE: f64 = 0.35;

/// IM2009: the share of labels that are the mean of several assessors' grades, and each
/// assessor's own noise. Assessors often agree, so about 4.6% of the labels come out real
/// (46 of the 1,000 labels of the cut of the release that was counted).
const MULTI_ASSESSED: f64 = 0.12;
const ASSESSOR: f64 = 0.5;

/// A feature value mapped into [0, 1], monotone, by its transform: a count by `1 - e^(-v/10)`,
/// a level by `v / 9`, a raw value by the logistic function.
fn unit(t: Transform, v: f64) -> f64 {
    match t {
        Transform::Identity => 1.0 / (1.0 + (-v).exp()),
        Transform::Count => 1.0 - (-v / 10.0).exp(),
        Transform::Score => v,
        Transform::Levels => v / 9.0,
    }
}

/// Appends `v` in short decimal form (up to 4 decimals, trailing zeros dropped).
fn push_value(out: &mut Vec<u8>, v: f64) {
    let neg = v < 0.0;
    let scaled = (v.abs() * 10_000.0).round() as u64;
    if scaled == 0 {
        out.push(b'0');
        return;
    }
    if neg {
        out.push(b'-');
    }
    push_int(out, scaled / 10_000);
    let mut frac = scaled % 10_000;
    if frac != 0 {
        out.push(b'.');
        let mut digits = 4;
        while frac.is_multiple_of(10) {
            frac /= 10;
            digits -= 1;
        }
        let s = frac.to_string();
        for _ in s.len()..digits {
            out.push(b'0');
        }
        out.extend_from_slice(s.as_bytes());
    }
}

fn push_int(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// An output file being written: to a temporary name, renamed when complete.
struct Out {
    rel: String,
    w: BufWriter<AtomicFile>,
    rows: usize,
    queries: usize,
}

impl Out {
    fn create(dir: &Path, rel: String) -> Result<Self, SynthError> {
        let path = dir.join(&rel);
        let f = AtomicFile::create(&path).map_err(|source| SynthError::Io { path, source })?;
        Ok(Self { rel, w: BufWriter::with_capacity(4 << 20, f), rows: 0, queries: 0 })
    }

    fn io(&self, source: std::io::Error) -> SynthError {
        SynthError::Io { path: self.w.get_ref().path().to_owned(), source }
    }

    /// Writes the buffered rest and syncs it to the disk; the file is still under its
    /// temporary name.
    fn flush(mut self) -> Result<(String, AtomicFile, usize, usize), SynthError> {
        self.w.flush().map_err(|e| self.io(e))?;
        let Self { rel, w, rows, queries } = self;
        let path = w.get_ref().path().to_owned();
        let mut f =
            w.into_inner().map_err(|e| SynthError::Io { path: path.clone(), source: e.into_error() })?;
        f.sync_all().map_err(|source| SynthError::Io { path, source })?;
        Ok((rel, f, rows, queries))
    }
}

/// Holds the output folder until dropped, so that a second run into the same folder waits
/// and the folder ends as one run's files. An advisory lock on the folder itself: it leaves
/// no file behind and ends with the process, even a killed one. Where the platform or file
/// system has no such lock the run goes on without it (each file is still whole).
fn hold_folder(dir: &Path) -> Option<File> {
    let folder = File::open(dir).ok()?;
    match folder.try_lock() {
        Ok(()) => Some(folder),
        Err(std::fs::TryLockError::WouldBlock) => {
            log::info!("{}: waiting for another run writing into it", dir.display());
            folder.lock().ok().map(|()| folder)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            log::debug!("{}: no folder lock ({e})", dir.display());
            None
        }
    }
}

/// Writes the dataset of `opts` into the folder `out` (created if needed).
pub fn generate(opts: &SynthOptions, out: &Path) -> Result<SynthReport, SynthError> {
    let shape = &opts.shape;
    let n_queries = opts.queries.unwrap_or(shape.queries);
    if !(5..=MAX_QUERIES).contains(&n_queries) {
        return Err(SynthError::Invalid(format!("queries must be 5..={MAX_QUERIES}, not {n_queries}")));
    }
    let mut root = Rng::new(opts.seed);
    let mut design_rng = root.child("design");
    let features = design(shape, &mut design_rng);
    let cuts = thresholds(shape, &mut root.child("thresholds"));
    let mut rng = root.child("data");
    // IM2009's test file: its queries follow the learning file's.
    let (imat, total_queries) = match shape.layout {
        Layout::Imat2009 { test } => (true, n_queries + ((n_queries as f64 * test).round() as usize).max(1)),
        _ => (false, n_queries),
    };

    // Which subset each query is in, and the files each subset goes to.
    let (n_parts, part_files): (usize, Vec<Vec<(usize, Split)>>) = match shape.layout {
        Layout::Folds => {
            let folds: Vec<u32> = if opts.folds.is_empty() { (1..=5).collect() } else { opts.folds.clone() };
            if let Some(bad) = folds.iter().find(|k| !(1..=5).contains(*k)) {
                return Err(SynthError::Invalid(format!("fold {bad}: the shape has folds 1..=5")));
            }
            let mut files = vec![Vec::new(); 5];
            for (slot, &k) in folds.iter().enumerate() {
                let r = rotation(k, 5).ok_or_else(|| SynthError::Invalid(format!("no fold {k}")))?;
                for s in Split::ALL {
                    for piece in r.of(s) {
                        files[piece].push((slot, s));
                    }
                }
            }
            (5, files)
        }
        Layout::OneFold { .. } => {
            if !opts.folds.is_empty() && opts.folds != [1] {
                return Err(SynthError::Invalid(format!("the shape `{}` has one fold", shape.name)));
            }
            (3, Split::ALL.iter().map(|&s| vec![(0, s)]).collect())
        }
        Layout::Imat2009 { .. } => {
            if !opts.folds.is_empty() {
                return Err(SynthError::Invalid(format!(
                    "the shape `{}` is the release's two files, not folds",
                    shape.name
                )));
            }
            (2, vec![vec![(0, Split::Train)], vec![(0, Split::Test)]])
        }
    };
    let boundaries: Vec<usize> = match shape.layout {
        Layout::Folds => (1..=5).map(|p| n_queries * p / 5).collect(),
        Layout::OneFold { train, vali } => {
            let a = ((n_queries as f64 * train).round() as usize).clamp(1, n_queries - 2);
            let b = ((n_queries as f64 * (train + vali)).round() as usize).clamp(a + 1, n_queries - 1);
            vec![a, b, n_queries]
        }
        Layout::Imat2009 { .. } => vec![n_queries, total_queries],
    };
    std::fs::create_dir_all(out).map_err(|source| SynthError::Io { path: out.to_owned(), source })?;
    let _held = hold_folder(out);
    let n_slots = part_files.iter().flatten().map(|(slot, _)| slot + 1).max().unwrap_or(0);
    let mut outs: Vec<[Option<Out>; 3]> = (0..n_slots).map(|_| [None, None, None]).collect();
    for (slot, s) in part_files.iter().flatten() {
        let rel = match shape.layout {
            Layout::Folds => {
                let k = if opts.folds.is_empty() { *slot as u32 + 1 } else { opts.folds[*slot] };
                format!("Fold{k}/{s}.txt")
            }
            Layout::OneFold { .. } => format!("{s}.txt"),
            Layout::Imat2009 { .. } if *s == Split::Test => "imat2009_test.txt".to_owned(),
            Layout::Imat2009 { .. } => "imat2009_learning.txt".to_owned(),
        };
        let i = Split::ALL.iter().position(|x| x == s).unwrap_or(0);
        if outs[*slot][i].is_none() {
            outs[*slot][i] = Some(Out::create(out, rel)?);
        }
    }
    // Temporary files of runs that were killed, now that this run holds the folder.
    let mut folders: Vec<PathBuf> = outs
        .iter()
        .flatten()
        .flatten()
        .filter_map(|o| o.w.get_ref().path().parent().map(Path::to_owned))
        .collect();
    folders.dedup();
    for d in &folders {
        match ltr_core::fs::remove_stale_temp_files(d) {
            Ok(0) => {}
            Ok(n) => log::info!("{}: removed {n} temporary files of an interrupted run", d.display()),
            Err(e) => log::warn!("{}: {e}", d.display()),
        }
    }

    let mut line: Vec<u8> = Vec::with_capacity(16 * shape.features + 64);
    let mut query_values = vec![0.0f64; features.len()];
    let mut documents = 0usize;
    let mut part = 0usize;
    let ln_mean = shape.mean_docs.ln() - shape.docs_sigma * shape.docs_sigma / 2.0;
    for q in 0..total_queries {
        while q >= boundaries[part] {
            part += 1;
        }
        debug_assert!(part < n_parts);
        let n_docs =
            ((ln_mean + shape.docs_sigma * rng.normal()).exp().round() as usize).clamp(1, MAX_DOCS_PER_QUERY);
        let offset = 0.5 * rng.normal();
        for (j, f) in features.iter().enumerate() {
            if f.query_level {
                query_values[j] = offset * 0.5 + rng.normal();
            }
        }
        for (slot, s) in &part_files[part] {
            let i = Split::ALL.iter().position(|x| x == s).unwrap_or(0);
            if let Some(o) = outs[*slot][i].as_mut() {
                o.queries += 1;
            }
        }
        let qid = (q + 1) as u64;
        for _ in 0..n_docs {
            let z: [f64; LATENT] = std::array::from_fn(|_| rng.normal());
            let r = relevance(&z, offset) + NOISE * rng.normal();
            let grade = cuts.iter().filter(|&&c| r > c).count() as u64;
            line.clear();
            if imat {
                // Some labels are the mean of two or three assessors' grades, each judging the
                // document with noise of its own; the test file's are withheld.
                let judged = if rng.uniform() < MULTI_ASSESSED {
                    let n = 2 + rng.index(2);
                    let sum: usize = (0..n)
                        .map(|_| cuts.iter().filter(|&&c| r + ASSESSOR * rng.normal() > c).count())
                        .sum();
                    sum as f64 / n as f64
                } else {
                    grade as f64
                };
                if part == 1 {
                    line.extend_from_slice(b"-1");
                } else {
                    push_value(&mut line, judged);
                }
            } else {
                push_int(&mut line, grade);
                line.extend_from_slice(b" qid:");
                push_int(&mut line, qid);
            }
            for (j, f) in features.iter().enumerate() {
                let last = j + 1 == features.len();
                let raw = if f.query_level {
                    query_values[j]
                } else {
                    let mixed: f64 = f.mix.iter().map(|&(k, w)| w * z[k]).sum();
                    mixed + f.noise * (rng.uniform() * 2.0 - 1.0) * 1.7
                };
                if shape.sparsity > 0.0 && !last && rng.uniform() < shape.sparsity {
                    continue;
                }
                let v = match f.transform {
                    Transform::Identity => raw,
                    Transform::Count => (raw.clamp(-20.0, 20.0) * 1.5 + 1.0).exp().round(),
                    Transform::Score => 1.0 / (1.0 + (-raw).exp()),
                    Transform::Levels => ((raw + 2.0) * 2.5).clamp(0.0, 9.0).floor(),
                };
                let v = if shape.unit_features { unit(f.transform, v) } else { v };
                line.push(b' ');
                push_int(&mut line, (j + 1) as u64);
                line.push(b':');
                push_value(&mut line, v);
            }
            if imat {
                line.extend_from_slice(b" # ");
                push_int(&mut line, qid);
            }
            line.push(b'\n');
            documents += 1;
            for (slot, s) in &part_files[part] {
                let i = Split::ALL.iter().position(|x| x == s).unwrap_or(0);
                if let Some(o) = outs[*slot][i].as_mut() {
                    if let Err(e) = o.w.write_all(&line) {
                        return Err(o.io(e));
                    }
                    o.rows += 1;
                }
            }
        }
    }
    // Every file written and synced before any is renamed into place: a write that fails
    // (a full disk) leaves the folder as it was.
    let mut complete = Vec::new();
    for slot in outs {
        for o in slot.into_iter().flatten() {
            complete.push(o.flush()?);
        }
    }
    let mut files = Vec::new();
    for (rel, f, rows, queries) in complete {
        let path = f.path().to_owned();
        f.commit().map_err(|source| SynthError::Io { path, source })?;
        files.push(WrittenFile { rel, rows, queries });
    }
    log::info!("{}: {} queries, {documents} documents, {} files", shape.name, total_queries, files.len());
    Ok(SynthReport { files, features: shape.features, documents, queries: total_queries })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn values_are_written_short_and_exact_to_four_decimals() {
        let mut b = Vec::new();
        for v in [0.0, 1.0, -2.5, 0.12345, 12.0001, -0.00004, 1234567.0] {
            push_value(&mut b, v);
            b.push(b' ');
        }
        assert_eq!(String::from_utf8(b).unwrap(), "0 1 -2.5 0.1235 12.0001 0 1234567 ");
    }

    #[test]
    fn every_shape_is_known_and_unknown_ones_are_refused() {
        for n in Shape::NAMES {
            assert_eq!(Shape::named(n).unwrap().name, n);
        }
        assert!(Shape::named("mslr").unwrap_err().to_string().contains("mslr-web30k"));
    }

    #[test]
    fn thresholds_give_about_the_shape_grade_frequencies() {
        let shape = Shape::named("mslr-web10k").unwrap();
        let cuts = thresholds(&shape, &mut Rng::new(3));
        let mut rng = Rng::new(4);
        let mut counts = [0usize; 5];
        let n = 50_000;
        for _ in 0..n {
            let z: [f64; LATENT] = std::array::from_fn(|_| rng.normal());
            let r = relevance(&z, 0.5 * rng.normal()) + NOISE * rng.normal();
            counts[cuts.iter().filter(|&&c| r > c).count()] += 1;
        }
        for (g, &c) in counts.iter().enumerate() {
            let f = c as f64 / n as f64;
            assert!((f - shape.grades[g]).abs() < 0.01, "grade {g}: {f}");
        }
    }

    #[test]
    fn the_im2009_shape_is_the_release_as_it_ships() {
        use ltr_format::{LabelRounding, LineFormat, ReadOptions, read_file};
        let dir = tempfile::tempdir().unwrap();
        let shape = Shape::named("yandex-im2009").unwrap();
        let opts = SynthOptions { shape, queries: Some(400), seed: 9, folds: Vec::new() };
        let report = generate(&opts, dir.path()).unwrap();
        let names: Vec<&str> = report.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(names, ["imat2009_learning.txt", "imat2009_test.txt"]);
        assert_eq!(report.files[0].queries, 400);
        assert_eq!(report.files[1].queries, 475, "115,643 / 97,290 of the learning queries");
        let text = std::fs::read_to_string(dir.path().join("imat2009_learning.txt")).unwrap();
        assert!(!text.contains("qid:") && text.lines().all(|l| l.contains(" # ")));
        let labels: Vec<f64> = text.lines().map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect();
        let real = labels.iter().filter(|v| v.fract() != 0.0).count();
        let share = real as f64 / labels.len() as f64;
        assert!((share - 0.046).abs() < 0.015, "{real} real labels of {}", labels.len());
        let test = std::fs::read_to_string(dir.path().join("imat2009_test.txt")).unwrap();
        assert!(test.lines().all(|l| l.starts_with("-1 ")), "labels withheld");

        let format = LineFormat { qid_in_comment: true, fractional_labels: Some(LabelRounding::Round) };
        let read = ReadOptions { n_features: Some(245), format, ..ReadOptions::default() };
        let d = read_file(&dir.path().join("imat2009_learning.txt"), &read).unwrap().dataset;
        assert_eq!((d.n_queries(), d.n_docs()), (400, report.files[0].rows));
        assert!(d.features().iter().all(|v| (0.0..=1.0).contains(v)), "features in [0, 1]");
        let grades: std::collections::BTreeSet<u8> = d.labels().iter().copied().collect();
        assert_eq!(grades.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        assert!(Shape::named("yandex-im2009").is_ok_and(|s| s.features == 245));
    }
}
