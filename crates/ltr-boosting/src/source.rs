//! Where a loop's candidate weak rankers come from.

use ltr_core::{Dataset, Result};

use crate::ensemble::WeakRanker;

/// What a weak-ranker source sees before a round.
#[derive(Debug, Clone, Copy)]
pub struct RoundContext<'a> {
    /// The round about to be played (1-based).
    pub round: usize,
    /// The training data.
    pub train: &'a Dataset,
    /// `P_t(q)` for every query of `train` (0 for queries outside the loop); sums to 1.
    pub query_weights: &'a [f64],
    /// The current ensemble's scores `f_{t-1}` of the training documents.
    pub scores: &'a [f64],
}

/// A source of candidate weak rankers for a loop ([`boost`](crate::boost) and the others).
///
/// Sources whose candidates never change ([`WeakSource::fixed`], the default) let the loop
/// compute `E(q, h)` for every candidate and query once; an adaptive source regenerates its
/// candidates in [`WeakSource::propose`] from the current query weights and scores, and the
/// loop re-evaluates them every round.
pub trait WeakSource: Sync {
    /// The weak ranker type stored in the model.
    type Weak: WeakRanker;

    /// Number of candidates (for an adaptive source: after the last `propose`).
    fn n_candidates(&self) -> usize;

    /// Candidate `c` (`c < n_candidates()`).
    fn candidate(&self, c: usize) -> &Self::Weak;

    /// Candidates with equal group count as "the same weak ranker" for the no-reselect guard
    /// (AdaRank: both signs of one feature). Default: every candidate is its own group.
    fn group(&self, c: usize) -> usize {
        c
    }

    /// Whether the candidates are the same every round. Default `true`.
    fn fixed(&self) -> bool {
        true
    }

    /// Called before every round when `fixed()` is false. Default: nothing.
    fn propose(&mut self, ctx: &RoundContext<'_>) -> Result<()> {
        let _ = ctx;
        Ok(())
    }
}
