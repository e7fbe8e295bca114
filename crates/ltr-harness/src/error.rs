//! Errors of the harness, each naming the spec file, the key, the dataset/fold/algorithm.

use std::path::PathBuf;

/// Errors of `ltr-harness`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarnessError {
    /// A spec that does not parse or is inconsistent.
    #[error("{}: {reason}", file.display())]
    Spec {
        /// The spec file.
        file: PathBuf,
        /// What is wrong, naming the key.
        reason: String,
    },
    /// An algorithm id that is not registered.
    #[error("unknown algorithm `{id}` (known: {known})")]
    UnknownAlgorithm {
        /// The id given.
        id: String,
        /// The registered ids.
        known: String,
    },
    /// A parameter that does not fit the algorithm's parameter type.
    #[error("{algorithm}: parameter `{key}`: {reason}")]
    Param {
        /// Algorithm id.
        algorithm: String,
        /// The key (`-` if it cannot be pinned down).
        key: String,
        /// Why.
        reason: String,
    },
    /// Fitting, scoring or evaluating one cell failed.
    #[error("{dataset} fold {fold} {algorithm}: {source}")]
    Cell {
        /// Dataset.
        dataset: String,
        /// Fold.
        fold: u32,
        /// Algorithm label.
        algorithm: String,
        /// The cause.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Reading data.
    #[error(transparent)]
    Data(#[from] ltr_format::DataError),
    /// Metric computation.
    #[error(transparent)]
    Metrics(#[from] ltr_metrics::Error),
    /// Model or core error.
    #[error(transparent)]
    Core(#[from] ltr_core::Error),
    /// The result store.
    #[error("result store {}: {reason}", path.display())]
    Store {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A spec whose datasets yield no cell at all (every dataset unavailable, no such fold).
    #[error("{reason}")]
    NothingToRun {
        /// Why, naming each dataset.
        reason: String,
    },
    /// A value that must serialise to be hashed (a cell key, a seed) and did not.
    #[error("cannot serialise {what}: {reason}")]
    Serialize {
        /// What was being serialised.
        what: String,
        /// The serialiser's message.
        reason: String,
    },
    /// A cluster plan folder that cannot be written or read, or a task that must not run.
    #[error("plan {}: {reason}", dir.display())]
    Plan {
        /// The plan folder or file (the spec name when none is at hand).
        dir: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A TREC run or qrels file that cannot be written or read back.
    #[error("{source_name}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Trec {
        /// The file (or data) concerned.
        source_name: String,
        /// The 1-based line, when one is at fault.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
    },
    /// The code hash table lacks a crate (the build script and the registry disagree).
    #[error("code hashes: {reason}")]
    Code {
        /// What is missing.
        reason: String,
    },
}

impl HarnessError {
    pub(crate) fn store(path: impl Into<PathBuf>, reason: impl std::fmt::Display) -> Self {
        Self::Store { path: path.into(), reason: reason.to_string() }
    }
}

/// Result alias.
pub type Result<T, E = HarnessError> = std::result::Result<T, E>;
