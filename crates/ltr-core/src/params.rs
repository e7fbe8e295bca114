//! Documented hyperparameter domains: one table per algorithm that `ltr algorithms` prints
//! and `validate()` checks, so the documentation and the check cannot drift apart.

use crate::error::{Error, Result};
use crate::traits::Params;

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

    /// Checks a value as serialised by serde (`serde_json`), whatever its kind: the check
    /// of [`check_table`], and of values that reach a table without a typed field.
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

/// The rows of `parts`, one after the other: the const behind
/// [`param_table!`](crate::param_table), which computes `N` (the total length); a wrong `N`
/// fails the build.
pub const fn concat_rows<const N: usize>(parts: &[&[ParamInfo]]) -> [ParamInfo; N] {
    let mut out = [ParamInfo::flag("", ""); N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            (k, j) = (k + 1, j + 1);
        }
        i += 1;
    }
    assert!(k == N, "concat_rows: N is not the total length of the parts");
    out
}

/// The total number of rows of `parts`.
pub const fn total_rows(parts: &[&[ParamInfo]]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// A `&'static [ParamInfo]` of the given tables one after the other, in a const: an
/// algorithm's `Params::TABLE` is its own rows plus the shared ones (`ltr-trees`'
/// `TreeParams::TABLE`, `ltr-neural`'s `NetworkParams` rows), each row written once.
///
/// ```
/// use ltr_core::{ParamInfo, param_table};
/// const SHARED: &[ParamInfo] = &[ParamInfo::int("trees", 1, 100, "rounds")];
/// const TABLE: &[ParamInfo] = param_table!(&[ParamInfo::flag("bias", "intercept")], SHARED);
/// assert_eq!(TABLE.iter().map(|r| r.key).collect::<Vec<_>>(), ["bias", "trees"]);
/// ```
#[macro_export]
macro_rules! param_table {
    ($($part:expr),+ $(,)?) => {{
        const PARTS: &[&[$crate::ParamInfo]] = &[$($part),+];
        const ROWS: [$crate::ParamInfo; $crate::params::total_rows(PARTS)] =
            $crate::params::concat_rows(PARTS);
        &ROWS
    }};
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

/// Checks that a parameter type and its table agree: every field of `P::default()` (as
/// serialised by serde) has a row of `P::TABLE` and every row a field, no key twice, and every
/// default is inside its row's range. Each algorithm crate's tests run it.
///
/// # Errors
/// A message naming every mismatch.
pub fn check_table<P: Params>() -> std::result::Result<(), String> {
    let defaults = serde_json::to_value(P::default()).map_err(|e| e.to_string())?;
    let serde_json::Value::Object(fields) = defaults else {
        return Err(format!("the defaults serialise to {defaults}, not to an object"));
    };
    let mut problems = Vec::new();
    for (i, row) in P::TABLE.iter().enumerate() {
        if P::TABLE[..i].iter().any(|r| r.key == row.key) {
            problems.push(format!("`{}` has two rows", row.key));
        }
        match fields.get(row.key) {
            None => problems.push(format!("`{}` has a row but no field", row.key)),
            Some(v) => {
                if let Err(e) = row.check_json(v) {
                    problems.push(format!("the default is out of range: {e}"));
                }
            }
        }
        if row.doc.is_empty() || row.doc.contains('\n') {
            problems.push(format!("`{}` needs a one-line description", row.key));
        }
    }
    for key in fields.keys() {
        if !P::TABLE.iter().any(|r| r.key == key) {
            problems.push(format!("`{key}` has a field but no row"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
}

/// One row of a README's parameter table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadmeRow {
    /// The key: the first backticked word of the first cell.
    pub key: String,
    /// The default cell, backticks and double quotes removed.
    pub default: String,
    /// The range cell (when the table's third column is `range`), backticks removed.
    pub range: Option<String>,
}

/// The rows of every parameter table of a README: the Markdown tables whose header starts
/// with `| key | default |`.
pub fn readme_rows(readme: &str) -> Vec<ReadmeRow> {
    // Cells split on `|`, except the escaped `\|` of a range like `true\|false`.
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        let (mut out, mut cell) = (Vec::new(), String::new());
        let mut chars = inner.chars().peekable();
        while let Some(ch) = chars.next() {
            match ch {
                '\\' if chars.peek() == Some(&'|') => {
                    chars.next();
                    cell.push('|');
                }
                '|' => out.push(std::mem::take(&mut cell).trim().to_owned()),
                _ => cell.push(ch),
            }
        }
        out.push(cell.trim().to_owned());
        out
    };
    let mut rows = Vec::new();
    let mut lines = readme.lines().peekable();
    while let Some(line) = lines.next() {
        let header = cells(line);
        if !(line.trim_start().starts_with('|')
            && header.len() >= 2
            && header[0] == "key"
            && header[1] == "default")
        {
            continue;
        }
        let with_range = header.get(2).is_some_and(|h| h == "range");
        while let Some(row) = lines.next_if(|l| l.trim_start().starts_with('|')) {
            let c = cells(row);
            if c.len() < 2 || c[0].chars().all(|ch| matches!(ch, '-' | ':' | ' ')) {
                continue;
            }
            let Some(key) = c[0].split('`').nth(1) else { continue };
            rows.push(ReadmeRow {
                key: key.to_owned(),
                default: c[1].replace(['`', '"'], ""),
                range: with_range.then(|| c.get(2).map(|r| r.replace('`', "")).unwrap_or_default()),
            });
        }
    }
    rows
}

/// Checks a crate README against a parameter type: every row of `P::TABLE` has a README
/// parameter-table row ([`readme_rows`]) with the default of `P::default()` (numbers compared
/// as numbers: `1e-3` is `0.001`) and, where the README gives one, the same range.
///
/// # Errors
/// A message naming every mismatch.
pub fn check_readme<P: Params>(readme: &str) -> std::result::Result<(), String> {
    let defaults = serde_json::to_value(P::default()).map_err(|e| e.to_string())?;
    let rows = readme_rows(readme);
    let mut problems = Vec::new();
    for info in P::TABLE {
        let Some(row) = rows.iter().find(|r| r.key == info.key) else {
            problems.push(format!("`{}` is not in the README's parameter table", info.key));
            continue;
        };
        let default = defaults.get(info.key).cloned().unwrap_or(serde_json::Value::Null);
        let same = match &default {
            serde_json::Value::Number(n) => row.default.replace('_', "").parse::<f64>().ok() == n.as_f64(),
            serde_json::Value::Bool(b) => row.default == b.to_string(),
            serde_json::Value::String(s) => &row.default == s,
            _ => false,
        };
        if !same {
            problems
                .push(format!("`{}`: the README says {}, the default is {default}", info.key, row.default));
        }
        if let Some(range) = &row.range
            && *range != info.range.to_string()
        {
            problems
                .push(format!("`{}`: the README's range is {range}, the table's {}", info.key, info.range));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
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

    /// A parameter type whose table drifted from its fields.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(default)]
    struct Drifted {
        lr: f64,
        trees: usize,
        depth: usize,
    }

    impl Default for Drifted {
        fn default() -> Self {
            Self { lr: 2.0, trees: 10, depth: 3 }
        }
    }

    #[derive(Debug)]
    struct Never;

    #[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
    struct NoModel;

    impl crate::Ranker for NoModel {
        fn n_features(&self) -> usize {
            0
        }
        fn check(&self) -> Result<()> {
            Ok(())
        }
        fn score_row(&self, _: &[f32]) -> f64 {
            0.0
        }
    }

    impl crate::Learner for Never {
        type Model = NoModel;
        fn fit(
            &self,
            _: &crate::Dataset,
            _: Option<&crate::Validation<'_>>,
            _: &mut crate::Rng,
        ) -> Result<Self::Model> {
            Err(Error::fit("never", "test type"))
        }
    }

    impl Params for Drifted {
        type Checked = Never;
        const TABLE: &'static [ParamInfo] = &[
            ParamInfo::positive("lr", 0.0, 1.0, "step size"),
            ParamInfo::int("trees", 1, 100, "rounds"),
            ParamInfo::flag("loss", "not a field"),
        ];
        fn validate(&self) -> Result<Never> {
            Ok(Never)
        }
    }

    #[test]
    fn readme_tables_are_read_and_compared() {
        let readme = "text\n\n| key | default | range | meaning |\n|---|---|---|---|\n\
                      | `lr` | `2` | `(0, 1]` | step |\n| `trees` (all) | 10 | 1..=100 | rounds |\n\
                      | `shuffle` | `true` | `true\\|false` | a flag |\n\n\
                      | id | name |\n|---|---|\n| `x` | y |\n\n\
                      | key | default | meaning |\n|---|---|---|\n| `depth` | `\"3\"` | how deep |\n";
        let rows = readme_rows(readme);
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["lr", "trees", "shuffle", "depth"]);
        assert_eq!(rows[2].range.as_deref(), Some("true|false"));
        assert_eq!(rows[0].range.as_deref(), Some("(0, 1]"));
        assert_eq!((rows[3].default.as_str(), rows[3].range.as_deref()), ("3", None));
        // Drifted: no row for `loss`; `lr` and `trees` agree with the defaults and ranges.
        let e = check_readme::<Drifted>(readme).unwrap_err();
        assert_eq!(e, "`loss` is not in the README's parameter table");
        let e = check_readme::<Drifted>(&readme.replace("| 10 |", "| 1e1 |").replace("1..=100", "1..=99"))
            .unwrap_err();
        assert!(e.contains("`trees`: the README's range is 1..=99") && !e.contains("says"), "{e}");
    }

    #[test]
    fn a_drifted_table_is_reported() {
        let e = check_table::<Drifted>().unwrap_err();
        assert!(e.contains("`lr` = 2"), "{e}");
        assert!(e.contains("`loss` has a row but no field"), "{e}");
        assert!(e.contains("`depth` has a field but no row"), "{e}");
        assert!(!e.contains("`trees`"), "{e}");
    }
}
