//! LambdaRank gradients and hessians for NDCG (Burges 2010, section 7), as LightGBM's
//! `lambdarank` objective computes them.

use ltr_core::{Grade, Result};
use ltr_trees::Objective;
use rayon::prelude::*;

/// LightGBM's constant in the score-distance normalisation `|delta NDCG| / (0.01 + |s_i - s_j|)`.
const NORM_EPS: f64 = 0.01;

/// Above this value of `sigma * (best - worst score)` within a query the per-document
/// exponentials could underflow; pairs then call `exp` themselves.
const MAX_EXP_RANGE: f64 = 600.0;

/// The LambdaRank objective on one training set.
#[derive(Debug, Clone)]
pub struct LambdaObjective<'a> {
    labels: &'a [Grade],
    offsets: &'a [usize],
    sigma: f64,
    /// `1 / ideal DCG@k` per query, 0 for a query without relevant document.
    inv_max_dcg: Vec<f64>,
    /// `1 / log2(2 + r)` for 0-based rank `r < k`, 0 beyond the truncation.
    discount: Vec<f64>,
    /// `2^g - 1` for every grade.
    gain: Vec<f64>,
    /// Number of ranks whose pairs count (`min(k, longest query)`).
    truncation: usize,
}

/// Reusable per-task buffers.
#[derive(Debug, Default)]
struct Scratch {
    order: Vec<usize>,
    by_grade: Vec<usize>,
    groups: Vec<(Grade, std::ops::Range<usize>)>,
    gain: Vec<f64>,
    score: Vec<f64>,
    w: Vec<f64>,
    lambda: Vec<f64>,
    hess: Vec<f64>,
}

impl<'a> LambdaObjective<'a> {
    /// The objective for documents with `labels`, grouped by `offsets` (a data set's
    /// `query_offsets()`); `truncation = 0` means no truncation (NDCG over the whole list).
    pub fn new(labels: &'a [Grade], offsets: &'a [usize], sigma: f64, truncation: usize) -> Self {
        let longest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let k = if truncation == 0 { longest } else { truncation.min(longest) };
        let discount: Vec<f64> =
            (0..longest).map(|r| if r < k { 1.0 / (2.0 + r as f64).log2() } else { 0.0 }).collect();
        let gain: Vec<f64> = (0..=255u8).map(|g| f64::from(g).exp2() - 1.0).collect();
        let mut sorted = Vec::new();
        let inv_max_dcg = offsets
            .windows(2)
            .map(|w| {
                sorted.clear();
                sorted.extend_from_slice(&labels[w[0]..w[1]]);
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let max_dcg: f64 =
                    sorted.iter().zip(&discount).map(|(&g, &d)| gain[usize::from(g)] * d).sum();
                if max_dcg > 0.0 { 1.0 / max_dcg } else { 0.0 }
            })
            .collect();
        Self { labels, offsets, sigma, inv_max_dcg, discount, gain, truncation: k }
    }

    /// `1 / ideal DCG` of query `q` (0 when it has no relevant document).
    pub fn inverse_max_dcg(&self, q: usize) -> f64 {
        self.inv_max_dcg[q]
    }

    /// Queries with a relevant document (the others get zero gradients and hessians).
    pub fn active_queries(&self) -> usize {
        self.inv_max_dcg.iter().filter(|&&v| v > 0.0).count()
    }

    /// Gradients and hessians of one query (`scores`, `labels` of its documents).
    fn query(&self, q: usize, scores: &[f64], grad: &mut [f32], hess: &mut [f32], s: &mut Scratch) {
        let inv = self.inv_max_dcg[q];
        let labels = &self.labels[self.offsets[q]..self.offsets[q + 1]];
        let n = labels.len();
        if inv == 0.0 || n < 2 {
            grad.fill(0.0);
            hess.fill(0.0);
            return;
        }
        let sigma = self.sigma;
        s.order.clear();
        s.order.extend(0..n);
        // Stable: ties keep file order (LightGBM's std::stable_sort).
        s.order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let best = scores[s.order[0]];
        let worst = scores[s.order[n - 1]];
        let normalise = best != worst;
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
        s.hess.clear();
        s.hess.resize(n, 0.0);
        // Ranks grouped by grade (ascending ranks within a group): a document only pairs
        // with documents of other grades, so equal-grade pairs are never visited.
        s.by_grade.clear();
        s.groups.clear();
        let mut present = [false; 256];
        for &d in &s.order {
            present[usize::from(labels[d])] = true;
        }
        for grade in (0..=255u8).filter(|&g| present[usize::from(g)]) {
            let start = s.by_grade.len();
            s.by_grade
                .extend(s.order.iter().enumerate().filter(|&(_, &d)| labels[d] == grade).map(|(r, _)| r));
            s.groups.push((grade, start..s.by_grade.len()));
        }
        let mut sum_lambdas = 0.0;
        let top = (n - 1).min(self.truncation);
        let (gain, score, w, disc) = (&s.gain[..n], &s.score[..n], &s.w[..n], &self.discount[..n]);
        for i in 0..top {
            let (gi, si, wi, di) = (gain[i], score[i], w[i], disc[i]);
            let grade_i = labels[s.order[i]];
            let (mut acc_l, mut acc_h) = (0.0f64, 0.0f64);
            for (grade, range) in &s.groups {
                if *grade == grade_i {
                    continue;
                }
                let ranks = &s.by_grade[range.clone()];
                let after = ranks.partition_point(|&r| r <= i);
                for &j in &ranks[after..] {
                    // Signed gain gap: > 0 when i is the more relevant ("high") document.
                    let gap = gi - gain[j];
                    let ds = si - score[j]; // s_i - s_j
                    let mut delta = gap.abs() * (di - disc[j]).abs() * inv;
                    if normalise {
                        delta /= NORM_EPS + ds.abs();
                    }
                    let i_high = gap > 0.0;
                    let rho = if use_w {
                        (if i_high { w[j] } else { wi }) / (wi + w[j])
                    } else {
                        let d_hi_lo = if i_high { ds } else { -ds };
                        1.0 / (1.0 + (sigma * d_hi_lo).exp())
                    };
                    // The lambda of the high document; the low one gets its opposite.
                    let lambda = -sigma * delta * rho;
                    let h = sigma * sigma * delta * rho * (1.0 - rho);
                    let on_i = if i_high { lambda } else { -lambda };
                    acc_l += on_i;
                    s.lambda[j] -= on_i;
                    acc_h += h;
                    s.hess[j] += h;
                    sum_lambdas -= 2.0 * lambda;
                }
            }
            s.lambda[i] += acc_l;
            s.hess[i] += acc_h;
        }
        // LightGBM's lambdarank_norm: scale the query's lambdas to log2(1 + sum) in total.
        let factor = if sum_lambdas > 0.0 { (1.0 + sum_lambdas).log2() / sum_lambdas } else { 1.0 };
        for (r, &d) in s.order.iter().enumerate() {
            grad[d] = (s.lambda[r] * factor) as f32;
            hess[d] = (s.hess[r] * factor) as f32;
        }
    }
}

impl Objective for LambdaObjective<'_> {
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        let this = &*self;
        // One task per query, each writing its own documents: the result does not depend
        // on scheduling.
        let mut parts: Vec<(usize, &mut [f32], &mut [f32])> = Vec::with_capacity(self.offsets.len());
        let (mut g_rest, mut h_rest) = (gradients, hessians);
        for (q, w) in this.offsets.windows(2).enumerate() {
            let len = w[1] - w[0];
            let (g, gt) = std::mem::take(&mut g_rest).split_at_mut(len);
            let (h, ht) = std::mem::take(&mut h_rest).split_at_mut(len);
            parts.push((q, g, h));
            g_rest = gt;
            h_rest = ht;
        }
        parts.into_par_iter().with_min_len(8).for_each_init(Scratch::default, |s, (q, g, h)| {
            let r = this.offsets[q]..this.offsets[q + 1];
            this.query(q, &scores[r], g, h, s);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One query, two documents, grades (1, 0), both scores 0.
    ///
    /// Ideal DCG = (2^1 - 1) / log2(2) = 1. Swapping them moves the relevant document from
    /// rank 1 to rank 2: |delta NDCG| = 1 * |1 - 1/log2(3)| = 0.36907024642854247. Scores are
    /// tied (best == worst), so no score-distance normalisation. rho = 1/(1 + e^0) = 1/2,
    /// lambda = -0.5 * 0.36907, hessian = 0.25 * 0.36907. Sum of |lambdas| over the pair:
    /// 2 * 0.184535 = 0.36907; factor = log2(1.36907) / 0.36907.
    #[test]
    fn two_documents_by_hand() {
        let labels = [1u8, 0];
        let offsets = [0usize, 2];
        let mut obj = LambdaObjective::new(&labels, &offsets, 1.0, 0);
        let (mut g, mut h) = ([0f32; 2], [0f32; 2]);
        obj.gradients(&[0.0, 0.0], &mut g, &mut h).unwrap();
        let delta = 1.0 - 1.0 / 3f64.log2();
        let factor = (1.0 + delta).log2() / delta;
        assert_eq!(g[0], (-0.5 * delta * factor) as f32);
        assert_eq!(g[1], (0.5 * delta * factor) as f32);
        assert_eq!(h[0], (0.25 * delta * factor) as f32);
        assert_eq!(h[1], h[0]);
    }

    /// Scores (0, 1) with grades (1, 0): the irrelevant document ranks first.
    /// |delta NDCG| = 0.36907 / (0.01 + 1) after the distance normalisation;
    /// rho = 1/(1 + e^{(0 - 1)}) = 0.7310585786300049.
    #[test]
    fn misordered_pair_by_hand() {
        let labels = [1u8, 0];
        let offsets = [0usize, 2];
        let mut obj = LambdaObjective::new(&labels, &offsets, 1.0, 0);
        let (mut g, mut h) = ([0f32; 2], [0f32; 2]);
        obj.gradients(&[0.0, 1.0], &mut g, &mut h).unwrap();
        let delta = (1.0 - 1.0 / 3f64.log2()) / 1.01;
        let rho = 1.0 / (1.0 + (-1.0f64).exp());
        let lambda = -delta * rho;
        let factor = (1.0 - 2.0 * lambda).log2() / (-2.0 * lambda);
        assert!((f64::from(g[0]) - lambda * factor).abs() < 1e-7);
        assert!((f64::from(g[1]) + lambda * factor).abs() < 1e-7);
        assert!((f64::from(h[0]) - delta * rho * (1.0 - rho) * factor).abs() < 1e-7);
    }

    #[test]
    fn queries_without_relevant_documents_contribute_nothing() {
        let labels = [0u8, 0, 0, 2, 0];
        let offsets = [0usize, 3, 5];
        let mut obj = LambdaObjective::new(&labels, &offsets, 1.0, 0);
        assert_eq!(obj.inverse_max_dcg(0), 0.0);
        assert_eq!(obj.inverse_max_dcg(1), 1.0 / 3.0);
        let (mut g, mut h) = ([9f32; 5], [9f32; 5]);
        obj.gradients(&[0.3, -1.0, 2.0, 0.0, 0.0], &mut g, &mut h).unwrap();
        assert_eq!(&g[..3], &[0.0; 3]);
        assert_eq!(&h[..3], &[0.0; 3]);
        assert!(g[3] < 0.0 && g[4] > 0.0);
        // Lambdas of a query sum to zero.
        assert!((g[3] + g[4]).abs() < 1e-7);
    }

    /// With truncation k = 1 and three documents of grades (0, 0, 1) all tied: rank 1 is
    /// doc 0. Only pairs with a document at rank 1 count: (doc0, doc2) swaps rank 1 and 3,
    /// |delta NDCG@1| = 1 * |1 - 0| / 1. Doc 1 (rank 2) pairs only with doc 2 (rank 3),
    /// both beyond k: no gradient for doc 1.
    #[test]
    fn truncation_counts_only_pairs_touching_the_top_k() {
        let labels = [0u8, 0, 1];
        let offsets = [0usize, 3];
        let mut obj = LambdaObjective::new(&labels, &offsets, 1.0, 1);
        let (mut g, mut h) = ([0f32; 3], [0f32; 3]);
        obj.gradients(&[0.0; 3], &mut g, &mut h).unwrap();
        assert_eq!(g[1], 0.0);
        assert_eq!(h[1], 0.0);
        let factor = 2f64.log2() / 1.0; // sum |lambda| = 2 * 0.5 = 1
        assert_eq!(g[2], (-0.5 * factor) as f32);
        assert_eq!(g[0], (0.5 * factor) as f32);
    }

    #[test]
    fn huge_score_ranges_fall_back_to_per_pair_exponentials() {
        let labels = [1u8, 0, 0];
        let offsets = [0usize, 3];
        let mut obj = LambdaObjective::new(&labels, &offsets, 1.0, 0);
        let (mut g, mut h) = ([0f32; 3], [0f32; 3]);
        obj.gradients(&[0.0, 1000.0, -1000.0], &mut g, &mut h).unwrap();
        assert!(g.iter().chain(&h).all(|v| v.is_finite()));
        assert!(g[0] < 0.0);
    }
}
