//! Threshold weak rankers (`h(x) = 1` if `x_f > theta`, else 0) and their candidate cuts: each
//! feature's training values sorted once, the cut points placed, every document binned by the
//! interval between cuts it falls in, so that the edge `sum_{x_f > theta} pi(x)` of a
//! per-document potential `pi` is known for every cut of a feature after one O(n) pass.

use ltr_core::{Dataset, Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ensemble::WeakRanker;

/// The weak ranker: `h(x) = 1` if `x_feature > threshold`, else 0 (a value equal to the
/// threshold, a missing feature and NaN give 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThresholdRanker {
    /// Feature index (0-based).
    pub feature: usize,
    /// The cut point.
    pub threshold: f64,
}

impl WeakRanker for ThresholdRanker {
    fn score(&self, row: &[f32]) -> f64 {
        match row.get(self.feature) {
            Some(&v) if f64::from(v) > self.threshold => 1.0,
            _ => 0.0,
        }
    }

    fn check(&self, what: &str, n_features: usize) -> Result<()> {
        ltr_core::check_feature(what, self.feature, n_features)
    }

    fn add_weights(&self, _: f64, _: &mut [f64]) -> std::result::Result<(), &'static str> {
        Err("a sum of threshold functions, neither trees with split gains nor a linear function")
    }

    fn mark_features(&self, used: &mut [bool]) {
        if let Some(u) = used.get_mut(self.feature) {
            *u = true;
        }
    }
}

/// Where the candidate cut points of a feature lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThresholdSpacing {
    /// `min + j (max - min) / T`, `j = 1..T-1`: evenly spaced between the training minimum
    /// and maximum, the interior candidates of RankLib.
    Uniform,
    /// The training values at ranks `floor(j n / T)`, `j = 1..T-1`, of the sorted values
    /// (duplicates removed): equal-frequency intervals.
    Quantile,
}

/// The candidate cut points of one feature, ascending, from its training values (sorted in
/// place): `count = T` splits the range into `T` parts (`T - 1` cuts), `0` makes every
/// distinct value but the largest a cut. Cuts outside `[min, max)` (which order nothing)
/// are dropped.
pub fn cut_points(values: &mut [f64], count: usize, spacing: ThresholdSpacing) -> Vec<f64> {
    values.sort_unstable_by(f64::total_cmp);
    let finite: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let (Some(&min), Some(&max)) = (finite.first(), finite.last()) else { return Vec::new() };
    let mut cuts: Vec<f64> = if count == 0 {
        finite.clone()
    } else {
        match spacing {
            ThresholdSpacing::Uniform => {
                let step = (max - min) / count as f64;
                (1..count).map(|j| min + j as f64 * step).collect()
            }
            ThresholdSpacing::Quantile => {
                (1..count).map(|j| finite[(j * finite.len() / count).min(finite.len() - 1)]).collect()
            }
        }
    };
    cuts.retain(|&c| c >= min && c < max);
    cuts.dedup();
    cuts
}

/// An unsigned integer type interval indices are stored in: `u8`, `u16` or `u32`.
pub trait Interval: Copy + Send + Sync + std::fmt::Debug + sealed::Sealed + 'static {
    /// The largest index it holds.
    const MAX: usize;
    /// The index as a `usize`.
    fn index(self) -> usize;
    /// `i` as this type; `i` is at most [`Interval::MAX`] (the type is chosen for the
    /// largest index by [`IntervalWidth::of_cuts`]).
    fn from_index(i: usize) -> Self;
}

mod sealed {
    /// Only the three widths of [`super::IntervalWidth`] store intervals.
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
}

macro_rules! interval_type {
    ($t:ty) => {
        impl Interval for $t {
            const MAX: usize = <$t>::MAX as usize;
            #[inline(always)]
            fn index(self) -> usize {
                self as usize
            }
            #[inline(always)]
            fn from_index(i: usize) -> Self {
                i as $t
            }
        }
    };
}
interval_type!(u8);
interval_type!(u16);
interval_type!(u32);

/// The integer type a feature's interval indices are stored in: the narrowest that holds its
/// largest index, which is its number of cuts (a value above every cut lies in interval
/// `cuts`). At the default `T = 10` every feature fits `u8`, a quarter of `u32`'s bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IntervalWidth {
    /// Up to 255 cuts (256 intervals).
    U8,
    /// Up to 65,535 cuts.
    U16,
    /// Up to `u32::MAX` cuts.
    U32,
}

impl IntervalWidth {
    /// The width of a feature with `cuts` cut points (intervals `0..=cuts`); `None` when not
    /// even `u32` holds them.
    pub fn of_cuts(cuts: usize) -> Option<Self> {
        if cuts <= <u8 as Interval>::MAX {
            Some(Self::U8)
        } else if cuts <= <u16 as Interval>::MAX {
            Some(Self::U16)
        } else if cuts <= <u32 as Interval>::MAX {
            Some(Self::U32)
        } else {
            None
        }
    }

    /// Bytes per stored index.
    pub fn bytes(self) -> usize {
        match self {
            Self::U8 => 1,
            Self::U16 => 2,
            Self::U32 => 4,
        }
    }
}

/// Interval indices in one of the three widths: one feature's, of every training document;
/// or a block of documents', document after document, each with all its features.
#[derive(Debug, Clone)]
pub(crate) enum IntervalVec {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Default for IntervalVec {
    fn default() -> Self {
        Self::U8(Vec::new())
    }
}

impl IntervalVec {
    /// `len` zeros of `width`.
    pub(crate) fn zeros(width: IntervalWidth, len: usize) -> Self {
        match width {
            IntervalWidth::U8 => Self::U8(vec![0; len]),
            IntervalWidth::U16 => Self::U16(vec![0; len]),
            IntervalWidth::U32 => Self::U32(vec![0; len]),
        }
    }

    /// Resizes to `len` entries of `width` (contents unspecified), reusing the allocation
    /// when the width is unchanged.
    pub(crate) fn reset(&mut self, width: IntervalWidth, len: usize) {
        match (self, width) {
            (Self::U8(v), IntervalWidth::U8) => v.resize(len, 0),
            (Self::U16(v), IntervalWidth::U16) => v.resize(len, 0),
            (Self::U32(v), IntervalWidth::U32) => v.resize(len, 0),
            (me, _) => *me = Self::zeros(width, len),
        }
    }

    pub(crate) fn width(&self) -> IntervalWidth {
        match self {
            Self::U8(_) => IntervalWidth::U8,
            Self::U16(_) => IntervalWidth::U16,
            Self::U32(_) => IntervalWidth::U32,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Self::U8(v) => v.len(),
            Self::U16(v) => v.len(),
            Self::U32(v) => v.len(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> usize {
        match self {
            Self::U8(v) => v[i].index(),
            Self::U16(v) => v[i].index(),
            Self::U32(v) => v[i].index(),
        }
    }

    /// Runs `v` on the entries at their stored type.
    #[inline]
    pub(crate) fn visit<V: IntervalVisitor>(&self, v: V) -> V::Output {
        match self {
            Self::U8(x) => v.visit(x),
            Self::U16(x) => v.visit(x),
            Self::U32(x) => v.visit(x),
        }
    }
}

/// Work on one feature's intervals at the integer type they are stored in:
/// [`Cuts::visit`] hands [`IntervalVisitor::visit`] the slice, so a loop over it is compiled
/// once per width and tests none.
pub trait IntervalVisitor {
    /// What the work returns.
    type Output;
    /// Does the work on `intervals` (one per training document).
    fn visit<I: Interval>(self, intervals: &[I]) -> Self::Output;
}

/// The interval of every value of `column` among `cuts` (the number of cuts below it), at
/// the width `cuts` needs.
fn bin_column(column: &[f64], cuts: &[f64], width: IntervalWidth) -> IntervalVec {
    fn bin<I: Interval>(column: &[f64], cuts: &[f64]) -> Vec<I> {
        column.iter().map(|&x| I::from_index(cuts.partition_point(|&c| c < x))).collect()
    }
    match width {
        IntervalWidth::U8 => IntervalVec::U8(bin(column, cuts)),
        IntervalWidth::U16 => IntervalVec::U16(bin(column, cuts)),
        IntervalWidth::U32 => IntervalVec::U32(bin(column, cuts)),
    }
}

/// Every feature's cut points and every document's interval between them.
///
/// The intervals are the one table of this crate with an entry per document and feature;
/// each feature's are kept in the narrowest integer its cut count allows
/// ([`IntervalWidth`]): at the MSLR-WEB10K shape (728,521 x 136) and `T = 10`, 99 MB
/// instead of 396 MB as `u32`.
#[derive(Debug, Clone)]
pub struct Cuts {
    n_docs: usize,
    /// Per feature, the cut points, ascending.
    cuts: Vec<Vec<f64>>,
    /// Per feature, the interval of every document: the number of cuts of `f` below `x_if`,
    /// so `x_if > cuts[f][j]` iff `intervals[f][i] > j`.
    intervals: Vec<IntervalVec>,
}

impl Cuts {
    /// Sorts every feature of `data` once (in parallel), places its cuts and bins the
    /// documents. `count` and `spacing` as in [`cut_points`].
    ///
    /// # Errors
    /// When `data` has no feature, or a feature has more cuts than `u32` indexes.
    pub fn new(
        data: &Dataset,
        count: usize,
        spacing: ThresholdSpacing,
        algorithm: &'static str,
    ) -> Result<Self> {
        let (n, d) = (data.n_docs(), data.n_features());
        if d == 0 {
            return Err(Error::fit(algorithm, "the training data has no feature"));
        }
        // Each feature's intervals are made at their final width straight from its column,
        // so no wider or second copy of the table exists at any time.
        let per_feature: Vec<Option<(Vec<f64>, IntervalVec)>> = (0..d)
            .into_par_iter()
            .map(|f| {
                let column: Vec<f64> = data.rows().map(|r| f64::from(r[f])).collect();
                let mut sorted = column.clone();
                let cuts = cut_points(&mut sorted, count, spacing);
                drop(sorted);
                let width = IntervalWidth::of_cuts(cuts.len())?;
                let intervals = bin_column(&column, &cuts, width);
                Some((cuts, intervals))
            })
            .collect();
        let mut cuts = Vec::with_capacity(d);
        let mut intervals = Vec::with_capacity(d);
        for part in per_feature {
            let Some((c, b)) = part else {
                return Err(Error::fit(algorithm, "a feature has more than 2^32 - 1 cut points"));
            };
            cuts.push(c);
            intervals.push(b);
        }
        let bytes: usize = intervals.iter().map(|b| b.len() * b.width().bytes()).sum();
        let of_width = |w| intervals.iter().filter(|b| b.width() == w).count();
        log::debug!(
            "{algorithm}: intervals of {n} documents x {d} features in {:.1} MB (features in u8, u16, u32: {}, {}, {})",
            bytes as f64 / 1e6,
            of_width(IntervalWidth::U8),
            of_width(IntervalWidth::U16),
            of_width(IntervalWidth::U32)
        );
        Ok(Self { n_docs: n, cuts, intervals })
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.cuts.len()
    }

    /// Number of training documents.
    pub fn n_docs(&self) -> usize {
        self.n_docs
    }

    /// The cut points of feature `f`, ascending.
    pub fn cuts(&self, f: usize) -> &[f64] {
        &self.cuts[f]
    }

    /// The interval of document `i` on feature `f`: the number of its cuts below the value.
    #[inline]
    pub fn interval(&self, f: usize, i: usize) -> usize {
        self.intervals[f].get(i)
    }

    /// The integer type feature `f`'s intervals are stored in.
    pub fn width(&self, f: usize) -> IntervalWidth {
        self.intervals[f].width()
    }

    /// The widest of [`Cuts::width`] over the features.
    pub fn widest(&self) -> IntervalWidth {
        self.intervals.iter().map(IntervalVec::width).max().unwrap_or(IntervalWidth::U8)
    }

    /// Runs `v` on the intervals of every document on feature `f`, at their stored type.
    #[inline]
    pub fn visit<V: IntervalVisitor>(&self, f: usize, v: V) -> V::Output {
        self.intervals[f].visit(v)
    }

    /// The weak ranker of cut `j` of feature `f`.
    pub fn ranker(&self, f: usize, j: usize) -> ThresholdRanker {
        ThresholdRanker { feature: f, threshold: self.cuts[f][j] }
    }

    /// `values` summed by interval of feature `f` into `hist` (one entry per interval,
    /// `cuts(f).len() + 1`).
    ///
    /// Four interleaved histograms (document `i` goes to lane `i % 4`) break the chains of
    /// dependent additions into one bin; the lanes are summed in a fixed order, so the result
    /// does not depend on anything but the inputs.
    pub fn histogram(&self, f: usize, values: &[f64], hist: &mut Vec<f64>) {
        struct Histogram<'a> {
            width: usize,
            values: &'a [f64],
            hist: &'a mut Vec<f64>,
        }
        impl IntervalVisitor for Histogram<'_> {
            type Output = ();
            fn visit<I: Interval>(self, bins: &[I]) {
                let Self { width, values, hist } = self;
                hist.clear();
                hist.resize(4 * width, 0.0);
                let mut chunks = bins.chunks_exact(4).zip(values.chunks_exact(4));
                for (b, p) in &mut chunks {
                    hist[b[0].index()] += p[0];
                    hist[width + b[1].index()] += p[1];
                    hist[2 * width + b[2].index()] += p[2];
                    hist[3 * width + b[3].index()] += p[3];
                }
                let tail = bins.len() - bins.len() % 4;
                for (lane, (&b, &p)) in bins[tail..].iter().zip(&values[tail..]).enumerate() {
                    hist[lane * width + b.index()] += p;
                }
                for j in 0..width {
                    hist[j] = (hist[j] + hist[width + j]) + (hist[2 * width + j] + hist[3 * width + j]);
                }
                hist.truncate(width);
            }
        }
        self.visit(f, Histogram { width: self.cuts[f].len() + 1, values, hist });
    }

    /// The edge of every cut of feature `f`: `out[j] = sum_{x_f > cuts[j]} values(x)` (the
    /// documents above the cut), from [`Cuts::histogram`] by suffix sums. `hist` is scratch.
    pub fn edges(&self, f: usize, values: &[f64], hist: &mut Vec<f64>, out: &mut Vec<f64>) {
        let k = self.cuts[f].len();
        out.clear();
        out.resize(k, 0.0);
        if k == 0 {
            return;
        }
        self.histogram(f, values, hist);
        let mut acc = 0.0;
        for j in (0..k).rev() {
            acc += hist[j + 1];
            out[j] = acc;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_testkit::dataset;

    #[test]
    fn cut_points_by_hand() {
        // Values 0..=10: uniform T = 4 -> 2.5, 5, 7.5; quantile T = 4 -> ranks 2, 5, 8 of 11.
        let vals: Vec<f64> = (0..=10).rev().map(f64::from).collect();
        assert_eq!(cut_points(&mut vals.clone(), 4, ThresholdSpacing::Uniform), vec![2.5, 5.0, 7.5]);
        assert_eq!(cut_points(&mut vals.clone(), 4, ThresholdSpacing::Quantile), vec![2.0, 5.0, 8.0]);
        // Every distinct value but the largest.
        let mut v = vec![3.0, 1.0, 3.0, 2.0];
        assert_eq!(cut_points(&mut v, 0, ThresholdSpacing::Uniform), vec![1.0, 2.0]);
        // A constant feature has no cut.
        assert!(cut_points(&mut [4.0, 4.0], 10, ThresholdSpacing::Uniform).is_empty());
        // Ties at the threshold score 0.
        let h = ThresholdRanker { feature: 0, threshold: 0.5 };
        assert_eq!(
            (h.score(&[0.5]), h.score(&[0.75]), h.score(&[f32::NAN]), h.score(&[])),
            (0.0, 1.0, 0.0, 0.0)
        );
    }

    /// x = [0.9, 0.1, 0.5, 0.5, 0.3] with every value a cut: cuts 0.1, 0.3, 0.5; bins
    /// (cuts below the value) 3, 0, 2, 2, 1. With values v = [1, 2, 4, 8, 16], the edge of cut
    /// 0.1 is v over x > 0.1 = 1 + 4 + 8 + 16 = 29, of 0.3: 13, of 0.5: 1.
    #[test]
    fn bins_and_edges_by_hand() {
        let d = dataset(1, &[(&[0, 0, 0, 0, 0], &[[0.9], [0.1], [0.5], [0.5], [0.3]])]);
        let c = Cuts::new(&d, 0, ThresholdSpacing::Uniform, "test").unwrap();
        let f = |x: f32| f64::from(x);
        assert_eq!(c.cuts(0), &[f(0.1), f(0.3), f(0.5)]);
        assert_eq!((0..5).map(|i| c.interval(0, i)).collect::<Vec<_>>(), [3, 0, 2, 2, 1]);
        assert_eq!((c.width(0), c.widest(), c.n_docs()), (IntervalWidth::U8, IntervalWidth::U8, 5));
        let (mut hist, mut out) = (Vec::new(), Vec::new());
        c.edges(0, &[1.0, 2.0, 4.0, 8.0, 16.0], &mut hist, &mut out);
        assert_eq!(out, vec![29.0, 13.0, 1.0]);
        assert_eq!(hist, vec![2.0, 16.0, 12.0, 1.0]);
        assert_eq!(c.ranker(0, 1), ThresholdRanker { feature: 0, threshold: f(0.3) });
        let none = dataset(0, &[(&[0], &[[0.0f32; 0]])]);
        assert!(Cuts::new(&none, 10, ThresholdSpacing::Uniform, "test").is_err());
    }

    /// The stored type holds the largest interval index, the cut count: 255 cuts (intervals
    /// 0..=255) fit `u8`, 256 need `u16`; 65,535 fit `u16`, 65,536 need `u32`.
    #[test]
    fn narrowest_width_by_cut_count() {
        use IntervalWidth::{U8, U16, U32};
        let of = IntervalWidth::of_cuts;
        assert_eq!((of(0), of(9), of(255), of(256)), (Some(U8), Some(U8), Some(U8), Some(U16)));
        assert_eq!((of(65_535), of(65_536), of(u32::MAX as usize)), (Some(U16), Some(U32), Some(U32)));
        assert_eq!(of(u32::MAX as usize + 1), None);
        assert_eq!((U8.bytes(), U16.bytes(), U32.bytes()), (1, 2, 4));
    }

    /// Integer values 0..m-1 with every value a cut (T = 0) make m - 1 cuts, and value v lies
    /// in interval v. Feature m: 256 -> 255 cuts (u8), 257 -> 256 (u16), 65,536 -> 65,535
    /// (u16), 65,537 -> 65,536 (u32); a constant feature has none (u8). Uniform spacing over
    /// [0, 65,536]: T = 256 makes 255 cuts (u8), T = 257 makes 256 (u16); quantile T = 300
    /// makes 299 distinct cuts (u16).
    #[test]
    fn widths_and_intervals_at_the_boundaries() {
        use IntervalWidth::{U8, U16, U32};
        let n = 65_537;
        let m = [256, 257, 65_536, 65_537, 1];
        let rows: Vec<[f32; 5]> = (0..n).map(|i| m.map(|m| (i % m) as f32)).collect();
        let labels = vec![0u8; n];
        let data = dataset(5, &[(&labels[..], &rows[..])]);
        let c = Cuts::new(&data, 0, ThresholdSpacing::Uniform, "test").unwrap();
        assert_eq!((0..5).map(|f| c.cuts(f).len()).collect::<Vec<_>>(), [255, 256, 65_535, 65_536, 0]);
        assert_eq!((0..5).map(|f| c.width(f)).collect::<Vec<_>>(), [U8, U16, U16, U32, U8]);
        assert_eq!(c.widest(), U32);
        for (f, &m) in m.iter().enumerate() {
            assert!((0..n).all(|i| c.interval(f, i) == i % m), "feature {f}");
        }
        // Exactly as the thresholds score: interval > j iff x > cut j.
        for (f, i, j) in [(0, 255, 254), (1, 256, 255), (3, 65_536, 65_535), (3, 65_535, 65_535)] {
            assert_eq!(c.interval(f, i) > j, c.ranker(f, j).score(&rows[i]) == 1.0);
        }
        let widths = |t: usize, spacing| {
            let c = Cuts::new(&data, t, spacing, "test").unwrap();
            (c.cuts(3).len(), c.width(3))
        };
        assert_eq!(widths(256, ThresholdSpacing::Uniform), (255, U8));
        assert_eq!(widths(257, ThresholdSpacing::Uniform), (256, U16));
        assert_eq!(widths(300, ThresholdSpacing::Quantile), (299, U16));
    }
}
