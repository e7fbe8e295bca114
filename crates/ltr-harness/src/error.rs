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
    /// A value that must serialise to be hashed (a cell key, a seed) and did not.
    #[error("cannot serialise {what}: {reason}")]
    Serialize {
        /// What was being serialised.
        what: String,
        /// The serialiser's message.
        reason: String,
    },
}

/// Result alias.
pub type Result<T, E = HarnessError> = std::result::Result<T, E>;
