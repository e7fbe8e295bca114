//! Ridge regression on the relevance grade: the LETOR "Regression" baseline.
//!
//! With `n` training documents `x_i` (all queries pooled) and grades `y_i`, the model
//! `f(x) = w . x + b` minimises
//!
//! ```text
//! 1/(2n) * sum_i (y_i - w . x_i - b)^2  +  lambda/2 * |w|^2
//! ```
//!
//! The intercept `b` is not penalised. With `standardize = true` (the default) the penalty is
//! applied to the weights of the standardised features `(x_j - mean_j) / sd_j` (population
//! standard deviation over the training documents), and the solution is mapped back to the
//! raw features, so the stored model scores raw rows. Features that are constant on the
//! training set get weight 0 and are left out of the system.
//!
//! The solution is exact: the centred normal equations
//! `(X_c^T X_c / n + lambda I) w = X_c^T y_c / n` are accumulated and solved by Cholesky in `f64`,
//! then `b = mean(y) - w . mean(x)`.
//!
//! `lambda = 0` is ordinary least squares. It is allowed, but on collinear features (OHSUMED)
//! the normal equations are singular: a pivot below `1e-12` times the largest diagonal entry
//! makes `fit` fail with an error that names the feature and asks for `lambda > 0`. No jitter
//! is added behind the user's back.
//!
//! The validation split is not used: ridge has no length parameter; `lambda` is selected by
//! the harness over a grid.

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_info,
};
use serde::{Deserialize, Serialize};

use ltr_linear::{LinearModel, PivotFloor, cholesky, dot};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 2.0 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "regression",
    name: "Regression",
    family: Family::Regression,
    year: 2007,
    loss: LossType::Pointwise,
    optimizer: "Cholesky (normal equations)",
    reference: "Liu, Xu, Qin, Xiong, Li, LETOR benchmark, SIGIR LR4IR 2007 (Regression baseline); \
                Hoerl & Kennard, Technometrics 12(1), 1970 (ridge)",
    summary: "ridge",
    feature_scale: ltr_core::FeatureScale::FreeWhen {
        key: "standardize",
        why: ltr_core::FeatureScale::STANDARDISES,
    },
    cost: Some(ltr_core::FitCost::mslr_web10k(2.0, "just bench-budget 2026-11-23, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Relative pivot tolerance of the Cholesky factorisation (see the module docs).
const PIVOT_TOL: f64 = 1e-12;

/// Hyperparameters of ridge regression (spec keys `lambda`, `standardize`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegressionParams {
    /// L2 strength `lambda >= 0` in `1/(2n) sum (y - w.x - b)^2 + lambda/2 |w|^2`.
    /// Default `1e-3`. `0` is ordinary least squares and fails on collinear features.
    pub lambda: f64,
    /// Penalise the weights of standardised features (zero mean, unit variance on the training
    /// set) rather than of the raw ones; the model still scores raw rows. Default `true`.
    pub standardize: bool,
}

impl Default for RegressionParams {
    fn default() -> Self {
        Self { lambda: 1e-3, standardize: true }
    }
}

impl Params for RegressionParams {
    type Checked = Regression;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::real(
            "lambda",
            0.0,
            1e6,
            "L2 strength on the weights (not the intercept); 0 is least squares",
        ),
        ParamInfo::flag(
            "standardize",
            "penalise the weights of standardised features (the model scores raw rows)",
        ),
    ];

    fn validate(&self) -> Result<Regression> {
        param_info(Self::TABLE, "lambda").check_real(self.lambda)?;
        Ok(Regression { lambda: self.lambda, standardize: self.standardize })
    }
}

/// Validated ridge regression, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    lambda: f64,
    standardize: bool,
}

impl Regression {
    /// The L2 strength.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Whether features are standardised before penalising.
    pub fn standardize(&self) -> bool {
        self.standardize
    }
}

impl Learner for Regression {
    type Model = RegressionModel;

    fn fit(
        &self,
        train: &Dataset,
        _valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<RegressionModel> {
        let (n, d) = (train.n_docs(), train.n_features());
        if n == 0 {
            return Err(Error::fit(INFO.id, "the training set has no documents"));
        }
        let nf = n as f64;
        let labels = train.labels();

        let mut mean = vec![0.0; d];
        let mut y_mean = 0.0;
        for (row, &y) in train.rows().zip(labels) {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += f64::from(x);
            }
            y_mean += f64::from(y);
        }
        for m in &mut mean {
            *m /= nf;
        }
        y_mean /= nf;

        // Features constant on the training set are collinear with the intercept: weight 0.
        let first = train.row(0);
        let active: Vec<usize> = (0..d).filter(|&j| train.rows().any(|r| r[j] != first[j])).collect();
        let m = active.len();

        // Centred Gram matrix (lower triangle) and right-hand side, summed over documents.
        let mut gram = vec![0.0; m * m];
        let mut rhs = vec![0.0; m];
        let mut c = vec![0.0; m];
        for (row, &y) in train.rows().zip(labels) {
            for (ca, &j) in c.iter_mut().zip(&active) {
                *ca = f64::from(row[j]) - mean[j];
            }
            let yc = f64::from(y) - y_mean;
            for a in 0..m {
                let ca = c[a];
                rhs[a] += ca * yc;
                let g = &mut gram[a * m..a * m + a + 1];
                for (gab, &cb) in g.iter_mut().zip(&c[..=a]) {
                    *gab += ca * cb;
                }
            }
        }

        // Per-feature scale: the standard deviation, or 1.
        let scale: Vec<f64> =
            (0..m).map(|a| if self.standardize { (gram[a * m + a] / nf).sqrt() } else { 1.0 }).collect();
        for a in 0..m {
            for b in 0..=a {
                gram[a * m + b] /= nf * scale[a] * scale[b];
            }
            gram[a * m + a] += self.lambda;
            rhs[a] /= nf * scale[a];
        }

        let solved = cholesky::solve(&gram, &rhs, PivotFloor::Largest(PIVOT_TOL)).map_err(|e| {
            let ltr_linear::Error::NotPositiveDefinite { index, pivot } = e;
            Error::fit(
                INFO.id,
                format!(
                    "the normal equations are singular or numerically rank-deficient at feature {} \
                     (pivot {pivot:.3e}; collinear features, e.g. OHSUMED's); use lambda > 0 (lambda = {})",
                    active[index] + 1,
                    self.lambda
                ),
            )
        })?;

        let mut weights = vec![0.0; d];
        for (a, &j) in active.iter().enumerate() {
            weights[j] = solved[a] / scale[a];
        }
        let intercept = y_mean - dot(&weights, &mean);
        log::debug!(
            "regression: {n} documents, {m} of {d} features non-constant, lambda {}, standardize {}",
            self.lambda,
            self.standardize
        );
        Ok(LinearModel::new(weights, intercept))
    }
}

/// A fitted linear regression model: `score(x) = weights . x + bias`, the estimated grade;
/// the weights are on the raw feature scale, and the bias is the intercept (it does not
/// change rankings; kept so scores estimate the grade).
pub type RegressionModel = LinearModel;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{DatasetBuilder, Ranker};

    use super::*;

    fn data(rows: &[&[f32]], labels: &[u8]) -> Dataset {
        let mut b = DatasetBuilder::new(rows[0].len());
        b.start_query("1");
        for (r, &y) in rows.iter().zip(labels) {
            b.push_doc(y, r, None).unwrap();
        }
        b.finish().unwrap()
    }

    fn fit(p: RegressionParams, d: &Dataset) -> Result<RegressionModel> {
        p.validate()?.fit(d, None, &mut Rng::new(0))
    }

    #[test]
    fn one_feature_ridge_by_hand() {
        // x = [0, 1, 2], y = [0, 1, 5]: mean x 1, mean y 2; centred x [-1, 0, 1], y [-2, -1, 3].
        // Sxx/n = 2/3, Sxy/n = (2 + 0 + 3)/3 = 5/3.
        let d = data(&[&[0.0], &[1.0], &[2.0]], &[0, 1, 5]);
        // Raw scale, lambda = 1/3: w = (5/3) / (2/3 + 1/3) = 5/3, b = 2 - 5/3 = 1/3.
        let m = fit(RegressionParams { lambda: 1.0 / 3.0, standardize: false }, &d).unwrap();
        assert!((m.weights[0] - 5.0 / 3.0).abs() < 1e-14, "{m:?}");
        assert!((m.bias - 1.0 / 3.0).abs() < 1e-14, "{m:?}");
        // Standardised, lambda = 1: sd = sqrt(2/3); w' = (5/3)/sd / (1 + 1); w = w'/sd = (5/3)/(4/3) = 5/4;
        // b = 2 - 5/4 = 3/4.
        let m = fit(RegressionParams { lambda: 1.0, standardize: true }, &d).unwrap();
        assert!((m.weights[0] - 1.25).abs() < 1e-14, "{m:?}");
        assert!((m.bias - 0.75).abs() < 1e-14, "{m:?}");
        // lambda = 0: least squares slope Sxy/Sxx = 5/2, b = 2 - 5/2 = -1/2; scale does not matter.
        for standardize in [false, true] {
            let m = fit(RegressionParams { lambda: 0.0, standardize }, &d).unwrap();
            assert!((m.weights[0] - 2.5).abs() < 1e-14 && (m.bias + 0.5).abs() < 1e-14, "{m:?}");
            assert!((m.score_row(&[1.0]) - 2.0).abs() < 1e-14);
        }
    }

    #[test]
    fn exact_linear_data_is_recovered_by_least_squares() {
        // y = 2 x1 - x2 + 1 on four non-collinear points.
        let rows: [&[f32]; 4] = [&[0.0, 0.0], &[1.0, 0.0], &[0.0, 1.0], &[2.0, 3.0]];
        let d = data(&rows, &[1, 3, 0, 2]);
        let m = fit(RegressionParams { lambda: 0.0, standardize: false }, &d).unwrap();
        assert!((m.weights[0] - 2.0).abs() < 1e-12 && (m.weights[1] + 1.0).abs() < 1e-12, "{m:?}");
        assert!((m.bias - 1.0).abs() < 1e-12, "{m:?}");
    }

    #[test]
    fn collinear_features_need_lambda() {
        // Feature 2 = 2 * feature 1: singular without a penalty.
        let rows: [&[f32]; 3] = [&[0.0, 0.0], &[1.0, 2.0], &[2.0, 4.0]];
        let d = data(&rows, &[0, 1, 2]);
        let e = fit(RegressionParams { lambda: 0.0, standardize: false }, &d).unwrap_err().to_string();
        assert!(e.contains("lambda > 0") && e.contains("feature 2"), "{e}");
        // With lambda > 0: the centred Gram matrix is g (1, 2)(1, 2)^T and the right-hand side is a
        // multiple of (1, 2), an eigenvector of G + lambda I, so w is along (1, 2): w2 = 2 w1.
        let m = fit(RegressionParams { lambda: 1e-3, standardize: false }, &d).unwrap();
        assert!((m.weights[1] - 2.0 * m.weights[0]).abs() < 1e-12, "{m:?}");
    }

    #[test]
    fn constant_features_get_zero_weight() {
        // Feature 2 is constant: ignored; the fit on feature 1 is the one-feature case above.
        let d = data(&[&[0.0, 0.3], &[1.0, 0.3], &[2.0, 0.3]], &[0, 1, 5]);
        let m = fit(RegressionParams { lambda: 0.0, standardize: true }, &d).unwrap();
        assert_eq!(m.weights[1], 0.0);
        assert!((m.weights[0] - 2.5).abs() < 1e-14, "{m:?}");
    }

    #[test]
    fn params_are_checked_and_defaults_documented() {
        assert_eq!(RegressionParams::default(), RegressionParams { lambda: 1e-3, standardize: true });
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let e = RegressionParams { lambda: bad, ..Default::default() }.validate().unwrap_err();
            assert!(e.to_string().contains("`lambda`"), "{e}");
        }
        let p: RegressionParams = serde_json::from_str(r#"{"lambda": 0.5}"#).unwrap();
        assert_eq!(p.lambda, 0.5);
        assert!(p.standardize);
        assert!(serde_json::from_str::<RegressionParams>(r#"{"lamda": 0.5}"#).is_err());
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        ltr_core::check_table::<RegressionParams>().unwrap();
        ltr_core::check_readme::<RegressionParams>(include_str!("../README.md")).unwrap();
        let e = RegressionParams { lambda: 1e7, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("[0, 1000000]"), "{e}");
    }

    #[test]
    fn json_round_trip_scores_bit_identically() {
        let rows: [&[f32]; 4] = [&[0.1, 0.7], &[0.9, 0.2], &[0.3, 0.3], &[0.5, 0.8]];
        let d = data(&rows, &[0, 2, 1, 1]);
        let m = fit(RegressionParams::default(), &d).unwrap();
        let back: RegressionModel = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        let (a, b) = (m.score_vec(&d).unwrap(), back.score_vec(&d).unwrap());
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    }

    #[test]
    fn empty_training_set_is_an_error() {
        let d = DatasetBuilder::new(2).finish().unwrap();
        assert!(fit(RegressionParams::default(), &d).is_err());
    }
}
