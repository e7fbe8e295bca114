//! The expected NDCG of one query under the score-induced distribution of rankings, its
//! relaxation, and the quantities of the bound-optimisation step.
//!
//! Notation: a query's documents `i = 1..m`, gains `g_i = 2^{y_i} - 1`, scores `F_i`,
//! `N = max_pi sum_i g_i / ln(1 + pi(i))` the ideal DCG (the logarithm's base cancels in NDCG).
//!
//! * Distribution of rankings: `Pr(pi | F) ∝ exp(sum_{(i, j): pi(i) < pi(j)} (F_i - F_j))`,
//!   every pair of the ranking contributing the score difference of the document placed
//!   above minus the one below. Summing, the exponent is `sum_i F_i (m + 1 - 2 pi(i))`.
//! * Expected NDCG: `E[NDCG] = (1/N) sum_i g_i E[1 / ln(1 + pi(i))]`, computed exactly by
//!   [`exact_expected_ndcg`] (a sum over subsets, for short queries).
//! * Relaxation (what training maximises): `1/ln(1 + x)` is convex, so
//!   `E[1/ln(1 + pi(i))] >= 1/ln(1 + E[pi(i)])`, and `E[pi(i)] = 1 + sum_{j != i} Pr(j above i)`
//!   with `Pr(j above i)` taken as `s_ij = e^{2F_j} / (e^{2F_i} + e^{2F_j})` (exact for two
//!   documents; the conditional probability of the two orders of an adjacent pair):
//!   `H(F) = (1/N) sum_i g_i / ln(1 + pibar_i)`, `pibar_i = 1 + sum_{j != i} s_ij`.
//! * Bound for `F~ = F + alpha h`: the tangent of the convex `1/ln(1 + x)` at `pibar_i` and
//!   `s~_ij <= s_ij^2 + s_ij (1 - s_ij) e^{2 alpha (h_j - h_i)}` (convexity of `1/x`) give
//!   `H(F~) - H(F) >= -sum_i sum_{j != i} w_i theta_ij (e^{2 alpha (h_j - h_i)} - 1)` with
//!   `theta_ij = s_ij (1 - s_ij)` and `w_i = g_i / (N (1 + pibar_i) ln^2(1 + pibar_i))`.
//!   For a binary `h`, `up = sum_{h_i = 1, h_j = 0} w_i theta_ij` and
//!   `down = sum_{h_i = 0, h_j = 1} w_i theta_ij`, the bound is
//!   `up (1 - e^{-2 alpha}) + down (1 - e^{2 alpha})`, maximal at `alpha = 1/4 ln(up / down)`
//!   where it guarantees `(sqrt(up) - sqrt(down))^2`; its slope at `alpha = 0` (which is
//!   `H`'s) is `2 sum_i gamma_i h_i`, `gamma_i = sum_{j != i} theta_ij (w_i - w_j)`.

use ltr_core::{Error, Result};

/// Above this spread of a query's scores (`max - min`), `s_ij` is computed pair by pair
/// instead of from the per-document `e^{2 (F - mid)}` (which would leave `f64`'s range).
const FAST_SPREAD: f64 = 300.0;

/// The most documents [`exact_expected_ndcg`] takes (it costs `2^m m`).
pub const EXACT_MAX_DOCS: usize = 20;

/// The gain `2^y - 1` of a grade.
pub fn gain(y: u8) -> f64 {
    2f64.powi(i32::from(y)) - 1.0
}

/// The ideal DCG `sum_r g_(r) / ln(1 + r)` (gains sorted descending, natural logarithm).
pub fn ideal_dcg(gains: &[f64]) -> f64 {
    let mut sorted = gains.to_vec();
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    sorted.iter().enumerate().map(|(r, g)| g / (r as f64 + 2.0).ln()).sum()
}

/// `Pr(j above i) = s_ij` for one query's scores.
#[derive(Debug, Default)]
pub(crate) struct Sigmoids {
    /// `e^{2 (F - mid)}` per document, or the scores themselves when the spread is too wide.
    e: Vec<f64>,
    fast: bool,
}

impl Sigmoids {
    /// Prepares the probabilities of `scores` (reusing the buffer).
    pub fn set(&mut self, scores: impl Iterator<Item = f64> + Clone) {
        let (lo, hi) =
            scores.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
        self.fast = hi - lo <= FAST_SPREAD;
        let mid = 0.5 * (lo + hi);
        self.e.clear();
        if self.fast {
            self.e.extend(scores.map(|v| (2.0 * (v - mid)).exp()));
        } else {
            self.e.extend(scores);
        }
    }

    /// `s_ij = Pr(j above i)`.
    #[inline]
    pub fn s(&self, i: usize, j: usize) -> f64 {
        if self.fast {
            self.e[j] / (self.e[i] + self.e[j])
        } else {
            1.0 / (1.0 + (2.0 * (self.e[i] - self.e[j])).exp())
        }
    }

    /// `theta_ij = s_ij (1 - s_ij)`.
    #[inline]
    pub fn theta(&self, i: usize, j: usize) -> f64 {
        let s = self.s(i, j);
        s * (1.0 - s)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.e.len()
    }
}

/// `pibar_i = 1 + sum_{j != i} s_ij` for every document, into `out`.
pub(crate) fn expected_ranks(sig: &Sigmoids, out: &mut Vec<f64>) {
    let m = sig.len();
    out.clear();
    out.resize(m, 1.0);
    for i in 0..m {
        for j in i + 1..m {
            let s = sig.s(i, j);
            out[i] += s;
            out[j] += 1.0 - s;
        }
    }
}

/// `H = (1/N) sum_i g_i / ln(1 + pibar_i)`.
pub(crate) fn relaxed_from_ranks(gains: &[f64], ideal: f64, ranks: &[f64]) -> f64 {
    gains.iter().zip(ranks).map(|(g, r)| g / (1.0 + r).ln()).sum::<f64>() / ideal
}

/// `w_i = g_i / (N (1 + pibar_i) ln^2(1 + pibar_i))`, into `out`.
pub(crate) fn rank_weights(gains: &[f64], ideal: f64, ranks: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.extend(gains.iter().zip(ranks).map(|(g, r)| {
        let l = (1.0 + r).ln();
        g / (ideal * (1.0 + r) * l * l)
    }));
}

/// `gamma_i = sum_{j != i} theta_ij (w_i - w_j)`, into `out`.
pub(crate) fn potentials(sig: &Sigmoids, w: &[f64], out: &mut Vec<f64>) {
    let m = sig.len();
    out.clear();
    out.resize(m, 0.0);
    for i in 0..m {
        for j in i + 1..m {
            let t = sig.theta(i, j) * (w[i] - w[j]);
            out[i] += t;
            out[j] -= t;
        }
    }
}

/// `(up, down)` of a binary weak ranker with outputs `h` on the query.
pub(crate) fn up_down(sig: &Sigmoids, w: &[f64], h: &[bool]) -> (f64, f64) {
    let m = sig.len();
    let (mut up, mut down) = (0.0, 0.0);
    for i in 0..m {
        for j in i + 1..m {
            if h[i] != h[j] {
                let t = sig.theta(i, j);
                // The document with h = 1 is lifted above the other: its weight goes up.
                if h[i] {
                    up += w[i] * t;
                    down += w[j] * t;
                } else {
                    up += w[j] * t;
                    down += w[i] * t;
                }
            }
        }
    }
    (up, down)
}

/// The relaxed expected NDCG `H(F)` of one query (gains and scores per document), the
/// objective training maximises; `None` when the query has no positive gain.
pub fn relaxed_expected_ndcg(gains: &[f64], scores: &[f64]) -> Option<f64> {
    let ideal = ideal_dcg(gains);
    if ideal.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || gains.len() != scores.len() {
        return None;
    }
    let mut sig = Sigmoids::default();
    sig.set(scores.iter().copied());
    let mut ranks = Vec::new();
    expected_ranks(&sig, &mut ranks);
    Some(relaxed_from_ranks(gains, ideal, &ranks))
}

/// The distribution of every document's rank: `out[i][r - 1] = Pr(pi(i) = r | F)`, by sums
/// over the subsets of documents placed above (`2^m m`; at most [`EXACT_MAX_DOCS`]).
pub fn rank_marginals(scores: &[f64]) -> Result<Vec<Vec<f64>>> {
    let m = scores.len();
    if m == 0 || m > EXACT_MAX_DOCS {
        return Err(Error::param("documents", m, format!("exact rank marginals take 1..={EXACT_MAX_DOCS}")));
    }
    // Document i at position r (1-based) contributes exp(F_i (m + 1 - 2r)); a constant shift of
    // F cancels (the exponents sum to 0 over positions), so centre the scores.
    let mean = scores.iter().sum::<f64>() / m as f64;
    let a = |i: usize, r: usize| ((scores[i] - mean) * (m as f64 + 1.0 - 2.0 * r as f64)).exp();
    let full = (1usize << m) - 1;
    // fwd[S]: the weight of every order of S on positions 1..|S|; bwd[S]: of the rest on
    // |S|+1..m.
    let mut fwd = vec![0.0; full + 1];
    fwd[0] = 1.0;
    for set in 0..full {
        if fwd[set] == 0.0 {
            continue;
        }
        let r = set.count_ones() as usize + 1;
        for i in (0..m).filter(|&i| set & (1 << i) == 0) {
            fwd[set | (1 << i)] += fwd[set] * a(i, r);
        }
    }
    let mut bwd = vec![0.0; full + 1];
    bwd[full] = 1.0;
    for set in (0..full).rev() {
        let r = set.count_ones() as usize + 1;
        bwd[set] = (0..m).filter(|&i| set & (1 << i) == 0).map(|i| a(i, r) * bwd[set | (1 << i)]).sum();
    }
    let z = fwd[full];
    let mut out = vec![vec![0.0; m]; m];
    for set in 0..full {
        let r = set.count_ones() as usize + 1;
        for i in (0..m).filter(|&i| set & (1 << i) == 0) {
            out[i][r - 1] += fwd[set] * a(i, r) * bwd[set | (1 << i)] / z;
        }
    }
    Ok(out)
}

/// The exact expected NDCG `(1/N) sum_i g_i E[1/ln(1 + pi(i))]` of one query under
/// `Pr(pi | F)` ([`rank_marginals`]: short queries only); `None` inside when no gain is
/// positive.
pub fn exact_expected_ndcg(gains: &[f64], scores: &[f64]) -> Result<Option<f64>> {
    if gains.len() != scores.len() {
        return Err(Error::param("gains", gains.len(), "one gain per score"));
    }
    let ideal = ideal_dcg(gains);
    let marginals = rank_marginals(scores)?;
    if ideal.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Ok(None);
    }
    let dcg: f64 = gains
        .iter()
        .zip(&marginals)
        .map(|(g, p)| g * p.iter().enumerate().map(|(r, p)| p / (r as f64 + 2.0).ln()).sum::<f64>())
        .sum();
    Ok(Some(dcg / ideal))
}
