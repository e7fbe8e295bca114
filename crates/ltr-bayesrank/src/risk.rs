//! The Bayes risk of a query's ranking under the Plackett-Luce model of the scores, for the
//! loss `1 - NDCG@k`, computed exactly over the ordered top-`k` prefixes, with its gradient.
//!
//! The Plackett-Luce model draws a ranking `pi` of the query's documents one place at a time,
//! each time among the documents left, document `c` with probability `exp(s_c) / Z` (`Z` the
//! sum over the documents left). The loss of a ranking against the grades is `1 - NDCG@k`,
//! gain `2^y - 1`, discount `D_t = 1 / log2(1 + t)` at 1-based place `t <= k`; it depends on
//! the first `k` places only, so the expectation over the `n!` rankings is an expectation over
//! the `n! / (n - k)!` ordered prefixes of length `k` with their Plackett-Luce probabilities
//! (the "top-k probabilities" of Cao et al., ICML 2007):
//!
//! ```text
//! R = 1 - E[DCG@k] / IDCG@k,   E[DCG@k] = V(root)
//! V(rho) = sum_{c not in rho} p_c(rho) Q_c(rho),  p_c(rho) = exp(s_c) / sum_{c' not in rho} exp(s_c')
//! Q_c(rho) = D_{|rho| + 1} g_c + V(rho + c),      V(rho) = 0 once |rho| = k
//! ```
//!
//! evaluated by a depth-first walk of the prefixes. Differentiating the walk backwards gives
//!
//! ```text
//! dE[DCG@k] / ds_a = sum_{rho not containing a, |rho| < k} P(rho) p_a(rho) (Q_a(rho) - V(rho))
//! ```
//!
//! (`P(rho)` the probability of the prefix): every term is a probability times a difference of
//! two expected gains, so no two large numbers ever cancel, whatever the scores. The weights are
//! exponentials of the scores minus the query's maximum; the masses left after removing a
//! document are updated by subtraction unless the removed document held more than half of it
//! (then summed afresh: at most one child per prefix), and a prefix whose remaining mass falls
//! below `1e-100` of the current scale re-exponentiates its remaining documents against their
//! own maximum, so a few documents far ahead of the rest cannot underflow the others' choices.
//! Prefixes of probability 0 are not visited. Cost: `O(n^k)` time (`n` documents), `O(k n)`
//! memory.

/// A remaining mass below this (relative to the scale in use) is re-exponentiated.
const RESCALE_BELOW: f64 = 1e-100;

/// The expected DCG@k of the Plackett-Luce model (the Bayes risk's variable part).
#[derive(Debug, Clone, PartialEq)]
pub struct TopKRisk {
    /// `D_t = 1 / log2(1 + t)` for the places `t = 1..=k`.
    discount: Vec<f64>,
}

/// Reusable buffers of [`TopKRisk::expected_dcg`].
#[derive(Debug, Default, Clone)]
pub struct RiskScratch {
    /// Per depth: the documents' weights `exp(s - m)` in the scale used from that depth on
    /// (row 0 the query's maximum; deeper rows only where a prefix re-exponentiated).
    weight: Vec<f64>,
    /// Per depth: `Q_c` of the children of the prefix being visited at that depth.
    q: Vec<f64>,
    /// Documents in the current prefix.
    used: Vec<bool>,
}

/// What a walk needs besides the scratch.
struct Walk<'a, const GRAD: bool> {
    gains: &'a [f64],
    scores: &'a [f64],
    grad: &'a mut [f64],
    discount: &'a [f64],
    n: usize,
}

/// `total - part` for a mass `total` that holds `part`, summed afresh from the documents left
/// when `part` is more than half of it (subtraction would then lose the digits that matter).
fn remove(total: f64, part: f64, afresh: impl FnOnce() -> f64) -> f64 {
    if part > 0.5 * total { afresh() } else { total - part }
}

impl TopKRisk {
    /// The risk of NDCG@`k` (`k >= 1`).
    pub fn new(k: usize) -> Self {
        Self { discount: (1..=k.max(1)).map(|t| 1.0 / ((1 + t) as f64).log2()).collect() }
    }

    /// `k`.
    pub fn k(&self) -> usize {
        self.discount.len()
    }

    /// `E[DCG@k]` of the Plackett-Luce model of `scores` for documents of gains `gains`; with
    /// `GRAD`, its gradient with respect to the scores is written into `grad`.
    pub fn expected_dcg<const GRAD: bool>(
        &self,
        gains: &[f64],
        scores: &[f64],
        grad: &mut [f64],
        s: &mut RiskScratch,
    ) -> f64 {
        let n = scores.len();
        if GRAD {
            grad[..n].fill(0.0);
        }
        let k = self.k().min(n);
        if k == 0 {
            return 0.0;
        }
        let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        s.weight.clear();
        s.weight.resize(k * n, 0.0);
        s.q.clear();
        s.q.resize(k * n, 0.0);
        s.used.clear();
        s.used.resize(n, false);
        for (w, &x) in s.weight.iter_mut().zip(scores) {
            *w = (x - m).exp();
        }
        let z: f64 = s.weight[..n].iter().sum();
        let zg: f64 = s.weight[..n].iter().zip(gains).map(|(w, g)| w * g).sum();
        let mut walk = Walk::<GRAD> { gains, scores, grad, discount: &self.discount[..k], n };
        walk.node(0, 0, 1.0, z, zg, s)
    }
}

impl<const GRAD: bool> Walk<'_, GRAD> {
    /// `V(rho)` of the current prefix (`used`, of length `depth`, probability `prob`), whose
    /// documents left have weights in row `scale` summing to `z` (and `zg` times their gains);
    /// adds the prefix's terms of the gradient.
    fn node(&mut self, depth: usize, scale: usize, prob: f64, z: f64, zg: f64, s: &mut RiskScratch) -> f64 {
        let n = self.n;
        let (mut scale, mut z, mut zg) = (scale, z, zg);
        if z < RESCALE_BELOW {
            // Re-exponentiate the documents left against their own maximum, into this depth's
            // row (no ancestor uses it).
            let m = (0..n).filter(|&c| !s.used[c]).map(|c| self.scores[c]).fold(f64::NEG_INFINITY, f64::max);
            let row = &mut s.weight[depth * n..(depth + 1) * n];
            for c in (0..n).filter(|&c| !s.used[c]) {
                row[c] = (self.scores[c] - m).exp();
            }
            scale = depth;
            z = (0..n).filter(|&c| !s.used[c]).map(|c| row[c]).sum();
            zg = (0..n).filter(|&c| !s.used[c]).map(|c| row[c] * self.gains[c]).sum();
        }
        let d = self.discount[depth];
        let w = |s: &RiskScratch, c: usize| s.weight[scale * n + c];
        if depth + 1 == self.discount.len() {
            // The children are complete prefixes: Q_c = D_k g_c, V = D_k zg / z.
            let v = d * zg / z;
            if GRAD {
                for c in (0..n).filter(|&c| !s.used[c]) {
                    self.grad[c] += prob * (w(s, c) / z) * (d * self.gains[c] - v);
                }
            }
            return v;
        }
        let mut v = 0.0;
        for c in 0..n {
            let pc = w(s, c) / z;
            if s.used[c] || pc == 0.0 {
                continue;
            }
            s.used[c] = true;
            let wc = w(s, c);
            let row = &s.weight[scale * n..(scale + 1) * n];
            let used = &s.used;
            let zc = remove(z, wc, || (0..n).filter(|&i| !used[i]).map(|i| row[i]).sum());
            let gc = self.gains[c];
            let zgc =
                remove(zg, wc * gc, || (0..n).filter(|&i| !used[i]).map(|i| row[i] * self.gains[i]).sum());
            let q = d * gc + self.node(depth + 1, scale, prob * pc, zc, zgc, s);
            s.used[c] = false;
            s.q[depth * n + c] = q;
            v += pc * q;
        }
        if GRAD {
            for c in 0..n {
                let pc = w(s, c) / z;
                if !s.used[c] && pc > 0.0 {
                    self.grad[c] += prob * pc * (s.q[depth * n + c] - v);
                }
            }
        }
        v
    }
}
