//! Quantile binning of the training features into `u8` bins, computed once per training set.
//!
//! # Convention
//! * A missing value (NaN) is read as `0.0`, in training and in prediction alike (LETOR
//!   files write absent features as 0 already; `-0.0` is read as `0.0` too).
//! * Zero is an ordinary value: it gets a bin of its own only when it is frequent (in
//!   sparse LETOR features it always is).
//! * Bin `b` of feature `f` holds the values `v` with `upper[b - 1] < v <= upper[b]`
//!   (`upper[-1] = -inf`, the last bin is unbounded above). The upper bounds are midpoints
//!   between consecutive distinct training values, so a split "bin <= b" is exactly the
//!   real-valued test `v <= upper[b]` that the fitted trees store and apply to raw `f32`
//!   features.

use std::sync::Arc;

use ltr_core::{Dataset, Error, Result};
use rayon::prelude::*;

/// The training features as column-major `u8` bin indices, with each feature's bin bounds.
#[derive(Debug, Clone)]
pub struct BinnedData {
    n_rows: usize,
    n_features: usize,
    /// `bins[f * n_rows + i]`: the bin of document `i`'s feature `f`.
    bins: Vec<u8>,
    /// Per feature, the upper bounds of every bin but the last (so `n_bins = len + 1`).
    uppers: Vec<Vec<f64>>,
}

/// A feature value as binned: NaN and -0.0 read as 0.0.
#[inline]
pub fn clean(v: f32) -> f32 {
    if v.is_nan() { 0.0 } else { v + 0.0 }
}

impl BinnedData {
    /// Bins every feature of `data` into at most `max_bins` (2..=255) quantile bins, each
    /// holding at least `min_data_in_bin` values where the data allow it.
    pub fn new(data: &Dataset, max_bins: usize, min_data_in_bin: usize) -> Result<Self> {
        Self::from_rows(data.features(), data.n_features(), max_bins, min_data_in_bin)
    }

    /// [`BinnedData::new`] of a training set, computed once and kept in its cache
    /// ([`Dataset::derived`]): every fit on the same data with the same binning settings (the
    /// grid points of one algorithm, or LambdaMART and McRank on one fold) shares one copy.
    pub fn shared(data: &Dataset, max_bins: usize, min_data_in_bin: usize) -> Result<Arc<Self>> {
        let key = format!("ltr-trees bins max_bins={max_bins} min_data_in_bin={min_data_in_bin}");
        data.derived().get_or_try_insert(&key, || Self::new(data, max_bins, min_data_in_bin))
    }

    /// As [`BinnedData::new`], from dense row-major features.
    pub fn from_rows(
        features: &[f32],
        n_features: usize,
        max_bins: usize,
        min_data_in_bin: usize,
    ) -> Result<Self> {
        if n_features == 0 || features.is_empty() || !features.len().is_multiple_of(n_features) {
            return Err(Error::InvalidDataset {
                reason: format!("cannot bin {} values into rows of {n_features} features", features.len()),
            });
        }
        if !(2..=255).contains(&max_bins) {
            return Err(Error::param("max_bins", max_bins, "must be in 2..=255"));
        }
        let n_rows = features.len() / n_features;
        if u32::try_from(n_rows).is_err() {
            return Err(Error::InvalidDataset { reason: format!("{n_rows} documents exceed 2^32") });
        }
        // Features are binned independently, a few per task (their values are gathered in one
        // pass over the row-major matrix, which a task per feature would read once per
        // feature), straight into their columns of the result (no second copy of the bins at
        // the peak). The result does not depend on the thread count or the batching.
        let mut bins = vec![0u8; n_rows * n_features];
        let uppers: Vec<Vec<f64>> = bins
            .par_chunks_mut(n_rows * BIN_BATCH)
            .enumerate()
            .flat_map_iter(|(batch, bins)| {
                let f0 = batch * BIN_BATCH;
                let w = bins.len() / n_rows;
                let mut columns: Vec<Vec<(f32, u32)>> = (0..w).map(|_| Vec::with_capacity(n_rows)).collect();
                for (i, row) in features.chunks_exact(n_features).enumerate() {
                    for (column, &v) in columns.iter_mut().zip(&row[f0..f0 + w]) {
                        column.push((clean(v), i as u32));
                    }
                }
                columns
                    .into_iter()
                    .zip(bins.chunks_mut(n_rows))
                    .map(|(column, bins)| bin_column(column, bins, max_bins, min_data_in_bin))
                    .collect::<Vec<_>>()
            })
            .collect();
        Ok(Self { n_rows, n_features, bins, uppers })
    }

    /// Number of documents.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of bins of feature `f` (1 for a constant feature, which is never split on).
    pub fn n_bins(&self, f: usize) -> usize {
        self.uppers[f].len() + 1
    }

    /// The upper bound of bin `b` of feature `f` (`+inf` for the last bin): going left at
    /// "bin <= b" is going left at "value <= upper".
    pub fn upper(&self, f: usize, b: usize) -> f64 {
        self.uppers[f].get(b).copied().unwrap_or(f64::INFINITY)
    }

    /// All upper bounds of feature `f`.
    pub fn uppers(&self, f: usize) -> &[f64] {
        &self.uppers[f]
    }

    /// The bin of a raw value of feature `f`.
    pub fn bin_of(&self, f: usize, value: f32) -> u8 {
        let v = f64::from(clean(value));
        self.uppers[f].partition_point(|&u| u < v) as u8
    }

    /// The bins under this binning of the rows of `features` (row-major, as wide as the
    /// training data), row-major too: what walking another data set's documents (the
    /// validation split's) down the trees on bins needs ([`crate::Tree::leaf_of_bins`]).
    pub fn bin_rows(&self, features: &[f32]) -> Vec<u8> {
        let nf = self.n_features;
        let mut out = vec![0u8; features.len()];
        out.par_chunks_mut(nf * 1024).zip(features.par_chunks(nf * 1024)).for_each(|(bins, values)| {
            for (row_bins, row) in bins.chunks_exact_mut(nf).zip(values.chunks_exact(nf)) {
                for (f, (b, &v)) in row_bins.iter_mut().zip(row).enumerate() {
                    *b = self.bin_of(f, v);
                }
            }
        });
        out
    }

    /// The bins of feature `f`, one per document.
    pub fn column(&self, f: usize) -> &[u8] {
        &self.bins[f * self.n_rows..(f + 1) * self.n_rows]
    }
}

/// Features binned by one task (see [`BinnedData::from_rows`]).
const BIN_BATCH: usize = 4;

/// Bins one feature's `(value, document)` pairs into `bins`; returns the bins' upper bounds.
fn bin_column(
    mut column: Vec<(f32, u32)>,
    bins: &mut [u8],
    max_bins: usize,
    min_data_in_bin: usize,
) -> Vec<f64> {
    column.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut distinct: Vec<f32> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    for &(v, _) in &column {
        if distinct.last() == Some(&v) {
            if let Some(c) = counts.last_mut() {
                *c += 1;
            }
        } else {
            distinct.push(v);
            counts.push(1);
        }
    }
    let uppers = bin_bounds(&distinct, &counts, max_bins, min_data_in_bin.max(1));
    let mut b = 0usize;
    for &(v, i) in &column {
        while b < uppers.len() && f64::from(v) > uppers[b] {
            b += 1;
        }
        bins[i as usize] = b as u8;
    }
    uppers
}

/// The upper bounds of at most `max_bins` bins over sorted distinct values with counts.
///
/// With no more distinct values than bins, every distinct value gets its own bin, except
/// that rare values are merged forward until a bin holds `min_data_in_bin` values. Else a
/// greedy quantile pass: values at least as frequent as an average bin get a bin of their
/// own ("big" values); the others are cut into bins of about equal counts, the target being
/// re-estimated from what is left after every cut.
pub fn bin_bounds(distinct: &[f32], counts: &[usize], max_bins: usize, min_data_in_bin: usize) -> Vec<f64> {
    let n = distinct.len();
    let mid = |i: usize| (f64::from(distinct[i]) + f64::from(distinct[i + 1])) / 2.0;
    let mut uppers = Vec::new();
    if n <= 1 {
        return uppers;
    }
    if n <= max_bins {
        let mut in_bin = 0usize;
        for (i, &c) in counts.iter().enumerate().take(n - 1) {
            in_bin += c;
            if in_bin >= min_data_in_bin {
                uppers.push(mid(i));
                in_bin = 0;
            }
        }
        return uppers;
    }
    let total: usize = counts.iter().sum();
    let average = total as f64 / max_bins as f64;
    let big: Vec<bool> = counts.iter().map(|&c| c as f64 >= average).collect();
    let mut bins_left = max_bins;
    let mut rest = total;
    for (i, &c) in counts.iter().enumerate() {
        if big[i] {
            bins_left = bins_left.saturating_sub(1);
            rest -= c;
        }
    }
    let mut target = rest as f64 / bins_left.max(1) as f64;
    let mut in_bin = 0usize;
    for i in 0..n - 1 {
        if !big[i] {
            rest -= counts[i];
        }
        in_bin += counts[i];
        let close =
            big[i] || in_bin as f64 >= target || (big[i + 1] && in_bin as f64 >= (target * 0.5).max(1.0));
        if close && (in_bin >= min_data_in_bin || big[i] || big[i + 1]) {
            uppers.push(mid(i));
            if uppers.len() + 1 >= max_bins {
                break;
            }
            in_bin = 0;
            if !big[i] {
                bins_left = bins_left.saturating_sub(1).max(1);
                target = rest as f64 / bins_left as f64;
            }
        }
    }
    uppers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_distinct_values_get_one_bin_each_with_midpoint_bounds() {
        // values 0 (x3), 1 (x3), 3 (x3): bounds at 0.5 and 2.
        let u = bin_bounds(&[0.0, 1.0, 3.0], &[3, 3, 3], 255, 3);
        assert_eq!(u, vec![0.5, 2.0]);
        // min_data_in_bin = 3 merges the rare 1 (x1) into the next bin: 0 (x3) | 1, 2 (x1, x5).
        let u = bin_bounds(&[0.0, 1.0, 2.0], &[3, 1, 5], 255, 3);
        assert_eq!(u, vec![0.5]);
    }

    #[test]
    fn many_distinct_values_are_cut_into_quantiles() {
        // 100 distinct values, 10 bins: 10 values per bin, bounds at 9.5, 19.5, ...
        let d: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let u = bin_bounds(&d, &[1; 100], 10, 1);
        assert_eq!(u, (1..10).map(|k| k as f64 * 10.0 - 0.5).collect::<Vec<_>>());
        // A value holding half the data gets its own bin.
        let mut c = vec![1usize; 100];
        c[0] = 100;
        let u = bin_bounds(&d, &c, 10, 1);
        assert_eq!(u[0], 0.5);
        assert!(u.len() <= 9);
    }

    #[test]
    fn binning_matches_thresholds_and_missing_is_zero() {
        // 1 feature, values 0, 0, 0, 1, 1, 1, 2, 2, 2, NaN (= 0).
        let x = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, f32::NAN];
        let b = BinnedData::from_rows(&x, 1, 255, 3).unwrap();
        assert_eq!(b.n_bins(0), 3);
        assert_eq!(b.column(0), &[0, 0, 0, 1, 1, 1, 2, 2, 2, 0]);
        assert_eq!(b.uppers(0), &[0.5, 1.5]);
        for (i, &v) in x.iter().enumerate() {
            assert_eq!(b.bin_of(0, v), b.column(0)[i]);
        }
        assert_eq!(b.bin_of(0, -0.0), 0);
        assert_eq!(b.bin_of(0, 7.0), 2);
        assert_eq!(b.upper(0, 2), f64::INFINITY);
    }

    #[test]
    fn constant_features_have_one_bin() {
        let x = [5.0, 1.0, 5.0, 2.0, 5.0, 3.0];
        let b = BinnedData::from_rows(&x, 2, 255, 1).unwrap();
        assert_eq!(b.n_bins(0), 1);
        assert_eq!(b.n_bins(1), 3);
        assert!(BinnedData::from_rows(&x, 4, 255, 1).is_err());
        assert!(BinnedData::from_rows(&x, 2, 1, 1).is_err());
    }
}
