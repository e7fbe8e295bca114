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
            },
            Convention::Letor4 => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 1,
                max_grade: Some(2),
                max_k: 10,
            },
            Convention::Mslr => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 2,
                max_grade: Some(4),
                max_k: 10,
            },
            Convention::Standard => Self {
                convention,
                no_relevant: NoRelevant::One,
                relevant_from: 1,
                max_grade: None,
                max_k: 10,
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
        let g = self.gain(grade);
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
    fn convention_names_parse() {
        assert_eq!("LETOR4".parse::<Convention>().unwrap(), Convention::Letor4);
        assert!("trec".parse::<Convention>().is_err());
    }
}
