//! GBRank's round: the pairs the current function violates by less than the margin, and the
//! regression targets they give each document.

use ltr_core::Result;
use ltr_trees::Objective;

use crate::pairs::PairIndex;

/// GBRank (Zheng, Chen, Sun, Zha, SIGIR 2007) as a tree objective.
///
/// Round `k` (1, 2, ...) sees the paper's `h_{k-1}` through the loop's scores: the loop adds
/// each tree (leaves `eta g_k`) to the scores, so after `k - 1` trees they hold
/// `H_{k-1} = k h_{k-1}` (the paper's `h_k = (k h_{k-1} + eta g_k) / (k + 1)` is
/// `H_k = H_{k-1} + eta g_k`, with `h_0 = 0`). A pair `(x, y)`, `x` preferred, is in `S-` when
/// `h(x) < h(y) + tau`; it asks for `g(x) = h(y) + tau` and `g(y) = h(x) - tau` (the swapped
/// targets). A document in `m` pairs of `S-` holds `m` squared errors `1/2 (g - t)^2`: its
/// gradient at `g = 0` is `-sum t` and its hessian `m`, so a leaf's Newton value
/// `-eta G / H` is `eta` times the mean target of its pair occurrences, the least-squares
/// regression tree of the paper's training set `{(x, h(y) + tau), (y, h(x) - tau)}`. Documents
/// in no pair of `S-` get gradient and hessian 0 (they do not move the fit).
#[derive(Debug, Clone)]
pub struct GbRankObjective<'a> {
    pairs: &'a PairIndex,
    tau: f64,
    round: usize,
    sums: Vec<f64>,
    counts: Vec<u32>,
    violated: Vec<u64>,
}

impl<'a> GbRankObjective<'a> {
    /// The objective on `pairs` with margin `tau` (`n_docs` training documents), before round 1.
    pub fn new(pairs: &'a PairIndex, n_docs: usize, tau: f64) -> Self {
        Self { pairs, tau, round: 0, sums: vec![0.0; n_docs], counts: vec![0; n_docs], violated: Vec::new() }
    }

    /// The size of `S-` in each round so far.
    pub fn violated(&self) -> &[u64] {
        &self.violated
    }

    /// The targets of round `k` at the paper's `h = h_{k-1}`: per document the sum of its
    /// targets and their number (0 for a document in no pair of `S-`); returns `|S-|`.
    pub fn targets(
        pairs: &PairIndex,
        h: impl Fn(usize) -> f64,
        tau: f64,
        sums: &mut [f64],
        counts: &mut [u32],
    ) -> u64 {
        sums.fill(0.0);
        counts.fill(0);
        let mut violated = 0;
        pairs.for_each_pair(|x, y| {
            let (hx, hy) = (h(x), h(y));
            if hx < hy + tau {
                sums[x] += hy + tau;
                counts[x] += 1;
                sums[y] += hx - tau;
                counts[y] += 1;
                violated += 1;
            }
        });
        violated
    }
}

impl Objective for GbRankObjective<'_> {
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        self.round += 1;
        let k = self.round as f64;
        let violated =
            Self::targets(self.pairs, |i| scores[i] / k, self.tau, &mut self.sums, &mut self.counts);
        self.violated.push(violated);
        for (((g, h), &s), &c) in
            gradients.iter_mut().zip(hessians.iter_mut()).zip(&self.sums).zip(&self.counts)
        {
            *g = -s as f32;
            *h = c as f32;
        }
        log::trace!("gbrank: round {}: {violated} of {} pairs in S-", self.round, self.pairs.n_pairs());
        Ok(())
    }
}
