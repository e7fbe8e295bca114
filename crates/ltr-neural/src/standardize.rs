//! Feature standardisation fitted on the training split and stored in the model, so
//! training and scoring see the same transform.

use ltr_core::{Dataset, Error, Result};
use serde::{Deserialize, Serialize};

/// `x'_f = (x_f - mean_f) * scale_f`, with `scale_f = 1 / std_f` (population standard
/// deviation over the training documents), or 0 for a feature constant on the training
/// split: nothing could be learnt about it, and a weight left at its random initial value
/// must not turn its variation on other data into noise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardizer {
    /// Per-feature training mean.
    pub mean: Vec<f64>,
    /// Per-feature multiplier (`1 / std`, or 0).
    pub scale: Vec<f64>,
}

impl Standardizer {
    /// Fits on every document of `data` (sums in document order).
    pub fn fit(data: &Dataset, algorithm: &'static str) -> Result<Self> {
        let d = data.n_features();
        let n = data.n_docs();
        if n == 0 {
            return Err(Error::fit(algorithm, "empty training set"));
        }
        let mut mean = vec![0.0f64; d];
        for row in data.rows() {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += f64::from(x);
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let mut var = vec![0.0f64; d];
        for row in data.rows() {
            for ((v, &m), &x) in var.iter_mut().zip(&mean).zip(row) {
                let c = f64::from(x) - m;
                *v += c * c;
            }
        }
        let scale: Vec<f64> = var
            .iter()
            .map(|&v| {
                let std = (v / n as f64).sqrt();
                if std > 1e-12 { 1.0 / std } else { 0.0 }
            })
            .collect();
        if mean.iter().chain(&scale).any(|v| !v.is_finite()) {
            return Err(Error::fit(algorithm, "a feature's mean or spread is not finite"));
        }
        Ok(Self { mean, scale })
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.mean.len()
    }

    /// Standardises one row into `out`.
    #[inline]
    pub fn transform_row(&self, row: &[f32], out: &mut [f64]) {
        for (((o, &x), &m), &s) in out.iter_mut().zip(row).zip(&self.mean).zip(&self.scale) {
            *o = (f64::from(x) - m) * s;
        }
    }

    /// Every row of `data`, standardised, row-major.
    pub fn transform(&self, data: &Dataset) -> Vec<f64> {
        let mut out = Vec::new();
        self.transform_rows(data, 0, data.n_docs(), &mut out);
        out
    }

    /// Rows `start..start + n` of `data`, standardised, row-major, into `out` (resized to
    /// `n x d`).
    pub fn transform_rows(&self, data: &Dataset, start: usize, n: usize, out: &mut Vec<f64>) {
        let d = self.n_features();
        out.clear();
        out.resize(n * d, 0.0);
        if d > 0 {
            for (i, o) in out.chunks_exact_mut(d).enumerate() {
                self.transform_row(data.row(start + i), o);
            }
        }
    }
}

/// The standardised rows of a data set as the training loop reads them: one `f64` copy made
/// up front when it is small, else each block standardised again whenever it is read. Both
/// give the same values bit for bit (the same [`Standardizer::transform_row`]); the copy
/// saves one subtraction and one multiplication per value and read, and costs twice the
/// `f32` matrix, which at web scale (an MSLR-WEB10K fold: 728,521 x 136) is 790 MB for the
/// training split and 270 MB for vali on top of the 530 MB the data already take.
pub(crate) enum Inputs<'a> {
    /// The whole set, standardised once (`n_docs x d`, row-major).
    Copied {
        /// The standardised rows.
        x: Vec<f64>,
        /// Features per row.
        d: usize,
    },
    /// Standardised on every read.
    Streamed {
        /// The raw rows.
        data: &'a Dataset,
        /// Their standardisation.
        standardizer: &'a Standardizer,
    },
    /// Rows that no data set holds, made on every read ([`RowSource`]).
    Source(&'a dyn RowSource),
}

/// Standardised input rows that are not a data set's own: what the training loop reads
/// instead of a [`Dataset`]'s features when they would only be a copy of other rows (SortNet's
/// pairs are two training documents side by side: made on every read, they cost no memory
/// beyond the pair list, where a data set of them would hold every document many times).
pub trait RowSource: Sync {
    /// Features per row: the network's input width.
    fn width(&self) -> usize;

    /// Rows `start..start + n`, standardised, row-major, into `out` (resized to `n x width`).
    fn standardised_rows(&self, start: usize, n: usize, out: &mut Vec<f64>);
}

/// The largest standardised copy [`Inputs::new`] makes (64 MiB: every LETOR split is a few
/// MB; a web-scale one streams).
pub(crate) const COPY_LIMIT_BYTES: usize = 64 << 20;

impl<'a> Inputs<'a> {
    /// A copy of `data` standardised when it takes at most `copy_limit` bytes
    /// ([`COPY_LIMIT_BYTES`] in training), else a streaming view.
    pub(crate) fn new(data: &'a Dataset, standardizer: &'a Standardizer, copy_limit: usize) -> Self {
        let d = standardizer.n_features();
        let bytes = data.n_docs().saturating_mul(d).saturating_mul(std::mem::size_of::<f64>());
        if bytes <= copy_limit {
            Self::Copied { x: standardizer.transform(data), d }
        } else {
            Self::Streamed { data, standardizer }
        }
    }

    /// Rows `start..start + n`, standardised, row-major: a slice of the copy, or `buf`
    /// filled with them.
    pub(crate) fn rows<'b>(&'b self, start: usize, n: usize, buf: &'b mut Vec<f64>) -> &'b [f64] {
        match self {
            Self::Copied { x, d } => &x[start * d..(start + n) * d],
            Self::Streamed { data, standardizer } => {
                standardizer.transform_rows(data, start, n, buf);
                buf
            }
            Self::Source(source) => {
                source.standardised_rows(start, n, buf);
                buf
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::DatasetBuilder;

    use super::*;

    #[test]
    fn mean_zero_unit_variance_and_constant_features_dropped() {
        let mut b = DatasetBuilder::new(2);
        b.start_query("1");
        for (x, c) in [(1.0, 5.0), (2.0, 5.0), (3.0, 5.0), (6.0, 5.0)] {
            b.push_doc(0, &[x, c], None).unwrap();
        }
        let d = b.finish().unwrap();
        let s = Standardizer::fit(&d, "test").unwrap();
        assert_eq!(s.mean, vec![3.0, 5.0]);
        // Population variance of (1, 2, 3, 6): (4 + 1 + 0 + 9) / 4 = 3.5.
        assert!((s.scale[0] - 1.0 / 3.5f64.sqrt()).abs() < 1e-15);
        assert_eq!(s.scale[1], 0.0);
        let t = s.transform(&d);
        assert!((t.iter().step_by(2).sum::<f64>()).abs() < 1e-12);
        assert!(t.iter().skip(1).step_by(2).all(|&v| v == 0.0));
    }

    #[test]
    fn streamed_rows_equal_the_copy_bit_for_bit() {
        let mut b = DatasetBuilder::new(3);
        b.start_query("1");
        for r in 0..7u8 {
            let r = f32::from(r);
            b.push_doc(0, &[r * 0.37, 1.0 / (r + 1.0), (r * r) - 3.1], None).unwrap();
        }
        let d = b.finish().unwrap();
        let s = Standardizer::fit(&d, "test").unwrap();
        let copied = Inputs::new(&d, &s, COPY_LIMIT_BYTES);
        assert!(matches!(copied, Inputs::Copied { .. }));
        let streamed = Inputs::new(&d, &s, 0);
        assert!(matches!(streamed, Inputs::Streamed { .. }));
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        for (start, n) in [(0, 7), (2, 3), (6, 1), (4, 0)] {
            let a = copied.rows(start, n, &mut b1).to_vec();
            let b = streamed.rows(start, n, &mut b2);
            assert_eq!(a.len(), n * 3);
            assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "rows {start}..+{n}");
        }
    }
}
