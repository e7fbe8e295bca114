//! Static algorithm metadata rendered in the comparison tables.

use serde::{Deserialize, Serialize};

/// The family column of a survey's algorithm table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Family {
    /// Regression on the grades, ordinal regression included (PRank's thresholds).
    Regression,
    /// Large-margin methods.
    #[serde(rename = "SVM")]
    Svm,
    /// Boosting over weak rankers.
    Boosting,
    /// Gradient-boosted trees.
    Trees,
    /// Neural networks.
    #[serde(rename = "ANN")]
    Ann,
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Regression => "Regression",
            Self::Svm => "SVM",
            Self::Boosting => "Boosting",
            Self::Trees => "Trees",
            Self::Ann => "ANN",
        })
    }
}

/// The loss column: what the training objective looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossType {
    /// One document at a time.
    Pointwise,
    /// Pairs of documents of one query.
    Pairwise,
    /// Whole ranked lists.
    Listwise,
    /// A mix, e.g. regression plus pairwise (CRR).
    Hybrid,
}

impl std::fmt::Display for LossType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Pointwise => "pointwise",
            Self::Pairwise => "pairwise",
            Self::Listwise => "listwise",
            Self::Hybrid => "pointwise+pairwise",
        })
    }
}

/// Metadata every algorithm crate exports as a `pub const INFO: AlgorithmInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AlgorithmInfo {
    /// The id used in specs, on the command line and in reports (`regression`, `ranksvm`, ...).
    pub id: &'static str,
    /// Display name (`RankSVM`).
    pub name: &'static str,
    /// Family column.
    pub family: Family,
    /// Year of the reference publication.
    pub year: u16,
    /// Loss column.
    pub loss: LossType,
    /// Optimizer column (`Cholesky`, `truncated Newton`, ...).
    pub optimizer: &'static str,
    /// Reference publication, one line.
    pub reference: &'static str,
}
