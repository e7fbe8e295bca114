//! Single features as weak rankers (AdaRank's, and a simple candidate set for any loop).

use serde::{Deserialize, Serialize};

use crate::{WeakRanker, WeakSource};

/// A single-feature weak ranker: `h(x) = x_f`, or `-x_f` when negated; a feature past the
/// row's end scores 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureRanker {
    /// Feature index (0-based: the file's feature `feature + 1`).
    pub feature: usize,
    /// Whether the feature's sign is flipped.
    pub negated: bool,
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
mod tests {
    use super::*;

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
}
