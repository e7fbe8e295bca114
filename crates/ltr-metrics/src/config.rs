//! Conventions and the evaluation configuration built from them.

use ltr_core::{Convention, Grade};
use serde::{Deserialize, Serialize};

use crate::parts::{
    ConventionParts, DiscountRule, GainRule, NdcgPastEnd, NoRelevant, PrecisionPastEnd, Ties,
};
use crate::{Error, Result};

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
    /// The gain of a grade in DCG, when not the convention's (exponential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain: Option<GainRule>,
    /// The discount of a rank, when not the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount: Option<DiscountRule>,
    /// NDCG@k past a list's end, when not the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndcg_past_end: Option<NdcgPastEnd>,
    /// P@k past a list's end, when not the convention's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_past_end: Option<PrecisionPastEnd>,
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
                gain: None,
                discount: None,
                ndcg_past_end: None,
                precision_past_end: None,
            },
            Convention::Letor4 => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 1,
                max_grade: Some(2),
                max_k: 10,
                ties: Ties::File,
                gain: None,
                discount: None,
                ndcg_past_end: None,
                precision_past_end: None,
            },
            Convention::Mslr => Self {
                convention,
                no_relevant: NoRelevant::Zero,
                relevant_from: 2,
                max_grade: Some(4),
                max_k: 10,
                ties: Ties::File,
                gain: None,
                discount: None,
                ndcg_past_end: None,
                precision_past_end: None,
            },
            Convention::Standard => Self {
                convention,
                no_relevant: NoRelevant::One,
                relevant_from: 1,
                max_grade: None,
                max_k: 10,
                ties: Ties::File,
                gain: None,
                discount: None,
                ndcg_past_end: None,
                precision_past_end: None,
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

    /// This config with the parts `parts` sets replaced (the others kept).
    pub fn with_parts(mut self, parts: &ConventionParts) -> Self {
        if let Some(g) = parts.gain {
            self.gain = Some(g);
        }
        if let Some(d) = parts.discount {
            self.discount = Some(d);
        }
        if let Some(p) = parts.ndcg_past_end {
            self.ndcg_past_end = Some(p);
        }
        if let Some(p) = parts.precision_past_end {
            self.precision_past_end = Some(p);
        }
        if let Some(n) = parts.no_relevant {
            self.no_relevant = n;
        }
        if let Some(r) = parts.relevant_from {
            self.relevant_from = r;
        }
        if let Some(g) = parts.max_grade {
            self.max_grade = Some(g);
        }
        if let Some(t) = parts.ties {
            self.ties = t;
        }
        self
    }

    /// The parts in which this config departs from its named convention's preset, in the
    /// order [`ConventionParts::describe`] lists them (empty for a preset).
    pub fn departures(&self) -> ConventionParts {
        let preset = Self::official(self.convention);
        fn differs<T: PartialEq>(a: T, b: T) -> Option<T> {
            (a != b).then_some(a)
        }
        ConventionParts {
            gain: differs(self.gain_rule(), preset.gain_rule()),
            discount: differs(self.discount_rule(), preset.discount_rule()),
            ndcg_past_end: differs(self.ndcg_past_end_rule(), preset.ndcg_past_end_rule()),
            precision_past_end: differs(self.precision_past_end_rule(), preset.precision_past_end_rule()),
            no_relevant: differs(self.no_relevant, preset.no_relevant),
            relevant_from: differs(self.relevant_from, preset.relevant_from),
            max_grade: differs(self.max_grade, preset.max_grade).flatten(),
            ties: differs(self.ties, preset.ties),
        }
    }

    /// The convention's name, and the parts that depart from it: `letor3`, or
    /// `letor3 (gain=linear, ties=expected)`. Every table names its numbers by this.
    pub fn label(&self) -> String {
        let parts = self.departures().describe();
        if parts.is_empty() { self.convention.to_string() } else { format!("{} ({parts})", self.convention) }
    }

    /// The gain rule in force.
    pub fn gain_rule(&self) -> GainRule {
        self.gain.unwrap_or(GainRule::Exponential)
    }

    /// The discount rule in force: the convention's unless set.
    pub fn discount_rule(&self) -> DiscountRule {
        self.discount.unwrap_or(match self.convention {
            Convention::Standard => DiscountRule::Log2,
            _ => DiscountRule::Letor,
        })
    }

    /// NDCG@k past a list's end in force: 0 under the official conventions, else cut.
    pub fn ndcg_past_end_rule(&self) -> NdcgPastEnd {
        self.ndcg_past_end.unwrap_or(if self.convention.is_official() {
            NdcgPastEnd::Zero
        } else {
            NdcgPastEnd::Cut
        })
    }

    /// P@k past a list's end in force: 0 under `letor3`, else the relevant count over `k`.
    pub fn precision_past_end_rule(&self) -> PrecisionPastEnd {
        self.precision_past_end.unwrap_or(match self.convention {
            Convention::Letor3 => PrecisionPastEnd::Zero,
            _ => PrecisionPastEnd::OverK,
        })
    }

    /// Checks the bounds of the numeric parts. Any part may depart from the named
    /// convention's preset; [`EvalConfig::label`] then names the departure.
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
        if self.max_grade == Some(0) {
            return Err(Error::Config("max_grade must be at least 1"));
        }
        Ok(())
    }

    /// Gain of a grade in DCG: `2^g - 1` (every named convention), or `g` under
    /// [`GainRule::Linear`].
    #[inline]
    pub fn gain(&self, grade: Grade) -> f64 {
        match self.gain {
            Some(GainRule::Linear) => f64::from(grade),
            _ => exponential_gain(grade),
        }
    }

    /// Discount of 1-based rank `r`, as the scripts compute it: LETOR conventions
    /// `ln 2 / ln r` for `r >= 3` (1 above); standard `ln 2 / ln(r + 1)`.
    #[inline]
    pub fn discount(&self, rank: usize) -> f64 {
        match self.discount_rule() {
            DiscountRule::Log2 => std::f64::consts::LN_2 / ((rank + 1) as f64).ln(),
            DiscountRule::Letor if rank <= 2 => 1.0,
            DiscountRule::Letor => std::f64::consts::LN_2 / (rank as f64).ln(),
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
        match self.discount_rule() {
            DiscountRule::Log2 => g * std::f64::consts::LN_2 / ((rank + 1) as f64).ln(),
            DiscountRule::Letor if rank <= 2 => g,
            DiscountRule::Letor => g * std::f64::consts::LN_2 / (rank as f64).ln(),
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
        self.ndcg_past_end_rule() == NdcgPastEnd::Zero
    }

    /// What a query without relevant documents scores in NDCG, AP, ERR and RR (its policy's
    /// 1, else 0).
    #[inline]
    pub fn undefined_value(&self) -> f64 {
        if self.no_relevant == NoRelevant::One { 1.0 } else { 0.0 }
    }
}

/// `2^g - 1`: the gain of every named convention, and ERR's stop probability's numerator
/// whatever the gain rule (ERR is defined by it).
#[inline]
pub fn exponential_gain(grade: Grade) -> f64 {
    GAINS.get(usize::from(grade)).copied().unwrap_or_else(|| f64::from(grade).exp2() - 1.0)
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
        // A departure from a preset is valid, and named.
        let one = EvalConfig { no_relevant: NoRelevant::One, ..EvalConfig::official(Convention::Letor3) };
        one.validate().unwrap();
        assert_eq!(one.label(), "letor3 (no_relevant=one)");
        assert_eq!(EvalConfig::official(Convention::Letor3).label(), "letor3");
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

    /// The parts of a preset, written out one by one.
    fn spelled_out(c: Convention) -> ConventionParts {
        let p = EvalConfig::official(c);
        ConventionParts {
            gain: Some(p.gain_rule()),
            discount: Some(p.discount_rule()),
            ndcg_past_end: Some(p.ndcg_past_end_rule()),
            precision_past_end: Some(p.precision_past_end_rule()),
            no_relevant: Some(p.no_relevant),
            relevant_from: Some(p.relevant_from),
            max_grade: p.max_grade,
            ties: Some(p.ties),
        }
    }

    #[test]
    fn the_named_conventions_are_presets_of_the_parts() {
        let mut rng = ltr_core::Rng::new(3);
        let labels: Vec<Grade> = (0..60).map(|_| rng.index(3) as Grade).collect();
        let scores: Vec<f64> = (0..60).map(|_| rng.index(7) as f64).collect();
        let offsets = [0, 3, 4, 12, 30, 60];
        let qids: Vec<String> = (0..5).map(|q| q.to_string()).collect();
        for c in Convention::ALL {
            // Any preset rebuilt from another named convention by its parts scores the
            // same bits as the preset itself.
            for base in Convention::ALL {
                let preset = EvalConfig::official(c);
                let rebuilt = EvalConfig {
                    max_grade: preset.max_grade,
                    max_k: preset.max_k,
                    ..EvalConfig::official(base)
                }
                .with_parts(&spelled_out(c));
                let a = crate::evaluate(&qids, &labels, &offsets, None, &scores, &rebuilt).unwrap();
                let b = crate::evaluate(&qids, &labels, &offsets, None, &scores, &preset).unwrap();
                assert_eq!(a.per_query, b.per_query, "{c} from {base}");
            }
            assert_eq!(EvalConfig::official(c).departures(), ConventionParts::default());
            assert_eq!(EvalConfig::official(c).with_parts(&spelled_out(c)).label(), c.to_string());
        }
    }

    #[test]
    fn each_part_by_hand() {
        let l3 = EvalConfig::official(Convention::Letor3);
        // Linear gain: grades 2, 0, 1 ranked; DCG@3 = 2 + 0 + 1/log2(3), ideal 2 + 1.
        let lin = l3.with_parts(&ConventionParts { gain: Some(GainRule::Linear), ..Default::default() });
        assert_eq!(lin.label(), "letor3 (gain=linear)");
        let m = crate::evaluate_query("q", &[2, 0, 1], &[3.0, 2.0, 1.0], &lin, 2).unwrap();
        assert!((m.ndcg[2] - (2.0 + 1.0 / 3f64.log2()) / 3.0).abs() < 1e-15);
        // ERR keeps its exponential stop probability: (2^2 - 1) / 4 at rank 1.
        assert_eq!(m.err[0], 0.75);
        // log2 discount on letor3: rank 2 is discounted by 1/log2(3).
        let log2 =
            l3.with_parts(&ConventionParts { discount: Some(DiscountRule::Log2), ..Default::default() });
        let m = crate::evaluate_query("q", &[0, 1], &[2.0, 1.0], &log2, 2).unwrap();
        assert!((m.ndcg[1] - 1.0 / 3f64.log2()).abs() < 1e-15);
        // Past the end: cut NDCG and relevant/k precision on letor3.
        let cut = l3.with_parts(&ConventionParts {
            ndcg_past_end: Some(NdcgPastEnd::Cut),
            precision_past_end: Some(PrecisionPastEnd::OverK),
            ..Default::default()
        });
        let m = crate::evaluate_query("q", &[1, 0], &[2.0, 1.0], &cut, 2).unwrap();
        assert_eq!((m.ndcg[4], m.precision[4]), (1.0, 1.0 / 5.0));
        // No-relevant queries dropped, and a threshold of 2, on letor4.
        let l4 = EvalConfig::official(Convention::Letor4);
        let drop = l4.with_parts(&ConventionParts {
            no_relevant: Some(NoRelevant::Skip),
            relevant_from: Some(2),
            ..Default::default()
        });
        assert_eq!(drop.label(), "letor4 (no_relevant=skip, relevant_from=2)");
        let e = crate::evaluate(
            &["a".into(), "b".into()],
            &[1, 0, 2, 1],
            &[0, 2, 4],
            None,
            &[2.0, 1.0, 1.0, 2.0],
            &drop,
        )
        .unwrap();
        assert_eq!((e.summary.n_counted, e.summary.map), (1, 0.5));
    }

    #[test]
    fn parts_parse_from_names_and_from_a_spec_table() {
        assert_eq!("over-k".parse::<PrecisionPastEnd>().unwrap(), PrecisionPastEnd::OverK);
        assert!("log10".parse::<DiscountRule>().unwrap_err().to_string().contains("letor log2"));
        let parts: ConventionParts =
            serde_json::from_str(r#"{"gain":"linear","precision_past_end":"over-k","ties":"expected"}"#)
                .unwrap();
        assert_eq!(parts.describe(), "gain=linear, precision_past_end=over-k, ties=expected");
        assert!(serde_json::from_str::<ConventionParts>(r#"{"gains":"linear"}"#).is_err());
    }

    #[test]
    fn convention_names_parse() {
        assert_eq!("LETOR4".parse::<Convention>().unwrap(), Convention::Letor4);
        assert!("trec".parse::<Convention>().is_err());
    }
}
