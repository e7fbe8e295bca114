//! Threshold weak rankers as the candidates of a rule on the round driver: every cut of every
//! feature in one flat list ([`CutCandidates`]), the keys of the learners that boost them on
//! the driver ([`ThresholdLoopParams`]), and the per-candidate sums such rules need without
//! scoring any candidate: the edge `sum_i v_i h_c(x_i)` of per-document values, and, for
//! weighted ordered pairs `(a, b)`, `up[c] = sum w [h_c(a) = 1, h_c(b) = 0]` and
//! `down[c] = sum w [h_c(a) = 0, h_c(b) = 1]` (what a pair loss whose pair weights do not
//! factor over documents needs): a pair adds its weight to the range of cuts between its two
//! documents' intervals, `O(d)` per pair, prefix sums at the end.

use std::ops::Range;

use ltr_core::{Dataset, Error, ParamInfo, Result, Validation, param_info};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::driver::{LoopSettings, Outcome, Rule, drive};
use crate::ensemble::Ensemble;
use crate::threshold::{Cuts, Interval, IntervalVec, IntervalVisitor, ThresholdRanker, ThresholdSpacing};

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

/// Every cut of every feature as one list of candidates (feature by feature, cuts ascending).
#[derive(Debug, Clone)]
pub struct CutCandidates {
    cuts: Cuts,
    /// Candidate `c`: its feature and the index of its cut.
    index: Vec<(usize, usize)>,
    /// First candidate of each feature, and the candidate count last.
    first: Vec<usize>,
    /// Per feature, its first slot in each half of [`PairSums`] and its cut count `k`:
    /// slots `0..k` are its cuts', slot `k` is written and never read.
    slots: Vec<(usize, usize)>,
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
        let mut slots = Vec::with_capacity(d);
        for f in 0..d {
            let k = cuts.cuts(f).len();
            slots.push((index.len() + f, k));
            first.push(index.len());
            index.extend((0..k).map(|j| (f, j)));
        }
        first.push(index.len());
        if index.is_empty() {
            return Err(Error::fit(algorithm, "every feature is constant on the training data"));
        }
        Ok(Self { cuts, index, first, slots })
    }

    /// Number of candidates.
    pub fn n_candidates(&self) -> usize {
        self.index.len()
    }

    /// The cuts the candidates are made of.
    pub fn cuts(&self) -> &Cuts {
        &self.cuts
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
        self.cuts.interval(f, i) > j
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

    /// The bytes of one [`PairSums`] of these candidates.
    pub fn pair_sums_bytes(&self) -> usize {
        2 * (self.n_candidates() + self.cuts.n_features()) * std::mem::size_of::<f64>()
    }

    /// Makes `block` hold the intervals of the training documents `docs` (consecutive:
    /// one query's, say), the pairs of which [`CutCandidates::add_pair`] then reads from it.
    pub fn load_block(&self, block: &mut DocBlock, docs: Range<usize>) {
        /// Feature `f`'s intervals of `docs` into `rows` (document-major, `d` per document).
        struct Scatter<'a, B> {
            rows: &'a mut [B],
            docs: Range<usize>,
            f: usize,
            d: usize,
        }
        impl<B: Interval> IntervalVisitor for Scatter<'_, B> {
            type Output = ();
            fn visit<I: Interval>(self, column: &[I]) {
                let Self { rows, docs, f, d } = self;
                for (row, &x) in rows.chunks_exact_mut(d).zip(&column[docs]) {
                    row[f] = B::from_index(x.index());
                }
            }
        }
        fn fill<B: Interval>(cuts: &Cuts, rows: &mut [B], docs: &Range<usize>) {
            let d = cuts.n_features();
            for f in 0..d {
                cuts.visit(f, Scatter { rows: &mut *rows, docs: docs.clone(), f, d });
            }
        }
        let d = self.cuts.n_features();
        // The widest feature's type holds every feature's intervals.
        block.rows.reset(self.cuts.widest(), docs.len() * d);
        match &mut block.rows {
            IntervalVec::U8(r) => fill(&self.cuts, r, &docs),
            IntervalVec::U16(r) => fill(&self.cuts, r, &docs),
            IntervalVec::U32(r) => fill(&self.cuts, r, &docs),
        }
        block.docs = docs;
    }

    /// Adds the weighted ordered pair `(a, b)` of training documents to `sums`; both lie in
    /// the documents `block` was last loaded with ([`CutCandidates::load_block`]).
    #[inline]
    pub fn add_pair(&self, sums: &mut PairSums, block: &DocBlock, a: usize, b: usize, w: f64) {
        let (a, b) = (a - block.docs.start, b - block.docs.start);
        match &block.rows {
            IntervalVec::U8(r) => self.add_pair_rows(sums, r, a, b, w),
            IntervalVec::U16(r) => self.add_pair_rows(sums, r, a, b, w),
            IntervalVec::U32(r) => self.add_pair_rows(sums, r, a, b, w),
        }
    }

    /// [`CutCandidates::add_pair`] with the block's rows at their type, `a` and `b` indices
    /// into the block.
    #[inline]
    fn add_pair_rows<B: Interval>(&self, sums: &mut PairSums, rows: &[B], a: usize, b: usize, w: f64) {
        let d = self.slots.len();
        let (ra, rb) = (&rows[a * d..(a + 1) * d], &rows[b * d..(b + 1) * d]);
        let half = sums.half;
        let acc = &mut sums.acc[..];
        for ((&x, &y), &(base, k)) in ra.iter().zip(rb).zip(&self.slots) {
            let (x, y) = (x.index(), y.index());
            // The pair straddles the cuts min..max-1 of this feature: +w at min, -w at max,
            // in the first half when `a` is the document above those cuts. A pair in one
            // interval straddles none: its two updates go to the feature's slot past its last
            // cut, which nothing reads, so the loop has no branch to mispredict and every
            // slot that is read sees the same additions in the same order.
            let (lo, hi, start) = if x > y { (y, x, base) } else { (x, y, base + half) };
            let (lo, hi) = if x == y { (base + k, base + k) } else { (start + lo, start + hi) };
            acc[lo] += w;
            acc[hi] -= w;
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

/// The intervals of a run of consecutive training documents, document by document (all
/// features of a document together), in the widest type any feature needs: what
/// [`CutCandidates::add_pair`] reads, `O(d)` per pair. Loaded per query
/// ([`CutCandidates::load_block`]), so that the training set's intervals are stored once,
/// feature by feature, and a query's rows stay in the first-level cache.
#[derive(Debug, Clone, Default)]
pub struct DocBlock {
    docs: Range<usize>,
    rows: IntervalVec,
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
    use crate::threshold::IntervalWidth;
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
        assert_eq!(s.pair_sums_bytes(), 2 * (5 + 2) * 8);
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
        let mut block = DocBlock::default();
        s.load_block(&mut block, 0..3);
        let mut acc = s.pair_sums();
        for &(a, b, w) in &pairs[..3] {
            s.add_pair(&mut acc, &block, a, b, w);
        }
        s.load_block(&mut block, 2..5);
        let mut rest = s.pair_sums();
        for &(a, b, w) in &pairs[3..] {
            s.add_pair(&mut rest, &block, a, b, w);
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

    /// The pair sums as they were computed before the per-query blocks and the branch-free
    /// loop: document by document, a tied pair skipped.
    fn skipping_ties(s: &CutCandidates, pairs: &[(usize, usize, f64)]) -> (Vec<f64>, Vec<f64>) {
        let mut sums = s.pair_sums();
        for &(a, b, w) in pairs {
            for f in 0..s.cuts.n_features() {
                let (x, y) = (s.cuts.interval(f, a), s.cuts.interval(f, b));
                if x == y {
                    continue;
                }
                let base = s.first[f] + f + if x > y { 0 } else { sums.half };
                sums.acc[base + x.min(y)] += w;
                sums.acc[base + x.max(y)] -= w;
            }
        }
        s.finish(&sums)
    }

    /// `up` and `down` from blocks in every width, bit for bit those of the loop that skips
    /// tied pairs, on weights whose sums round (so the order of the additions shows).
    #[test]
    fn pair_sums_in_every_width_equal_the_tie_skipping_loop() {
        let weight = |a: usize, b: usize| 1.0 / (1 + a + 2 * b) as f64;
        let check =
            |data: &Dataset, thresholds: usize, widest: IntervalWidth, pairs: &[(usize, usize, f64)]| {
                let p = ThresholdLoopParams { thresholds, ..Default::default() };
                let s = p.candidates(data, "test").unwrap();
                assert_eq!(s.cuts().widest(), widest);
                let mut block = DocBlock::default();
                let mut sums = s.pair_sums();
                for q in data.queries() {
                    s.load_block(&mut block, q.range());
                    for &(a, b, w) in pairs.iter().filter(|&&(a, _, _)| q.range().contains(&a)) {
                        s.add_pair(&mut sums, &block, a, b, w);
                    }
                }
                let (up, down) = s.finish(&sums);
                let (want_up, want_down) = skipping_ties(&s, pairs);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&up), bits(&want_up));
                assert_eq!(bits(&down), bits(&want_down));
                assert!(up.iter().chain(&down).any(|&x| x != 0.0));
            };
        // Every pair of distinct grades within a query.
        let graded_pairs = |data: &Dataset| {
            let mut pairs = Vec::new();
            for q in data.queries() {
                for a in q.range() {
                    for b in q.range().filter(|&b| data.labels()[a] > data.labels()[b]) {
                        pairs.push((a, b, weight(a, b)));
                    }
                }
            }
            pairs
        };
        // About 330 documents of distinct values: T = 10 fits u8, every value a cut needs u16.
        let data = ltr_testkit::random_dataset(5, 3, 4, 100..120, 0.3, 2);
        let pairs = graded_pairs(&data);
        check(&data, 10, IntervalWidth::U8, &pairs);
        check(&data, 0, IntervalWidth::U16, &pairs);
        // 65,537 distinct values in one feature (65,536 cuts: u32), 3 in the other (u8), so the
        // block widens the u8 feature; a spread of pairs across the one query.
        let n = 65_537;
        let rows: Vec<[f32; 2]> = (0..n).map(|i| [i as f32, (i % 3) as f32]).collect();
        let labels: Vec<u8> = (0..n).map(|i| (i % 5) as u8).collect();
        let data = dataset(2, &[(&labels[..], &rows[..])]);
        let pairs: Vec<(usize, usize, f64)> = (0..5_000)
            .map(|k| ((k * 7919) % n, (k * 104_729 + 11) % n))
            .map(|(a, b)| (a, b, weight(a, b)))
            .collect();
        check(&data, 0, IntervalWidth::U32, &pairs);
    }
}
