//! The error type shared by the core traits and the algorithm crates.

/// Result alias for [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors raised by data-model checks, hyperparameter validation, fitting and scoring.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A data set whose parts do not fit together.
    #[error("invalid data set: {reason}")]
    InvalidDataset {
        /// What is wrong.
        reason: String,
    },
    /// Rows of the wrong width (e.g. a model applied to data with another feature count).
    #[error("feature count mismatch: expected {expected} features, found {found}")]
    FeatureCount {
        /// Width the model or builder expects.
        expected: usize,
        /// Width it was given.
        found: usize,
    },
    /// A hyperparameter outside its domain, found by `validate()`.
    #[error("invalid hyperparameter `{name}` = {value}: {reason}")]
    InvalidParam {
        /// The parameter key, as used in specs and `--set`.
        name: &'static str,
        /// The offending value, rendered.
        value: String,
        /// The constraint it violates.
        reason: String,
    },
    /// Training could not proceed (e.g. a singular system, no usable query).
    #[error("{algorithm}: {reason}")]
    Fit {
        /// The algorithm id.
        algorithm: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// A measure that could not be computed (e.g. NaN scores on the validation split).
    #[error("evaluation failed: {0}")]
    Measure(String),
    /// A model (read from a file) whose parts do not fit together: a feature index past its
    /// feature count, a width above [`crate::MAX_FEATURES`], sizes that disagree.
    #[error("invalid model: {reason}")]
    InvalidModel {
        /// What is wrong.
        reason: String,
    },
    /// A score buffer whose length is not the document count.
    #[error("score buffer holds {found} entries for {expected} documents")]
    ScoreBuffer {
        /// Documents in the data set.
        expected: usize,
        /// Entries in the buffer.
        found: usize,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidParam`].
    pub fn param(name: &'static str, value: impl std::fmt::Display, reason: impl Into<String>) -> Self {
        Self::InvalidParam { name, value: value.to_string(), reason: reason.into() }
    }

    /// Shorthand for [`Error::InvalidModel`].
    pub fn model(reason: impl Into<String>) -> Self {
        Self::InvalidModel { reason: reason.into() }
    }

    /// Shorthand for [`Error::Fit`].
    pub fn fit(algorithm: &'static str, reason: impl Into<String>) -> Self {
        Self::Fit { algorithm, reason: reason.into() }
    }
}
