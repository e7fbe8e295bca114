//! Errors of the runner, the result store and cluster plans, each naming the file or folder.

use std::path::PathBuf;

use ltr_harness::HarnessError;

/// Errors of `ltr-runner`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunnerError {
    /// A spec, a parameter, a cell's fit or evaluation (the harness's errors, as they were).
    #[error(transparent)]
    Harness(#[from] HarnessError),
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
    /// A value that must serialise to be hashed (a cell key, a record) and did not.
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
    /// A dataset whose shape an estimate cannot know (not in the manifest, no size there, a
    /// path that cannot be read).
    #[error("{dataset}: {reason}")]
    Shape {
        /// The dataset.
        dataset: String,
        /// Why, in one line.
        reason: String,
    },
    /// The code hash table lacks a crate (the build script and the registry disagree).
    #[error("code hashes: {reason}")]
    Code {
        /// What is missing.
        reason: String,
    },
}

impl RunnerError {
    pub(crate) fn store(path: impl Into<PathBuf>, reason: impl std::fmt::Display) -> Self {
        Self::Store { path: path.into(), reason: reason.to_string() }
    }
}

/// Result alias.
pub type Result<T, E = RunnerError> = std::result::Result<T, E>;
