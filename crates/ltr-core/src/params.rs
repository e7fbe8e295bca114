//! Documented hyperparameter domains: one table per algorithm that `ltr algorithms` prints
//! and `validate()` checks, so the documentation and the check cannot drift apart.

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
    /// One of the listed words.
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

    fn verdict(&self, ok: bool, value: impl std::fmt::Display) -> Result<()> {
        if ok { Ok(()) } else { Err(Error::param(self.key, value, format!("must be in {}", self.range))) }
    }
}

/// The entry of `key` in a parameter table.
///
/// # Panics
/// If the table has no such key: a mistake in the algorithm crate, caught by its tests.
pub fn param_info(table: &'static [ParamInfo], key: &str) -> &'static ParamInfo {
    match table.iter().find(|p| p.key == key) {
        Some(p) => p,
        None => panic!("parameter table has no key `{key}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
