//! Tied scores: runs of equal scores in a ranking, the pessimistic order within them, and the
//! closed forms of each metric's expectation over all orderings of a run (McSherry and
//! Najork, ECIR 2008, for the additive measures; ERR's by symmetric polynomials).
//!
//! A run of `m` tied documents at 0-based positions `s..s + m` is ordered uniformly at
//! random. Every document of the run is then equally likely at each of its positions, which
//! gives the additive measures (DCG, precision) from the run's mean gain and relevant count,
//! and AP and RR from the hypergeometric law of the relevant documents among the run's first
//! `j` places. Runs of one document take the ordinary path, so with no ties every rule gives
//! the same bits.

use ltr_core::Grade;

use crate::parts::Ties;

/// The runs of equal scores of a ranking, as the exclusive end of each run (`ends`), and the
/// pessimistic order applied to `ranked` when asked.
///
/// `order` is the ranking (indices into `scores`, scores descending, ties in file order) and
/// `ranked` the grades in that order. Under [`Ties::Pessimistic`] each run's grades are
/// sorted ascending, so relevant documents come last. Returns whether `ends` is to be used
/// (only under [`Ties::Expected`]; the other rules score `ranked` as it is).
pub(crate) fn tie_runs(
    order: &[usize],
    scores: &[f64],
    ranked: &mut [Grade],
    ties: Ties,
    ends: &mut Vec<usize>,
) -> bool {
    ends.clear();
    if ties == Ties::File {
        return false;
    }
    // `==` makes -0.0 and 0.0 one run, as the sort that produced `order` does.
    for i in 1..order.len() {
        if scores[order[i]] != scores[order[i - 1]] {
            ends.push(i);
        }
    }
    ends.push(order.len());
    if ties == Ties::Pessimistic {
        let mut start = 0;
        for &end in ends.iter() {
            ranked[start..end].sort_unstable();
            start = end;
        }
        return false;
    }
    true
}

/// The positions of a ranking of `n` documents in runs: each position alone (no tie rule),
/// or the runs `ends` gives.
pub(crate) enum Runs<'a> {
    /// One run per position, `0..n`.
    Single(std::ops::Range<usize>),
    /// The runs ending at each of `ends`.
    Ends {
        /// Exclusive ends still to come.
        ends: std::slice::Iter<'a, usize>,
        /// Where the next run starts.
        start: usize,
    },
}

impl<'a> Runs<'a> {
    /// The runs of `n` positions: `ends` when given, else one per position.
    pub(crate) fn new(n: usize, ends: Option<&'a [usize]>) -> Self {
        match ends {
            Some(ends) => Runs::Ends { ends: ends.iter(), start: 0 },
            None => Runs::Single(0..n),
        }
    }
}

impl Iterator for Runs<'_> {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Runs::Single(r) => r.next().map(|i| i..i + 1),
            Runs::Ends { ends, start } => {
                let end = *ends.next()?;
                let run = *start..end;
                *start = end;
                Some(run)
            }
        }
    }
}

/// The expected sum, over the relevant documents of a run, of the precision at each one's
/// rank: the run's share of AP's numerator.
///
/// `before` relevant documents precede the run, which starts at 0-based position `start`,
/// holds `m >= 2` documents and `r` relevant ones. A relevant document of the run is at
/// offset `j` with probability `1/m`; the other `r - 1` relevant ones then fill on average
/// `(r - 1) j / (m - 1)` of the `j` places above it.
pub(crate) fn expected_precision_sum(before: usize, r: usize, m: usize, start: usize) -> f64 {
    debug_assert!(m >= 2 && r <= m);
    let share = r as f64 / m as f64;
    let others = (r - 1) as f64 / (m - 1) as f64;
    let mut sum = 0.0;
    for j in 0..m {
        sum += (before as f64 + 1.0 + others * j as f64) / (start + j + 1) as f64;
    }
    share * sum
}

/// The expected reciprocal rank of the first relevant document when it is in a run of `m`
/// documents holding `r >= 1` relevant ones, starting at 0-based position `start`.
///
/// The first relevant document is at offset `j` with probability
/// `C(m - 1 - j, r - 1) / C(m, r)`: `r / m` for `j = 0`, each next one by the ratio
/// `(m - j - r) / (m - j - 1)`.
pub(crate) fn expected_reciprocal_rank(r: usize, m: usize, start: usize) -> f64 {
    debug_assert!(r >= 1 && r <= m);
    let mut p = r as f64 / m as f64;
    let mut rr = 0.0;
    for j in 0..=(m - r) {
        rr += p / (start + j + 1) as f64;
        if j < m - r {
            p *= (m - j - r) as f64 / (m - j - 1) as f64;
        }
    }
    rr
}

/// ERR's expected terms of a run: `t[j] = E[R(j) prod_{i<j} (1 - R(i))]` for the run's first
/// `len` offsets, where `R(i)` is the stop probability of the document at offset `i` of a
/// uniformly random order of the run (`stops`, one per document, any order).
///
/// By symmetry `t[j] = (1/m) sum_x R_x f_j(run without x)`, where `f_j(S)` is the mean over
/// the `j`-subsets of `S` of the product of `1 - R` (an elementary symmetric polynomial over
/// its number of terms). Documents of one stop probability give the same `f`, so it is
/// computed once per distinct value, by adding the documents one at a time:
/// `f_j(S + y) = ((|S| + 1 - j) f_j(S) + j (1 - R_y) f_{j-1}(S)) / (|S| + 1)`, a convex
/// combination that stays in `[0, 1]` for runs of any length. Cost `O(d m len)` for `d`
/// distinct values.
pub(crate) fn expected_err_terms(stops: &[f64], len: usize, out: &mut Vec<f64>) {
    out.clear();
    out.resize(len, 0.0);
    let m = stops.len();
    if m == 0 || len == 0 {
        return;
    }
    // The distinct stop probabilities with their counts, in increasing order (fixed, so the
    // sums below are the same on every run).
    let mut distinct: Vec<(f64, usize)> = Vec::new();
    let mut sorted = stops.to_vec();
    sorted.sort_by(f64::total_cmp);
    for &x in &sorted {
        match distinct.last_mut() {
            Some((v, c)) if v.to_bits() == x.to_bits() => *c += 1,
            _ => distinct.push((x, 1)),
        }
    }
    let mut f = vec![0.0; len];
    for (skip, &(rx, count)) in distinct.iter().enumerate() {
        if rx == 0.0 {
            continue;
        }
        // f over the run without one document of stop probability `rx`.
        f.iter_mut().for_each(|v| *v = 0.0);
        f[0] = 1.0;
        let mut size = 0usize;
        for (i, &(ry, cy)) in distinct.iter().enumerate() {
            let a = 1.0 - ry;
            for _ in 0..(cy - usize::from(i == skip)) {
                size += 1;
                for j in (1..len.min(size + 1)).rev() {
                    f[j] = ((size - j) as f64 * f[j] + j as f64 * a * f[j - 1]) / size as f64;
                }
            }
        }
        let weight = count as f64 * rx / m as f64;
        for (t, fj) in out.iter_mut().zip(&f) {
            *t += weight * fj;
        }
    }
}

/// Every permutation of `0..n` (tests enumerate the orders of tied documents with it).
#[cfg(test)]
pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn heap(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut a: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    heap(n, &mut a, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_err_terms_equal_the_mean_over_every_order() {
        let stops = [0.75, 0.0, 0.25, 0.75, 0.0, 0.4375];
        let mut got = Vec::new();
        expected_err_terms(&stops, stops.len(), &mut got);
        let perms = permutations(stops.len());
        let mut distinct = perms.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 720, "every order once");
        for j in 0..stops.len() {
            let mean = perms
                .iter()
                .map(|p| stops[p[j]] * p[..j].iter().map(|&i| 1.0 - stops[i]).product::<f64>())
                .sum::<f64>()
                / perms.len() as f64;
            assert!((got[j] - mean).abs() < 1e-14, "j={j}: {} vs {mean}", got[j]);
        }
        // Only the first `len` terms are asked for.
        expected_err_terms(&stops, 2, &mut got);
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn the_reciprocal_rank_of_a_run_by_hand() {
        // Two documents, one relevant, at ranks 1 and 2: (1 + 1/2) / 2.
        assert!((expected_reciprocal_rank(1, 2, 0) - 0.75).abs() < 1e-15);
        // Three documents, two relevant, from rank 3: the first relevant one is at rank 3
        // with probability 2/3, at rank 4 with 1/3.
        let want = 2.0 / 3.0 / 3.0 + 1.0 / 3.0 / 4.0;
        assert!((expected_reciprocal_rank(2, 3, 2) - want).abs() < 1e-15);
        // Every document relevant: the first is at the run's start.
        assert_eq!(expected_reciprocal_rank(4, 4, 0), 1.0);
    }

    #[test]
    fn the_precision_sum_of_a_run_by_hand() {
        // Run [rel, non] at ranks 1-2 after nothing: the relevant one is at rank 1 or 2,
        // precision 1 or 1/2: expected 3/4.
        assert!((expected_precision_sum(0, 1, 2, 0) - 0.75).abs() < 1e-15);
        // Both relevant: precisions 1 and 1 in either order.
        assert!((expected_precision_sum(0, 2, 2, 0) - 2.0).abs() < 1e-15);
    }

    #[test]
    fn runs_split_at_every_change_of_score_and_pessimism_sorts_within_them() {
        let scores = [1.0, 3.0, 1.0, -0.0, 0.0, 3.0];
        let mut order = Vec::new();
        ltr_core::rank_order(&scores, &mut order);
        assert_eq!(order, [1, 5, 0, 2, 3, 4]);
        let labels: [Grade; 6] = [2, 1, 0, 1, 0, 0];
        let mut ranked: Vec<Grade> = order.iter().map(|&i| labels[i]).collect();
        let mut ends = Vec::new();
        assert!(!tie_runs(&order, &scores, &mut ranked, Ties::File, &mut ends));
        assert!(ends.is_empty());
        assert!(tie_runs(&order, &scores, &mut ranked, Ties::Expected, &mut ends));
        assert_eq!(ends, [2, 4, 6]);
        assert_eq!(Runs::new(6, Some(&ends)).collect::<Vec<_>>(), [0..2, 2..4, 4..6]);
        assert_eq!(Runs::new(2, None).collect::<Vec<_>>(), [0..1, 1..2]);
        assert!(!tie_runs(&order, &scores, &mut ranked, Ties::Pessimistic, &mut ends));
        assert_eq!(ranked, [0, 1, 0, 2, 0, 1]);
    }
}
