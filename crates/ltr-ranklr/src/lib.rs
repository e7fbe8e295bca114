//! RankLR, ranking logistic regression (R. Yan & A. G. Hauptmann, "Efficient margin-based rank
//! learning algorithms for information retrieval", CIVR 2006; survey 23.36): the
//! margin-based pairwise framework with the logit loss `L(m) = ln(1 + e^{-m})` and an L2
//! regulariser, for a linear ranking function `f(x) = w.x`.
//!
//! # Objective
//!
//! ```text
//! pairs = "all":          F(w) = 1/2 |w|^2 + (c / Q) sum_q sum_{(i,j): y_i > y_j} L(w.x_i - w.x_j)
//! pairs = "approximate":  F(w) = 1/2 |w|^2 + (c / Q) sum_q [ sum_i n_lo(i) L(u_i) + sum_i n_hi(i) L(-u_i) ]
//!                         u_i = w.(x_i - b)
//! ```
//!
//! `Q` counts every training query; the pairs are all pairs of one query with different grades
//! (the survey's `D+ x D-`, generalised to graded relevance); `c` has RankSVM's scale. The
//! `"approximate"` objective is the paper's linear-cost upper bound of the pairwise risk:
//! each document enters once, weighted by its number of lower-graded (`n_lo`) and
//! higher-graded (`n_hi`) partners in its query, on features shifted by the bias `b`, the
//! per-feature weighted median that minimises the gap between the bound and its lower
//! counterpart (survey eqs. 23.138, 23.145-23.148). `b` cancels in the ranking: the model
//! scores `w.x` either way.
//!
//! # Optimisation
//!
//! Both objectives are smooth and strictly convex. Newton's method from `w = 0`: the `d x d`
//! Hessian (`I` plus the loss part) is factored by Cholesky (`ltr_linear::cholesky`), the step
//! `delta = -H^{-1} g` is taken with backtracking (Armijo, factor 1/2), and training stops when
//! the Newton decrement `-g.delta` falls below `tol * F(w)` or after `max_iter` iterations.
//! The pairs are never materialised: with `"all"`, each evaluation visits each pair once as a
//! pair of scores and aggregates it into per-document coefficients (`O(P + n d)` for the loss,
//! `O(P d + n d^2)` with the derivatives, `P` pairs); `"approximate"` costs `O(n d^2)`. No
//! randomness; the validation split is not used (`c` is chosen by the harness grid).

mod objective;

use ltr_core::{AlgorithmInfo, Dataset, Error, Family, LossType, ParamInfo, Params, Result, param_info};
use ltr_linear::newton::{self, NewtonConfig, SmoothObjective};
use ltr_linear::{LinearModel, PivotFloor, dot};
use serde::{Deserialize, Serialize};

use crate::objective::{AllPairs, Approximate, Objective};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 38.5 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ranklr",
    name: "RankLR",
    family: Family::Regression,
    year: 2006,
    loss: LossType::Pairwise,
    optimizer: "Newton (Cholesky) on aggregated pair sums",
    reference: "Yan & Hauptmann, Efficient margin-based rank learning algorithms for information \
                retrieval, CIVR 2006",
    summary: "pairwise logistic regression",
    cost: Some(ltr_core::FitCost::mslr_web10k(38.5, "just bench-budget 2026-11-23, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Which pairwise risk is minimised, spec key `pairs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pairs {
    /// `"all"`: the exact risk over all pairs (aggregated per document, never materialised).
    /// The default.
    #[default]
    All,
    /// `"approximate"`: the paper's linear-cost upper bound on biased features.
    Approximate,
}

/// Hyperparameters of RankLR (spec keys `c`, `pairs`, `max_iter`, `tol`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankLrParams {
    /// Trade-off `c > 0` in `1/2 |w|^2 + (c/Q) sum_pairs L`, RankSVM's scale. Default `1`
    /// (LIBLINEAR's default `C` for logistic regression).
    pub c: f64,
    /// `"all"` (default) or `"approximate"`.
    pub pairs: Pairs,
    /// Maximum Newton iterations, at least 1. Default `50`.
    pub max_iter: usize,
    /// Stop when the Newton decrement `-g.delta` is below `tol * F(w)`; `> 0`. Default `1e-8`.
    pub tol: f64,
}

impl Default for RankLrParams {
    fn default() -> Self {
        Self { c: 1.0, pairs: Pairs::All, max_iter: 50, tol: 1e-8 }
    }
}

impl Params for RankLrParams {
    type Checked = RankLr;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive(
            "c",
            0.0,
            1e6,
            "trade-off in 1/2 |w|^2 + (c/Q) sum_pairs logit loss (RankSVM's scale)",
        ),
        ParamInfo::choice(
            "pairs",
            &["all", "approximate"],
            "the exact pairwise risk (all) or the paper's linear-cost bound (approximate)",
        ),
        ParamInfo::int("max_iter", 1, 10_000, "maximum Newton iterations"),
        ParamInfo::positive("tol", 0.0, 1.0, "stop when the Newton decrement is below tol * F(w)"),
    ];

    fn validate(&self) -> Result<RankLr> {
        let info = |key| param_info(Self::TABLE, key);
        info("c").check_real(self.c)?;
        info("max_iter").check_int(self.max_iter as u64)?;
        info("tol").check_real(self.tol)?;
        Ok(RankLr { params: self.clone() })
    }
}

/// Validated RankLR, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct RankLr {
    params: RankLrParams,
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitStats {
    /// Final objective `F(w)`.
    pub objective: f64,
    /// Newton iterations taken.
    pub iterations: usize,
    /// Whether the stopping rule was met within `max_iter`.
    pub converged: bool,
    /// Number of pairs of the training set.
    pub pairs: u64,
    /// `"approximate"`: the bias `b` (empty with `"all"`).
    pub bias: Vec<f64>,
}

/// `1/2 |w|^2 + coef R(w)` for a loss term `R`.
struct Regularised<'o> {
    obj: &'o mut dyn Objective,
    coef: f64,
}

impl SmoothObjective for Regularised<'_> {
    fn value(&mut self, w: &[f64]) -> f64 {
        0.5 * dot(w, w) + self.coef * self.obj.eval(w, None)
    }

    fn derivs(&mut self, w: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
        let (d, coef) = (w.len(), self.coef);
        let f = 0.5 * dot(w, w) + coef * self.obj.eval(w, Some((&mut *g, &mut *h)));
        for (gk, &wk) in g.iter_mut().zip(w) {
            *gk = wk + coef * *gk;
        }
        for a in 0..d {
            for b in 0..=a {
                h[a * d + b] *= coef;
            }
            h[a * d + a] += 1.0;
        }
        f
    }
}

/// Damped Newton on `1/2 |w|^2 + coef R(w)` from `w = 0`.
fn newton(
    obj: &mut dyn Objective,
    d: usize,
    coef: f64,
    max_iter: usize,
    tol: f64,
) -> Result<(Vec<f64>, f64, usize, bool)> {
    // H >= I: a failing pivot means non-finite entries.
    let config = NewtonConfig { max_iter, tol, floor: PivotFloor::Largest(0.0), name: INFO.id };
    let out = newton::minimize(&mut Regularised { obj, coef }, vec![0.0; d], &config)
        .map_err(|e| Error::fit(INFO.id, e.to_string()))?;
    Ok((out.w, out.objective, out.iterations, out.converged))
}

impl RankLr {
    /// Fits and also returns diagnostics.
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let p = &self.params;
        let no_pairs = || {
            Error::fit(INFO.id, "no training query has documents with different grades: there are no pairs")
        };
        let d = train.n_features();
        let coef = p.c / train.n_queries() as f64;
        let all = AllPairs::new(train).ok_or_else(no_pairs)?;
        if all.docs().any(|i| train.row(i).iter().any(|x| !x.is_finite())) {
            return Err(Error::fit(INFO.id, "non-finite feature values"));
        }
        let pairs = all.n_pairs();
        let (solution, bias) = match p.pairs {
            Pairs::All => {
                let mut obj = all;
                (newton(&mut obj, d, coef, p.max_iter, p.tol)?, Vec::new())
            }
            Pairs::Approximate => {
                let mut obj = Approximate::new(train).ok_or_else(no_pairs)?;
                let s = newton(&mut obj, d, coef, p.max_iter, p.tol)?;
                (s, obj.bias)
            }
        };
        let (w, objective, iterations, converged) = solution;
        if !converged {
            log::warn!(
                "ranklr: not converged after {iterations} Newton iterations (c = {}, F = {objective:.6e})",
                p.c
            );
        }
        log::debug!(
            "ranklr ({:?}): c {}, {pairs} pairs, {iterations} iterations, F {objective:.10e}",
            p.pairs,
            p.c
        );
        let model = LinearModel::new(w, 0.0);
        if !model.is_finite() {
            return Err(Error::fit(INFO.id, "the weights are not finite"));
        }
        Ok((model, FitStats { objective, iterations, converged, pairs, bias }))
    }
}

ltr_linear::learner_of_fit_with_stats!(RankLr);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{Learner, Ranker, Rng};
    use ltr_testkit::dataset;

    use ltr_linear::newton::{logit_loss, sigma_neg};

    use super::objective::weighted_median;
    use super::*;

    fn fit(c: f64, pairs: Pairs, data: &Dataset) -> (LinearModel, FitStats) {
        RankLrParams { c, pairs, tol: 1e-30, ..Default::default() }
            .validate()
            .unwrap()
            .fit_with_stats(data)
            .unwrap()
    }

    #[test]
    fn one_pair_by_hand() {
        // One query, x = 1 (grade 1) vs 0 (grade 0), Q = 1: F(w) = w^2/2 + c ln(1 + e^{-w}).
        // F'(w) = w - c / (1 + e^w) = 0. With c = 1 + e: w = 1 (1 - (1 + e)/(1 + e) = 0).
        let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
        let c = 1.0 + std::f64::consts::E;
        let (m, s) = fit(c, Pairs::All, &data);
        assert!((m.weights[0] - 1.0).abs() < 1e-12, "{m:?}");
        assert!(s.converged && s.pairs == 1);
        let f = 0.5 + c * (1.0 + (-1.0f64).exp()).ln();
        assert!((s.objective - f).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn approximate_by_hand() {
        // One query, grades [1, 0] at x = [1, 0]: n_lo = (1, 0), n_hi = (0, 1), weights 1 and
        // 1, weighted median of {0, 1} with equal weights: 0 (the first value reaching half).
        // R2 = L(w (1 - 0)) + L(-w (0 - 0)) = L(w) + ln 2: the same minimiser as one pair.
        let data = dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]])]);
        let c = 1.0 + std::f64::consts::E;
        let (m, s) = fit(c, Pairs::Approximate, &data);
        assert_eq!(s.bias, vec![0.0]);
        assert!((m.weights[0] - 1.0).abs() < 1e-12, "{m:?}");
        let f = 0.5 + c * ((1.0 + (-1.0f64).exp()).ln() + std::f64::consts::LN_2);
        assert!((s.objective - f).abs() < 1e-12, "{s:?}");
        assert_eq!(weighted_median(&[3.0, 1.0, 2.0], &[1.0, 1.0, 1.0]), 2.0);
        assert_eq!(weighted_median(&[3.0, 1.0, 2.0], &[5.0, 1.0, 1.0]), 3.0);
        assert_eq!(weighted_median(&[0.0, 1.0], &[1.0, 1.0]), 0.0);
    }

    /// Random queries with grades 0..3 and `d` features.
    fn random(seed: u64, d: usize) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
        for q in 0..9 {
            let n = 2 + (q * 7) % 13;
            let labels: Vec<u8> = (0..n).map(|_| rng.below(3) as u8).collect();
            let rows = labels
                .iter()
                .map(|&l| {
                    (0..d).map(|k| (rng.normal() + if k == 0 { f64::from(l) } else { 0.0 }) as f32).collect()
                })
                .collect();
            qs.push((labels, rows));
        }
        let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        dataset(d, &refs)
    }

    /// `F` and its gradient over explicitly enumerated pairs.
    fn brute(data: &Dataset, c: f64, w: &[f64]) -> (f64, Vec<f64>) {
        let coef = c / data.n_queries() as f64;
        let (mut f, mut g) = (0.5 * dot(w, w), w.to_vec());
        for q in data.queries() {
            for i in q.range() {
                for j in q.range() {
                    if data.labels()[i] > data.labels()[j] {
                        let diff: Vec<f64> = data
                            .row(i)
                            .iter()
                            .zip(data.row(j))
                            .map(|(&a, &b)| f64::from(a) - f64::from(b))
                            .collect();
                        let m = dot(w, &diff);
                        f += coef * logit_loss(m);
                        let s = sigma_neg(m);
                        g.iter_mut().zip(&diff).for_each(|(g, x)| *g -= coef * s * x);
                    }
                }
            }
        }
        (f, g)
    }

    #[test]
    fn the_solution_is_the_stationary_point_of_the_all_pairs_objective() {
        for (seed, c) in [(1, 0.1), (2, 3.0), (3, 100.0)] {
            let data = random(seed, 4);
            let (m, s) = fit(c, Pairs::All, &data);
            let (f, g) = brute(&data, c, &m.weights);
            assert!((f - s.objective).abs() <= 1e-12 * f, "{f} vs {}", s.objective);
            let gn = dot(&g, &g).sqrt();
            assert!(gn < 1e-9, "seed {seed}: gradient {gn:e} at {m:?}");
            assert!(s.converged && s.iterations < 20, "{s:?}");
            // Feature 0 carries the grade.
            assert!(m.weights[0] > 0.0);
        }
    }

    #[test]
    fn gradient_and_hessian_match_finite_differences() {
        let data = random(4, 3);
        let d = 3;
        let w = [0.3, -0.2, 0.5];
        let check = |obj: &mut dyn Objective| {
            let (mut g, mut h) = (vec![0.0; d], vec![0.0; d * d]);
            obj.eval(&w, Some((&mut g, &mut h)));
            let eps = 1e-5;
            for k in 0..d {
                let (mut up, mut dn) = (w.to_vec(), w.to_vec());
                up[k] += eps;
                dn[k] -= eps;
                let fd = (obj.eval(&up, None) - obj.eval(&dn, None)) / (2.0 * eps);
                assert!((fd - g[k]).abs() < 1e-6 * g[k].abs().max(1.0), "g[{k}] {} vs {fd}", g[k]);
                let (mut gu, mut gd, mut hh) = (vec![0.0; d], vec![0.0; d], vec![0.0; d * d]);
                obj.eval(&up, Some((&mut gu, &mut hh)));
                obj.eval(&dn, Some((&mut gd, &mut hh)));
                for a in k..d {
                    let fd = (gu[a] - gd[a]) / (2.0 * eps);
                    assert!(
                        (fd - h[a * d + k]).abs() < 1e-6 * fd.abs().max(1.0),
                        "h[{a}][{k}] {} vs {fd}",
                        h[a * d + k]
                    );
                }
            }
        };
        check(&mut AllPairs::new(&data).unwrap());
        check(&mut Approximate::new(&data).unwrap());
    }

    #[test]
    fn the_bound_lies_above_the_pairwise_risk() {
        // R1 <= R2 at any w (the survey's theorem 23.4: L convex with 2 L(x/2) >= L(x)).
        let data = random(5, 3);
        let (mut all, mut approx) = (AllPairs::new(&data).unwrap(), Approximate::new(&data).unwrap());
        let mut rng = Rng::new(6);
        for _ in 0..20 {
            let w: Vec<f64> = (0..3).map(|_| 2.0 * rng.normal()).collect();
            let (r1, r2) = (all.eval(&w, None), approx.eval(&w, None));
            assert!(r1 <= r2 * (1.0 + 1e-12), "{r1} > {r2}");
        }
    }

    #[test]
    fn errors_defaults_table_and_determinism() {
        let x = [[0.0f32]; 2];
        let flat = dataset(1, &[(&[1, 1], &x)]);
        let e = RankLrParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("no pairs"), "{e}");
        let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
        assert!(RankLrParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
        for (p, key) in [
            (RankLrParams { c: 0.0, ..Default::default() }, "`c`"),
            (RankLrParams { max_iter: 0, ..Default::default() }, "`max_iter`"),
            (RankLrParams { tol: f64::NAN, ..Default::default() }, "`tol`"),
        ] {
            assert!(p.validate().unwrap_err().to_string().contains(key));
        }
        assert!(serde_json::from_str::<RankLrParams>(r#"{"pairs": "some"}"#).is_err());
        let readme = include_str!("../README.md");
        ltr_core::check_table::<RankLrParams>().unwrap();
        ltr_core::check_readme::<RankLrParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(RankLrParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        let data = random(7, 3);
        for pairs in [Pairs::All, Pairs::Approximate] {
            let lr = RankLrParams { pairs, ..Default::default() }.validate().unwrap();
            let a = lr.fit(&data, None, &mut Rng::new(1)).unwrap();
            let b = lr.fit(&data, None, &mut Rng::new(2)).unwrap();
            assert_eq!(a, b);
            let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
            assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
        }
    }
}
