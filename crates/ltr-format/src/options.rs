//! How a LETOR file is written and read: its line format (where it departs from the LETOR
//! form), the reader's options and the limits every read is held to.

use ltr_core::Grade;
use serde::{Deserialize, Serialize};

/// How a file writes labels and query ids where it departs from the LETOR form; the default
/// is the LETOR form itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineFormat {
    /// The query id is the line's comment, `<label> <index>:<value> ... # <qid>` (Yandex's
    /// Internet Mathematics 2009 files), instead of a `qid:<id>` token after the label. The
    /// comment must then be that one token; there is no document id.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub qid_in_comment: bool,
    /// How a label that is a real number and not an integer (`0.5`, `2.16049`: Yandex's IM2009
    /// labels are means of several assessors' grades) becomes a grade. `None`: such a label is
    /// refused, naming the line. Metrics and learners see the grade, never the real value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fractional_labels: Option<LabelRounding>,
}

impl LineFormat {
    /// Whether it is the LETOR form (nothing declared).
    pub fn is_letor(&self) -> bool {
        *self == Self::default()
    }
}

/// How a real-valued label becomes an integer grade ([`LineFormat::fractional_labels`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelRounding {
    /// The nearest grade, halves up: `0.5` is 1, `1.33333` is 1, `2.5` is 3.
    Round,
    /// The grade below: `0.5` is 0, `1.99` is 1.
    Floor,
}

impl LabelRounding {
    /// The grade of a real label `v` (finite, at least 0), if it is one of 0..=255.
    pub fn grade(self, v: f64) -> Option<Grade> {
        let g = match self {
            Self::Round => (v + 0.5).floor(),
            Self::Floor => v.floor(),
        };
        (v >= 0.0 && g <= f64::from(Grade::MAX)).then_some(g as Grade)
    }

    /// Its name in manifests and specs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Round => "round",
            Self::Floor => "floor",
        }
    }

    /// Its rule in words, for logs and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Round => "rounded to the nearest grade, halves up",
            Self::Floor => "rounded down to the grade below",
        }
    }
}

impl std::str::FromStr for LabelRounding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "round" => Ok(Self::Round),
            "floor" => Ok(Self::Floor),
            other => Err(format!("`{other}` is not a rule for fractional labels (round, floor)")),
        }
    }
}

/// How to read a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    /// The exact feature count (from a manifest or a model): an index beyond it is an
    /// error, and rows are padded to it. `None`: the highest index in the file.
    pub n_features: Option<usize>,
    /// A value token that stands for "missing" (LETOR 3.0 `Feature-null` files use `NULL`).
    /// It is read as 0, the same convention as an absent sparse feature.
    pub missing_token: Option<String>,
    /// Also compute the sha256 of the (uncompressed) bytes while reading.
    pub sha256: bool,
    /// The largest dense feature matrix accepted, in bytes. `None`: three quarters of the
    /// memory the system reports available (`MemAvailable` in `/proc/meminfo`), where it
    /// can be read. Tests set it to check the limit without using the memory.
    pub max_dense_bytes: Option<u64>,
    /// Clip feature values to `[-clip, clip]`, also numbers written finitely but beyond the
    /// `f32` range (Istella's 1.79e308), which are otherwise refused as not finite. `inf`
    /// and `nan` written as such are still refused. `None`: no clipping.
    pub clip: Option<f32>,
    /// Where the file departs from the LETOR form (query ids in comments, real-valued labels).
    pub format: LineFormat,
}

/// The highest feature index a file may use when no feature count is declared. Rows are
/// stored densely, so one stray large index would otherwise widen every row to it (a
/// typo like `99999999:1` would ask for gigabytes). Public LETOR-style data sets use at
/// most a few hundred features (MSLR-WEB 136, Istella 220, Yahoo! LTR 700).
pub const MAX_UNDECLARED_FEATURES: usize = 1 << 16;

/// Without a declared feature count, the dense matrix may take at most this many times the
/// bytes of text it is read from (or [`SPARSE_FLOOR_BYTES`], whichever is more). Dense
/// LETOR text spends at least 4 bytes per feature (`7:0 `), the same as the matrix; a file
/// far below that is sparse input with large indices, which a dense matrix does not suit.
pub const MAX_DENSE_EXPANSION: u64 = 64;

/// The dense matrix size always accepted for a file without a declared feature count,
/// however small its text (subject to the memory limit).
pub const SPARSE_FLOOR_BYTES: u64 = 256 << 20;

/// The longest line accepted, in bytes: a line is held in memory whole while it is parsed.
/// Real lines are under 10 KB (MSLR-WEB: about 1 KB).
pub const MAX_LINE_BYTES: usize = 1 << 30;
