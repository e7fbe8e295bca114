//! The loop both fuzzers share: cases run in parallel, each caught if it panics, counted into
//! statistics whose sums and first failure do not depend on the thread count.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rayon::prelude::*;

/// What a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// The target's name.
    pub target: &'static str,
    /// Inputs tried.
    pub cases: u64,
    /// Inputs read without error.
    pub parsed: u64,
    /// Panics, and (reader) disagreements between the two ways of reading.
    pub failures: u64,
    /// The first failure: case number, what went wrong, and the input.
    pub first_failure: Option<(u64, String, Vec<u8>)>,
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let share = if self.cases == 0 { 0.0 } else { 100.0 * self.parsed as f64 / self.cases as f64 };
        write!(
            f,
            "{}: {} cases, {} parsed ({share:.1}%), {} failures",
            self.target, self.cases, self.parsed, self.failures
        )?;
        if let Some((case, why, _)) = &self.first_failure {
            write!(f, "; first at case {case}: {why}")?;
        }
        Ok(())
    }
}

/// Runs cases `0..cases` of one target: `case(i)` gives the input and whether it parsed
/// (`Err`: a failure, said how).
pub(crate) fn run(
    target: &'static str,
    cases: u64,
    case: impl Fn(u64) -> (Vec<u8>, Result<bool, String>) + Sync,
) -> Stats {
    let mut out = run_binned(&[target], cases, |i| {
        let (input, outcome) = case(i);
        (0, input, outcome)
    });
    out.pop().unwrap_or(Stats { target, ..Stats::default() })
}

/// Runs cases `0..cases`, case `i` counted into the statistics of `targets[bin]` where
/// `case(i)` gives `(bin, input, outcome)` (a bin out of range is not counted): one [`Stats`]
/// per target, in order.
pub(crate) fn run_binned(
    targets: &[&'static str],
    cases: u64,
    case: impl Fn(u64) -> (usize, Vec<u8>, Result<bool, String>) + Sync,
) -> Vec<Stats> {
    let empty = || targets.iter().map(|&target| Stats { target, ..Stats::default() }).collect();
    (0..cases)
        .into_par_iter()
        .map(|i| (i, case(i)))
        .fold(empty, |mut acc: Vec<Stats>, (i, (bin, input, outcome))| {
            if let Some(s) = acc.get_mut(bin) {
                record(s, i, input, outcome);
            }
            acc
        })
        .reduce(empty, |a, b| a.into_iter().zip(b).map(|(x, y)| merge(x, y)).collect())
}

fn record(s: &mut Stats, i: u64, input: Vec<u8>, outcome: Result<bool, String>) {
    s.cases += 1;
    match outcome {
        Ok(true) => s.parsed += 1,
        Ok(false) => {}
        Err(why) => {
            s.failures += 1;
            if s.first_failure.as_ref().is_none_or(|(j, _, _)| i < *j) {
                s.first_failure = Some((i, why, input));
            }
        }
    }
}

/// Sums two runs' statistics; the first failure is the one of the lowest case number, so the
/// result does not depend on how cases were split between threads.
pub(crate) fn merge(a: Stats, b: Stats) -> Stats {
    let first_failure = match (a.first_failure, b.first_failure) {
        (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
        (x, y) => x.or(y),
    };
    Stats {
        target: a.target,
        cases: a.cases + b.cases,
        parsed: a.parsed + b.parsed,
        failures: a.failures + b.failures,
        first_failure,
    }
}

/// Runs one oracle; a panic becomes a failure that says what it said.
pub(crate) fn guarded(f: impl FnOnce() -> Result<bool, String>) -> Result<bool, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            Err(format!("panic: {msg}"))
        }
    }
}

/// Cases per target of the long runs (`LTR_FUZZ_CASES`, else a million).
#[cfg(test)]
pub(crate) fn long_run_cases() -> u64 {
    std::env::var("LTR_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1_000_000)
}
