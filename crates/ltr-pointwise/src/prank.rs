//! PRank: perceptron ranking (Crammer & Singer, "Pranking with Ranking", NIPS 14, 2001).
//!
//! The model is one weight vector `w` and ordered thresholds `b_0 <= ... <= b_{k-2}` for `k`
//! ranks (grades `0..k`, `k - 1` the highest training grade). A document is predicted the
//! smallest rank `r` with `w.x - b_r < 0` (rank `k - 1` when there is none).
//!
//! Training is online over the training documents (queries pooled), one epoch being one
//! pass in a seeded random order. On a mistake (`predicted != y`) each threshold `r` with
//! `y_r (w.x - b_r) <= 0`, where `y_r = +1` if `y > r` else `-1`, is moved: `tau_r = y_r`,
//! `b_r -= tau_r`, and `w += (sum_r tau_r) x`. This update keeps the thresholds ordered
//! (Crammer & Singer, lemma 1; checked by a test).
//!
//! Averaging (default on): the model after `T` steps is the mean of the `T` states
//! `(w_t, b_t)` reached after every step since the start of training (the averaged perceptron
//! of Freund & Schapire 1999, applied to PRank as in Harrington, ICML 2003), computed in
//! `O(d)` per mistake from `(T + 1) theta_T - sum_u t_u delta_u`.
//!
//! Epoch selection: with a validation split the (averaged) model is evaluated on it after
//! every epoch and the best epoch is kept (the first one on ties); without one, the model after
//! `epochs` epochs is returned.
//!
//! Ranking score: `w.x`. Predicted ranks take only `k` values, so ranking by them would tie
//! most documents of a query and leave their order to the file; since the predicted rank is a
//! non-decreasing step function of `w.x` (the thresholds are ordered), ordering by `w.x`
//! never contradicts it and breaks those ties by the model's own confidence.
//! [`PrankModel::predict_rank`] gives the ordinal prediction.

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params, Ranker, Result, Rng,
    Validation, param_info,
};
use serde::{Deserialize, Serialize};

use ltr_linear::dot;
use ltr_linear::sgd::{self, Schedule};

/// Metadata for the comparison tables. Family: Regression, as ordinal regression (ordered
/// thresholds on a linear score; Liu 2011 files PRank under ordinal-regression pointwise
/// methods), learned by the perceptron's mistake-driven update.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 14.0 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "prank",
    name: "PRank",
    family: Family::Regression,
    year: 2001,
    loss: LossType::Pointwise,
    optimizer: "perceptron (online)",
    reference: "Crammer & Singer, Pranking with Ranking, NIPS 14, 2001",
    summary: "ordinal regression",
    small_settings: &["epochs=5"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(14.0, "just bench-budget 2026-11-23, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 30.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of PRank (spec keys `epochs`, `average`, `shuffle`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrankParams {
    /// Number of passes over the training documents, at least 1. With a validation split the
    /// best epoch (by the experiment's measure) is kept. Default `30`.
    pub epochs: usize,
    /// Return the averaged model (mean of the states after every step) rather than the last
    /// state. Default `true`.
    pub average: bool,
    /// Visit the documents in a new seeded random order each epoch (otherwise file order).
    /// Default `true`.
    pub shuffle: bool,
}

impl Default for PrankParams {
    fn default() -> Self {
        Self { epochs: 30, average: true, shuffle: true }
    }
}

impl Params for PrankParams {
    type Checked = Prank;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int(
            "epochs",
            1,
            10_000,
            "passes over the training documents; with vali the best epoch is kept",
        ),
        ParamInfo::flag("average", "return the averaged model (mean of the states after every step)"),
        ParamInfo::flag("shuffle", "visit the documents in a new seeded random order each epoch"),
    ];

    fn validate(&self) -> Result<Prank> {
        param_info(Self::TABLE, "epochs").check_int(self.epochs as u64)?;
        Ok(Prank { epochs: self.epochs, average: self.average, shuffle: self.shuffle })
    }
}

/// Validated PRank, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Prank {
    epochs: usize,
    average: bool,
    shuffle: bool,
}

/// The online state: current weights and thresholds, plus the sums that give the average.
#[derive(Debug, Clone)]
pub(crate) struct PrankState {
    pub(crate) w: Vec<f64>,
    pub(crate) b: Vec<f64>,
    /// `sum_u t_u * delta_w_u` over the updates so far.
    uw: Vec<f64>,
    /// `sum_u t_u * delta_b_u`.
    ub: Vec<f64>,
    /// Steps taken (documents visited).
    t: u64,
}

impl PrankState {
    pub(crate) fn new(n_features: usize, n_ranks: usize) -> Self {
        let k1 = n_ranks.saturating_sub(1);
        Self {
            w: vec![0.0; n_features],
            b: vec![0.0; k1],
            uw: vec![0.0; n_features],
            ub: vec![0.0; k1],
            t: 0,
        }
    }

    /// One online step on `(row, y)`; returns whether it was a mistake (and updated).
    pub(crate) fn step(&mut self, row: &[f32], y: usize) -> bool {
        self.t += 1;
        let s = dot(&self.w, row);
        if predict(&self.b, s) == y {
            return false;
        }
        let t = self.t as f64;
        let mut tau_sum = 0.0;
        for (r, (br, ubr)) in self.b.iter_mut().zip(&mut self.ub).enumerate() {
            let yr = if y > r { 1.0 } else { -1.0 };
            if yr * (s - *br) <= 0.0 {
                tau_sum += yr;
                *br -= yr;
                *ubr -= t * yr;
            }
        }
        if tau_sum != 0.0 {
            for ((wj, uj), &x) in self.w.iter_mut().zip(&mut self.uw).zip(row) {
                let delta = tau_sum * f64::from(x);
                *wj += delta;
                *uj += t * delta;
            }
        }
        true
    }

    /// The mean of the states after steps `1..=t`: `((t + 1) theta_t - U) / t`.
    pub(crate) fn averaged(&self) -> (Vec<f64>, Vec<f64>) {
        if self.t == 0 {
            return (self.w.clone(), self.b.clone());
        }
        let t = self.t as f64;
        let avg = |cur: &[f64], u: &[f64]| -> Vec<f64> {
            cur.iter().zip(u).map(|(c, u)| ((t + 1.0) * c - u) / t).collect()
        };
        (avg(&self.w, &self.uw), avg(&self.b, &self.ub))
    }

    fn model(&self, average: bool, epochs: usize) -> PrankModel {
        let (weights, thresholds) = if average { self.averaged() } else { (self.w.clone(), self.b.clone()) };
        PrankModel { weights, thresholds, epochs }
    }
}

/// The smallest rank `r` with `s - b_r < 0`, else the top rank.
#[inline]
fn predict(b: &[f64], s: f64) -> usize {
    b.iter().position(|&br| s - br < 0.0).unwrap_or(b.len())
}

impl Learner for Prank {
    type Model = PrankModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<PrankModel> {
        let n_ranks = usize::from(train.max_grade()) + 1;
        if train.n_docs() == 0 || n_ranks < 2 {
            return Err(Error::fit(INFO.id, "needs training documents with at least two different grades"));
        }
        let labels = train.labels();
        let mut state = PrankState::new(train.n_features(), n_ranks);
        let mut order: Vec<usize> = (0..train.n_docs()).collect();
        let outcome = sgd::run(
            INFO.id,
            Schedule::every_step(self.epochs),
            valid,
            &mut state,
            |state, epoch| {
                if self.shuffle {
                    rng.shuffle(&mut order);
                }
                let mut mistakes = 0usize;
                for &i in &order {
                    mistakes += usize::from(state.step(train.row(i), usize::from(labels[i])));
                }
                log::debug!("prank: epoch {epoch}: {mistakes} mistakes");
            },
            |state, epoch| state.model(self.average, epoch),
        )?;
        let model = outcome.model;
        if model.weights.iter().chain(&model.thresholds).any(|v| !v.is_finite()) {
            return Err(Error::fit(INFO.id, "the weights are not finite (non-finite feature values?)"));
        }
        Ok(model)
    }
}

/// A fitted PRank model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrankModel {
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The ordered thresholds `b_0 <= ... <= b_{k-2}`.
    pub thresholds: Vec<f64>,
    /// The number of epochs this model was trained for (the selected one with validation).
    pub epochs: usize,
}

impl PrankModel {
    /// The predicted grade: the smallest `r` with `w.x - b_r < 0`, else the top grade.
    pub fn predict_rank(&self, row: &[f32]) -> Grade {
        let r = predict(&self.thresholds, dot(&self.weights, row));
        Grade::try_from(r).unwrap_or(Grade::MAX)
    }
}

impl Ranker for PrankModel {
    fn n_features(&self) -> usize {
        self.weights.len()
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.weights.len())
    }

    /// `w.x`, which refines the predicted rank (see the module docs).
    fn score_row(&self, row: &[f32]) -> f64 {
        dot(&self.weights, row)
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Linear(self.weights.clone())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{DatasetBuilder, Measure};

    use super::*;

    #[test]
    fn one_update_by_hand() {
        // k = 3 ranks, w = 0, b = (0, 0). x = (1, 0), y = 2: s = 0, no r with 0 - 0 < 0 -> rank 2: right.
        let mut st = PrankState::new(2, 3);
        assert!(!st.step(&[1.0, 0.0], 2));
        // y = 0: predicted 2, mistake. y_r = (-1, -1); (s - b_r) y_r = 0 <= 0 for both: tau = (-1, -1).
        // w += -2 x = (-2, 0); b_r -= tau_r: b = (1, 1).
        assert!(st.step(&[1.0, 0.0], 0));
        assert_eq!(st.w, vec![-2.0, 0.0]);
        assert_eq!(st.b, vec![1.0, 1.0]);
        // Now s = -2 < b_0 = 1: rank 0, right.
        assert!(!st.step(&[1.0, 0.0], 0));
        // x = (0, 1), y = 1: s = 0 < b_0 = 1 -> rank 0, mistake. y_r = (+1, -1);
        // r = 0: (0 - 1) * 1 = -1 <= 0 -> tau_0 = 1; r = 1: (0 - 1) * -1 = 1 > 0 -> tau_1 = 0.
        // w += 1 * (0, 1) = (-2, 1); b = (0, 1).
        assert!(st.step(&[0.0, 1.0], 1));
        assert_eq!(st.w, vec![-2.0, 1.0]);
        assert_eq!(st.b, vec![0.0, 1.0]);
        // Average over the 4 states after each step: w: (0,0), (-2,0), (-2,0), (-2,1) -> (-1.5, 0.25);
        // b: (0,0), (1,1), (1,1), (0,1) -> (0.5, 0.75).
        let (w, b) = st.averaged();
        assert_eq!(w, vec![-1.5, 0.25]);
        assert_eq!(b, vec![0.5, 0.75]);
    }

    #[test]
    fn average_matches_the_naive_mean() {
        let mut rng = Rng::new(3);
        let mut st = PrankState::new(3, 4);
        let (mut sw, mut sb) = (vec![0.0; 3], vec![0.0; 3]);
        let steps = 500;
        for _ in 0..steps {
            let row: Vec<f32> = (0..3).map(|_| rng.uniform() as f32 - 0.5).collect();
            st.step(&row, rng.index(4));
            sw.iter_mut().zip(&st.w).for_each(|(s, w)| *s += w);
            sb.iter_mut().zip(&st.b).for_each(|(s, b)| *s += b);
        }
        let (w, b) = st.averaged();
        for (a, s) in w.iter().zip(&sw).chain(b.iter().zip(&sb)) {
            assert!((a - s / steps as f64).abs() < 1e-9, "{a} vs {}", s / steps as f64);
        }
    }

    /// Ordinal data separable by w* = (1, -2, 0.5) with thresholds (-0.5, 0.5, 1.5) and a
    /// margin of 0.1 around each threshold.
    fn separable(n: usize, seed: u64) -> (Vec<Vec<f32>>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let (w, b) = ([1.0, -2.0, 0.5], [-0.5, 0.5, 1.5]);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        while xs.len() < n {
            let x: Vec<f32> = (0..3).map(|_| (rng.uniform() * 4.0 - 2.0) as f32).collect();
            let s = dot(&w, &x);
            if b.iter().any(|&br| (s - br).abs() < 0.1) {
                continue;
            }
            ys.push(b.iter().position(|&br| s < br).unwrap_or(3));
            xs.push(x);
        }
        (xs, ys)
    }

    #[test]
    fn separable_data_reaches_zero_training_error_with_ordered_thresholds() {
        let (xs, ys) = separable(400, 11);
        let mut st = PrankState::new(3, 4);
        let mut rng = Rng::new(5);
        let mut order: Vec<usize> = (0..xs.len()).collect();
        let mut clean_epoch = None;
        for epoch in 0..1000 {
            rng.shuffle(&mut order);
            let mut mistakes = 0;
            for &i in &order {
                mistakes += usize::from(st.step(&xs[i], ys[i]));
                assert!(st.b.windows(2).all(|w| w[0] <= w[1]), "thresholds out of order: {:?}", st.b);
            }
            if mistakes == 0 {
                clean_epoch = Some(epoch);
                break;
            }
        }
        assert!(clean_epoch.is_some(), "no mistake-free epoch");
        // The final (non-averaged) model classifies every training document correctly.
        let m = st.model(false, 0);
        for (x, &y) in xs.iter().zip(&ys) {
            assert_eq!(usize::from(m.predict_rank(x)), y);
        }
        // The averaged thresholds are ordered too (a mean of ordered vectors).
        let (_, b) = st.averaged();
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
    }

    fn dataset(xs: &[Vec<f32>], ys: &[usize]) -> Dataset {
        let mut b = DatasetBuilder::new(xs[0].len());
        for (q, (chunk_x, chunk_y)) in xs.chunks(20).zip(ys.chunks(20)).enumerate() {
            b.start_query(&q.to_string());
            for (x, &y) in chunk_x.iter().zip(chunk_y) {
                b.push_doc(y as u8, x, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    #[test]
    fn fit_is_deterministic_and_round_trips() {
        let (xs, ys) = separable(200, 2);
        let d = dataset(&xs, &ys);
        let learner = PrankParams { epochs: 5, ..Default::default() }.validate().unwrap();
        let a = learner.fit(&d, None, &mut Rng::new(9)).unwrap();
        let b = learner.fit(&d, None, &mut Rng::new(9)).unwrap();
        assert_eq!(a, b);
        let back: PrankModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        let (sa, sb) = (a.score_vec(&d).unwrap(), back.score_vec(&d).unwrap());
        assert!(sa.iter().zip(&sb).all(|(x, y)| x.to_bits() == y.to_bits()));
        assert_eq!(a.epochs, 5);
    }

    /// A measure that prefers the epoch whose model puts weight 0 closest to a target, to
    /// check that the best epoch (not the last) is returned.
    #[derive(Debug)]
    struct Recorder(std::sync::Mutex<Vec<f64>>);
    impl Measure for Recorder {
        fn name(&self) -> String {
            "recorder".into()
        }
        fn mean(&self, _data: &Dataset, scores: &[f64]) -> Result<f64> {
            // Higher is better: the negative score of the first document.
            let v = -scores[0];
            self.0.lock().unwrap().push(v);
            Ok(v)
        }
    }

    #[test]
    fn validation_keeps_the_best_epoch() {
        let (xs, ys) = separable(200, 4);
        let d = dataset(&xs, &ys);
        let rec = Recorder(std::sync::Mutex::new(Vec::new()));
        let valid = Validation { data: &d, measure: &rec };
        let learner = PrankParams { epochs: 8, ..Default::default() }.validate().unwrap();
        let m = learner.fit(&d, Some(&valid), &mut Rng::new(1)).unwrap();
        let values = rec.0.lock().unwrap().clone();
        assert_eq!(values.len(), 8);
        let best = values.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let chosen = values.iter().position(|&v| v == best).unwrap() + 1;
        assert_eq!(m.epochs, chosen);
        assert_eq!(-m.score_row(d.row(0)), best);
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<PrankParams>().unwrap();
        ltr_core::check_readme::<PrankParams>(readme).unwrap();
        // Every parameter row of the README belongs to one of the crate's two algorithms.
        for row in ltr_core::readme_rows(readme) {
            let mut known = PrankParams::TABLE.iter().chain(crate::RegressionParams::TABLE);
            assert!(known.any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        assert!(PrankParams { epochs: 10_001, ..Default::default() }.validate().is_err());
    }

    #[test]
    fn params_and_degenerate_data() {
        assert_eq!(PrankParams::default(), PrankParams { epochs: 30, average: true, shuffle: true });
        let e = PrankParams { epochs: 0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("`epochs`"));
        let d = dataset(&[vec![1.0], vec![2.0]], &[0, 0]);
        assert!(PrankParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
    }
}
