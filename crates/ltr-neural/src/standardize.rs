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
        let d = self.n_features();
        let mut out = vec![0.0; data.n_docs() * d];
        if d > 0 {
            for (o, row) in out.chunks_exact_mut(d).zip(data.rows()) {
                self.transform_row(row, o);
            }
        }
        out
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
}
