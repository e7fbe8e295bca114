//! The parts a convention is made of, each settable on its own. The named conventions
//! ([`crate::Convention`]) are presets of them ([`crate::EvalConfig::official`]).

use ltr_core::Grade;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// `FromStr` and `name` of a part's rule from its names, as the CLI and specs spell them.
macro_rules! named_rule {
    ($ty:ident, $what:literal, $($variant:ident => $name:literal),+) => {
        impl $ty {
            /// The rule's name, as the CLI and the specs spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = Error;

            fn from_str(s: &str) -> Result<Self> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(Error::Config(concat!($what, " must be one of: ", $($name, " "),+))),
                }
            }
        }
    };
}

/// What a query without any relevant document scores (`standard` only; the official
/// conventions always use [`NoRelevant::Zero`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoRelevant {
    /// NDCG = AP = ERR = RR = 0, and the query counts in the mean (the LETOR scripts).
    Zero,
    /// NDCG = AP = ERR = RR = 1, and the query counts (LightGBM's and XGBoost's default).
    One,
    /// The query is left out of every mean (trec_eval's behaviour for unjudged queries).
    Skip,
}

named_rule!(NoRelevant, "no_relevant", Zero => "zero", One => "one", Skip => "skip");

/// How documents with equal scores are ordered before a ranking is scored.
///
/// The official scripts keep file order, so two files holding the same scores in another
/// row order can score differently. The other two rules do not depend on row order: the
/// pessimistic one is the worst case, and the expected one is the mean over every ordering
/// of the tied documents, in closed form (McSherry and Najork, *Computing information
/// retrieval performance measures efficiently in the presence of tied scores*, ECIR 2008).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ties {
    /// Tied documents keep their order in the file (the official scripts).
    #[default]
    File,
    /// Tied documents are ranked by ascending grade: relevant documents last.
    Pessimistic,
    /// Every metric is its expectation over all orderings of the tied documents.
    Expected,
}

impl Ties {
    /// Every rule, in the order the CLI lists them.
    pub const ALL: [Ties; 3] = [Ties::File, Ties::Pessimistic, Ties::Expected];

    /// Whether this is file order (the default, which the serialised config leaves out so
    /// that configs and cell keys written before the rule existed stay the same).
    pub fn is_file(&self) -> bool {
        *self == Ties::File
    }
}

named_rule!(Ties, "ties", File => "file", Pessimistic => "pessimistic", Expected => "expected");

/// The gain of a grade in DCG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GainRule {
    /// `2^g - 1` (every named convention).
    Exponential,
    /// `g`, the grade itself (Järvelin and Kekäläinen's original cumulated gain).
    Linear,
}

/// The discount of a 1-based rank `r` in DCG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiscountRule {
    /// 1 at ranks 1 and 2, `1 / log2(r)` below (the LETOR scripts).
    Letor,
    /// `1 / log2(r + 1)` (Burges et al.; LightGBM, XGBoost, `standard`).
    Log2,
}

/// NDCG@k of a list shorter than `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NdcgPastEnd {
    /// 0 (the LETOR scripts: on MQ2008 every curve drops at k = 9 and 10).
    Zero,
    /// NDCG@n of the whole list (`standard`).
    Cut,
}

/// P@k of a list shorter than `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrecisionPastEnd {
    /// 0 (`Eval-Score-3.0.pl`).
    Zero,
    /// The relevant documents over `k`: the missing places count as not relevant
    /// (`Eval-Score-4.0.pl`, trec_eval's `P.k`).
    OverK,
}

named_rule!(GainRule, "gain", Exponential => "exponential", Linear => "linear");
named_rule!(DiscountRule, "discount", Letor => "letor", Log2 => "log2");
named_rule!(NdcgPastEnd, "ndcg_past_end", Zero => "zero", Cut => "cut");
named_rule!(PrecisionPastEnd, "precision_past_end", Zero => "zero", OverK => "over-k");

/// Parts set one by one over a named convention: a spec's `eval` table and `ltr eval`'s
/// flags. Each `None` keeps the convention's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConventionParts {
    /// Gain of a grade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain: Option<GainRule>,
    /// Discount of a rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount: Option<DiscountRule>,
    /// NDCG@k past the list's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndcg_past_end: Option<NdcgPastEnd>,
    /// P@k past the list's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_past_end: Option<PrecisionPastEnd>,
    /// What a query without relevant documents scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_relevant: Option<NoRelevant>,
    /// The lowest relevant grade (P@k, recall@k, MAP, RR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevant_from: Option<Grade>,
    /// ERR's highest grade `gmax`, of the stop probability `(2^g - 1) / 2^gmax` (the Yahoo!
    /// challenge: 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_grade: Option<Grade>,
    /// How tied scores are ordered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ties: Option<Ties>,
}

impl ConventionParts {
    /// Whether no part is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The parts set, as `key=value` joined by `, ` in the order of [`ConventionParts::KEYS`]
    /// (empty when none).
    pub fn describe(&self) -> String {
        let values = [
            self.gain.map(|g| g.name().to_owned()),
            self.discount.map(|d| d.name().to_owned()),
            self.ndcg_past_end.map(|p| p.name().to_owned()),
            self.precision_past_end.map(|p| p.name().to_owned()),
            self.no_relevant.map(|n| n.name().to_owned()),
            self.relevant_from.map(|r| r.to_string()),
            self.max_grade.map(|g| g.to_string()),
            self.ties.map(|t| t.name().to_owned()),
        ];
        Self::KEYS
            .iter()
            .zip(values)
            .filter_map(|(key, value)| value.map(|v| format!("{key}={v}")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The keys, in the order [`ConventionParts::describe`] lists them.
    pub const KEYS: [&'static str; 8] = [
        "gain",
        "discount",
        "ndcg_past_end",
        "precision_past_end",
        "no_relevant",
        "relevant_from",
        "max_grade",
        "ties",
    ];
}
