//! Paired significance tests for comparing rankers over the same queries.
//!
//! * [`paired_t`]: the two-sided paired Student t-test (scipy's `ttest_rel`), with the mean
//!   difference, its 95% confidence interval and Cohen's d on the paired differences;
//! * [`randomization`]: Fisher's paired randomisation (sign-flip) test, seeded;
//! * [`tukey_hsd`]: the randomised Tukey HSD test over all pairs of systems (Carterette 2012,
//!   Sakai 2014), seeded;
//! * [`holm`]: Holm's step-down correction of a family of p-values;
//! * [`kendall_tau_b`]: Kendall's tau-b between two orders of the same items (the report's
//!   convention-sensitivity section compares algorithm orders with it).
//!
//! The randomised tests are deterministic and independent of the thread count: permutations
//! are split into fixed chunks, each chunk's seed is derived from the master seed and the
//! chunk index before any work is handed to rayon, and the chunks' counts are summed in
//! chunk order.
//!
//! Distributions come from `statrs`; nothing here hand-writes a CDF.

use ltr_core::{Rng, derive_seed};
use rayon::prelude::*;
use statrs::function::beta::beta_reg;

/// Errors of the statistics layer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// The two samples of a paired test differ in length.
    #[error("paired samples differ in length ({left} vs {right})")]
    Length {
        /// Length of the first sample.
        left: usize,
        /// Length of the second sample.
        right: usize,
    },
    /// Too few paired observations for the test.
    #[error("{test} needs at least {needed} paired observations, got {got}")]
    TooFew {
        /// The test.
        test: &'static str,
        /// Needed.
        needed: usize,
        /// Given.
        got: usize,
    },
    /// A value is not finite.
    #[error("observation {index} is not finite ({value})")]
    NotFinite {
        /// Index of the observation.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Zero permutations requested.
    #[error("the number of permutations must be at least 1")]
    NoPermutations,
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, StatsError>;

/// The default number of permutations of the randomised tests.
pub const DEFAULT_PERMUTATIONS: usize = 10_000;

/// The default significance level.
pub const ALPHA: f64 = 0.05;

/// Permutations per chunk: the unit of parallel work and of seed derivation. Fixed, so the
/// chunks (and therefore the random streams) do not depend on the thread count.
const CHUNK: usize = 500;

/// Which paired test compares an algorithm with the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PairedTest {
    /// Paired two-sided Student t-test.
    #[default]
    T,
    /// Fisher's paired randomisation test.
    Randomization,
}

impl PairedTest {
    /// Parses `t` or `randomization`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "t" => Some(Self::T),
            "randomization" | "randomisation" => Some(Self::Randomization),
            _ => None,
        }
    }

    /// The name used in specs and flags.
    pub fn name(self) -> &'static str {
        match self {
            Self::T => "t",
            Self::Randomization => "randomization",
        }
    }
}

/// Summary of paired differences `a - b`, with the t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// Paired observations.
    pub n: usize,
    /// Mean of `a - b`.
    pub mean_diff: f64,
    /// Sample standard deviation (n - 1) of `a - b`.
    pub sd_diff: f64,
    /// The t statistic (0 when every difference is zero; infinite when all differences are
    /// equal and non-zero).
    pub t: f64,
    /// Degrees of freedom (n - 1).
    pub df: f64,
    /// Two-sided p-value of the t-test.
    pub p_value: f64,
    /// Lower end of the 95% confidence interval of the mean difference.
    pub ci_low: f64,
    /// Upper end of the 95% confidence interval of the mean difference.
    pub ci_high: f64,
    /// Cohen's d on the paired differences (mean / sd; 0 when every difference is zero,
    /// infinite when all are equal and non-zero).
    pub cohens_d: f64,
}

fn check_pairs(a: &[f64], b: &[f64], test: &'static str, needed: usize) -> Result<Vec<f64>> {
    if a.len() != b.len() {
        return Err(StatsError::Length { left: a.len(), right: b.len() });
    }
    if a.len() < needed {
        return Err(StatsError::TooFew { test, needed, got: a.len() });
    }
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(i, (x, y))| {
            let d = x - y;
            if d.is_finite() { Ok(d) } else { Err(StatsError::NotFinite { index: i, value: d }) }
        })
        .collect()
}

/// The paired two-sided t-test of `a` against `b` (as scipy's `ttest_rel(a, b)`), with the
/// 95% confidence interval of the mean difference and Cohen's d.
///
/// When every difference is zero the statistic is 0/0: it is defined as t = 0, p = 1 (no
/// evidence of any difference). When all differences are equal and non-zero, t is infinite
/// and p = 0.
pub fn paired_t(a: &[f64], b: &[f64]) -> Result<Paired> {
    let d = check_pairs(a, b, "the paired t-test", 2)?;
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let sd = var.sqrt();
    let df = n - 1.0;
    let se = sd / n.sqrt();
    // Relative to the differences' size, a spread below rounding error is no spread at all.
    let scale = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let degenerate = sd <= scale * 1e-12;
    let (t, p, d_eff) = if mean == 0.0 && scale == 0.0 {
        (0.0, 1.0, 0.0)
    } else if degenerate {
        let inf = f64::INFINITY.copysign(mean);
        (inf, 0.0, inf)
    } else {
        let t = mean / se;
        // Two-sided: 2 * sf(|t|) = I_{df/(df+t^2)}(df/2, 1/2).
        let p = beta_reg(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0);
        (t, p, mean / sd)
    };
    let half = if degenerate { 0.0 } else { t_quantile_975(df) * se };
    Ok(Paired {
        n: d.len(),
        mean_diff: mean,
        sd_diff: sd,
        t,
        df,
        p_value: p,
        ci_low: mean - half,
        ci_high: mean + half,
        cohens_d: d_eff,
    })
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom.
fn t_quantile_975(df: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    // df >= 1 here (at least two observations), which `StudentsT::new` accepts.
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

/// The per-chunk permutation counts, with seeds derived from `seed`, `name` and the chunk
/// index before the parallel section; summed in chunk order.
fn chunked<F>(permutations: usize, seed: u64, name: &str, work: F) -> Vec<u64>
where
    F: Fn(&mut Rng, usize) -> Vec<u64> + Sync,
{
    let chunks: Vec<(u64, usize)> = (0..permutations.div_ceil(CHUNK))
        .map(|c| {
            let size = CHUNK.min(permutations - c * CHUNK);
            (derive_seed(seed, &[name, &c.to_string()]), size)
        })
        .collect();
    let counts: Vec<Vec<u64>> = chunks.par_iter().map(|&(s, size)| work(&mut Rng::new(s), size)).collect();
    let mut total: Vec<u64> = Vec::new();
    for c in counts {
        if total.is_empty() {
            total = c;
        } else {
            for (t, x) in total.iter_mut().zip(c) {
                *t += x;
            }
        }
    }
    total
}

/// Tolerance below which two test statistics count as equal: permutations that reproduce the
/// observed statistic up to rounding must count as "at least as extreme".
fn at_least(x: f64, observed: f64) -> bool {
    x >= observed - 1e-12 * observed.abs().max(1e-300)
}

/// Fisher's paired randomisation test of `a` against `b`: the two-sided p-value of the mean
/// difference under random sign flips of the paired differences, from `permutations`
/// permutations seeded by `seed`.
///
/// The p-value is `(1 + #{|mean*| >= |mean|}) / (1 + permutations)`, never 0; when every
/// difference is zero it is exactly 1. Identical for any thread count and across runs.
pub fn randomization(a: &[f64], b: &[f64], permutations: usize, seed: u64) -> Result<f64> {
    let d = check_pairs(a, b, "the randomisation test", 1)?;
    if permutations == 0 {
        return Err(StatsError::NoPermutations);
    }
    let observed = d.iter().sum::<f64>().abs();
    let counts = chunked(permutations, seed, "randomization", |rng, size| {
        let mut hits = 0u64;
        for _ in 0..size {
            let mut sum = 0.0;
            let mut bits = 0u64;
            for (i, x) in d.iter().enumerate() {
                if i % 64 == 0 {
                    bits = rng.next_u64();
                }
                sum += if bits & 1 == 1 { -x } else { *x };
                bits >>= 1;
            }
            if at_least(sum.abs(), observed) {
                hits += 1;
            }
        }
        vec![hits]
    });
    Ok((1 + counts[0]) as f64 / (1 + permutations) as f64)
}

/// The randomised Tukey HSD test over all pairs of systems: `systems[s][q]` is system `s`'s
/// score on query `q`. Each permutation shuffles every query's scores across the systems;
/// the p-value of a pair is the share of permutations whose largest difference between
/// system means is at least the pair's observed difference (`(1 + hits) / (1 + R)`). The
/// result is symmetric with 1 on the diagonal; it controls the family-wise error over all
/// pairs without a further correction.
pub fn tukey_hsd(systems: &[&[f64]], permutations: usize, seed: u64) -> Result<Vec<Vec<f64>>> {
    let m = systems.len();
    let n = systems.first().map_or(0, |s| s.len());
    for s in systems {
        if s.len() != n {
            return Err(StatsError::Length { left: n, right: s.len() });
        }
    }
    if m < 2 || n < 1 {
        return Err(StatsError::TooFew { test: "randomised Tukey HSD", needed: 2, got: m.min(n) });
    }
    if permutations == 0 {
        return Err(StatsError::NoPermutations);
    }
    for s in systems {
        if let Some((index, &value)) = s.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(StatsError::NotFinite { index, value });
        }
    }
    let nf = n as f64;
    let means: Vec<f64> = systems.iter().map(|s| s.iter().sum::<f64>() / nf).collect();
    let mut observed = Vec::with_capacity(m * (m - 1) / 2);
    for i in 0..m {
        for j in i + 1..m {
            observed.push((means[i] - means[j]).abs());
        }
    }
    // Query-major copy, so each permutation shuffles contiguous rows.
    let rows: Vec<f64> = (0..n).flat_map(|q| systems.iter().map(move |s| s[q])).collect();
    let counts = chunked(permutations, seed, "tukey-hsd", |rng, size| {
        let mut hits = vec![0u64; observed.len()];
        let mut row = vec![0.0; m];
        let mut sums = vec![0.0; m];
        for _ in 0..size {
            sums.iter_mut().for_each(|s| *s = 0.0);
            for q in 0..n {
                row.copy_from_slice(&rows[q * m..(q + 1) * m]);
                rng.shuffle(&mut row);
                for (s, x) in sums.iter_mut().zip(&row) {
                    *s += x;
                }
            }
            let (lo, hi) = sums
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| (lo.min(s / nf), hi.max(s / nf)));
            let range = hi - lo;
            for (h, o) in hits.iter_mut().zip(&observed) {
                if at_least(range, *o) {
                    *h += 1;
                }
            }
        }
        hits
    });
    let mut p = vec![vec![1.0; m]; m];
    let mut pairs = (0..m).flat_map(|i| (i + 1..m).map(move |j| (i, j)));
    for hits in counts {
        if let Some((i, j)) = pairs.next() {
            let v = (1 + hits) as f64 / (1 + permutations) as f64;
            p[i][j] = v;
            p[j][i] = v;
        }
    }
    Ok(p)
}

/// Holm's step-down adjustment of a family of p-values, in the input order. A NaN p-value
/// (no test possible) is treated as 1.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean: Vec<f64> = p.iter().map(|&x| if x.is_nan() { 1.0 } else { x }).collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean[i].total_cmp(&clean[j]).then(i.cmp(&j)));
    let mut out = vec![1.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        let adj = ((m - rank) as f64 * clean[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// Kendall's tau-b between two scorings of the same items (`x[i]` and `y[i]` score item `i`):
/// `(C - D) / sqrt((P - Tx) (P - Ty))`, where `C` and `D` count the concordant and discordant
/// pairs, `P` all pairs, and `Tx` and `Ty` the pairs tied in `x` and in `y` (a pair tied in
/// both counts in each). Without ties it is Kendall's tau-a; ties count as exactly equal
/// values. Undefined, and NaN, when every pair is tied in `x` or every pair in `y`.
///
/// O(n^2), meant for rankings of tens or hundreds of items (algorithms, not documents).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<f64> {
    if x.len() != y.len() {
        return Err(StatsError::Length { left: x.len(), right: y.len() });
    }
    if x.len() < 2 {
        return Err(StatsError::TooFew { test: "Kendall's tau", needed: 2, got: x.len() });
    }
    for (i, v) in x.iter().chain(y).enumerate() {
        if !v.is_finite() {
            return Err(StatsError::NotFinite { index: i % x.len(), value: *v });
        }
    }
    let (mut concordant, mut discordant, mut tied_x, mut tied_y, mut pairs) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            pairs += 1;
            let (same_x, same_y) = (x[i] == x[j], y[i] == y[j]);
            if same_x || same_y {
                tied_x += u64::from(same_x);
                tied_y += u64::from(same_y);
            } else if (x[i] < x[j]) == (y[i] < y[j]) {
                concordant += 1;
            } else {
                discordant += 1;
            }
        }
    }
    let denominator = (((pairs - tied_x) as f64) * ((pairs - tied_y) as f64)).sqrt();
    if denominator == 0.0 {
        return Ok(f64::NAN);
    }
    Ok((concordant as f64 - discordant as f64) / denominator)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn zero_differences_give_p_one_and_nothing_else() {
        let a = [0.1, 0.5, 0.3];
        let r = paired_t(&a, &a).unwrap();
        assert_eq!((r.t, r.p_value, r.cohens_d, r.mean_diff), (0.0, 1.0, 0.0, 0.0));
        assert_eq!((r.ci_low, r.ci_high), (0.0, 0.0));
        assert_eq!(randomization(&a, &a, 1000, 7).unwrap(), 1.0);
    }

    #[test]
    fn constant_nonzero_differences_are_certain() {
        let r = paired_t(&[1.0, 2.0, 3.0], &[0.5, 1.5, 2.5]).unwrap();
        assert_eq!((r.t, r.p_value), (f64::INFINITY, 0.0));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(paired_t(&[1.0], &[1.0, 2.0]), Err(StatsError::Length { .. })));
        assert!(matches!(paired_t(&[1.0], &[1.0]), Err(StatsError::TooFew { .. })));
        assert!(matches!(paired_t(&[f64::NAN, 1.0], &[1.0, 2.0]), Err(StatsError::NotFinite { .. })));
        assert!(matches!(randomization(&[1.0], &[2.0], 0, 1), Err(StatsError::NoPermutations)));
    }

    #[test]
    fn holm_matches_the_textbook_example() {
        // p sorted 0.01, 0.02, 0.03, 0.04 -> 0.04, 0.06, 0.06, 0.06; input order kept.
        let adj = holm(&[0.03, 0.01, 0.04, 0.02]);
        let want = [0.06, 0.04, 0.06, 0.06];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-15, "{adj:?}");
        }
        assert_eq!(holm(&[0.5, f64::NAN]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn randomization_is_seeded_and_thread_count_independent() {
        let a: Vec<f64> = (0..97).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
        let b: Vec<f64> = (0..97).map(|i| ((i * 53) % 13) as f64 / 12.0).collect();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let p1 = one.install(|| randomization(&a, &b, 10_000, 42).unwrap());
        let p2 = two.install(|| randomization(&a, &b, 10_000, 42).unwrap());
        let p3 = randomization(&a, &b, 10_000, 42).unwrap();
        assert_eq!(p1.to_bits(), p2.to_bits());
        assert_eq!(p1.to_bits(), p3.to_bits());
        assert_ne!(p1.to_bits(), randomization(&a, &b, 10_000, 43).unwrap().to_bits());
        let t = paired_t(&a, &b).unwrap().p_value;
        assert!((p1 - t).abs() < 0.05, "randomisation {p1} and t {t} agree roughly");
        let sys: [&[f64]; 3] = [&a, &b, &a];
        let h1 = one.install(|| tukey_hsd(&sys, 2000, 1).unwrap());
        let h2 = two.install(|| tukey_hsd(&sys, 2000, 1).unwrap());
        assert_eq!(h1, h2);
        assert_eq!(h1[0][2], 1.0, "identical systems");
        assert_eq!(h1[0][1], h1[1][0]);
    }

    #[test]
    fn a_clear_difference_is_found_by_every_test() {
        let a: Vec<f64> = (0..50).map(|i| 0.5 + 0.01 * (i % 7) as f64).collect();
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x - 0.1 + 0.02 * (i % 3) as f64).collect();
        assert!(paired_t(&a, &b).unwrap().p_value < 1e-10);
        assert!(randomization(&a, &b, 2000, 3).unwrap() < 0.001);
        let h = tukey_hsd(&[&a, &b], 2000, 3).unwrap();
        assert!(h[0][1] < 0.001);
    }

    #[test]
    fn kendall_tau_by_hand() {
        // One discordant pair of six: (5 - 1) / 6.
        let tau = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((tau - 2.0 / 3.0).abs() < 1e-15, "{tau}");
        // Ties: four concordant pairs, one pair tied in x only, one in y only:
        // 4 / sqrt((6 - 1) (6 - 1)) = 0.8 (scipy.stats.kendalltau gives 0.8).
        let tau = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 3.0]).unwrap();
        assert!((tau - 0.8).abs() < 1e-15, "{tau}");
        // A pair tied in both leaves both factors: 5 / sqrt(5 * 5) = 1.
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[0.1, 0.5, 0.5, 0.9]).unwrap(), 1.0);
        assert_eq!(kendall_tau_b(&[4.0, 3.0, 2.0, 1.0], &[1.0, 2.0, 3.0, 4.0]).unwrap(), -1.0);
        assert!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).unwrap().is_nan());
        assert!(matches!(kendall_tau_b(&[1.0], &[1.0]), Err(StatsError::TooFew { .. })));
        assert!(matches!(kendall_tau_b(&[1.0, 2.0], &[1.0]), Err(StatsError::Length { .. })));
        assert!(matches!(
            kendall_tau_b(&[1.0, 2.0], &[1.0, f64::NAN]),
            Err(StatsError::NotFinite { index: 1, .. })
        ));
    }
}
