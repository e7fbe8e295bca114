//! Errors of the fetch layer. Every variant names the file, address or dataset it is about.

use std::path::PathBuf;

use ltr_extract::ExtractError;
use ltr_format::DataError;

/// Errors of `ltr-fetch`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// A manifest or format error (unknown dataset, unreadable manifest, ...), and the errors
    /// this layer shares with the data layer: an I/O failure on a path
    /// ([`DataError::Io`], made by [`FetchError::io`]) and a file whose sha256 is not the known
    /// one ([`DataError::Checksum`]; its `file` is the relative path in the collection, or the
    /// archive name), so that callers match one variant whichever layer found the problem.
    #[error(transparent)]
    Data(DataError),
    /// An archive in the download folder (placed there by hand, for a license-gated
    /// collection) whose sha256 is not the expected one: refused, and left where it is.
    #[error(
        "{}: sha256 is {actual}, but {expected} is expected ({note}); it is not the archive the manifest describes: replace it",
        path.display()
    )]
    PlacedArchive {
        /// The archive.
        path: PathBuf,
        /// The expected hash.
        expected: String,
        /// Its hash.
        actual: String,
        /// Who published the expected hash, and where the right archive is obtained.
        note: String,
    },
    /// A download or mirror file refused for what it is, before any hash could be taken:
    /// more bytes than its known size (or the collection's cap) allows, or a `.gz` that is
    /// not valid gzip. Never a reason to take the file from another source.
    #[error("{what}: refused: {reason}")]
    Refused {
        /// The address or mirror file.
        what: String,
        /// Why, with the bound and where it comes from.
        reason: String,
    },
    /// A download that failed for good.
    #[error("download of {url} failed: {reason}")]
    Download {
        /// The address.
        url: String,
        /// Last error.
        reason: String,
    },
    /// An archive that cannot be unpacked or lacks a file.
    #[error("archive {}: {reason}", path.display())]
    Archive {
        /// The archive.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A mirror setting that cannot be used.
    #[error("mirror {mirror}: {reason}")]
    Mirror {
        /// The mirror as given.
        mirror: String,
        /// What is wrong.
        reason: String,
    },
    /// A dataset that is neither in the cache, nor on the mirror, nor embedded, nor
    /// downloadable.
    #[error("{dataset} is unavailable: {reason}")]
    Unavailable {
        /// Dataset name.
        dataset: String,
        /// Why.
        reason: String,
    },
}

impl From<DataError> for FetchError {
    /// An unavailable dataset keeps its kind, so callers match one variant whichever layer
    /// found it.
    fn from(e: DataError) -> Self {
        match e {
            DataError::Unavailable { dataset, reason } => Self::Unavailable { dataset, reason },
            other => Self::Data(other),
        }
    }
}

impl From<ExtractError> for FetchError {
    /// Each kind keeps its variant and its message.
    fn from(e: ExtractError) -> Self {
        match e {
            ExtractError::Io { path, source } => Self::io(path, source),
            ExtractError::Archive { path, reason } => Self::Archive { path, reason },
        }
    }
}

impl FetchError {
    /// An I/O failure on a path ([`DataError::Io`]).
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Data(DataError::Io { path: path.into(), source })
    }

    /// The message for a line that already names the dataset: the bare reason of
    /// [`FetchError::Unavailable`], the whole message otherwise.
    pub fn reason(&self) -> String {
        match self {
            Self::Unavailable { reason, .. } => reason.clone(),
            e => e.to_string(),
        }
    }
}
