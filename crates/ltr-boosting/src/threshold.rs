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

/// Every feature's cut points and every document's interval between them.
#[derive(Debug, Clone)]
pub struct Cuts {
    n_docs: usize,
    /// Per feature, the cut points, ascending.
    cuts: Vec<Vec<f64>>,
    /// Feature-major: `bins[f * n + i]` = number of cuts of `f` below `x_if`, so
    /// `x_if > cuts[f][j]` iff `bins[f * n + i] > j`.
    bins: Vec<u32>,
}

impl Cuts {
    /// Sorts every feature of `data` once (in parallel), places its cuts and bins the
    /// documents. `count` and `spacing` as in [`cut_points`].
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
        let per_feature: Vec<(Vec<f64>, Vec<u32>)> = (0..d)
            .into_par_iter()
            .map(|f| {
                let column: Vec<f64> = data.rows().map(|r| f64::from(r[f])).collect();
                let mut sorted = column.clone();
                let cuts = cut_points(&mut sorted, count, spacing);
                let bins = column.iter().map(|&x| cuts.partition_point(|&c| c < x) as u32).collect();
                (cuts, bins)
            })
            .collect();
        let mut cuts = Vec::with_capacity(d);
        let mut bins = Vec::with_capacity(n * d);
        for (c, b) in per_feature {
            cuts.push(c);
            bins.extend(b);
        }
        Ok(Self { n_docs: n, cuts, bins })
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.cuts.len()
    }

    /// The cut points of feature `f`, ascending.
    pub fn cuts(&self, f: usize) -> &[f64] {
        &self.cuts[f]
    }

    /// The interval of every document on feature `f`: the number of its cuts below the value.
    pub fn bins(&self, f: usize) -> &[u32] {
        &self.bins[f * self.n_docs..(f + 1) * self.n_docs]
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
        let width = self.cuts[f].len() + 1;
        hist.clear();
        hist.resize(4 * width, 0.0);
        let bins = self.bins(f);
        let mut chunks = bins.chunks_exact(4).zip(values.chunks_exact(4));
        for (b, p) in &mut chunks {
            hist[b[0] as usize] += p[0];
            hist[width + b[1] as usize] += p[1];
            hist[2 * width + b[2] as usize] += p[2];
            hist[3 * width + b[3] as usize] += p[3];
        }
        let tail = self.n_docs - self.n_docs % 4;
        for (lane, (&b, &p)) in bins[tail..].iter().zip(&values[tail..]).enumerate() {
            hist[lane * width + b as usize] += p;
        }
        for j in 0..width {
            hist[j] = (hist[j] + hist[width + j]) + (hist[2 * width + j] + hist[3 * width + j]);
        }
        hist.truncate(width);
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
        assert_eq!(c.bins(0), &[3, 0, 2, 2, 1]);
        let (mut hist, mut out) = (Vec::new(), Vec::new());
        c.edges(0, &[1.0, 2.0, 4.0, 8.0, 16.0], &mut hist, &mut out);
        assert_eq!(out, vec![29.0, 13.0, 1.0]);
        assert_eq!(hist, vec![2.0, 16.0, 12.0, 1.0]);
        assert_eq!(c.ranker(0, 1), ThresholdRanker { feature: 0, threshold: f(0.3) });
        let none = dataset(0, &[(&[0], &[[0.0f32; 0]])]);
        assert!(Cuts::new(&none, 10, ThresholdSpacing::Uniform, "test").is_err());
    }
}
