//! Conventions and the evaluation configuration built from them.

use ltr_core::{Convention, Grade};
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

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

    /// The rule's name, as the CLI and the JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Ties::File => "file",
            Ties::Pessimistic => "pessimistic",
            Ties::Expected => "expected",
        }
    }
}

impl std::fmt::Display for Ties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Ties {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Ties::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
            .ok_or(Error::Config("tie rule must be file, pessimistic or expected"))
    }
}

/// The largest cut-off `k` (of `ndcg@k`, `p@k`, `err@k` and `max_k`). An evaluation keeps
/// `max_k` numbers per metric for every query, so the bound caps that memory (30,000 queries
/// of MSLR-WEB: 720 MB at most); the official scripts stop at 10 or 16.
pub const MAX_K: usize = 1000;

/// Everything that defines how a ranking is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// The named convention.
    pub convention: Convention,
    /// Policy for queries with no relevant document.
    pub no_relevant: NoRelevant,
    /// Lowest grade that counts as relevant for P@k, MAP and MRR.
    pub relevant_from: Grade,
    /// Highest grade, for ERR's stop probability `(2^g - 1) / 2^max_grade`. `None`: the
    /// highest grade in the evaluated data.
    pub max_grade: Option<Grade>,
    /// Cut-offs reported: P@1..=max_k and NDCG@1..=max_k.
    pub max_k: usize,
    /// How tied scores are ordered ([`Ties::File`], the scripts' rule, unless asked).
    #[serde(default, skip_serializing_if = "Ties::is_file")]
    pub ties: Ties,
}

impl EvalConfig {
    /// The official configuration of a convention (for `standard`: relevant from 1,
    /// no-relevant queries score 1 as in LightGBM, cut-offs 1..=10).
    pub fn official(convention: Convention) -> Self {
        match convention {
            Convention::Letor3 => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 1,
                max_grade: Some(2),
                max_k: 16,
                ties: Ties::File,
            },
            Convention::Letor4 => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 1,
                max_grade: Some(2),
                max_k: 10,
                ties: Ties::File,
            },
            Convention::Mslr => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 2,
                max_grade: Some(4),
                max_k: 10,
                ties: Ties::File,
            },
            Convention::Standard => Self {
                convention,
                no_relevant: NoRelevant::One,
                relevant_from: 1,
                max_grade: None,
                max_k: 10,
                ties: Ties::File,
            },
        }
    }

    /// The official configuration of the data set's convention, or of
    /// [`crate::DEFAULT_CONVENTION`] when it names none.
    pub fn of(data: &ltr_core::Dataset) -> Self {
        Self::official(data.convention().unwrap_or(crate::DEFAULT_CONVENTION))
    }

    /// `standard` with the given no-relevant policy.
    pub fn standard(no_relevant: NoRelevant) -> Self {
        Self { no_relevant, ..Self::official(Convention::Standard) }
    }

    /// Checks that an official convention is not combined with non-official settings.
    pub fn validate(&self) -> Result<()> {
        if self.max_k == 0 {
            return Err(Error::Config("max_k must be at least 1"));
        }
        if self.max_k > MAX_K {
            return Err(Error::Cutoff { what: "max_k".into(), k: self.max_k, max: MAX_K });
        }
        if self.relevant_from == 0 {
            return Err(Error::Config("relevant_from must be at least 1"));
        }
        if self.convention.is_official() {
            let official = Self::official(self.convention);
            if self.no_relevant != NoRelevant::Zero {
                return Err(Error::Config(
                    "official conventions score queries without relevant documents 0; use `standard` for another policy",
                ));
            }
            if self.relevant_from != official.relevant_from {
                return Err(Error::Config("official conventions fix the relevance threshold"));
            }
        }
        Ok(())
    }

    /// Gain of a grade: `2^g - 1`.
    #[inline]
    pub fn gain(&self, grade: Grade) -> f64 {
        GAINS.get(usize::from(grade)).copied().unwrap_or_else(|| f64::from(grade).exp2() - 1.0)
    }

    /// Discount of 1-based rank `r`, as the scripts compute it: LETOR conventions
    /// `ln 2 / ln r` for `r >= 3` (1 above); standard `ln 2 / ln(r + 1)`.
    #[inline]
    pub fn discount(&self, rank: usize) -> f64 {
        match self.convention {
            Convention::Standard => std::f64::consts::LN_2 / ((rank + 1) as f64).ln(),
            _ if rank <= 2 => 1.0,
            _ => std::f64::consts::LN_2 / (rank as f64).ln(),
        }
    }

    /// The DCG increment of `grade` at 1-based `rank`, in the scripts' operation order
    /// (`gain * ln 2 / ln r`).
    #[inline]
    pub fn dcg_term(&self, grade: Grade, rank: usize) -> f64 {
        self.dcg_term_of_gain(self.gain(grade), rank)
    }

    /// [`EvalConfig::dcg_term`] of a gain given as a number (the mean gain of tied
    /// documents, under [`Ties::Expected`]), in the same operation order.
    #[inline]
    pub fn dcg_term_of_gain(&self, g: f64, rank: usize) -> f64 {
        match self.convention {
            Convention::Standard => g * std::f64::consts::LN_2 / ((rank + 1) as f64).ln(),
            _ if rank <= 2 => g,
            _ => g * std::f64::consts::LN_2 / (rank as f64).ln(),
        }
    }

    /// Whether a grade counts as relevant for P@k, MAP and MRR.
    #[inline]
    pub fn is_relevant(&self, grade: Grade) -> bool {
        grade >= self.relevant_from
    }

    /// Whether NDCG@k for `k` beyond the list length is 0 (official) rather than NDCG@n.
    #[inline]
    pub fn ndcg_zero_past_end(&self) -> bool {
        self.convention.is_official()
    }
}

/// `2^g - 1` for the grades in common use.
const GAINS: [f64; 8] = [0.0, 1.0, 3.0, 7.0, 15.0, 31.0, 63.0, 127.0];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn official_configs_validate_and_standard_variants_are_allowed() {
        for c in Convention::ALL {
            EvalConfig::official(c).validate().unwrap();
        }
        EvalConfig::standard(NoRelevant::Skip).validate().unwrap();
        let bad = EvalConfig { no_relevant: NoRelevant::One, ..EvalConfig::official(Convention::Letor3) };
        assert!(bad.validate().is_err());
        let wide = EvalConfig { max_k: usize::MAX, ..EvalConfig::official(Convention::Letor3) };
        assert!(wide.validate().unwrap_err().to_string().contains("max_k: cut-off"));
    }

    #[test]
    fn discounts_follow_the_scripts() {
        let l3 = EvalConfig::official(Convention::Letor3);
        assert_eq!(l3.discount(1), 1.0);
        assert_eq!(l3.discount(2), 1.0);
        assert!((l3.discount(4) - 0.5).abs() < 1e-15);
        let st = EvalConfig::official(Convention::Standard);
        assert!((st.discount(1) - 1.0).abs() < 1e-15);
        assert!((st.discount(3) - 0.5).abs() < 1e-15);
        assert_eq!(l3.gain(2), 3.0);
        assert_eq!(l3.gain(10), 1023.0);
    }

    #[test]
    fn tie_rules_parse_and_file_order_is_left_out_of_the_json() {
        assert_eq!("Expected".parse::<Ties>().unwrap(), Ties::Expected);
        assert!("random".parse::<Ties>().is_err());
        let file = EvalConfig::official(Convention::Letor3);
        let json = serde_json::to_string(&file).unwrap();
        assert!(!json.contains("ties"), "{json}");
        assert_eq!(serde_json::from_str::<EvalConfig>(&json).unwrap(), file);
        let expected = EvalConfig { ties: Ties::Expected, ..file };
        let json = serde_json::to_string(&expected).unwrap();
        assert!(json.contains(r#""ties":"expected""#), "{json}");
        assert_eq!(serde_json::from_str::<EvalConfig>(&json).unwrap(), expected);
    }

    #[test]
    fn convention_names_parse() {
        assert_eq!("LETOR4".parse::<Convention>().unwrap(), Convention::Letor4);
        assert!("trec".parse::<Convention>().is_err());
    }
}
