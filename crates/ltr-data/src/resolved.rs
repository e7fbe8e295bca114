//! Datasets resolved to local files: where each fold's splits are and what they hash to.
//!
//! Produced by whoever gets the data (the fetch layer, or a user's own folder) and consumed
//! by the harness, which never fetches.

use std::path::PathBuf;

use ltr_core::Convention;
use ltr_format::LineFormat;
use serde::{Deserialize, Serialize};

/// One file of a fold: path relative to the collection root and its sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFile {
    /// Path relative to the collection root.
    pub rel: String,
    /// sha256 of the uncompressed file.
    pub sha256: String,
}

/// The files of one fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldFiles {
    /// Fold number.
    pub fold: u32,
    /// Training split.
    pub train: DataFile,
    /// Validation split.
    pub vali: DataFile,
    /// Test split.
    pub test: DataFile,
}

/// A dataset ready to run: where its files are and what they hash to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetInput {
    /// Dataset name.
    pub name: String,
    /// Feature variant.
    pub variant: String,
    /// Convention its numbers are reported with.
    pub convention: Convention,
    /// Feature count.
    pub features: usize,
    /// Missing-value token, if the variant has one.
    pub missing_token: Option<String>,
    /// Feature values are clipped to `[-clip, clip]` when read (the variant's policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<f32>,
    /// How its files write labels and query ids, where they depart from the LETOR form.
    #[serde(default, skip_serializing_if = "LineFormat::is_letor")]
    pub format: LineFormat,
    /// `Some(n)`: the dataset's `n` folds are the LETOR rotation of `n` subsets, byte for byte
    /// ([`crate::manifest::Variant::rotation`]), so a run over all of them may parse each
    /// subset once ([`crate::folds::rotation_subsets`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<u32>,
    /// The collection root holding the files.
    pub root: PathBuf,
    /// Fold files.
    pub folds: Vec<FoldFiles>,
}

/// Whether a dataset of the spec could be had.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum DatasetStatus {
    /// Present and verified.
    Available(DatasetInput),
    /// Not obtainable; the run goes on without it.
    Unavailable {
        /// Dataset name.
        name: String,
        /// Why.
        reason: String,
    },
}

impl DatasetStatus {
    /// The dataset name.
    pub fn name(&self) -> &str {
        match self {
            Self::Available(d) => &d.name,
            Self::Unavailable { name, .. } => name,
        }
    }
}
