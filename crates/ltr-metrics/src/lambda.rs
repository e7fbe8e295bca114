//! Pair lambdas of RankNet and LambdaRank (Burges, MSR-TR-2010-82, sections 2.1 and 4):
//! the one implementation of the pairwise gradients and of `|delta NDCG|` in the workspace,
//! used by LambdaMART's trees and by the neural RankNet and LambdaRank.
//!
//! For one query, every pair `(i, j)` with `y_i > y_j` (the "high" document `i`) contributes
//!
//! ```text
//! rho_ij    = 1 / (1 + exp(sigma (s_i - s_j)))
//! lambda_ij = -sigma w_ij rho_ij                  (dC/ds_i; dC/ds_j gets its opposite)
//! h_ij      = sigma^2 w_ij rho_ij (1 - rho_ij)    (second derivative, on both documents)
//! ```
//!
//! to the per-document sums `lambda_i` (the factorisation of section 2.1: one lambda per
//! document, so a model needs one backward pass per document rather than per pair). These
//! are the derivatives of the weighted RankNet cross-entropy
//! `C = sum_ij w_ij log(1 + exp(-sigma (s_i - s_j)))` with the weights held fixed.
//!
//! The weight `w_ij` is 1 for RankNet ([`PairWeight::One`]). For LambdaRank
//! ([`PairWeight::NdcgSwap`]) it is `|delta NDCG_ij|`, the change of NDCG@k when `i` and `j`
//! swap places in the ranking by the current scores (ties keep document order): gain
//! `2^y - 1`, discount `1 / log2(1 + r)` for 1-based ranks `r <= k` and 0 beyond, divided by
//! the query's ideal DCG@k. `k = 0` means the whole list. This is the discount of the usual
//! NDCG definition, not the LETOR scripts' (which discount ranks 1 and 2 equally, so
//! swapping them would be worth nothing). A query without a relevant document has ideal
//! DCG 0 and gets zero lambdas. Pairs whose ranks both lie beyond `k` change nothing and are
//! not visited.
//!
//! Two optional LightGBM normalisations (its `lambdarank` with `lambdarank_norm = true`),
//! which LambdaMART uses: [`LambdaConfig::distance_norm`] divides `w_ij` by
//! `0.01 + |s_i - s_j|` when the query's scores are not all equal, and
//! [`LambdaConfig::query_norm`] scales the query's lambdas and hessians by
//! `log2(1 + S) / S`, `S` the sum of `|lambda_ij|` over the pairs counted once per document.
//! With either, the lambdas are no longer the gradient of a cost; [`PairLambdas::query`]
//! still returns the cost above.

use ltr_core::Grade;

/// LightGBM's constant in the score-distance normalisation `|delta NDCG| / (0.01 + |s_i - s_j|)`.
const NORM_EPS: f64 = 0.01;

/// Above this value of `sigma * (best - worst score)` within a query the per-document
/// exponentials could underflow; pairs then call `exp` themselves.
const MAX_EXP_RANGE: f64 = 600.0;

/// What a pair's lambda is weighted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairWeight {
    /// RankNet: every pair of documents with different grades counts once.
    One,
    /// LambdaRank: `|delta NDCG@k|` of swapping the pair; `truncation = k`, 0 for the whole
    /// list.
    NdcgSwap {
        /// The `k` of NDCG@k (0: no truncation).
        truncation: usize,
    },
}

/// The settings of the pair lambdas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LambdaConfig {
    /// Steepness of the pairwise sigmoid (> 0).
    pub sigma: f64,
    /// The pair weight.
    pub weight: PairWeight,
    /// Divide the weight by `0.01 + |s_i - s_j|` (LightGBM).
    pub distance_norm: bool,
    /// Scale each query's lambdas to sum to `log2(1 + S)` (LightGBM).
    pub query_norm: bool,
}

impl LambdaConfig {
    /// RankNet's lambdas: weight 1, no normalisation.
    pub fn ranknet(sigma: f64) -> Self {
        Self { sigma, weight: PairWeight::One, distance_norm: false, query_norm: false }
    }

    /// LambdaRank's lambdas (Burges et al., NIPS 2006): `|delta NDCG@k|` weights, no
    /// normalisation.
    pub fn lambdarank(sigma: f64, truncation: usize) -> Self {
        Self { sigma, weight: PairWeight::NdcgSwap { truncation }, distance_norm: false, query_norm: false }
    }

    /// LightGBM's `lambdarank` objective (`lambdarank_norm = true`), as LambdaMART uses it.
    pub fn lightgbm(sigma: f64, truncation: usize) -> Self {
        Self { sigma, weight: PairWeight::NdcgSwap { truncation }, distance_norm: true, query_norm: true }
    }
}

/// The pair lambdas for queries of at most `longest` documents.
#[derive(Debug, Clone)]
pub struct PairLambdas {
    config: LambdaConfig,
    /// `1 / log2(2 + r)` for 0-based rank `r < k`, 0 beyond the truncation (NDCG weights).
    discount: Vec<f64>,
    /// `2^g - 1` for every grade.
    gain: Vec<f64>,
    /// Number of leading ranks whose pairs are visited.
    truncation: usize,
}

/// Reusable per-task buffers of [`PairLambdas::query`].
#[derive(Debug, Default, Clone)]
pub struct LambdaScratch {
    order: Vec<usize>,
    by_grade: Vec<usize>,
    groups: Vec<(Grade, std::ops::Range<usize>)>,
    gain: Vec<f64>,
    score: Vec<f64>,
    w: Vec<f64>,
    lambda: Vec<f64>,
    hess: Vec<f64>,
    sorted: Vec<Grade>,
}

/// `log(1 + exp(x))` without overflow.
#[inline]
fn softplus(x: f64) -> f64 {
    if x > 0.0 { x + (-x).exp().ln_1p() } else { x.exp().ln_1p() }
}

impl PairLambdas {
    /// The lambdas of `config` for queries of at most `longest` documents.
    pub fn new(config: LambdaConfig, longest: usize) -> Self {
        let k = match config.weight {
            PairWeight::NdcgSwap { truncation } if truncation > 0 => truncation.min(longest),
            _ => longest,
        };
        let discount: Vec<f64> = match config.weight {
            PairWeight::NdcgSwap { .. } => {
                (0..longest).map(|r| if r < k { 1.0 / (2.0 + r as f64).log2() } else { 0.0 }).collect()
            }
            PairWeight::One => Vec::new(),
        };
        let gain: Vec<f64> = (0..=255u8).map(|g| f64::from(g).exp2() - 1.0).collect();
        Self { config, discount, gain, truncation: k }
    }

    /// The lambdas for the queries of a data set (by its `query_offsets()`).
    pub fn for_offsets(config: LambdaConfig, offsets: &[usize]) -> Self {
        Self::new(config, offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0))
    }

    /// The settings.
    pub fn config(&self) -> &LambdaConfig {
        &self.config
    }

    /// Number of leading ranks whose pairs count (`min(k, longest query)`).
    pub fn truncation(&self) -> usize {
        self.truncation
    }

    /// `1 / ideal DCG@k` of a query with these grades (0 when it has no relevant document),
    /// under the NDCG weights. Always 1 for [`PairWeight::One`].
    pub fn inverse_ideal_dcg(&self, labels: &[Grade], scratch: &mut LambdaScratch) -> f64 {
        if self.config.weight == PairWeight::One {
            return 1.0;
        }
        let sorted = &mut scratch.sorted;
        sorted.clear();
        sorted.extend_from_slice(labels);
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let max_dcg: f64 =
            sorted.iter().zip(&self.discount).map(|(&g, &d)| self.gain[usize::from(g)] * d).sum();
        if max_dcg > 0.0 { 1.0 / max_dcg } else { 0.0 }
    }

    /// The lambdas `dC/ds` (and, with `hess`, the second derivatives) of one query, in
    /// document order: `labels` and `scores` of its documents (at most `longest` of them),
    /// `inv_ideal_dcg` from [`PairLambdas::inverse_ideal_dcg`]. Returns the cost `C` (with
    /// the query normalisation applied to it too) when `COST` is true, else 0.
    pub fn query<const COST: bool>(
        &self,
        labels: &[Grade],
        scores: &[f64],
        inv_ideal_dcg: f64,
        lambda_out: &mut [f64],
        hess_out: Option<&mut [f64]>,
        s: &mut LambdaScratch,
    ) -> f64 {
        let n = labels.len();
        let ndcg = matches!(self.config.weight, PairWeight::NdcgSwap { .. });
        let inv = inv_ideal_dcg;
        if (ndcg && inv == 0.0) || n < 2 {
            lambda_out.fill(0.0);
            if let Some(h) = hess_out {
                h.fill(0.0);
            }
            return 0.0;
        }
        let sigma = self.config.sigma;
        s.order.clear();
        s.order.extend(0..n);
        // Stable: ties keep document order (LightGBM's std::stable_sort).
        s.order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let best = scores[s.order[0]];
        let worst = scores[s.order[n - 1]];
        let normalise = self.config.distance_norm && best != worst;
        // Everything in rank order, so the pair loop reads contiguous memory.
        // rho = 1 / (1 + exp(sigma (s_hi - s_lo))) = w_lo / (w_lo + w_hi) with
        // w = exp(sigma (s - best)) in (0, 1]: one exp per document instead of per pair.
        let use_w = sigma * (best - worst) < MAX_EXP_RANGE;
        s.gain.clear();
        s.score.clear();
        s.w.clear();
        for &d in &s.order {
            s.gain.push(self.gain[usize::from(labels[d])]);
            s.score.push(scores[d]);
            s.w.push(if use_w { (sigma * (scores[d] - best)).exp() } else { 0.0 });
        }
        s.lambda.clear();
        s.lambda.resize(n, 0.0);
        let want_hess = hess_out.is_some();
        s.hess.clear();
        s.hess.resize(if want_hess { n } else { 0 }, 0.0);
        // Ranks grouped by grade (ascending ranks within a group): a document only pairs
        // with documents of other grades, so equal-grade pairs are never visited.
        s.by_grade.clear();
        s.groups.clear();
        let mut present = [false; 256];
        let mut top_grade = 0;
        for &d in &s.order {
            present[usize::from(labels[d])] = true;
            top_grade = top_grade.max(labels[d]);
        }
        for grade in (0..=top_grade).filter(|&g| present[usize::from(g)]) {
            let start = s.by_grade.len();
            s.by_grade
                .extend(s.order.iter().enumerate().filter(|&(_, &d)| labels[d] == grade).map(|(r, _)| r));
            s.groups.push((grade, start..s.by_grade.len()));
        }
        let mut sum_lambdas = 0.0;
        let mut cost = 0.0;
        let top = (n - 1).min(self.truncation);
        let (gain, score, w) = (&s.gain[..n], &s.score[..n], &s.w[..n]);
        let disc: &[f64] = if ndcg { &self.discount[..n] } else { &[] };
        for i in 0..top {
            let (gi, si, wi) = (gain[i], score[i], w[i]);
            let di = if ndcg { disc[i] } else { 0.0 };
            let grade_i = labels[s.order[i]];
            let (mut acc_l, mut acc_h) = (0.0f64, 0.0f64);
            for (grade, range) in &s.groups {
                if *grade == grade_i {
                    continue;
                }
                let i_high = grade_i > *grade;
                let ranks = &s.by_grade[range.clone()];
                let after = ranks.partition_point(|&r| r <= i);
                for &j in &ranks[after..] {
                    let ds = si - score[j]; // s_i - s_j
                    let mut delta = if ndcg {
                        // |gain gap| * |discount gap| / ideal DCG
                        (gi - gain[j]).abs() * (di - disc[j]).abs() * inv
                    } else {
                        1.0
                    };
                    if normalise {
                        delta /= NORM_EPS + ds.abs();
                    }
                    let rho = if use_w {
                        (if i_high { w[j] } else { wi }) / (wi + w[j])
                    } else {
                        let d_hi_lo = if i_high { ds } else { -ds };
                        1.0 / (1.0 + (sigma * d_hi_lo).exp())
                    };
                    // The lambda of the high document; the low one gets its opposite.
                    let lambda = -sigma * delta * rho;
                    let on_i = if i_high { lambda } else { -lambda };
                    acc_l += on_i;
                    s.lambda[j] -= on_i;
                    if want_hess {
                        let h = sigma * sigma * delta * rho * (1.0 - rho);
                        acc_h += h;
                        s.hess[j] += h;
                    }
                    sum_lambdas -= 2.0 * lambda;
                    if COST {
                        let d_hi_lo = if i_high { ds } else { -ds };
                        cost += delta * softplus(-sigma * d_hi_lo);
                    }
                }
            }
            s.lambda[i] += acc_l;
            if want_hess {
                s.hess[i] += acc_h;
            }
        }
        let factor = if self.config.query_norm && sum_lambdas > 0.0 {
            (1.0 + sum_lambdas).log2() / sum_lambdas
        } else {
            1.0
        };
        for (r, &d) in s.order.iter().enumerate() {
            lambda_out[d] = s.lambda[r] * factor;
        }
        if let Some(h) = hess_out {
            for (r, &d) in s.order.iter().enumerate() {
                h[d] = s.hess[r] * factor;
            }
        }
        cost * factor
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn lambdas(cfg: LambdaConfig, labels: &[Grade], scores: &[f64]) -> (Vec<f64>, Vec<f64>, f64) {
        let pl = PairLambdas::new(cfg, labels.len());
        let mut s = LambdaScratch::default();
        let inv = pl.inverse_ideal_dcg(labels, &mut s);
        let (mut l, mut h) = (vec![9.0; labels.len()], vec![9.0; labels.len()]);
        let c = pl.query::<true>(labels, scores, inv, &mut l, Some(&mut h), &mut s);
        (l, h, c)
    }

    /// Grades (2, 0, 1), scores (0.5, 1, 0), sigma 1. Pairs (high, low): (0, 1), (0, 2),
    /// (2, 1) with s_hi - s_lo = -0.5, 0.5, -1, so RankNet's pair lambdas
    /// -1 / (1 + e^(s_hi - s_lo)) are -1/(1 + e^-0.5) = -0.6224593312018546,
    /// -1/(1 + e^0.5) = -0.3775406687981454 and -1/(1 + e^-1) = -0.7310585786300049:
    /// lambda_0 = -0.62246 - 0.37754 = -1 exactly, lambda_1 = 0.62246 + 0.73106, lambda_2 =
    /// 0.37754 - 0.73106.
    #[test]
    fn ranknet_three_documents_by_hand() {
        let (l, h, c) = lambdas(LambdaConfig::ranknet(1.0), &[2, 0, 1], &[0.5, 1.0, 0.0]);
        let (a, b, c3) = (0.6224593312018546, 0.3775406687981454, 0.7310585786300049);
        assert!((l[0] + 1.0).abs() < 1e-15, "{l:?}");
        assert!((l[1] - (a + c3)).abs() < 1e-15, "{l:?}");
        assert!((l[2] - (b - c3)).abs() < 1e-15, "{l:?}");
        // Hessians rho (1 - rho) per pair, on both of its documents.
        let hp = |r: f64| r * (1.0 - r);
        assert!((h[0] - (hp(a) + hp(b))).abs() < 1e-15);
        assert!((h[1] - (hp(a) + hp(c3))).abs() < 1e-15);
        // Cost: log(1 + e^0.5) + log(1 + e^-0.5) + log(1 + e^1).
        let want = 0.5f64.exp().ln_1p() + (-0.5f64).exp().ln_1p() + 1f64.exp().ln_1p();
        assert!((c - want).abs() < 1e-14, "{c} vs {want}");
    }

    /// The same query under LambdaRank. Ranking by score: doc 1 (grade 0) at rank 1, doc 0
    /// (grade 2) at rank 2, doc 2 (grade 1) at rank 3; gains 3, 0, 1; discounts 1, 1/log2(3),
    /// 1/2. Ideal DCG = 3 + 1/log2(3). |delta DCG| of the pairs: (0, 1): 3 |1/log2(3) - 1|;
    /// (0, 2): 2 |1/log2(3) - 1/2|; (2, 1): 1 |1/2 - 1|.
    #[test]
    fn lambdarank_weights_by_hand() {
        let d2 = 1.0 / 3f64.log2();
        let idcg = 3.0 + d2;
        let w01 = 3.0 * (1.0 - d2) / idcg;
        let w02 = 2.0 * (d2 - 0.5) / idcg;
        let w21 = 0.5 / idcg;
        let (a, b, c3) = (0.6224593312018546, 0.3775406687981454, 0.7310585786300049);
        let (l, _, _) = lambdas(LambdaConfig::lambdarank(1.0, 0), &[2, 0, 1], &[0.5, 1.0, 0.0]);
        assert!((l[0] - (-a * w01 - b * w02)).abs() < 1e-15, "{l:?}");
        assert!((l[1] - (a * w01 + c3 * w21)).abs() < 1e-15, "{l:?}");
        assert!((l[2] - (b * w02 - c3 * w21)).abs() < 1e-15, "{l:?}");
        assert!(
            (w01 - 0.30493_f64).abs() < 1e-5 && (w02 - 0.07212).abs() < 1e-5 && (w21 - 0.13771).abs() < 1e-5
        );
        // k = 1: only pairs touching rank 1 (doc 1): (0, 1) and (2, 1); the ideal DCG@1 is 3
        // and the discount is 0 beyond rank 1.
        let (l, _, _) = lambdas(LambdaConfig::lambdarank(1.0, 1), &[2, 0, 1], &[0.5, 1.0, 0.0]);
        assert!((l[0] + a * 3.0 / 3.0).abs() < 1e-15, "{l:?}");
        assert!((l[2] + c3 * 1.0 / 3.0).abs() < 1e-15, "{l:?}");
    }

    /// Finite differences of the returned cost against the lambdas, at scores without ties
    /// (the NDCG weights are then constant around the point).
    #[test]
    fn lambdas_are_the_gradient_of_the_cost() {
        let labels = [2u8, 0, 1, 1, 0, 2, 0];
        let scores = [0.3, -1.2, 0.8, 0.1, 2.0, -0.4, 0.05];
        for cfg in [
            LambdaConfig::ranknet(1.0),
            LambdaConfig::ranknet(2.5),
            LambdaConfig::lambdarank(1.3, 0),
            LambdaConfig::lambdarank(0.7, 3),
        ] {
            let (l, h, _) = lambdas(cfg, &labels, &scores);
            for d in 0..labels.len() {
                let eps = 1e-6;
                let (mut up, mut dn) = (scores, scores);
                up[d] += eps;
                dn[d] -= eps;
                let fd = (lambdas(cfg, &labels, &up).2 - lambdas(cfg, &labels, &dn).2) / (2.0 * eps);
                let rel = (fd - l[d]).abs() / l[d].abs().max(1e-3);
                assert!(rel < 1e-6, "{cfg:?} doc {d}: fd {fd} vs {}", l[d]);
                // The hessian's diagonal, from the lambdas.
                let fdh = (lambdas(cfg, &labels, &up).0[d] - lambdas(cfg, &labels, &dn).0[d]) / (2.0 * eps);
                assert!(
                    (fdh - h[d]).abs() / h[d].abs().max(1e-3) < 1e-6,
                    "{cfg:?} doc {d}: {fdh} vs {}",
                    h[d]
                );
            }
            assert!(l.iter().sum::<f64>().abs() < 1e-12, "lambdas of a query sum to zero");
        }
    }

    #[test]
    fn one_grade_or_no_relevant_document_gives_zero() {
        let (l, h, c) = lambdas(LambdaConfig::ranknet(1.0), &[1, 1, 1], &[0.1, 0.5, 0.0]);
        assert_eq!((l, h, c), (vec![0.0; 3], vec![0.0; 3], 0.0));
        let (l, _, _) = lambdas(LambdaConfig::lambdarank(1.0, 0), &[0, 0], &[0.1, 0.5]);
        assert_eq!(l, vec![0.0; 2]);
        let (l, _, _) = lambdas(LambdaConfig::ranknet(1.0), &[2], &[0.1]);
        assert_eq!(l, vec![0.0]);
    }

    #[test]
    fn huge_score_ranges_fall_back_to_per_pair_exponentials() {
        for cfg in [LambdaConfig::ranknet(1.0), LambdaConfig::lightgbm(1.0, 0)] {
            let (l, h, c) = lambdas(cfg, &[1, 0, 0], &[0.0, 1000.0, -1000.0]);
            assert!(l.iter().chain(&h).all(|v| v.is_finite()) && c.is_finite());
            assert!(l[0] < 0.0);
        }
    }
}
