//! Scale limits: the algorithms that cannot fit a fold of a web-scale dataset in a stated
//! budget are refused when the spec is loaded, with one line naming the limit, instead of
//! running for days or being killed for memory halfway through a run.
//!
//! Every algorithm was measured at the MSLR-WEB10K shape (`just bench-budget`: one fit at its
//! defaults on `ltr synth --shape mslr-web10k` Fold1, about 729,000 training rows x 136
//! features, one thread). Those that finished within the benchmark's time limit have no limit
//! here and state their cost in their README ("Scale"); the others are limited to the
//! training size at which they were measured to finish, also stated in their README.
//!
//! The size checked is the training rows of one fold, estimated before anything is read: for
//! a collection's dataset from its manifest's document count (a LETOR-style rotation trains on
//! `folds - 2` of `folds` subsets), for a dataset given by path from its files. A spec sets
//! `scale_limits = false` to run an algorithm anyway.

use crate::error::{HarnessError, Result};
use crate::spec::ExperimentSpec;

/// The largest training split one algorithm is run on (its INFO's `scale_limit`).
pub use ltr_core::ScaleLimit;

/// The limit of an algorithm id, if it has one.
pub fn limit_of(id: &str) -> Option<&'static ScaleLimit> {
    crate::registry::info(id).and_then(|i| i.scale_limit.as_ref())
}

/// The limited algorithms, in registry order, with their limits (every other algorithm runs
/// at any size).
pub fn limited() -> impl Iterator<Item = (&'static str, &'static ScaleLimit)> {
    crate::registry::ALGORITHMS.iter().filter_map(|a| a.scale_limit.as_ref().map(|l| (a.id, l)))
}

/// The training rows of one fold of a dataset of `documents` documents in `folds` folds:
/// `folds - 2` of `folds` equal parts when the folds rotate over subsets (three or more folds),
/// else all of them (an upper bound for a fixed train/vali/test release).
pub fn train_rows_estimate(documents: u64, folds: u32) -> u64 {
    if folds >= 3 { documents / u64::from(folds) * u64::from(folds - 2) } else { documents }
}

/// How a spec says to run an algorithm above its limit (the advice of [`check`]).
pub const SPEC_OVERRIDE: &str = "set `scale_limits = false` to run it anyway";

/// Refuses, with one line, the first algorithm of `spec` whose limit `train_rows` training
/// rows of `dataset` exceed (nothing when the spec sets `scale_limits = false`); the line
/// ends with [`SPEC_OVERRIDE`].
pub fn check(spec: &ExperimentSpec, dataset: &str, train_rows: u64) -> Result<()> {
    check_with(spec, dataset, train_rows, SPEC_OVERRIDE)
}

/// [`check`], advising `how_to_override` (what the caller accepts in place of the spec key).
pub fn check_with(
    spec: &ExperimentSpec,
    dataset: &str,
    train_rows: u64,
    how_to_override: &str,
) -> Result<()> {
    let Some((entry, l)) = exceeded(spec, train_rows).next() else { return Ok(()) };
    Err(HarnessError::Spec {
        file: spec.source.clone().into(),
        reason: format!(
            "{} on {dataset}: about {} training rows per fold, above {}'s limit of {} ({}); \
             leave it out, or {how_to_override}",
            entry.label,
            thousands(train_rows),
            entry.id,
            thousands(l.max_train_rows),
            l.measured
        ),
    })
}

/// The algorithms of `spec` whose limit `train_rows` training rows exceed, with their limits
/// (none when the spec sets `scale_limits = false`).
fn exceeded(
    spec: &ExperimentSpec,
    train_rows: u64,
) -> impl Iterator<Item = (&crate::spec::AlgorithmEntry, &'static ScaleLimit)> {
    spec.algorithms
        .iter()
        .filter(move |_| spec.scale_limits)
        .filter_map(move |e| limit_of(&e.id).filter(|l| train_rows > l.max_train_rows).map(|l| (e, l)))
}

/// Removes from `spec` the algorithms whose limit `train_rows` training rows exceed, and
/// returns one line naming them with their limits (`None` when none is removed).
pub fn leave_out(spec: &mut ExperimentSpec, train_rows: u64) -> Option<String> {
    let over: Vec<String> = exceeded(spec, train_rows)
        .map(|(e, l)| format!("{} (limit {})", e.label, thousands(l.max_train_rows)))
        .collect();
    if over.is_empty() {
        return None;
    }
    spec.algorithms.retain(|e| limit_of(&e.id).is_none_or(|l| train_rows <= l.max_train_rows));
    if spec.baseline.as_ref().is_some_and(|b| !spec.algorithms.iter().any(|e| &e.label == b)) {
        spec.baseline = None;
    }
    Some(format!(
        "about {} training rows per fold, above the scale limit of {}: left out",
        thousands(train_rows),
        over.join(", ")
    ))
}

/// `1234567` as `1,234,567` (as the refusals write sizes).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_and_formatting() {
        assert_eq!(train_rows_estimate(1_200_192, 5), 720_114);
        assert_eq!(train_rows_estimate(1000, 1), 1000);
        assert_eq!(thousands(720_114), "720,114");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
    }

    #[test]
    fn a_limited_algorithm_is_refused_above_its_limit_unless_the_spec_says_so() {
        let text = "name = \"t\"\ncollection = \"mslr\"\ndatasets = [\"MSLR-WEB10K\"]\nseed = 1\n\
                    [[algorithms]]\nid = \"regression\"\n[[algorithms]]\nid = \"pcrank\"\n";
        let path = std::path::Path::new("t.toml");
        let spec = ExperimentSpec::parse(text, path).unwrap();
        assert!(spec.scale_limits);
        check(&spec, "D", 150_000).unwrap();
        let e = check(&spec, "D", 150_001).unwrap_err().to_string();
        assert!(
            e.contains(
                "pcrank on D: about 150,001 training rows per fold, above pcrank's limit of 150,000 ("
            ),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
        let off = ExperimentSpec::parse(&format!("scale_limits = false\n{text}"), path).unwrap();
        check(&off, "D", 10_000_000).unwrap();
    }

    #[test]
    fn leave_out_removes_the_limited_algorithms_and_names_them() {
        let text = "name = \"t\"\ncollection = \"mslr\"\ndatasets = [\"MSLR-WEB10K\"]\nseed = 1\n\
                    baseline = \"pcrank\"\n[[algorithms]]\nid = \"pcrank\"\n[[algorithms]]\nid = \"regression\"\n";
        let spec = ExperimentSpec::parse(text, std::path::Path::new("t.toml")).unwrap();
        let mut within = spec.clone();
        assert_eq!(leave_out(&mut within, 150_000), None);
        assert_eq!(within, spec);
        let mut over = spec.clone();
        let line = leave_out(&mut over, 150_001).unwrap();
        assert!(line.contains("150,001") && line.contains("pcrank (limit 150,000)"), "{line}");
        let labels: Vec<&str> = over.algorithms.iter().map(|a| a.label.as_str()).collect();
        assert_eq!((labels, over.baseline), (vec!["regression"], None));
        let mut off = spec.clone();
        off.scale_limits = false;
        assert_eq!(leave_out(&mut off, 10_000_000), None);
        assert_eq!(off.algorithms.len(), 2);
        let e = check_with(&spec, "D", 150_001, "say so").unwrap_err().to_string();
        assert!(e.ends_with("leave it out, or say so"), "{e}");
    }

    /// The limits are the ones measured (`just bench-budget`), read from the algorithms'
    /// INFO consts.
    #[test]
    fn the_limited_algorithms_are_the_measured_ones() {
        let limits: Vec<(&str, u64)> = limited().map(|(id, l)| (id, l.max_train_rows)).collect();
        assert_eq!(limits, [("pcrank", 150_000), ("ranksvm-ensemble", 150_000), ("fenchelrank", 150_000)]);
        assert_eq!(limit_of("pcrank").map(|l| l.max_train_rows), Some(150_000));
        assert!(limit_of("regression").is_none() && limit_of("no-such-ranker").is_none());
    }
}
