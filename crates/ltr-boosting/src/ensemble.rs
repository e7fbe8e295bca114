//! The additive model every boosting learner produces: `f(x) = sum_t alpha_t h_t(x)`.

use ltr_core::{Dataset, Ranker};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A weak ranker: a serialisable function of one document's features.
///
/// Implementations must never panic on a row of the wrong width (a model may be loaded from
/// a file and applied to any data): a missing feature reads as 0.
pub trait WeakRanker:
    Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync
{
    /// The weak ranker's score of one document.
    fn score(&self, row: &[f32]) -> f64;

    /// Checks that it reads only features below `n_features` (`what` names it in the
    /// error: "round 3"); see [`Ranker::check`].
    fn check(&self, what: &str, n_features: usize) -> ltr_core::Result<()>;

    /// Adds `alpha` times its weights, one per feature, to `weights` when it is a linear
    /// function of the features; otherwise says why a sum of such weak rankers defines no
    /// feature weights ([`Ranker::feature_weights`]).
    fn add_weights(&self, alpha: f64, weights: &mut [f64]) -> Result<(), &'static str> {
        let _ = (alpha, weights);
        Err("its weak rankers are not linear functions of the features")
    }

    /// Sets `used[f]` for every feature `f` whose value can change its score (`used` has one
    /// flag per feature of the model; a feature past its end is ignored), so that a model of
    /// such weak rankers can say how many features it reads ([`Ranker::model_size`]).
    fn mark_features(&self, used: &mut [bool]);
}

/// One boosting round: a weak ranker and its weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round<W> {
    /// The weak ranker chosen in this round.
    pub weak: W,
    /// Its weight `alpha_t`.
    pub alpha: f64,
}

/// `f(x) = sum_t alpha_t h_t(x)`, summed in round order starting from `0.0`.
///
/// Training updates scores in place with exactly the same operations
/// ([`Ensemble::add_round`]), so a model scores its training and validation data
/// bit-identically to what the training loop saw, before and after a JSON round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ensemble<W> {
    /// Number of features of the training data.
    pub n_features: usize,
    /// The rounds, in the order they were learnt.
    pub rounds: Vec<Round<W>>,
}

impl<W: WeakRanker> Ensemble<W> {
    /// An empty ensemble (scores every document 0).
    pub fn new(n_features: usize) -> Self {
        Self { n_features, rounds: Vec::new() }
    }

    /// Appends a round.
    pub fn push(&mut self, weak: W, alpha: f64) {
        self.rounds.push(Round { weak, alpha });
    }

    /// Number of rounds.
    pub fn len(&self) -> usize {
        self.rounds.len()
    }

    /// Whether there is no round.
    pub fn is_empty(&self) -> bool {
        self.rounds.is_empty()
    }

    /// Keeps the first `n` rounds.
    pub fn truncate(&mut self, n: usize) {
        self.rounds.truncate(n);
    }

    /// The in-place training update: `scores[i] += alpha * weak(row i)` for every document.
    pub fn add_round(weak: &W, alpha: f64, data: &Dataset, scores: &mut [f64]) {
        for (s, row) in scores.iter_mut().zip(data.rows()) {
            *s += alpha * weak.score(row);
        }
    }
}

impl<W: WeakRanker> Ranker for Ensemble<W> {
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn check(&self) -> ltr_core::Result<()> {
        ltr_core::check_width(self.n_features)?;
        for (t, r) in self.rounds.iter().enumerate() {
            r.weak.check(&format!("round {}", t + 1), self.n_features)?;
        }
        Ok(())
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        let mut acc = 0.0;
        for r in &self.rounds {
            acc += r.alpha * r.weak.score(row);
        }
        acc
    }

    /// The rounds collapsed to one weight vector `sum_t alpha_t w_t`, summed in round order
    /// (equal to the model up to floating-point rounding), when every weak ranker is linear.
    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        let mut w = vec![0.0; self.n_features];
        for r in &self.rounds {
            if let Err(why) = r.weak.add_weights(r.alpha, &mut w) {
                return ltr_core::FeatureWeights::Undefined(why);
            }
        }
        ltr_core::FeatureWeights::Linear(w)
    }

    /// The distinct features its rounds read, and the number of rounds kept.
    fn model_size(&self) -> ltr_core::ModelSize {
        let mut used = vec![false; self.n_features];
        for r in &self.rounds {
            r.weak.mark_features(&mut used);
        }
        ltr_core::ModelSize::of_marked(&used, self.rounds.len())
    }
}
