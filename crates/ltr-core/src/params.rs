//! Documented hyperparameter domains: one table per algorithm that `ltr algorithms` prints
//! and `validate()` checks, so the documentation and the check cannot drift apart.

pub(crate) mod range;

pub use range::{ParamInfo, ParamRange};

use crate::traits::Params;

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
    use crate::error::{Error, Result};

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
