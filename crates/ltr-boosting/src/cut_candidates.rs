//! Threshold weak rankers as the candidates of a rule on the round driver: every cut of every
//! feature in one flat list ([`CutCandidates`]), the keys of the learners that boost them on
//! the driver ([`ThresholdLoopParams`]), and the per-candidate sums such rules need without
//! scoring any candidate: the edge `sum_i v_i h_c(x_i)` of per-document values, and, for
//! weighted ordered pairs `(a, b)`, `up[c] = sum w [h_c(a) = 1, h_c(b) = 0]` and
//! `down[c] = sum w [h_c(a) = 0, h_c(b) = 1]` (what a pair loss whose pair weights do not
//! factor over documents needs): a pair adds its weight to the range of cuts between its two
//! documents' intervals, `O(d)` per pair, prefix sums at the end.

use ltr_core::{Dataset, Error, ParamInfo, Result, Validation, param_info};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::driver::{LoopSettings, Outcome, Rule, drive};
use crate::ensemble::Ensemble;
use crate::threshold::{Cuts, ThresholdRanker, ThresholdSpacing};

/// The keys of every learner that boosts threshold weak rankers on the round driver, written
/// once: each learner embeds them flat (`#[serde(flatten)]`) and starts its `Params::TABLE`
/// with [`ThresholdLoopParams::TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThresholdLoopParams {
    /// Maximum number of weak rankers. Default 200. With validation data the model keeps the
    /// best prefix on it.
    pub rounds: usize,
    /// Candidate cut points per feature, `T`: the cuts split the feature's training values
    /// into `T` parts (`T - 1` cuts); `0` makes every distinct value a cut. Default 10
    /// (RankBoost's).
    pub thresholds: usize,
    /// `quantile` (equal-frequency) or `uniform` (evenly spaced). Default `quantile`: every
    /// cut separates documents, also on skewed features.
    pub threshold_spacing: ThresholdSpacing,
    /// Forbid the feature chosen in the previous round. Default `false`.
    pub no_reselect: bool,
    /// Accept a weak ranker only if it improves the training objective exactly; stop when
    /// none does. Default `true`.
    pub require_improvement: bool,
    /// With a validation split: stop after this many rounds without a better validation
    /// measure; 0 runs every round. Default 50. The best prefix is kept either way.
    pub early_stopping_rounds: usize,
}

impl Default for ThresholdLoopParams {
    fn default() -> Self {
        Self {
            rounds: 200,
            thresholds: 10,
            threshold_spacing: ThresholdSpacing::Quantile,
            no_reselect: false,
            require_improvement: true,
            early_stopping_rounds: 50,
        }
    }
}

impl ThresholdLoopParams {
    /// The rows of these keys, in documentation order.
    pub const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int("rounds", 1, 100_000, "round cap; with vali the best prefix is kept"),
        ParamInfo::int(
            "thresholds",
            0,
            100_000,
            "T: cuts split each feature's values into T parts (0: every value; not 1)",
        ),
        ParamInfo::choice(
            "threshold_spacing",
            &["uniform", "quantile"],
            "cut points evenly spaced or equal-frequency",
        ),
        ParamInfo::flag("no_reselect", "forbid the feature chosen in the previous round"),
        ParamInfo::flag(
            "require_improvement",
            "accept a weak ranker only if it improves the training objective",
        ),
        ParamInfo::int(
            "early_stopping_rounds",
            0,
            100_000,
            "with vali: stop after this many rounds without a better measure (0: never)",
        ),
    ];

    /// Checks the ranges of [`ThresholdLoopParams::TABLE`] and refuses `thresholds = 1` (no
    /// cut).
    pub fn check(&self) -> Result<()> {
        param_info(Self::TABLE, "rounds").check_int(self.rounds as u64)?;
        param_info(Self::TABLE, "thresholds").check_int(self.thresholds as u64)?;
        param_info(Self::TABLE, "early_stopping_rounds").check_int(self.early_stopping_rounds as u64)?;
        if self.thresholds == 1 {
            return Err(Error::param("thresholds", self.thresholds, "must be 0 (every value) or at least 2"));
        }
        Ok(())
    }

    /// The driver's settings under these keys.
    pub fn settings(&self, algorithm: &'static str) -> LoopSettings {
        LoopSettings {
            algorithm,
            max_rounds: self.rounds,
            no_reselect: self.no_reselect,
            require_improvement: self.require_improvement,
            patience: self.early_stopping_rounds,
        }
    }

    /// Runs `rule` on the driver under these keys; the model is the kept rounds as an
    /// ensemble over `train`'s features.
    ///
    /// # Errors
    /// As [`drive`].
    pub fn drive<R: Rule<Weak = ThresholdRanker>>(
        &self,
        rule: &mut R,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        algorithm: &'static str,
    ) -> Result<Outcome<Ensemble<ThresholdRanker>>> {
        let out = drive(rule, train, valid, &self.settings(algorithm))?;
        Ok(out.map_model(|rounds| Ensemble { n_features: train.n_features(), rounds }))
    }

    /// The candidates of `train` under these keys.
    ///
    /// # Errors
    /// When `train` has no feature, a non-finite feature value (the candidates' sums read
    /// the intervals, the model the raw values: they agree for finite values only), or no
    /// feature with two values.
    pub fn candidates(&self, train: &Dataset, algorithm: &'static str) -> Result<CutCandidates> {
        if train.features().iter().any(|x| !x.is_finite()) {
            return Err(Error::fit(algorithm, "non-finite feature values"));
        }
        CutCandidates::new(Cuts::new(train, self.thresholds, self.threshold_spacing, algorithm)?, algorithm)
    }
}

/// Every cut of every feature as one list of candidates (feature by feature, cuts ascending),
/// with every training document's interval per feature also stored document by document for
/// the pair sums.
#[derive(Debug, Clone)]
pub struct CutCandidates {
    cuts: Cuts,
    /// Candidate `c`: its feature and the index of its cut.
    index: Vec<(usize, usize)>,
    /// First candidate of each feature, and the candidate count last.
    first: Vec<usize>,
    /// The intervals document-major (`rows[i * d + f]`).
    rows: Vec<u32>,
}

impl CutCandidates {
    /// The candidates of `cuts`.
    ///
    /// # Errors
    /// When no feature has a cut (`algorithm` names the learner).
    pub fn new(cuts: Cuts, algorithm: &'static str) -> Result<Self> {
        let d = cuts.n_features();
        let mut index = Vec::new();
        let mut first = Vec::with_capacity(d + 1);
        for f in 0..d {
            first.push(index.len());
            index.extend((0..cuts.cuts(f).len()).map(|j| (f, j)));
        }
        first.push(index.len());
        if index.is_empty() {
            return Err(Error::fit(algorithm, "every feature is constant on the training data"));
        }
        let n = if d == 0 { 0 } else { cuts.bins(0).len() };
        let mut rows = vec![0u32; n * d];
        for f in 0..d {
            for (i, &b) in cuts.bins(f).iter().enumerate() {
                rows[i * d + f] = b;
            }
        }
        Ok(Self { cuts, index, first, rows })
    }

    /// Number of candidates.
    pub fn n_candidates(&self) -> usize {
        self.index.len()
    }

    /// The feature candidate `c` tests.
    pub fn feature(&self, c: usize) -> usize {
        self.index[c].0
    }

    /// The weak ranker of candidate `c`.
    pub fn ranker(&self, c: usize) -> ThresholdRanker {
        let (f, j) = self.index[c];
        self.cuts.ranker(f, j)
    }

    /// Whether candidate `c` outputs 1 on training document `i` (exactly
    /// `self.ranker(c).score(row i) == 1` for finite features).
    #[inline]
    pub fn fires(&self, c: usize, i: usize) -> bool {
        let (f, j) = self.index[c];
        self.rows[i * self.cuts.n_features() + f] as usize > j
    }

    /// `sum_i v_i h_c(x_i)` for every candidate `c` (`v`: one value per training document):
    /// [`Cuts::edges`] of every feature, parallel over features, concatenated in order.
    pub fn edges(&self, v: &[f64]) -> Vec<f64> {
        let per_feature: Vec<Vec<f64>> = (0..self.cuts.n_features())
            .into_par_iter()
            .map(|f| {
                let (mut hist, mut out) = (Vec::new(), Vec::new());
                self.cuts.edges(f, v, &mut hist, &mut out);
                out
            })
            .collect();
        per_feature.concat()
    }

    /// Empty pair sums for these candidates.
    pub fn pair_sums(&self) -> PairSums {
        // Per feature one slot per cut and one past the last (where a pair's range ends when
        // its upper document lies above every cut), in two halves: pairs whose first document
        // lies in the higher interval, and the others.
        let d = self.cuts.n_features();
        let half = self.first[d] + d;
        PairSums { acc: vec![0.0; 2 * half], half }
    }

    /// Adds the weighted ordered pair `(a, b)` of training documents to `sums`.
    #[inline]
    pub fn add_pair(&self, sums: &mut PairSums, a: usize, b: usize, w: f64) {
        let d = self.cuts.n_features();
        let (ra, rb) = (&self.rows[a * d..(a + 1) * d], &self.rows[b * d..(b + 1) * d]);
        for f in 0..d {
            let (x, y) = (ra[f] as usize, rb[f] as usize);
            if x == y {
                continue;
            }
            // The pair straddles the cuts min..max-1 of this feature: +w at min, -w at max,
            // in the first half when `a` is the document above those cuts.
            let base = self.first[f] + f + if x > y { 0 } else { sums.half };
            sums.acc[base + x.min(y)] += w;
            sums.acc[base + x.max(y)] -= w;
        }
    }

    /// `(up, down)` per candidate from accumulated sums: `up[c] = sum w [h_c(a) = 1,
    /// h_c(b) = 0]`, `down[c] = sum w [h_c(a) = 0, h_c(b) = 1]`.
    pub fn finish(&self, sums: &PairSums) -> (Vec<f64>, Vec<f64>) {
        let d = self.cuts.n_features();
        let n = self.n_candidates();
        let (mut up, mut down) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for f in 0..d {
            let s = self.first[f] + f;
            let (mut u, mut v) = (0.0, 0.0);
            for j in 0..self.first[f + 1] - self.first[f] {
                u += sums.acc[s + j];
                v += sums.acc[sums.half + s + j];
                up.push(u);
                down.push(v);
            }
        }
        (up, down)
    }
}

/// Per-candidate sums over weighted pairs, accumulated by [`CutCandidates::add_pair`]; partial
/// sums of disjoint pair sets are combined with [`PairSums::merge`] (in a fixed order, so the
/// result does not depend on how the pairs were split).
#[derive(Debug, Clone)]
pub struct PairSums {
    acc: Vec<f64>,
    half: usize,
}

impl PairSums {
    /// Adds another partial sum (of the same candidates).
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.acc.iter_mut().zip(&other.acc) {
            *a += b;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ensemble::WeakRanker;
    use ltr_testkit::dataset;

    /// Two features over five documents, every value a cut; every candidate's sums checked by
    /// brute force against the weak rankers themselves.
    #[test]
    fn edges_and_pair_sums_equal_brute_force() {
        let x = [[0.1f32, 3.0], [0.5, 1.0], [0.9, 2.0], [0.5, 1.0], [0.3, 3.0]];
        let data = dataset(2, &[(&[2, 1, 0], &x[..3]), (&[0, 1], &x[3..])]);
        let p = ThresholdLoopParams { thresholds: 0, ..Default::default() };
        let s = p.candidates(&data, "test").unwrap();
        // Feature 0: values 0.1, 0.3, 0.5, 0.9 -> 3 cuts; feature 1: 1, 2, 3 -> 2 cuts.
        assert_eq!(s.n_candidates(), 5);
        assert_eq!((s.feature(0), s.feature(3)), (0, 1));
        assert_eq!(s.ranker(1), ThresholdRanker { feature: 0, threshold: f64::from(0.3f32) });
        let h = |c: usize, i: usize| s.ranker(c).score(&x[i]);
        for c in 0..5 {
            for i in 0..5 {
                assert_eq!(s.fires(c, i), h(c, i) == 1.0, "candidate {c} doc {i}");
            }
        }
        let v = [0.5, -1.25, 2.0, 0.125, 3.0];
        for (c, &got) in s.edges(&v).iter().enumerate() {
            let want: f64 = (0..5).map(|i| v[i] * h(c, i)).sum();
            assert!((got - want).abs() < 1e-15, "candidate {c}: {got} vs {want}");
        }
        let pairs = [(0, 1, 0.25), (0, 2, 1.5), (1, 2, 0.75), (4, 3, 2.0), (3, 4, 0.5), (2, 2, 9.0)];
        let mut acc = s.pair_sums();
        for &(a, b, w) in &pairs[..3] {
            s.add_pair(&mut acc, a, b, w);
        }
        let mut rest = s.pair_sums();
        for &(a, b, w) in &pairs[3..] {
            s.add_pair(&mut rest, a, b, w);
        }
        acc.merge(&rest);
        let (up, down) = s.finish(&acc);
        for c in 0..5 {
            let want_up: f64 = pairs.iter().map(|&(a, b, w)| w * h(c, a) * (1.0 - h(c, b))).sum();
            let want_down: f64 = pairs.iter().map(|&(a, b, w)| w * (1.0 - h(c, a)) * h(c, b)).sum();
            assert!((up[c] - want_up).abs() < 1e-14, "up {c}: {} vs {want_up}", up[c]);
            assert!((down[c] - want_down).abs() < 1e-14, "down {c}: {} vs {want_down}", down[c]);
        }
        let flat = dataset(1, &[(&[1, 0], &[[1.0f32], [1.0]])]);
        assert!(p.candidates(&flat, "test").is_err());
        let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [1.0]])]);
        assert!(p.candidates(&nan, "test").unwrap_err().to_string().contains("non-finite"));
        assert!(ThresholdLoopParams { thresholds: 1, ..p }.check().is_err());
    }
}
