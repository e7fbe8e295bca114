//! Single features as weak rankers (AdaRank's, and a simple candidate set for any loop).

use ltr_core::{Dataset, Error};
use serde::{Deserialize, Serialize};

use crate::ensemble::WeakRanker;
use crate::source::WeakSource;

/// A single-feature weak ranker: `h(x) = x_f`, or `-x_f` when negated; a feature past the
/// row's end scores 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureRanker {
    /// Feature index (0-based: the file's feature `feature + 1`).
    pub feature: usize,
    /// Whether the feature's sign is flipped.
    pub negated: bool,
}

impl FeatureRanker {
    /// `h(x) = x_f`, the feature as it is.
    pub const fn plain(feature: usize) -> Self {
        Self { feature, negated: false }
    }
}

impl WeakRanker for FeatureRanker {
    fn score(&self, row: &[f32]) -> f64 {
        let v = row.get(self.feature).map_or(0.0, |&v| f64::from(v));
        if self.negated { -v } else { v }
    }

    fn check(&self, what: &str, n_features: usize) -> ltr_core::Result<()> {
        ltr_core::check_feature(what, self.feature, n_features)
    }

    fn add_weights(&self, alpha: f64, weights: &mut [f64]) -> Result<(), &'static str> {
        if let Some(w) = weights.get_mut(self.feature) {
            *w += if self.negated { -alpha } else { alpha };
        }
        Ok(())
    }

    fn mark_features(&self, used: &mut [bool]) {
        if let Some(u) = used.get_mut(self.feature) {
            *u = true;
        }
    }
}

/// Every feature of a dataset as a candidate (and, with `negated`, every sign-flipped one
/// too); candidates of one feature share a group, so no-reselect forbids both signs.
#[derive(Debug, Clone)]
pub struct FeatureSource {
    candidates: Vec<FeatureRanker>,
}

impl FeatureSource {
    /// Candidates `x_0, (-x_0), x_1, (-x_1), ...` for `n_features` features.
    pub fn new(n_features: usize, negated: bool) -> Self {
        let signs: &[bool] = if negated { &[false, true] } else { &[false] };
        let candidates = (0..n_features)
            .flat_map(|feature| signs.iter().map(move |&negated| FeatureRanker { feature, negated }))
            .collect();
        Self { candidates }
    }

    /// The candidates of a learner that boosts the features of `train` (see [`Self::new`]).
    ///
    /// # Errors
    /// When `train` has no feature (`algorithm` names the learner in the error).
    pub fn for_training(algorithm: &'static str, train: &Dataset, negated: bool) -> ltr_core::Result<Self> {
        if train.n_features() == 0 {
            return Err(Error::fit(algorithm, "the training data has no feature"));
        }
        Ok(Self::new(train.n_features(), negated))
    }
}

impl WeakSource for FeatureSource {
    type Weak = FeatureRanker;

    fn n_candidates(&self) -> usize {
        self.candidates.len()
    }

    fn candidate(&self, c: usize) -> &FeatureRanker {
        &self.candidates[c]
    }

    fn group(&self, c: usize) -> usize {
        self.candidates[c].feature
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ensemble::Ensemble;
    use ltr_core::{DatasetBuilder, Ranker};

    #[test]
    fn scores_and_candidates() {
        assert_eq!(FeatureRanker { feature: 1, negated: true }.score(&[0.5, 0.25]), -0.25);
        assert_eq!(FeatureRanker { feature: 9, negated: false }.score(&[0.5, 0.25]), 0.0);
        let s = FeatureSource::new(2, true);
        assert_eq!(s.n_candidates(), 4);
        assert_eq!(*s.candidate(3), FeatureRanker { feature: 1, negated: true });
        assert_eq!(s.group(2), 1);
        assert_eq!(FeatureSource::new(3, false).n_candidates(), 3);
    }

    #[test]
    fn scores_equal_the_in_place_updates_and_survive_json() {
        let mut b = DatasetBuilder::new(2);
        b.start_query("1");
        b.push_doc(1, &[0.1, 0.7], None).unwrap();
        b.push_doc(0, &[0.3, 0.2], None).unwrap();
        let d = b.finish().unwrap();
        let mut e = Ensemble::new(2);
        let mut inc = vec![0.0; 2];
        for (w, a) in [
            (FeatureRanker::plain(0), 0.3),
            (FeatureRanker::plain(1), 1.0 / 3.0),
            (FeatureRanker::plain(0), 0.11),
        ] {
            Ensemble::add_round(&w, a, &d, &mut inc);
            e.push(w, a);
        }
        // Hand value for doc 0: 0.3 * 0.1 + 0.7 / 3 + 0.11 * 0.1 (f32 features widened).
        let want = 0.3 * f64::from(0.1f32) + f64::from(0.7f32) / 3.0 + 0.11 * f64::from(0.1f32);
        assert!((inc[0] - want).abs() < 1e-15);
        assert_eq!(e.score_vec(&d).unwrap(), inc);
        let back: Ensemble<FeatureRanker> =
            serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        assert_eq!(back.score_vec(&d).unwrap(), inc);
        // A narrower row never panics.
        assert_eq!(FeatureRanker::plain(5).score(&[1.0]), 0.0);
    }
}
