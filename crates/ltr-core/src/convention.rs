//! The metric convention a data set's numbers are computed under.
//!
//! It belongs to the data: MSLR grades are relevant from 2, LETOR grades from 1, and a
//! learner that evaluates during training (AdaRank, PCRank) must use the same definitions as
//! the evaluation. The definitions themselves (gains, discounts, cut-offs) live in
//! `ltr-metrics`, which also fixes the one default convention used when none is given.

use serde::{Deserialize, Serialize};

/// A named set of metric definitions. The definitions are in `ltr-metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// `Eval-Score-3.0.pl` (LETOR 3.0).
    Letor3,
    /// `Eval-Score-4.0.pl` (LETOR 4.0).
    Letor4,
    /// The LETOR 4.0 script adapted to MSLR-WEB (grades 0-4, relevant from 2).
    Mslr,
    /// Textbook definitions: 1/log2(r+1) discount; past a list's end NDCG@k is NDCG of the
    /// whole list and P@k divides by k (as trec_eval).
    Standard,
}

impl Convention {
    /// All conventions, for help texts.
    pub const ALL: [Convention; 4] = [Self::Letor3, Self::Letor4, Self::Mslr, Self::Standard];

    /// The lowercase name used in specs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Letor3 => "letor3",
            Self::Letor4 => "letor4",
            Self::Mslr => "mslr",
            Self::Standard => "standard",
        }
    }

    /// Whether this is one of the official-script conventions.
    pub fn is_official(self) -> bool {
        !matches!(self, Self::Standard)
    }
}

impl std::fmt::Display for Convention {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Convention {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown convention `{s}` (expected letor3, letor4, mslr or standard)"))
    }
}
