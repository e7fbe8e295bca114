//! CRR, combined regression and ranking (D. Sculley, "Combined Regression and Ranking",
//! KDD 2010), trained by Pegasos stochastic gradient descent (Shalev-Shwartz, Singer & Srebro,
//! ICML 2007), as in Sculley's `sofia-ml`.
//!
//! # Objective
//!
//! ```text
//! min_w  alpha * L(w, D) + (1 - alpha) * L(w, P) + lambda/2 * |w|^2
//! ```
//!
//! `D` is the set of labelled training documents `(x, y)` and `P` the set of pairs of
//! documents of one query with different grades, taken as `(x_i - x_j, phi(y_i - y_j))` with the
//! higher grade first; each `L` is the mean loss over its set. Two variants ([`CrrLoss`]):
//!
//! * `linear`: `f(x) = w.x`, squared loss `1/2 (f(x) - t)^2`; targets `t = y` for documents and
//!   `t = y_i - y_j` for pairs.
//! * `logistic`: `f(x) = sigmoid(w.x)`, log loss; targets `t = y / max_grade` (the highest
//!   training grade, so `t` is in `[0, 1]`) for documents and `t = 1` (the sign of
//!   `y_i - y_j`, as a probability) for pairs.
//!
//! With `bias = true` a constant feature 1 is appended to every document (its weight is
//! regularised like the others, as `sofia-ml` does); it cancels in pair differences.
//!
//! # Optimisation
//!
//! Step `t = 1..=steps` draws `z` uniform in `[0, 1)`; if `z < alpha` it samples a training
//! document uniformly, otherwise a pair uniformly among all same-query pairs with different
//! grades (`O(1)`: see `src/sampler.rs`). With `eta_t = 1 / (lambda t)`
//! and `g` the loss gradient at the current `w`: `w <- (1 - eta_t lambda) w - eta_t g`, then,
//! with `project = true`, `w` is scaled back onto the ball `|w| <= 1/sqrt(lambda)` (Pegasos'
//! optional projection). The only randomness is the `Rng` given to `fit`.
//!
//! # Validation
//!
//! With a validation split, the model is evaluated at `checkpoints` evenly spaced step counts
//! (`steps * k / checkpoints`, `k = 1..=checkpoints`) and the best one is kept (the first on
//! ties), so the step count is selected on vali in one run. Without one, the model after
//! `steps` steps is returned.

mod sampler;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Ranker, Result, Rng,
    Validation, param_info,
};
use ltr_linear::sgd::{self, Schedule};
use ltr_linear::{LinearModel, dot};
use serde::{Deserialize, Serialize};

use crate::sampler::{Draw, Sampler};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 0.4 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `steps`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "crr",
    name: "CRR",
    family: Family::Regression,
    year: 2010,
    loss: LossType::Hybrid,
    optimizer: "SGD (Pegasos)",
    reference: "Sculley, Combined Regression and Ranking, KDD 2010",
    summary: "regression + pairwise SGD",
    small_settings: &["steps=2000"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(0.4, "just bench-budget 2026-11-23, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("steps", 100000.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// The loss pair of a CRR variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CrrLoss {
    /// Linear model, squared loss for documents and pairs.
    Linear,
    /// Logistic model, log loss for documents (targets `y / max_grade`) and pairs (target 1).
    Logistic,
}

/// Hyperparameters of CRR (spec keys `alpha`, `lambda`, `steps`, `loss`, `checkpoints`,
/// `bias`, `project`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrrParams {
    /// Weight of the regression loss, in `[0, 1]`: the probability that a step samples a single
    /// document rather than a pair. `1` is pure regression, `0` pure pairwise ranking.
    /// Default `0.5`.
    pub alpha: f64,
    /// L2 strength `lambda > 0` (also sets the Pegasos step size `1 / (lambda t)`).
    /// Default `1e-2`.
    pub lambda: f64,
    /// Number of SGD steps, at least 1. Default `100000`.
    pub steps: usize,
    /// The variant: `"linear"` or `"logistic"`. Default `"linear"`.
    pub loss: CrrLoss,
    /// With a validation split: how many evenly spaced step counts are evaluated (the best is
    /// kept), between 1 and `steps`. Default `10`.
    pub checkpoints: usize,
    /// Append a constant feature 1 (a regularised intercept). Default `true`.
    pub bias: bool,
    /// Project onto the ball `|w| <= 1/sqrt(lambda)` after every step. Default `true`.
    pub project: bool,
}

impl Default for CrrParams {
    fn default() -> Self {
        Self {
            alpha: 0.5,
            lambda: 1e-2,
            steps: 100_000,
            loss: CrrLoss::Linear,
            checkpoints: 10,
            bias: true,
            project: true,
        }
    }
}

impl Params for CrrParams {
    type Checked = Crr;

    /// `steps` is bounded so that a run stays within minutes: a step costs `O(d)`, about
    /// 0.3 microseconds on MQ2008's 46 features, so 1e8 steps take about 30 s there.
    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::real(
            "alpha",
            0.0,
            1.0,
            "weight of the regression loss: the share of steps on a document, not a pair",
        ),
        ParamInfo::positive(
            "lambda",
            0.0,
            1000.0,
            "L2 strength; also sets the Pegasos step size 1 / (lambda t)",
        ),
        ParamInfo::int("steps", 1, 100_000_000, "SGD steps"),
        ParamInfo::choice(
            "loss",
            &["linear", "logistic"],
            "linear (squared loss) or logistic (log loss) variant",
        ),
        ParamInfo::int(
            "checkpoints",
            1,
            10_000,
            "with vali: evenly spaced step counts evaluated (at most steps)",
        ),
        ParamInfo::flag("bias", "append a constant feature 1 (a regularised intercept)"),
        ParamInfo::flag("project", "project onto the ball |w| <= 1/sqrt(lambda) after every step"),
    ];

    fn validate(&self) -> Result<Crr> {
        let info = |key| param_info(Self::TABLE, key);
        info("alpha").check_real(self.alpha)?;
        info("lambda").check_real(self.lambda)?;
        info("steps").check_int(self.steps as u64)?;
        info("checkpoints").check_int(self.checkpoints as u64)?;
        if self.checkpoints > self.steps {
            return Err(Error::param("checkpoints", self.checkpoints, "must be between 1 and `steps`"));
        }
        Ok(Crr { params: self.clone() })
    }
}

/// Validated CRR, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Crr {
    params: CrrParams,
}

/// Counts of what the SGD steps worked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepCounts {
    /// Steps on a single document.
    pub examples: u64,
    /// Steps on a pair.
    pub pairs: u64,
}

/// The SGD state: the weights (with the bias last when enabled) and the loss targets.
#[derive(Debug, Clone)]
struct Trainer<'a> {
    data: &'a Dataset,
    loss: CrrLoss,
    lambda: f64,
    project: bool,
    /// `1 / sqrt(lambda)`.
    radius: f64,
    /// Divides grades into targets for the logistic document loss.
    grade_scale: f64,
    w: Vec<f64>,
    d: usize,
}

#[inline]
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The loss derivative with respect to the raw score `s` for target `t`.
#[inline]
fn dloss(loss: CrrLoss, s: f64, t: f64) -> f64 {
    match loss {
        CrrLoss::Linear => s - t,
        CrrLoss::Logistic => sigmoid(s) - t,
    }
}

impl<'a> Trainer<'a> {
    fn new(data: &'a Dataset, p: &CrrParams) -> Self {
        let d = data.n_features();
        let max_grade = f64::from(data.max_grade());
        Self {
            data,
            loss: p.loss,
            lambda: p.lambda,
            project: p.project,
            radius: 1.0 / p.lambda.sqrt(),
            grade_scale: if max_grade > 0.0 { 1.0 / max_grade } else { 0.0 },
            w: vec![0.0; d + usize::from(p.bias)],
            d,
        }
    }

    /// Step `t` (1-based) on `draw`.
    #[inline]
    fn step(&mut self, t: u64, draw: Draw) {
        let eta = 1.0 / (self.lambda * t as f64);
        let shrink = 1.0 - eta * self.lambda;
        let d = self.d;
        let mut norm2 = 0.0;
        match draw {
            Draw::Example(i) => {
                let x = self.data.row(i);
                let y = f64::from(self.data.labels()[i]);
                let target = match self.loss {
                    CrrLoss::Linear => y,
                    CrrLoss::Logistic => y * self.grade_scale,
                };
                let (wx, wb) = self.w.split_at_mut(d);
                let mut s = dot(wx, x);
                if let Some(b) = wb.first() {
                    s += b;
                }
                let c = eta * dloss(self.loss, s, target);
                for (w, &v) in wx.iter_mut().zip(x) {
                    *w = shrink * *w - c * f64::from(v);
                    norm2 += *w * *w;
                }
                if let Some(b) = wb.first_mut() {
                    *b = shrink * *b - c;
                    norm2 += *b * *b;
                }
            }
            Draw::Pair(i, j) => {
                let (xi, xj) = (self.data.row(i), self.data.row(j));
                let labels = self.data.labels();
                let target = match self.loss {
                    CrrLoss::Linear => f64::from(labels[i]) - f64::from(labels[j]),
                    CrrLoss::Logistic => 1.0,
                };
                let (wx, wb) = self.w.split_at_mut(d);
                let s: f64 = wx
                    .iter()
                    .zip(xi.iter().zip(xj))
                    .map(|(w, (&a, &b))| w * (f64::from(a) - f64::from(b)))
                    .sum();
                let c = eta * dloss(self.loss, s, target);
                for (w, (&a, &b)) in wx.iter_mut().zip(xi.iter().zip(xj)) {
                    *w = shrink * *w - c * (f64::from(a) - f64::from(b));
                    norm2 += *w * *w;
                }
                if let Some(b) = wb.first_mut() {
                    *b *= shrink;
                    norm2 += *b * *b;
                }
            }
        }
        if self.project && norm2 > self.radius * self.radius {
            let f = self.radius / norm2.sqrt();
            self.w.iter_mut().for_each(|w| *w *= f);
        }
    }

    fn model(&self, steps: usize) -> CrrModel {
        CrrModel {
            linear: LinearModel::new(self.w[..self.d].to_vec(), self.w.get(self.d).copied().unwrap_or(0.0)),
            loss: self.loss,
            steps,
        }
    }
}

impl Crr {
    /// Runs the SGD and also reports how many steps took documents and pairs.
    pub fn fit_with_counts(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(CrrModel, StepCounts)> {
        let p = &self.params;
        let sampler = Sampler::new(train);
        if p.alpha > 0.0 && sampler.n_docs() == 0 {
            return Err(Error::fit(INFO.id, "the training set has no documents"));
        }
        if p.alpha < 1.0 && sampler.n_pairs() == 0 {
            return Err(Error::fit(
                INFO.id,
                "no training query has documents with different grades (no pairs); use alpha = 1",
            ));
        }
        let mut trainer = Trainer::new(train, p);
        let mut counts = StepCounts::default();
        let outcome = sgd::run(
            INFO.id,
            Schedule::new(p.steps, p.checkpoints),
            valid,
            &mut trainer,
            |trainer, t| {
                let draw = if rng.uniform() < p.alpha {
                    counts.examples += 1;
                    Draw::Example(sampler.example(rng))
                } else {
                    counts.pairs += 1;
                    let (i, j) = sampler.pair(rng);
                    Draw::Pair(i, j)
                };
                trainer.step(t as u64, draw);
            },
            |trainer, t| trainer.model(t),
        )?;
        let model = outcome.model;
        if !model.linear.is_finite() {
            return Err(Error::fit(INFO.id, "the weights are not finite (non-finite feature values?)"));
        }
        Ok((model, counts))
    }
}

impl Learner for Crr {
    type Model = CrrModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<CrrModel> {
        self.fit_with_counts(train, valid, rng).map(|(m, _)| m)
    }
}

/// A fitted CRR model: `s = weights.x + bias`; the score is `s` (linear) or `sigmoid(s)`
/// (logistic, in `(0, 1)` as long as `|s|` stays below about 36, where `f64` rounds it to 0
/// or 1). Serialised flat: `{"weights": [...], "bias": b, "loss": ..., "steps": ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrrModel {
    /// One weight per feature, and the weight of the constant feature as the bias (0 without
    /// `bias`).
    #[serde(flatten)]
    pub linear: LinearModel,
    /// The variant, which fixes the output link.
    pub loss: CrrLoss,
    /// The number of SGD steps this model was taken after (the selected checkpoint with
    /// validation).
    pub steps: usize,
}

impl Ranker for CrrModel {
    fn n_features(&self) -> usize {
        self.linear.n_features()
    }

    fn check(&self) -> Result<()> {
        self.linear.check()
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        // The same sum as the SGD steps take: `w.x`, then the bias.
        let s = self.linear.score_row(row);
        match self.loss {
            CrrLoss::Linear => s,
            CrrLoss::Logistic => sigmoid(s),
        }
    }

    /// The weights of `w.x` (the logistic link keeps the order of the documents).
    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        self.linear.feature_weights()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::DatasetBuilder;

    use super::*;

    fn toy() -> Dataset {
        // Query 1: grades 2, 0, 1; query 2: grades 1, 0; one feature plus a second at 0.
        let mut b = DatasetBuilder::new(2);
        b.start_query("1");
        b.push_doc(2, &[1.0, 0.0], None).unwrap();
        b.push_doc(0, &[0.0, 0.0], None).unwrap();
        b.push_doc(1, &[0.5, 0.0], None).unwrap();
        b.start_query("2");
        b.push_doc(1, &[0.25, 1.0], None).unwrap();
        b.push_doc(0, &[0.0, 1.0], None).unwrap();
        b.finish().unwrap()
    }

    fn params(loss: CrrLoss, lambda: f64, bias: bool, project: bool) -> CrrParams {
        CrrParams { loss, lambda, bias, project, ..Default::default() }
    }

    #[test]
    fn pegasos_steps_by_hand() {
        let d = toy();
        // Linear, lambda = 1, no bias, no projection. Document 0: x = (1, 0), y = 2.
        let mut tr = Trainer::new(&d, &params(CrrLoss::Linear, 1.0, false, false));
        // t = 1: eta = 1, shrink 0; s = 0, g = s - y = -2: w = 0 - 1 * (-2) x = (2, 0).
        tr.step(1, Draw::Example(0));
        assert_eq!(tr.w, vec![2.0, 0.0]);
        // t = 2: eta = 1/2, shrink 1/2; s = 2, g = 0: w = (1, 0).
        tr.step(2, Draw::Example(0));
        assert_eq!(tr.w, vec![1.0, 0.0]);
        // t = 3: pair (0, 1): x0 - x1 = (1, 0), target 2 - 0 = 2; s = 1, g = -1; eta = 1/3,
        // shrink 2/3: w = 2/3 (1, 0) + 1/3 (1, 0) = (1, 0).
        tr.step(3, Draw::Pair(0, 1));
        assert!((tr.w[0] - 1.0).abs() < 1e-15 && tr.w[1] == 0.0, "{:?}", tr.w);
        // t = 4: document 3: x = (0.25, 1), y = 1; s = 0.25, g = -0.75; eta = 1/4, shrink 3/4:
        // w = (0.75, 0) + 0.1875 (0.25, 1) = (0.796875, 0.1875).
        tr.step(4, Draw::Example(3));
        assert!((tr.w[0] - 0.796875).abs() < 1e-15 && (tr.w[1] - 0.1875).abs() < 1e-15, "{:?}", tr.w);
    }

    #[test]
    fn projection_and_bias_by_hand() {
        let d = toy();
        // Linear, lambda = 1 (radius 1), bias, projection. t = 1 on document 0 (y = 2):
        // w = 2 (x, 1) = (2, 0, 2), |w| = 2 sqrt 2 > 1 -> w / (2 sqrt 2) = (1/sqrt2, 0, 1/sqrt2).
        let mut tr = Trainer::new(&d, &params(CrrLoss::Linear, 1.0, true, true));
        tr.step(1, Draw::Example(0));
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((tr.w[0] - h).abs() < 1e-15 && tr.w[1] == 0.0 && (tr.w[2] - h).abs() < 1e-15, "{:?}", tr.w);
        // A pair leaves the bias to shrink only: t = 2, pair (3, 4): diff (0.25, 0), target 1;
        // s = 0.25 h, g = 0.25 h - 1; eta = 1/2, shrink 1/2:
        // w0 = h/2 - (0.25 h - 1)/2 * 0.25, bias = h/2; norm < 1, no projection.
        tr.step(2, Draw::Pair(3, 4));
        let w0 = h / 2.0 - (0.25 * h - 1.0) / 2.0 * 0.25;
        assert!((tr.w[0] - w0).abs() < 1e-15 && (tr.w[2] - h / 2.0).abs() < 1e-15, "{:?}", tr.w);
    }

    #[test]
    fn logistic_step_by_hand() {
        let d = toy();
        // Logistic, lambda = 1, no bias. t = 1 on document 2 (y = 1, max grade 2: target 0.5):
        // s = 0, sigmoid 0.5, g = 0: w stays 0. t = 2 on pair (0, 1): diff (1, 0), target 1:
        // g = 0.5 - 1 = -0.5, eta = 1/2: w = 0.25 (1, 0).
        let mut tr = Trainer::new(&d, &params(CrrLoss::Logistic, 1.0, false, false));
        tr.step(1, Draw::Example(2));
        assert_eq!(tr.w, vec![0.0, 0.0]);
        tr.step(2, Draw::Pair(0, 1));
        assert_eq!(tr.w, vec![0.25, 0.0]);
    }

    #[test]
    fn alpha_one_draws_only_documents_and_alpha_zero_only_pairs() {
        let d = toy();
        for (alpha, examples, pairs) in [(1.0, 5000, 0), (0.0, 0, 5000)] {
            let p = CrrParams { alpha, steps: 5000, ..Default::default() };
            let (_, counts) = p.validate().unwrap().fit_with_counts(&d, None, &mut Rng::new(3)).unwrap();
            assert_eq!(counts, StepCounts { examples, pairs });
        }
        let p = CrrParams { alpha: 0.3, steps: 10_000, ..Default::default() };
        let (_, counts) = p.validate().unwrap().fit_with_counts(&d, None, &mut Rng::new(3)).unwrap();
        assert!((2700..3300).contains(&counts.examples), "{counts:?}");
    }

    #[test]
    fn logistic_scores_stay_in_the_unit_interval() {
        let d = toy();
        for alpha in [0.0, 0.5, 1.0] {
            let p = CrrParams {
                alpha,
                loss: CrrLoss::Logistic,
                lambda: 0.01,
                steps: 20_000,
                ..Default::default()
            };
            let m = p.validate().unwrap().fit(&d, None, &mut Rng::new(8)).unwrap();
            let scores = m.score_vec(&d).unwrap();
            assert!(scores.iter().all(|&s| s > 0.0 && s < 1.0), "{scores:?}");
            // The ranking is right on this separable toy: grade 2 > 1 > 0 in query 1.
            assert!(scores[0] > scores[2] && scores[2] > scores[1], "{scores:?}");
        }
    }

    #[test]
    fn deterministic_round_trip_and_projection_bound() {
        let d = toy();
        let p = CrrParams { lambda: 0.1, steps: 3000, ..Default::default() };
        let learner = p.validate().unwrap();
        let a = learner.fit(&d, None, &mut Rng::new(1)).unwrap();
        assert_eq!(a, learner.fit(&d, None, &mut Rng::new(1)).unwrap());
        assert_ne!(a, learner.fit(&d, None, &mut Rng::new(2)).unwrap());
        let norm2: f64 = dot(&a.linear.weights, &a.linear.weights) + a.linear.bias * a.linear.bias;
        assert!(norm2 <= 10.0 * (1.0 + 1e-12));
        let back: CrrModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        let (sa, sb) = (a.score_vec(&d).unwrap(), back.score_vec(&d).unwrap());
        assert!(sa.iter().zip(&sb).all(|(x, y)| x.to_bits() == y.to_bits()));
    }

    #[test]
    fn params_are_checked() {
        assert_eq!(
            CrrParams::default(),
            CrrParams {
                alpha: 0.5,
                lambda: 1e-2,
                steps: 100_000,
                loss: CrrLoss::Linear,
                checkpoints: 10,
                bias: true,
                project: true
            }
        );
        for (p, key) in [
            (CrrParams { alpha: 1.5, ..Default::default() }, "`alpha`"),
            (CrrParams { alpha: f64::NAN, ..Default::default() }, "`alpha`"),
            (CrrParams { lambda: 0.0, ..Default::default() }, "`lambda`"),
            (CrrParams { steps: 0, ..Default::default() }, "`steps`"),
            (CrrParams { checkpoints: 0, ..Default::default() }, "`checkpoints`"),
            (CrrParams { steps: 5, checkpoints: 6, ..Default::default() }, "`checkpoints`"),
        ] {
            assert!(p.validate().unwrap_err().to_string().contains(key), "{p:?}");
        }
        let p: CrrParams = serde_json::from_str(r#"{"loss": "logistic", "alpha": 0}"#).unwrap();
        assert_eq!(p.loss, CrrLoss::Logistic);
        assert!(serde_json::from_str::<CrrParams>(r#"{"loss": "hinge"}"#).is_err());
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<CrrParams>().unwrap();
        ltr_core::check_readme::<CrrParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(CrrParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        let e = CrrParams { steps: 1_000_000_000_000, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("`steps`"), "{e}");
    }

    #[test]
    fn the_model_json_is_flat() {
        let m = CrrModel { linear: LinearModel::new(vec![0.5], -1.0), loss: CrrLoss::Logistic, steps: 7 };
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"weights":[0.5],"bias":-1.0,"loss":"logistic","steps":7}"#);
        assert_eq!(serde_json::from_str::<CrrModel>(&json).unwrap(), m);
    }

    #[test]
    fn non_finite_features_are_an_error() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[f32::INFINITY], None).unwrap();
        b.push_doc(0, &[0.0], None).unwrap();
        let d = b.finish().unwrap();
        let p = CrrParams { steps: 100, project: false, ..Default::default() };
        assert!(p.validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
    }

    #[test]
    fn no_pairs_needs_alpha_one() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[1.0], None).unwrap();
        b.push_doc(1, &[0.0], None).unwrap();
        let d = b.finish().unwrap();
        let e = CrrParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("alpha = 1"), "{e}");
        assert!(
            CrrParams { alpha: 1.0, steps: 10, ..Default::default() }
                .validate()
                .unwrap()
                .fit(&d, None, &mut Rng::new(0))
                .is_ok()
        );
    }
}
