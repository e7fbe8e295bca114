//! SLR, staged logistic regression (W. S. Cooper, F. C. Gey, D. P. Dabney, "Probabilistic
//! retrieval based on staged logistic regression", SIGIR 1992), for feature vectors: the log
//! odds of relevance is estimated clue by clue by logistic regression, the estimates are
//! combined under the paper's linked dependence assumption, and a second logistic regression
//! corrects the combination.
//!
//! # The stages
//!
//! Relevance is binary, as for MAP (a grade counts as relevant under the data's convention:
//! `>= 1` for LETOR). With `pi = ln(n_relevant / n_non_relevant)` the prior log odds of the
//! training documents, and every feature `k` that is not constant on them standardised,
//! `z_k = (x_k - m_k) / s_k`:
//!
//! ```text
//! stage 1 (one per feature):   log O(R | x_k) = a_k + b_k z_k                     (logistic regression)
//!                              minimising mean log loss + stage1_lambda/2 b_k^2
//! linked dependence:           log O(R | x)  ~= pi + sum_k (log O(R | x_k) - pi)
//! stage 2:                     log O(R | x)   = c_0 + sum_k c_k (a_k + b_k z_k - pi)
//!                              minimising mean log loss + lambda/2 sum_k (c_k - 1)^2
//! ```
//!
//! The combination is the second stage's starting point and its prior: `c_0 = pi, c_k = 1` is
//! the uncorrected linked-dependence estimate, which the second regression moves as far as the
//! data asks against `lambda` (large `lambda`: the sum of per-feature log odds; small: a
//! plain logistic regression on all features). Both stages are solved by damped Newton
//! (`ltr_linear::newton`). The model is the second stage collapsed onto the raw features,
//! `w.x + b` with `w_k = c_k b_k / s_k`: its score is the estimated log odds of relevance.
//!
//! The first stage is maximum likelihood (as the paper's, fitted with a statistics package) at
//! the default `stage1_lambda = 0`; a small ridge keeps the slope of a feature that separates
//! the classes finite. With one feature and `stage1_lambda = 0` the second stage's optimum is
//! `c_0 = pi, c_1 = 1` for every `lambda` (the first stage already is the maximum-likelihood
//! fit), so SLR is then the plain logistic regression on that feature.
//!
//! The first stage does not depend on `lambda`: it is computed once per training set
//! ([`ltr_core::Learner::prepare`], cached with the data). No randomness; the validation split is not
//! used.

use std::sync::Arc;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, FeatureScale, LossType, ParamInfo, Params, Result, param_info,
};
use ltr_linear::newton::{self, NewtonConfig, SmoothObjective, add_outer_lower, logit_loss, sigma_neg};
use ltr_linear::{LinearModel, PivotFloor, dot};
use ltr_metrics::EvalConfig;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 45.5 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "slr",
    name: "SLR",
    family: Family::Regression,
    year: 1992,
    loss: LossType::Pointwise,
    optimizer: "Newton (Cholesky), two stages of logistic regression",
    reference: "Cooper, Gey, Dabney, Probabilistic retrieval based on staged logistic regression, SIGIR 1992",
    summary: "staged logistic regression",
    feature_scale: FeatureScale::STANDARDISED,
    cost: Some(ltr_core::FitCost::mslr_web10k(45.5, "just bench-budget 2026-11-27, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Newton iterations per regression, at most.
const MAX_ITER: usize = 50;
/// Newton stops when the decrement is below this times the objective, or when a step can no
/// longer lower the objective to rounding (the usual end here: the iterations converge
/// quadratically, and the rounding of a mean over thousands of documents, about `1e-14`
/// relative, is reached first).
const TOL: f64 = 1e-20;

/// Hyperparameters of SLR (spec keys `lambda`, `stage1_lambda`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SlrParams {
    /// Strength `lambda > 0` of the second stage's pull towards the linked-dependence
    /// combination, `lambda/2 sum_k (c_k - 1)^2` on the mean log loss. Default `1e-3`.
    pub lambda: f64,
    /// Ridge `stage1_lambda/2 b_k^2` on each first-stage slope (per standard deviation):
    /// keeps the slope finite on a feature that separates the classes, where the
    /// maximum-likelihood fit does not exist. Default `0`: maximum likelihood, as the paper.
    pub stage1_lambda: f64,
}

impl Default for SlrParams {
    fn default() -> Self {
        Self { lambda: 1e-3, stage1_lambda: 0.0 }
    }
}

impl Params for SlrParams {
    type Checked = Slr;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive(
            "lambda",
            0.0,
            1e6,
            "second stage: lambda/2 sum_k (c_k - 1)^2 pulls towards the sum of per-feature log odds",
        ),
        ParamInfo::real(
            "stage1_lambda",
            0.0,
            1e6,
            "first stage: ridge on each standardised slope (0: maximum likelihood)",
        ),
    ];

    fn validate(&self) -> Result<Slr> {
        param_info(Self::TABLE, "lambda").check_real(self.lambda)?;
        param_info(Self::TABLE, "stage1_lambda").check_real(self.stage1_lambda)?;
        Ok(Slr { lambda: self.lambda, stage1_lambda: self.stage1_lambda })
    }
}

/// Validated SLR, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Slr {
    lambda: f64,
    stage1_lambda: f64,
}

/// The first-stage model of one feature: `log O(R | x_k) = intercept + slope (x_k - mean) / sd`.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureModel {
    /// The feature (0-based).
    pub feature: usize,
    /// Its mean on the training documents.
    pub mean: f64,
    /// Its standard deviation (population) on them, `> 0`.
    pub sd: f64,
    /// `a_k`.
    pub intercept: f64,
    /// `b_k`, per standard deviation.
    pub slope: f64,
    /// Whether Newton's stopping rule was met (not on a feature that separates the classes).
    pub converged: bool,
}

impl FeatureModel {
    /// `a_k + b_k z_k` at the raw value `x`.
    pub fn log_odds(&self, x: f32) -> f64 {
        self.intercept + self.slope * ((f64::from(x) - self.mean) / self.sd)
    }
}

/// The first stage of a training set: the prior log odds and one model per feature that is
/// not constant on it.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstStage {
    /// `pi = ln(n_relevant / n_non_relevant)`.
    pub prior: f64,
    /// Per non-constant feature, in feature order.
    pub features: Vec<FeatureModel>,
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitStats {
    /// The first stage.
    pub first: Arc<FirstStage>,
    /// Second stage: `c_0`.
    pub intercept: f64,
    /// Second stage: `c_k`, one per first-stage model.
    pub coefficients: Vec<f64>,
    /// Second stage: final objective (mean log loss plus the pull).
    pub objective: f64,
    /// Second stage: Newton iterations.
    pub iterations: usize,
    /// Second stage: whether the stopping rule was met.
    pub converged: bool,
}

/// Where a [`Logistic`] objective reads its predictors: row `i`'s `k` values.
trait Predictors {
    /// Predictors per document.
    fn k(&self) -> usize;
    /// Writes document `i`'s predictors into `out` (length `k`).
    fn fill(&self, i: usize, out: &mut [f64]);
}

/// Row-major predictors in memory, `k` per document.
struct Stored<'a> {
    v: &'a [f64],
    k: usize,
}

impl Predictors for Stored<'_> {
    fn k(&self) -> usize {
        self.k
    }

    fn fill(&self, i: usize, out: &mut [f64]) {
        out.copy_from_slice(&self.v[i * self.k..(i + 1) * self.k]);
    }
}

/// The second stage's predictors, each feature's log odds above the prior, computed from the
/// training rows when read: the same values a stored `n x k` table of `f64` would hold (0.8 GB
/// at the MSLR-WEB10K shape), so the same fit.
struct LogOdds<'a> {
    train: &'a Dataset,
    first: &'a FirstStage,
}

impl Predictors for LogOdds<'_> {
    fn k(&self) -> usize {
        self.first.features.len()
    }

    fn fill(&self, i: usize, out: &mut [f64]) {
        let row = self.train.row(i);
        for (o, f) in out.iter_mut().zip(&self.first.features) {
            *o = f.log_odds(row[f.feature]) - self.first.prior;
        }
    }
}

/// Mean log loss of `s = theta_0 + sum_k theta_k v_k` over the predictors `v` with labels `y`,
/// plus `lambda/2 sum_{k >= 1} (theta_k - target)^2` (the intercept is free).
struct Logistic<'a, P> {
    v: P,
    y: &'a [bool],
    lambda: f64,
    target: f64,
    /// Scratch: `(1, v_i)`.
    row: Vec<f64>,
}

impl<'a, P: Predictors> Logistic<'a, P> {
    fn new(v: P, y: &'a [bool], lambda: f64, target: f64) -> Self {
        let k = v.k();
        Self { v, y, lambda, target, row: vec![1.0; k + 1] }
    }

    fn pull(&self, theta: &[f64]) -> f64 {
        let sq: f64 = theta[1..].iter().map(|t| (t - self.target) * (t - self.target)).sum();
        0.5 * self.lambda * sq
    }

    /// `theta_0 + theta . v_i`, with `v_i` read into the scratch row.
    fn margin(&mut self, theta: &[f64], i: usize) -> f64 {
        self.v.fill(i, &mut self.row[1..]);
        theta[0] + dot(&theta[1..], &self.row[1..])
    }
}

impl<P: Predictors> SmoothObjective for Logistic<'_, P> {
    fn value(&mut self, theta: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (i, &rel) in self.y.iter().enumerate() {
            let s = self.margin(theta, i);
            loss += if rel { logit_loss(s) } else { logit_loss(-s) };
        }
        loss / self.y.len() as f64 + self.pull(theta)
    }

    fn derivs(&mut self, theta: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
        let dim = self.row.len();
        g.iter_mut().for_each(|x| *x = 0.0);
        h.iter_mut().for_each(|x| *x = 0.0);
        let mut loss = 0.0;
        for (i, &rel) in self.y.iter().enumerate() {
            let s = self.margin(theta, i);
            // p - y with p = sigma(s) = sigma_neg(-s).
            let (l, resid) =
                if rel { (logit_loss(s), -sigma_neg(s)) } else { (logit_loss(-s), sigma_neg(-s)) };
            loss += l;
            for (gk, &x) in g.iter_mut().zip(&self.row) {
                *gk += resid * x;
            }
            let p = sigma_neg(-s);
            let weight = p * (1.0 - p);
            if weight != 0.0 {
                add_outer_lower(h, dim, weight, &self.row, &self.row);
            }
        }
        let n = self.y.len() as f64;
        for (a, gk) in g.iter_mut().enumerate() {
            *gk /= n;
            if a > 0 {
                *gk += self.lambda * (theta[a] - self.target);
            }
        }
        for a in 0..dim {
            for b in 0..=a {
                h[a * dim + b] /= n;
            }
            if a > 0 {
                h[a * dim + a] += self.lambda;
            }
        }
        loss / n + self.pull(theta)
    }
}

fn config() -> NewtonConfig {
    NewtonConfig { max_iter: MAX_ITER, tol: TOL, floor: PivotFloor::Largest(0.0), name: INFO.id }
}

impl FirstStage {
    /// Fits the first stage on `train` with relevance as its convention defines it, each slope
    /// with the ridge `ridge/2 b_k^2`.
    pub fn fit(train: &Dataset, ridge: f64) -> Result<Self> {
        let cfg = EvalConfig::of(train);
        let y: Vec<bool> = train.labels().iter().map(|&g| cfg.is_relevant(g)).collect();
        let relevant = y.iter().filter(|&&r| r).count();
        if relevant == 0 || relevant == y.len() {
            return Err(Error::fit(
                INFO.id,
                format!(
                    "{relevant} of {} training documents are relevant: logistic regression needs both classes",
                    y.len()
                ),
            ));
        }
        if train.features().iter().any(|x| !x.is_finite()) {
            return Err(Error::fit(INFO.id, "non-finite feature values"));
        }
        let prior = (relevant as f64 / (y.len() - relevant) as f64).ln();
        let n = y.len() as f64;
        let mut features = Vec::new();
        let mut z = vec![0.0; y.len()];
        for k in 0..train.n_features() {
            let mean = train.rows().map(|r| f64::from(r[k])).sum::<f64>() / n;
            let var = train.rows().map(|r| (f64::from(r[k]) - mean).powi(2)).sum::<f64>() / n;
            let sd = var.sqrt();
            if !(sd > 0.0 && sd.is_finite()) {
                continue;
            }
            for (zi, r) in z.iter_mut().zip(train.rows()) {
                *zi = (f64::from(r[k]) - mean) / sd;
            }
            let mut obj = Logistic::new(Stored { v: &z, k: 1 }, &y, ridge, 0.0);
            let out = newton::minimize(&mut obj, vec![prior, 0.0], &config())
                .map_err(|e| Error::fit(INFO.id, format!("first stage, feature {}: {e}", k + 1)))?;
            if !out.converged {
                log::warn!(
                    "slr: the first-stage regression of feature {} did not converge in {MAX_ITER} iterations \
                     (does it separate the classes? stage1_lambda > 0 keeps its slope finite)",
                    k + 1
                );
            }
            features.push(FeatureModel {
                feature: k,
                mean,
                sd,
                intercept: out.w[0],
                slope: out.w[1],
                converged: out.converged,
            });
        }
        if features.is_empty() {
            return Err(Error::fit(INFO.id, "every feature is constant on the training documents"));
        }
        Ok(Self { prior, features })
    }
}

impl Slr {
    /// The first stage of `train`, from its cache or fitted and stored there.
    fn first_stage(&self, train: &Dataset) -> Result<Arc<FirstStage>> {
        let key = format!(
            "slr first stage relevant_from={} stage1_lambda={:e}",
            EvalConfig::of(train).relevant_from,
            self.stage1_lambda
        );
        train.derived().get_or_try_insert(&key, || FirstStage::fit(train, self.stage1_lambda))
    }

    /// Fits and also returns diagnostics.
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let first = self.first_stage(train)?;
        let cfg = EvalConfig::of(train);
        let y: Vec<bool> = train.labels().iter().map(|&g| cfg.is_relevant(g)).collect();
        let k = first.features.len();
        let mut obj = Logistic::new(LogOdds { train, first: &first }, &y, self.lambda, 1.0);
        let mut start = vec![1.0; k + 1];
        start[0] = first.prior;
        let out = newton::minimize(&mut obj, start, &config())
            .map_err(|e| Error::fit(INFO.id, format!("second stage: {e}")))?;
        if !out.converged {
            log::warn!(
                "slr: the second stage did not converge in {MAX_ITER} iterations (lambda = {})",
                self.lambda
            );
        }
        let (c0, c) = (out.w[0], &out.w[1..]);
        let mut weights = vec![0.0; train.n_features()];
        let mut bias = c0;
        for (f, &ck) in first.features.iter().zip(c) {
            weights[f.feature] = ck * f.slope / f.sd;
            bias += ck * (f.intercept - first.prior - f.slope * f.mean / f.sd);
        }
        log::debug!(
            "slr: lambda {}, {k} features, second stage {} iterations, F {:.10e}",
            self.lambda,
            out.iterations,
            out.objective
        );
        let model = LinearModel::new(weights, bias);
        if !model.is_finite() {
            return Err(Error::fit(INFO.id, "the weights are not finite"));
        }
        let stats = FitStats {
            first,
            intercept: c0,
            coefficients: c.to_vec(),
            objective: out.objective,
            iterations: out.iterations,
            converged: out.converged,
        };
        Ok((model, stats))
    }
}

ltr_linear::learner_of_fit_with_stats!(Slr, prepare = first_stage);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{Learner, Ranker, Rng};
    use ltr_testkit::dataset;

    use super::*;

    /// A fit with the first stage at maximum likelihood.
    fn fit(lambda: f64, data: &Dataset) -> (LinearModel, FitStats) {
        SlrParams { lambda, stage1_lambda: 0.0 }.validate().unwrap().fit_with_stats(data).unwrap()
    }

    #[test]
    fn one_binary_feature_is_the_plain_logistic_regression_by_hand() {
        // x = 0: 1 relevant of 4; x = 1: 3 relevant of 4 (grades 1 and 2 are relevant).
        // A saturated model: the maximum-likelihood logistic regression logit = alpha + beta x
        // reproduces the observed log odds, alpha = ln(1/3), alpha + beta = ln 3, so
        // beta = 2 ln 3. SLR with one feature is that regression, whatever lambda.
        let x0 = [[0.0f32]; 4];
        let x1 = [[1.0f32]; 4];
        let data = dataset(1, &[(&[1, 0, 0, 0], &x0), (&[2, 1, 1, 0], &x1)]);
        let ln3 = 3f64.ln();
        for lambda in [1e-6, 1e-3, 1.0, 1e3] {
            let (m, s) = fit(lambda, &data);
            assert!((m.weights[0] - 2.0 * ln3).abs() < 1e-12, "{lambda}: {m:?}");
            assert!((m.bias + ln3).abs() < 1e-12, "{lambda}: {m:?}");
            assert!((s.coefficients[0] - 1.0).abs() < 1e-12 && s.intercept.abs() < 1e-12, "{s:?}");
            // Prior: 4 relevant of 8.
            assert_eq!(s.first.prior, 0.0);
            assert!((m.score_row(&[0.0]) - (1.0f64 / 3.0).ln()).abs() < 1e-12);
        }
    }

    /// Random queries with grades 0..3 and `d` features, feature 0 informative, feature 1 a
    /// noisy copy of 0, feature `d - 1` constant.
    fn random(seed: u64, d: usize) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
        for q in 0..10 {
            let n = 3 + (q * 7) % 13;
            let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
            let rows = labels
                .iter()
                .map(|&l| {
                    let base = rng.normal() + f64::from(l);
                    (0..d)
                        .map(|k| match k {
                            0 => base as f32,
                            1 => (base + 0.5 * rng.normal()) as f32,
                            k if k + 1 == d => 0.25,
                            _ => rng.normal() as f32,
                        })
                        .collect()
                })
                .collect();
            qs.push((labels, rows));
        }
        let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        dataset(d, &refs)
    }

    /// The gradient of the mean log loss of `logit = b + w.x` over the raw features.
    fn plain_gradient(data: &Dataset, w: &[f64], b: f64) -> Vec<f64> {
        let mut g = vec![0.0; w.len() + 1];
        for (row, &l) in data.rows().zip(data.labels()) {
            let p = 1.0 / (1.0 + (-(b + dot(w, row))).exp());
            let r = p - f64::from(u8::from(l >= 1));
            g[0] += r;
            for (gk, &x) in g[1..].iter_mut().zip(row) {
                *gk += r * f64::from(x);
            }
        }
        g.iter().map(|x| x / data.n_docs() as f64).collect()
    }

    #[test]
    fn each_stage_is_at_its_optimum() {
        let data = random(1, 4);
        let (m, s) = fit(0.05, &data);
        // The constant feature is left out, with weight 0.
        assert_eq!(s.first.features.len(), 3);
        assert_eq!(m.weights[3], 0.0);
        // Stage 1: each feature's model is the univariate MLE (its gradient vanishes).
        for f in &s.first.features {
            let (mut g0, mut g1) = (0.0, 0.0);
            for (row, &l) in data.rows().zip(data.labels()) {
                let z = (f64::from(row[f.feature]) - f.mean) / f.sd;
                let r = 1.0 / (1.0 + (-f.log_odds(row[f.feature])).exp()) - f64::from(u8::from(l >= 1));
                g0 += r;
                g1 += r * z;
            }
            assert!(g0.abs() < 1e-10 && g1.abs() < 1e-10, "feature {}: {g0:e} {g1:e}", f.feature);
        }
        // Stage 2: the collapsed model's gradient over the raw features is the pull's,
        // mapped through the first stage: d/dc_k = mean residual * u_k + lambda (c_k - 1) = 0.
        let mut grad_c = vec![0.0; s.coefficients.len()];
        for (row, &l) in data.rows().zip(data.labels()) {
            let r = 1.0 / (1.0 + (-m.score_row(row)).exp()) - f64::from(u8::from(l >= 1));
            for (gk, f) in grad_c.iter_mut().zip(&s.first.features) {
                *gk += r * (f.log_odds(row[f.feature]) - s.first.prior);
            }
        }
        for (gk, &ck) in grad_c.iter().zip(&s.coefficients) {
            let total = gk / data.n_docs() as f64 + 0.05 * (ck - 1.0);
            assert!(total.abs() < 1e-10, "{total:e}");
        }
        // The intercept is free: the mean residual vanishes.
        assert!(plain_gradient(&data, &m.weights, m.bias)[0].abs() < 1e-10);
    }

    #[test]
    fn lambda_moves_between_the_linked_dependence_sum_and_plain_logistic_regression() {
        let data = random(2, 4);
        // Large lambda: c_k -> 1, the weights are the first-stage slopes per raw unit.
        let (m, s) = fit(1e6, &data);
        for f in &s.first.features {
            let naive = f.slope / f.sd;
            assert!((m.weights[f.feature] - naive).abs() < 1e-4 * naive.abs(), "{m:?}");
        }
        // Small lambda: the full logistic regression's gradient nearly vanishes.
        let (m, _) = fit(1e-9, &data);
        let g = plain_gradient(&data, &m.weights, m.bias);
        assert!(g.iter().all(|x| x.abs() < 1e-7), "{g:?}");
        // Feature 0 carries the grade.
        assert!(m.weights[0] > 0.0);
    }

    #[test]
    fn errors_defaults_table_cache_and_determinism() {
        let x = [[0.0f32], [1.0]];
        let none = dataset(1, &[(&[0, 0], &x)]);
        let e = SlrParams::default().validate().unwrap().fit(&none, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("both classes"), "{e}");
        let constant = dataset(1, &[(&[1, 0], &[[2.0f32], [2.0]])]);
        let e = SlrParams::default().validate().unwrap().fit(&constant, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("constant"), "{e}");
        let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
        assert!(SlrParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
        for lambda in [0.0, -1.0, f64::NAN, 2e6] {
            let e = SlrParams { lambda, ..Default::default() }.validate().unwrap_err();
            assert!(e.to_string().contains("`lambda`"), "{e}");
        }
        let e = SlrParams { stage1_lambda: -1.0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("`stage1_lambda`"), "{e}");
        let readme = include_str!("../README.md");
        ltr_core::check_table::<SlrParams>().unwrap();
        ltr_core::check_readme::<SlrParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(SlrParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        let data = random(3, 3);
        let slr = SlrParams::default().validate().unwrap();
        slr.prepare(&data).unwrap();
        assert_eq!(data.derived().len(), 1);
        let a = slr.fit(&data, None, &mut Rng::new(1)).unwrap();
        SlrParams { lambda: 1.0, ..Default::default() }
            .validate()
            .unwrap()
            .fit(&data, None, &mut Rng::new(1))
            .unwrap();
        assert_eq!(data.derived().len(), 1, "one first stage for every lambda");
        assert_eq!(slr.fit(&data.clone(), None, &mut Rng::new(2)).unwrap(), a);
        let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
    }
}
