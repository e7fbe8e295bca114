//! A user's own dataset, given by path, resolved to files the harness reads: its layout
//! detected ([`ltr_data::local::detect`]), a single file split into query-disjoint folds in
//! the data cache, every file hashed and summarised in one streaming pass, and the folds
//! checked to agree on their feature count.

use std::path::{Path, PathBuf};

use ltr_core::{Convention, Grade};
use ltr_data::Split;
use ltr_data::local::{FileSummary, Layout, detect, inspect};
use ltr_data::resolved::{DataFile, DatasetInput, FoldFiles};
use ltr_data::split::split_file;
use ltr_format::LineFormat;

use crate::cache::DataCache;
use crate::error::FetchError;

/// The subsets a single file is split into (the LETOR protocol's five).
pub const SPLIT_PARTS: u32 = 5;

/// What is known of a dataset given by path before looking at it.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalRequest {
    /// Name in reports.
    pub name: String,
    /// The folder or file.
    pub path: PathBuf,
    /// Convention its numbers are reported with.
    pub convention: Convention,
    /// Declared feature count (sparse data whose files differ in their highest index);
    /// `None`: the highest index in the files, which must agree.
    pub features: Option<usize>,
    /// Missing-value token.
    pub missing_token: Option<String>,
    /// Seed of the split of a single file.
    pub split_seed: u64,
    /// How the files write labels and query ids (the LETOR form unless declared).
    pub format: LineFormat,
}

/// A resolved local dataset with what its files hold.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalDataset {
    /// Ready for the harness.
    pub input: DatasetInput,
    /// How it was found (`Fold1..5 of trainingset/validationset/testset`, or the split).
    pub layout: String,
    /// The grades that occur in any file, ascending.
    pub labels: Vec<Grade>,
    /// Queries and documents over the test splits of all folds.
    pub queries: usize,
    /// Documents over the test splits of all folds.
    pub documents: usize,
    /// The largest training split of a fold, in documents.
    pub train_rows: usize,
}

impl LocalDataset {
    /// One line for the user: layout, features and grades found in the data.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} ({} folds), {} features, grades {} (from the data); {} queries, {} documents in the test splits",
            self.input.name,
            self.layout,
            self.input.folds.len(),
            self.input.features,
            self.labels.iter().map(u8::to_string).collect::<Vec<_>>().join(", "),
            self.queries,
            self.documents
        )
    }
}

/// Resolves a dataset given by path. A single file is split (once; later calls reuse the
/// split) under `local/` in the data cache.
pub fn resolve_local(req: &LocalRequest, cache: &DataCache) -> Result<LocalDataset, FetchError> {
    let unavailable = |reason: String| FetchError::Unavailable { dataset: req.name.clone(), reason };
    let layout = detect(&req.path).map_err(|e| unavailable(e.reason()))?;
    let (root, folds, layout, variant) = match layout {
        Layout::Folds { root, folds, names } => {
            let n = folds.len();
            let what = if n == 1 && folds[0].train.parent() == Some(root.as_path()) {
                format!("one fold of {names} files")
            } else {
                format!("Fold1..{n} of {names} files")
            };
            (root, folds, what, "local".to_owned())
        }
        Layout::Single(file) => {
            let dir = split_of(&file, req, cache)?;
            let Layout::Folds { root, folds, .. } = detect(&dir).map_err(|e| unavailable(e.reason()))? else {
                return Err(unavailable(format!("the split in {} has no folds", dir.display())));
            };
            let what = format!(
                "{} split into {SPLIT_PARTS} query-disjoint subsets by seed {}, folds by the LETOR rotation",
                file.display(),
                req.split_seed
            );
            (root, folds, what, format!("split by seed {}", req.split_seed))
        }
    };
    let mut summaries: Vec<[(PathBuf, FileSummary); 3]> = Vec::new();
    for f in &folds {
        let one = |s: Split| -> Result<(PathBuf, FileSummary), FetchError> {
            let p = f.of(s).to_owned();
            let summary = inspect(&p, req.format)?;
            log::debug!(
                "{}: {} rows, {} queries, highest feature index {}",
                p.display(),
                summary.rows,
                summary.queries,
                summary.max_index
            );
            Ok((p, summary))
        };
        summaries.push([one(Split::Train)?, one(Split::Vali)?, one(Split::Test)?]);
    }
    let features = feature_count(req.features, &summaries).map_err(unavailable)?;
    let mut labels: Vec<Grade> =
        summaries.iter().flatten().flat_map(|(_, s)| s.labels.iter().copied()).collect();
    labels.sort_unstable();
    labels.dedup();
    let data_file = |(p, s): &(PathBuf, FileSummary)| -> Result<DataFile, FetchError> {
        let rel = p
            .strip_prefix(&root)
            .map_err(|_| unavailable(format!("{} is not under {}", p.display(), root.display())))?;
        Ok(DataFile { rel: rel.to_string_lossy().replace('\\', "/"), sha256: s.sha256.clone() })
    };
    let fold_files = folds
        .iter()
        .zip(&summaries)
        .map(|(f, [tr, va, te])| {
            Ok(FoldFiles { fold: f.fold, train: data_file(tr)?, vali: data_file(va)?, test: data_file(te)? })
        })
        .collect::<Result<Vec<_>, FetchError>>()?;
    let queries = summaries.iter().map(|s| s[2].1.queries).sum();
    let documents = summaries.iter().map(|s| s[2].1.rows).sum();
    let train_rows = summaries.iter().map(|s| s[0].1.rows).max().unwrap_or(0);
    let out = LocalDataset {
        input: DatasetInput {
            name: req.name.clone(),
            variant,
            convention: req.convention,
            features,
            missing_token: req.missing_token.clone(),
            clip: None,
            format: req.format,
            rotation: None,
            root,
            folds: fold_files,
        },
        layout,
        labels,
        queries,
        documents,
        train_rows,
    };
    log::debug!("{}", out.describe());
    Ok(out)
}

/// The feature count of the files: the declared one (no file beyond it), else the highest
/// index, the same in every file; a disagreement names both files.
fn feature_count(declared: Option<usize>, files: &[[(PathBuf, FileSummary); 3]]) -> Result<usize, String> {
    let mut all = files.iter().flatten();
    if let Some(n) = declared {
        return match all.find(|(_, s)| s.max_index > n) {
            Some((p, s)) => Err(format!(
                "{} uses feature index {}, beyond the declared `features = {n}`",
                p.display(),
                s.max_index
            )),
            None => Ok(n),
        };
    }
    let Some((first, s0)) = all.next() else { return Err("no files".into()) };
    for (p, s) in all {
        if s.max_index != s0.max_index {
            return Err(format!(
                "the folds disagree on the feature count: {} has {} features (highest index), {} has {} (sparse data: declare `features = N`)",
                p.display(),
                s.max_index,
                first.display(),
                s0.max_index
            ));
        }
    }
    Ok(s0.max_index)
}

/// The folder holding the split of `file` for this request, made on first use: named by the
/// file's sha256 and the seed, written in a staging folder and renamed into place.
fn split_of(file: &Path, req: &LocalRequest, cache: &DataCache) -> Result<PathBuf, FetchError> {
    let summary = inspect(file, req.format)?;
    let safe: String = req
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let rel = format!("local/{safe}/{}-seed{}", &summary.sha256[..16], req.split_seed);
    let dir = cache.path(&rel);
    if dir.join("split.json").is_file() {
        log::info!("{}: using the split made earlier in {}", req.name, dir.display());
        return Ok(dir);
    }
    let staging = cache.staging()?;
    let out = staging.path().join("split");
    let record = split_file(file, &out, SPLIT_PARTS, req.split_seed, req.format)?;
    if record.source_sha256 != summary.sha256 {
        return Err(FetchError::Data(ltr_format::DataError::Changed { file: file.display().to_string() }));
    }
    if let Some(parent) = dir.parent() {
        crate::cache::create_dir_all(parent)?;
    }
    match std::fs::rename(&out, &dir) {
        Ok(()) => {}
        // Another process made the same split meanwhile: the same bytes.
        Err(_) if dir.join("split.json").is_file() => {}
        Err(source) => return Err(FetchError::io(dir, source)),
    }
    log::info!(
        "{}: split {} into {SPLIT_PARTS} query-disjoint subsets ({} queries each, seed {}) in {}",
        req.name,
        file.display(),
        record.queries.iter().map(usize::to_string).collect::<Vec<_>>().join("/"),
        req.split_seed,
        dir.display()
    );
    Ok(dir)
}
