//! LambdaRank gradients and hessians for NDCG (Burges 2010, section 7), as LightGBM's
//! `lambdarank` objective computes them. The pair lambdas themselves are the workspace's one
//! implementation, `ltr_metrics::lambda` (shared with the neural LambdaRank); this module
//! runs them over the queries in parallel and hands them to the tree learner as `f32`.

use ltr_core::{Grade, Result};
use ltr_metrics::lambda::{LambdaConfig, LambdaScratch, PairLambdas};
use ltr_trees::Objective;
use rayon::prelude::*;

/// The LambdaRank objective on one training set.
#[derive(Debug, Clone)]
pub struct LambdaObjective<'a> {
    labels: &'a [Grade],
    offsets: &'a [usize],
    lambdas: PairLambdas,
    /// `1 / ideal DCG@k` per query, 0 for a query without relevant document.
    inv_max_dcg: Vec<f64>,
}

/// Reusable per-task buffers.
#[derive(Debug, Default)]
struct Scratch {
    pairs: LambdaScratch,
    lambda: Vec<f64>,
    hess: Vec<f64>,
}

impl<'a> LambdaObjective<'a> {
    /// The objective for documents with `labels`, grouped by `offsets` (a data set's
    /// `query_offsets()`); `truncation = 0` means no truncation (NDCG over the whole list).
    /// LightGBM's normalisations are on (`lambdarank_norm = true`, its default).
    pub fn new(labels: &'a [Grade], offsets: &'a [usize], sigma: f64, truncation: usize) -> Self {
        let lambdas = PairLambdas::for_offsets(LambdaConfig::lightgbm(sigma, truncation), offsets);
        let mut scratch = LambdaScratch::default();
        let inv_max_dcg = offsets
            .windows(2)
            .map(|w| lambdas.inverse_ideal_dcg(&labels[w[0]..w[1]], &mut scratch))
            .collect();
        Self { labels, offsets, lambdas, inv_max_dcg }
    }

    /// `1 / ideal DCG` of query `q` (0 when it has no relevant document).
    pub fn inverse_max_dcg(&self, q: usize) -> f64 {
        self.inv_max_dcg[q]
    }

    /// Queries with a relevant document (the others get zero gradients and hessians).
    pub fn active_queries(&self) -> usize {
        self.inv_max_dcg.iter().filter(|&&v| v > 0.0).count()
    }

    /// Gradients and hessians of one query (`scores` of its documents).
    fn query(&self, q: usize, scores: &[f64], grad: &mut [f32], hess: &mut [f32], s: &mut Scratch) {
        let labels = &self.labels[self.offsets[q]..self.offsets[q + 1]];
        let n = labels.len();
        s.lambda.resize(n, 0.0);
        s.hess.resize(n, 0.0);
        let (lambda, h) = (&mut s.lambda[..n], &mut s.hess[..n]);
        self.lambdas.query::<false>(labels, scores, self.inv_max_dcg[q], lambda, Some(h), &mut s.pairs);
        for (g, &l) in grad.iter_mut().zip(lambda.iter()) {
            *g = l as f32;
        }
        for (o, &v) in hess.iter_mut().zip(h.iter()) {
            *o = v as f32;
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
