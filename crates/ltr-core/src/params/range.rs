//! The valid values of one hyperparameter and their check: the rows of a parameter table.
//! Kept apart from the table checks of `params`, which need the `Params` trait that names
//! these rows, so that the trait and the rows do not use each other.

use crate::error::{Error, Result};

/// The valid values of one hyperparameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamRange {
    /// A finite real number between `min` and `max`; `open_min` / `open_max` exclude a bound.
    Real {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
        /// Whether `min` itself is excluded.
        open_min: bool,
        /// Whether `max` itself is excluded.
        open_max: bool,
    },
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// `true` or `false`.
    Bool,
    /// One of the listed words. A word ending in `@K` stands for that prefix followed by any
    /// integer `K >= 1` (`ndcg@K`: `ndcg@10`).
    Choice(&'static [&'static str]),
}

impl std::fmt::Display for ParamRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Real { min, max, open_min, open_max } => write!(
                f,
                "{}{min}, {max}{}",
                if open_min { '(' } else { '[' },
                if open_max { ')' } else { ']' }
            ),
            Self::Int { min, max } => write!(f, "{min}..={max}"),
            Self::Bool => f.write_str("true|false"),
            Self::Choice(words) => f.write_str(&words.join("|")),
        }
    }
}

/// One hyperparameter: its spec key, its valid values and a one-line description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamInfo {
    /// The key in specs and `--set`.
    pub key: &'static str,
    /// Valid values.
    pub range: ParamRange,
    /// One line: what it does (the default is read from `Params::default()`).
    pub doc: &'static str,
}

impl ParamInfo {
    /// A real parameter in the closed interval `[min, max]`.
    pub const fn real(key: &'static str, min: f64, max: f64, doc: &'static str) -> Self {
        Self { key, range: ParamRange::Real { min, max, open_min: false, open_max: false }, doc }
    }

    /// A real parameter in `(min, max]` (strictly above `min`).
    pub const fn positive(key: &'static str, min: f64, max: f64, doc: &'static str) -> Self {
        Self { key, range: ParamRange::Real { min, max, open_min: true, open_max: false }, doc }
    }

    /// An integer parameter in `min..=max`.
    pub const fn int(key: &'static str, min: u64, max: u64, doc: &'static str) -> Self {
        Self { key, range: ParamRange::Int { min, max }, doc }
    }

    /// A boolean parameter.
    pub const fn flag(key: &'static str, doc: &'static str) -> Self {
        Self { key, range: ParamRange::Bool, doc }
    }

    /// A parameter taking one of `words`.
    pub const fn choice(key: &'static str, words: &'static [&'static str], doc: &'static str) -> Self {
        Self { key, range: ParamRange::Choice(words), doc }
    }

    /// Checks a real value against the range (NaN and infinities are always out of range).
    pub fn check_real(&self, value: f64) -> Result<()> {
        let ok = match self.range {
            ParamRange::Real { min, max, open_min, open_max } => {
                value.is_finite()
                    && if open_min { value > min } else { value >= min }
                    && if open_max { value < max } else { value <= max }
            }
            _ => false,
        };
        self.verdict(ok, value)
    }

    /// Checks an integer value against the range.
    pub fn check_int(&self, value: u64) -> Result<()> {
        let ok = matches!(self.range, ParamRange::Int { min, max } if (min..=max).contains(&value));
        self.verdict(ok, value)
    }

    /// Checks a word against a choice.
    pub fn check_choice(&self, word: &str) -> Result<()> {
        let ok =
            matches!(self.range, ParamRange::Choice(words) if words.iter().any(|w| choice_matches(w, word)));
        self.verdict(ok, word)
    }

    /// Checks a value as serialised by serde (`serde_json`), whatever its kind: the check of
    /// [`check_table`](crate::check_table), and of values that reach a table without a typed
    /// field.
    pub fn check_json(&self, value: &serde_json::Value) -> Result<()> {
        match (self.range, value) {
            (ParamRange::Real { .. }, v) if v.is_number() => self.check_real(v.as_f64().unwrap_or(f64::NAN)),
            (ParamRange::Int { .. }, v) if v.is_u64() => self.check_int(v.as_u64().unwrap_or(u64::MAX)),
            (ParamRange::Bool, serde_json::Value::Bool(_)) => Ok(()),
            (ParamRange::Choice(_), serde_json::Value::String(s)) => self.check_choice(s),
            (_, v) => self.verdict(false, v),
        }
    }

    fn verdict(&self, ok: bool, value: impl std::fmt::Display) -> Result<()> {
        if ok { Ok(()) } else { Err(Error::param(self.key, value, format!("must be in {}", self.range))) }
    }
}

/// Whether `word` is `pattern`, or `pattern` ends in `@K` and `word` is its prefix followed by
/// an integer >= 1.
fn choice_matches(pattern: &str, word: &str) -> bool {
    match (pattern.strip_suffix("@K"), word.split_once('@')) {
        (Some(prefix), Some((head, k))) => {
            head == prefix && !k.starts_with('+') && k.parse::<usize>().is_ok_and(|k| k >= 1)
        }
        _ => pattern == word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::param_info;

    const TABLE: &[ParamInfo] = &[
        ParamInfo::positive("lr", 0.0, 1.0, "step size"),
        ParamInfo::int("trees", 1, 100_000, "rounds"),
        ParamInfo::choice("loss", &["linear", "logistic"], "loss"),
    ];

    #[test]
    fn ranges_check_and_print() {
        let lr = param_info(TABLE, "lr");
        assert!(lr.check_real(1.0).is_ok());
        assert!(lr.check_real(0.0).is_err());
        assert!(lr.check_real(f64::NAN).is_err());
        let e = param_info(TABLE, "trees").check_int(1_000_000_000).unwrap_err().to_string();
        assert!(e.contains("`trees`") && e.contains("1..=100000"), "{e}");
        assert_eq!(lr.range.to_string(), "(0, 1]");
        assert_eq!(TABLE[2].range.to_string(), "linear|logistic");
    }

    #[test]
    fn choices_take_words_and_cutoff_patterns() {
        let m = ParamInfo::choice("metric", &["map", "ndcg@K"], "measure");
        for ok in ["map", "ndcg@1", "ndcg@10"] {
            assert!(m.check_choice(ok).is_ok(), "{ok}");
        }
        for bad in ["mrr", "ndcg@0", "ndcg@", "ndcg@K", "ndcg@+3", "p@10", "ndcg"] {
            assert!(m.check_choice(bad).is_err(), "{bad}");
        }
        assert!(param_info(TABLE, "loss").check_choice("hinge").is_err());
        assert!(param_info(TABLE, "lr").check_choice("0.1").is_err(), "a real is not a choice");
    }

    #[test]
    fn json_values_are_checked_by_kind() {
        use serde_json::json;
        let lr = param_info(TABLE, "lr");
        assert!(lr.check_json(&json!(0.5)).is_ok() && lr.check_json(&json!(1)).is_ok());
        assert!(lr.check_json(&json!("0.5")).is_err() && lr.check_json(&json!(2.0)).is_err());
        let trees = param_info(TABLE, "trees");
        assert!(trees.check_json(&json!(10)).is_ok());
        for bad in [json!(0), json!(-1), json!(1.5), json!(true)] {
            assert!(trees.check_json(&bad).is_err(), "{bad}");
        }
        let flag = ParamInfo::flag("bias", "intercept");
        assert!(flag.check_json(&json!(false)).is_ok() && flag.check_json(&json!(0)).is_err());
    }
}
