//! RankSVM (Herbrich, Graepel & Obermayer 2000; Joachims 2002) trained without ever
//! materialising the pairs: by default the plain pair hinge of `svm_rank`, solved by the
//! 1-slack cutting-plane method (Joachims, "Training linear SVMs in linear time", KDD 2006);
//! optionally the squared hinge of PRSVM, solved by primal truncated Newton (Chapelle &
//! Keerthi, "Efficient algorithms for ranking with SVMs", Information Retrieval 13(3), 2010).
//!
//! # Objective
//!
//! For training queries `q = 1..Q` and, in each, the pairs `(i, j)` with `y_i > y_j` (every
//! pair of documents with different grades, across all grade levels):
//!
//! ```text
//! loss = "hinge":          f(w) = 1/2 |w|^2 + (c / Q) sum_q sum_{(i,j)} max(0, 1 - w.(x_i - x_j))
//! loss = "squared_hinge":  f(w) = 1/2 |w|^2 + (c / Q) sum_q sum_{(i,j)} max(0, 1 - w.(x_i - x_j))^2
//! ```
//!
//! `Q` counts every training query, including those without pairs.
//!
//! # Relation to `svm_rank_learn -c`
//!
//! `svm_rank` is SVM-struct with one example per query and 1-slack margin rescaling: it
//! minimises `1/2 |w|^2 + C xi` subject to `xi >= (1/n) sum_q [Delta_q - w.dPsi_q]` over its
//! `n` training queries, with `Delta_q` the number of swapped pairs (`-l 1`) and `dPsi_q` their
//! summed differences, i.e. `1/2 |w|^2 + (C/n) sum_pairs max(0, 1 - w.(x_i - x_j))`. With the
//! hinge loss, our `c` **is** `svm_rank`'s `-c` (same problem, same minimiser), and
//! `svm_light -z p -c` equals `c / Q`. With the squared hinge, equal `c` give similar, not
//! identical, models.
//!
//! # Algorithms and cost
//!
//! * Hinge (`src/cutting_plane.rs`, `src/oracle.rs`): each iteration calls the separation
//!   oracle (the loss and subgradient at `w`: `O(n log n + n d)` per query by sorting the
//!   scores and counting, per grade level, the pairs inside the margin) and re-solves the dual
//!   QP over the cutting planes by an exact, warm-started active-set method (`src/qp.rs`; SMO
//!   as a fallback). It stops with `svm_rank`'s rule `H(w) - xi <= epsilon * P / Q` (`P`
//!   pairs).
//! * Squared hinge (`src/newton.rs`, `src/pairs.rs`): per Newton iteration, one sort of each
//!   query's scores plus `O(n * levels)` sweeps give the loss, gradient and every
//!   Hessian-vector product of the conjugate-gradient inner loop.
//!
//! The validation split is not used (no length parameter; `c` is chosen by the harness grid).

mod cutting_plane;
mod newton;
mod oracle;
mod pairs;
mod qp;
#[cfg(test)]
mod reference;

pub use cutting_plane::{OneSlack, OneSlackOutcome, Separation, SeparationOracle, one_slack};
pub use oracle::query_chunks;
pub use pairs::SquaredHingePairs;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params, Result, Rng,
    Validation, param_info,
};
use ltr_linear::LinearModel;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 79.7 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows. A
/// larger `c` needs more cutting-plane iterations, which is not modelled.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ranksvm",
    name: "RankSVM",
    family: Family::Svm,
    year: 2000,
    loss: LossType::Pairwise,
    optimizer: "1-slack cutting plane (squared_hinge: primal truncated Newton)",
    reference: "Herbrich, Graepel & Obermayer, Large margin rank boundaries for ordinal regression, 2000; \
                Joachims, KDD 2002; solvers: Joachims, KDD 2006 (cutting plane), \
                Chapelle & Keerthi, Information Retrieval 13(3), 2010 (truncated Newton)",
    summary: "svm_rank's objective",
    cost: Some(ltr_core::FitCost::mslr_web10k(79.7, "just bench-budget 2026-11-23, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// The pair loss, spec key `loss`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankSvmLoss {
    /// `"hinge"`: `max(0, 1 - w.(x_i - x_j))`, the objective of `svm_rank` (an L1-SVM on
    /// pairs), solved by the 1-slack cutting-plane method. The default.
    #[default]
    Hinge,
    /// `"squared_hinge"`: `max(0, 1 - w.(x_i - x_j))^2` (PRSVM, an L2-SVM on pairs), solved by
    /// primal truncated Newton.
    SquaredHinge,
}

impl std::fmt::Display for RankSvmLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Hinge => "hinge",
            Self::SquaredHinge => "squared_hinge",
        })
    }
}

/// Hyperparameters of RankSVM (spec keys `loss`, `c`, `epsilon`, `cp_max_iter`, `max_iter`,
/// `tol`). `epsilon` and `cp_max_iter` apply to the hinge (cutting plane), `max_iter` and
/// `tol` to the squared hinge (Newton); all are validated whatever the loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankSvmParams {
    /// The pair loss: `"hinge"` (default; `svm_rank`'s objective, cutting plane) or
    /// `"squared_hinge"` (PRSVM, truncated Newton).
    pub loss: RankSvmLoss,
    /// Trade-off `c > 0` in `1/2 |w|^2 + (c/Q) sum_pairs loss(1 - w.(x_i - x_j))`, `Q` the
    /// number of training queries: scaled like `svm_rank_learn -c` (with the hinge, the same
    /// problem). Default `0.01`, `svm_rank`'s default.
    pub c: f64,
    /// Hinge only: stop when the most violated constraint exceeds the working set's slack by at
    /// most `epsilon * P / Q` (`P` pairs; `P / Q` is the loss at `w = 0`), `svm_rank`'s `-e`
    /// with its `-l 1` adjustment; `> 0`. Default `0.001`, `svm_rank`'s default.
    pub epsilon: f64,
    /// Hinge only: maximum number of cutting-plane iterations (oracle calls), at least 1;
    /// `svm_rank`'s `-#`. Default `100000`, `svm_rank`'s default.
    pub cp_max_iter: usize,
    /// Squared hinge only: maximum number of Newton iterations, at least 1. Default `50`.
    pub max_iter: usize,
    /// Squared hinge only: stop when the Newton decrement `-g.delta` is below `tol * f(w)`;
    /// `> 0`. Default `1e-8`.
    pub tol: f64,
}

impl Default for RankSvmParams {
    fn default() -> Self {
        Self {
            loss: RankSvmLoss::Hinge,
            c: 0.01,
            epsilon: 0.001,
            cp_max_iter: 100_000,
            max_iter: 50,
            tol: 1e-8,
        }
    }
}

impl Params for RankSvmParams {
    type Checked = RankSvm;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::choice(
            "loss",
            &["hinge", "squared_hinge"],
            "pair loss: hinge (svm_rank, cutting plane) or squared_hinge (PRSVM, truncated Newton)",
        ),
        ParamInfo::positive(
            "c",
            0.0,
            1e6,
            "trade-off in 1/2 |w|^2 + (c/Q) sum_pairs loss, scaled like svm_rank -c",
        ),
        ParamInfo::positive(
            "epsilon",
            0.0,
            1.0,
            "hinge: stop when H(w) - xi <= epsilon * P / Q (svm_rank -e)",
        ),
        ParamInfo::int("cp_max_iter", 1, 1_000_000, "hinge: maximum cutting-plane iterations (svm_rank -#)"),
        ParamInfo::int("max_iter", 1, 10_000, "squared hinge: maximum Newton iterations"),
        ParamInfo::positive(
            "tol",
            0.0,
            1.0,
            "squared hinge: stop when the Newton decrement is below tol * f(w)",
        ),
    ];

    fn validate(&self) -> Result<RankSvm> {
        let info = |key| param_info(Self::TABLE, key);
        info("c").check_real(self.c)?;
        info("epsilon").check_real(self.epsilon)?;
        info("cp_max_iter").check_int(self.cp_max_iter as u64)?;
        info("max_iter").check_int(self.max_iter as u64)?;
        info("tol").check_real(self.tol)?;
        Ok(RankSvm {
            loss: self.loss,
            c: self.c,
            epsilon: self.epsilon,
            cp_max_iter: self.cp_max_iter,
            max_iter: self.max_iter,
            tol: self.tol,
        })
    }
}

/// Validated RankSVM, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSvm {
    loss: RankSvmLoss,
    c: f64,
    epsilon: f64,
    cp_max_iter: usize,
    max_iter: usize,
    tol: f64,
}

fn no_pairs() -> Error {
    Error::fit(INFO.id, "no training query has documents with different grades: there are no pairs")
}

fn not_finite() -> Error {
    Error::fit(INFO.id, "the objective is not finite (non-finite feature values?)")
}

impl RankSvm {
    /// Fits and also returns diagnostics (final objective, iterations, convergence).
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(RankSvmModel, FitStats)> {
        match self.loss {
            RankSvmLoss::Hinge => self.fit_hinge(train),
            RankSvmLoss::SquaredHinge => self.fit_squared(train),
        }
    }

    /// Fits the hinge objective with pair weights: pair `(i, j)` of training query `q` (its
    /// index in `train`, `y_i > y_j`) enters the loss as
    /// `weight(q, y_i, y_j) * max(0, 1 - w.(x_i - x_j))`, so that
    /// `f(w) = 1/2 |w|^2 + (c / Q) sum_q sum_{(i,j)} weight(q, y_i, y_j) max(0, 1 - w.(x_i - x_j))`.
    /// The stopping rule is the unweighted one with `P` replaced by the summed weight of all
    /// pairs (the loss at `w = 0`). Every weight 1 gives exactly [`Self::fit_with_stats`]'s
    /// model (the weighted sums are then exact integers, bit for bit the unweighted ones).
    /// Cost: `O(n log n + n L + n d)` per query and oracle call, `L` its number of grades.
    ///
    /// # Errors
    /// The squared hinge (not supported with weights), a weight that is negative or not
    /// finite, no pair with a positive weight, non-finite features.
    pub fn fit_weighted(
        &self,
        train: &Dataset,
        weight: &dyn Fn(usize, Grade, Grade) -> f64,
    ) -> Result<(RankSvmModel, FitStats)> {
        if self.loss != RankSvmLoss::Hinge {
            return Err(Error::fit(INFO.id, "pair weights need the hinge loss"));
        }
        let bad = std::cell::Cell::new(None);
        let checked = |q: usize, hi: Grade, lo: Grade| {
            let c = weight(q, hi, lo);
            if !(c.is_finite() && c >= 0.0) && bad.get().is_none() {
                bad.set(Some((q, hi, lo, c)));
            }
            c
        };
        let built = oracle::HingeOracle::new_weighted(train, &checked);
        if let Some((q, hi, lo, c)) = bad.get() {
            let qid = train.query_ids().get(q).map_or("?", String::as_str);
            return Err(Error::fit(
                INFO.id,
                format!(
                    "query {qid}: the weight of the pairs of grades {hi} > {lo} is {c}, not finite and >= 0"
                ),
            ));
        }
        let mut oracle = built.ok_or_else(no_pairs)?;
        if oracle.total_weight() <= 0.0 {
            return Err(Error::fit(INFO.id, "every pair has weight 0"));
        }
        self.solve_hinge(&mut oracle, train)
    }

    fn fit_hinge(&self, train: &Dataset) -> Result<(RankSvmModel, FitStats)> {
        let mut oracle = oracle::HingeOracle::new(train).ok_or_else(no_pairs)?;
        self.solve_hinge(&mut oracle, train)
    }

    fn solve_hinge(
        &self,
        oracle: &mut oracle::HingeOracle<'_>,
        train: &Dataset,
    ) -> Result<(RankSvmModel, FitStats)> {
        if !oracle.features_finite() {
            return Err(not_finite());
        }
        let outcome = cutting_plane::one_slack(
            oracle,
            train.n_queries(),
            train.n_features(),
            self.c,
            self.epsilon,
            self.cp_max_iter,
        );
        let sol = outcome.solution.finite()?;
        if !sol.converged {
            log::warn!(
                "ranksvm: not converged after {} cutting-plane iterations (c = {}, f = {:.6e}, \
                 violation {:.3e} > {:.3e})",
                sol.iterations,
                self.c,
                sol.objective,
                outcome.ceps,
                outcome.eps_abs
            );
        }
        log::debug!(
            "ranksvm (hinge): c {}, {} pairs, {} iterations, {} planes, {} QP solves, {} SMO steps, f {:.10e}",
            self.c,
            oracle.n_pairs(),
            sol.iterations,
            outcome.planes,
            outcome.qp_solves,
            outcome.smo_steps,
            sol.objective
        );
        Ok(sol.into_fit(oracle.n_pairs(), outcome.planes))
    }

    fn fit_squared(&self, train: &Dataset) -> Result<(RankSvmModel, FitStats)> {
        let mut problem = newton::Problem::new(train, self.c).ok_or_else(no_pairs)?;
        let sol = problem.solve(self.max_iter, self.tol).finite()?;
        if !sol.converged {
            log::warn!(
                "ranksvm: not converged after {} Newton iterations (c = {}, f = {:.6e})",
                sol.iterations,
                self.c,
                sol.objective
            );
        }
        log::debug!(
            "ranksvm (squared hinge): c {}, {} pairs, {} Newton iterations, f {:.10e}",
            self.c,
            problem.n_pairs(),
            sol.iterations,
            sol.objective
        );
        Ok(sol.into_fit(problem.n_pairs(), 0))
    }
}

/// What a solver reached: the weights, the objective `f(w)`, its iterations and whether its
/// stopping rule was met.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// The weights.
    pub w: Vec<f64>,
    /// The objective there.
    pub objective: f64,
    /// Iterations (cutting plane: oracle calls; Newton: Newton steps).
    pub iterations: usize,
    /// Whether the stopping rule was met within the iteration limit.
    pub converged: bool,
}

impl Solution {
    /// The solution, or an error when the objective or a weight is not finite.
    fn finite(self) -> Result<Self> {
        if !self.objective.is_finite() || self.w.iter().any(|w| !w.is_finite()) {
            return Err(not_finite());
        }
        Ok(self)
    }

    /// The model and its diagnostics.
    fn into_fit(self, pairs: u64, planes: usize) -> (RankSvmModel, FitStats) {
        let stats = FitStats {
            objective: self.objective,
            iterations: self.iterations,
            converged: self.converged,
            pairs,
            planes,
        };
        (LinearModel::new(self.w, 0.0), stats)
    }
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitStats {
    /// Final objective value `f(w)` (of the chosen loss).
    pub objective: f64,
    /// Cutting-plane iterations (oracle calls; hinge) or Newton iterations (squared hinge).
    pub iterations: usize,
    /// Whether the stopping rule was met within the iteration cap.
    pub converged: bool,
    /// Number of pairs in the objective.
    pub pairs: u64,
    /// Hinge: cutting planes in the final working set; squared hinge: 0.
    pub planes: usize,
}

impl Learner for RankSvm {
    type Model = RankSvmModel;

    fn fit(&self, train: &Dataset, _valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<RankSvmModel> {
        self.fit_with_stats(train).map(|(m, _)| m)
    }
}

/// A fitted linear ranking function `score(x) = w.x` (bias 0: a constant cancels in every
/// pair).
pub type RankSvmModel = LinearModel;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{DatasetBuilder, Ranker};

    use super::*;
    use crate::reference::AllPairs;

    /// Random queries: `sizes[q]` documents, grades `0..levels`, features on a coarse grid
    /// (`k/4` in `[-1, 1]`) so that scores tie and pair residuals hit exactly 0.
    fn random_data(seed: u64, sizes: &[usize], d: usize, levels: u64, coarse: bool) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut b = DatasetBuilder::new(d);
        for (q, &n) in sizes.iter().enumerate() {
            b.start_query(&q.to_string());
            for _ in 0..n {
                let row: Vec<f32> = (0..d)
                    .map(|_| if coarse { rng.below(9) as f32 / 4.0 - 1.0 } else { rng.normal() as f32 })
                    .collect();
                b.push_doc(rng.below(levels) as u8, &row, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    fn rel_err(a: &[f64], b: &[f64]) -> f64 {
        let num: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt();
        let den: f64 = b.iter().map(|y| y * y).sum::<f64>().sqrt();
        num / den.max(1e-300)
    }

    fn squared(c: f64) -> RankSvmParams {
        RankSvmParams { loss: RankSvmLoss::SquaredHinge, c, ..Default::default() }
    }

    fn hinge(c: f64, epsilon: f64) -> RankSvmParams {
        RankSvmParams { c, epsilon, ..Default::default() }
    }

    fn one_pair() -> Dataset {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[1.0], None).unwrap();
        b.push_doc(0, &[0.0], None).unwrap();
        b.finish().unwrap()
    }

    #[test]
    fn two_documents_by_hand() {
        // Squared hinge. One query, x1 = 1 (grade 1), x2 = 0 (grade 0), Q = 1:
        // f(w) = w^2/2 + c (1 - w)^2 for w < 1.
        // f'(w) = w - 2c(1 - w) = 0 -> w = 2c / (1 + 2c). c = 1: w = 2/3, f = 2/9 + 1/9 = 1/3.
        let d = one_pair();
        let svm = squared(1.0).validate().unwrap();
        let (m, stats) = svm.fit_with_stats(&d).unwrap();
        assert!((m.weights[0] - 2.0 / 3.0).abs() < 1e-12, "{m:?}");
        assert!((stats.objective - 1.0 / 3.0).abs() < 1e-12, "{stats:?}");
        assert_eq!(stats.pairs, 1);
        // c = 0.25: w = 0.5 / 1.5 = 1/3.
        let svm = squared(0.25).validate().unwrap();
        let (m, _) = svm.fit_with_stats(&d).unwrap();
        assert!((m.weights[0] - 1.0 / 3.0).abs() < 1e-12, "{m:?}");
    }

    #[test]
    fn two_documents_by_hand_hinge() {
        // Plain hinge, same data: f(w) = w^2/2 + c max(0, 1 - w). For c < 1 the minimum is
        // where f'(w) = w - c = 0: w = c, f = c^2/2 + c(1 - c). For c >= 1 it is the kink
        // w = 1 (subdifferential [1 - c, 1] contains 0), f = 1/2.
        // Cutting plane: w = 0 gives the plane xi >= 1 - w, and the QP over it is the problem
        // itself: exact after one plane, stopped at the second oracle call.
        let d = one_pair();
        for (c, w, f) in [(0.5, 0.5, 0.375), (0.25, 0.25, 0.03125 + 0.1875), (2.0, 1.0, 0.5), (1.0, 1.0, 0.5)]
        {
            let (m, stats) = hinge(c, 1e-3).validate().unwrap().fit_with_stats(&d).unwrap();
            assert!((m.weights[0] - w).abs() < 1e-12, "c {c}: {m:?}");
            assert!((stats.objective - f).abs() < 1e-12, "c {c}: {stats:?}");
            assert_eq!((stats.pairs, stats.iterations, stats.planes), (1, 2, 1), "c {c}: {stats:?}");
            assert!(stats.converged);
        }
    }

    #[test]
    fn loss_gradient_and_hessian_match_all_pairs() {
        let mut hessian_checks = 0;
        for (seed, coarse) in [(1, false), (2, true), (3, true), (4, false)] {
            let data = random_data(seed, &[7, 1, 12, 5, 9, 3], 4, 4, coarse);
            let c = 0.7;
            let all = AllPairs::new(&data, c);
            let mut prob = newton::Problem::new(&data, c).unwrap();
            assert_eq!(prob.n_pairs() as usize, all.n_pairs());
            let mut rng = Rng::new(seed + 100);
            for trial in 0..6 {
                // Integer weights on grid features: tied scores and residuals exactly 0.
                let w: Vec<f64> = (0..4)
                    .map(|_| match (coarse, trial % 2) {
                        (true, 0) => rng.below(5) as f64 - 2.0,
                        _ => rng.normal(),
                    })
                    .collect();
                let v: Vec<f64> = (0..4).map(|_| rng.normal()).collect();
                let mut g = vec![0.0; 4];
                let f = prob.objective_grad(&w, &mut g);
                let (fb, gb) = (all.objective(&w), all.gradient(&w));
                assert!((f - fb).abs() <= 1e-10 * fb.abs().max(1.0), "f {f} vs {fb}");
                assert!(rel_err(&g, &gb) < 1e-10, "{g:?} vs {gb:?}");
                // The generalised Hessian jumps where a residual is exactly 0 (both sides are
                // valid choices there), so compare it only away from that boundary.
                let min_residual =
                    all.rows().map(|d| (1.0 - d.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()).abs());
                if min_residual.fold(f64::INFINITY, f64::min) < 1e-9 {
                    continue;
                }
                let mut pv = vec![0.0; data.n_docs()];
                let mut hv = vec![0.0; 4];
                prob.hess_vec(&v, &mut pv, &mut hv);
                let hb = all.hess_vec(&w, &v);
                assert!(rel_err(&hv, &hb) < 1e-10, "seed {seed} coarse {coarse}: {hv:?} vs {hb:?}");
                hessian_checks += 1;
            }
        }
        assert!(hessian_checks >= 12, "{hessian_checks}");
    }

    #[test]
    fn solution_matches_the_all_pairs_solver() {
        for (seed, c) in [(10, 0.01), (11, 1.0), (12, 100.0), (13, 3.0)] {
            let data = random_data(seed, &[8, 15, 6, 11, 4, 20], 5, 3, seed % 2 == 0);
            let all = AllPairs::new(&data, c);
            let (w_ref, f_ref) = all.solve(100, 1e-15);
            let svm = RankSvmParams { max_iter: 100, tol: 1e-14, ..squared(c) }.validate().unwrap();
            let (m, stats) = svm.fit_with_stats(&data).unwrap();
            assert!(stats.converged, "{stats:?}");
            let f_fast = all.objective(&m.weights);
            assert!((f_fast - f_ref).abs() / f_ref < 1e-4, "c {c}: {f_fast} vs {f_ref}");
            assert!((stats.objective - f_ref).abs() / f_ref < 1e-4, "c {c}: {} vs {f_ref}", stats.objective);
            let e = rel_err(&m.weights, &w_ref);
            eprintln!(
                "squared hinge c {c}: objective relative error {:.2e}, w relative error {e:.2e}",
                (f_fast - f_ref).abs() / f_ref
            );
            assert!(e < 1e-4, "c {c}: w relative error {e}: {:?} vs {w_ref:?}", m.weights);
        }
    }

    #[test]
    fn hinge_solution_matches_all_pairs_dual_coordinate_descent() {
        // The cutting plane at a tight epsilon against exact dual coordinate descent over all
        // pairs (projected gradient <= 1e-12): objective and w within 1e-4 relative.
        let mut worst = (0.0_f64, 0.0_f64);
        for (seed, c, sizes, levels) in [
            (20, 0.01, &[8, 15, 6, 11, 4, 20][..], 3),
            (21, 1.0, &[8, 15, 6, 11, 4, 20][..], 3),
            (22, 100.0, &[8, 15, 6, 11, 4, 20][..], 3),
            (23, 3.0, &[30, 2, 25, 9][..], 5),
            (24, 10.0, &[12, 12, 12, 12, 12, 1, 12][..], 2),
            (25, 0.3, &[40, 35][..], 4),
        ] {
            let data = random_data(seed, sizes, 5, levels, seed % 2 == 0);
            let all = AllPairs::new(&data, c);
            let r = all.solve_hinge(1e-12, 0.0, 1_000_000);
            assert!(r.gap <= 1e-9 * r.objective, "reference not converged: {r:?}");
            let svm = RankSvmParams { epsilon: 1e-11, ..hinge(c, 1e-3) }.validate().unwrap();
            let (m, stats) = svm.fit_with_stats(&data).unwrap();
            assert!(stats.converged, "{stats:?}");
            assert_eq!(stats.pairs as usize, all.n_pairs());
            let f_fast = all.objective_hinge(&m.weights);
            let fe = (f_fast - r.objective).abs() / r.objective;
            let se = (stats.objective - r.objective).abs() / r.objective;
            let we = rel_err(&m.weights, &r.w);
            eprintln!(
                "hinge seed {seed} c {c}: {} pairs, {} iterations, {} planes, DCD {} epochs (gap {:.1e}); \
                 objective rel. error {fe:.2e} (reported {se:.2e}), w rel. error {we:.2e}",
                stats.pairs, stats.iterations, stats.planes, r.epochs, r.gap
            );
            assert!(fe < 1e-4 && se < 1e-4, "c {c}: {f_fast} / {} vs {}", stats.objective, r.objective);
            assert!(we < 1e-4, "c {c}: w relative error {we}: {:?} vs {:?}", m.weights, r.w);
            worst = (worst.0.max(fe), worst.1.max(we));
        }
        eprintln!("hinge worst: objective {:.2e}, w {:.2e}", worst.0, worst.1);
    }

    #[test]
    fn hinge_default_epsilon_is_close() {
        // svm_rank's default epsilon bounds f(w) - f* by c * 0.001 * P / Q.
        let data = random_data(30, &[20, 25, 18, 30, 22], 6, 3, false);
        for c in [0.01, 1.0, 50.0] {
            let all = AllPairs::new(&data, c);
            let r = all.solve_hinge(1e-12, 0.0, 1_000_000);
            let (m, stats) = hinge(c, 1e-3).validate().unwrap().fit_with_stats(&data).unwrap();
            let bound = c * 1e-3 * stats.pairs as f64 / data.n_queries() as f64;
            let excess = all.objective_hinge(&m.weights) - r.objective;
            assert!(
                excess <= bound * (1.0 + 1e-9) && excess > -1e-9 * r.objective,
                "c {c}: {excess} vs {bound}"
            );
        }
    }

    #[test]
    fn equal_grades_and_single_grade_queries_add_nothing() {
        // Adding a query whose documents all share one grade changes only Q (the scaling): with
        // c doubled to compensate for Q going from 1 to 2, the solution is unchanged.
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[1.0], None).unwrap();
        b.push_doc(0, &[0.0], None).unwrap();
        b.push_doc(0, &[0.5], None).unwrap();
        let one = b.clone().finish().unwrap();
        b.start_query("2");
        b.push_doc(2, &[9.0], None).unwrap();
        b.push_doc(2, &[-9.0], None).unwrap();
        let two = b.finish().unwrap();
        let fit = |d: &Dataset, p: RankSvmParams| p.validate().unwrap().fit_with_stats(d).unwrap();
        let (m1, s1) = fit(&one, squared(1.0));
        let (m2, s2) = fit(&two, squared(2.0));
        assert_eq!(s1.pairs, 2);
        assert_eq!(s2.pairs, 2);
        assert!((m1.weights[0] - m2.weights[0]).abs() < 1e-12);
        // By hand: pairs d = 1 and 0.5; f = w^2/2 + c[(1-w)^2 + (1-w/2)^2] (w < 1);
        // f' = w - 2c(1-w) - c(1-w/2) = 0 -> w (1 + 2c + c/2) = 3c -> c = 1: w = 3/3.5 = 6/7.
        assert!((m1.weights[0] - 6.0 / 7.0).abs() < 1e-12, "{m1:?}");
        // Hinge: f = w^2/2 + c[max(0, 1-w) + max(0, 1-w/2)], c = 1. On w < 1, f' = w - 3/2 < 0;
        // on 1 < w < 2, f' = w - 1/2 > 0: the minimum is the kink w = 1 (subdifferential
        // [-1/2, 1/2]), f = 1/2 + 1/2 = 1. Cutting plane: w = 0 gives xi >= 2 - 3w/2, QP
        // optimum w = 4/3 (xi = 0); there pair 2 violates (hinge 1/3): plane xi >= 1 - w/2;
        // the QP over both planes is the problem itself: w = 1.
        let (h1, t1) = fit(&one, hinge(1.0, 1e-3));
        let (h2, t2) = fit(&two, hinge(2.0, 1e-3));
        assert!((h1.weights[0] - 1.0).abs() < 1e-12, "{h1:?}");
        assert!((t1.objective - 1.0).abs() < 1e-12, "{t1:?}");
        assert!((h1.weights[0] - h2.weights[0]).abs() < 1e-12, "{h1:?} {h2:?}");
        assert!((t2.objective - 1.0).abs() < 1e-12, "{t2:?}");
        assert_eq!((t1.iterations, t1.planes), (3, 2), "{t1:?}");
    }

    #[test]
    fn no_pairs_is_an_error_and_params_are_checked() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[1.0], None).unwrap();
        b.push_doc(1, &[0.0], None).unwrap();
        let d = b.finish().unwrap();
        for p in [RankSvmParams::default(), squared(0.01)] {
            let e = p.validate().unwrap().fit(&d, None, &mut Rng::new(0)).unwrap_err();
            assert!(e.to_string().contains("no pairs"), "{e}");
        }
        assert_eq!(
            RankSvmParams::default(),
            RankSvmParams {
                loss: RankSvmLoss::Hinge,
                c: 0.01,
                epsilon: 0.001,
                cp_max_iter: 100_000,
                max_iter: 50,
                tol: 1e-8
            }
        );
        for (p, key) in [
            (RankSvmParams { c: 0.0, ..Default::default() }, "`c`"),
            (RankSvmParams { c: f64::NAN, ..Default::default() }, "`c`"),
            (RankSvmParams { epsilon: 0.0, ..Default::default() }, "`epsilon`"),
            (RankSvmParams { epsilon: f64::INFINITY, ..Default::default() }, "`epsilon`"),
            (RankSvmParams { cp_max_iter: 0, ..Default::default() }, "`cp_max_iter`"),
            (RankSvmParams { max_iter: 0, ..Default::default() }, "`max_iter`"),
            (RankSvmParams { tol: -1.0, ..Default::default() }, "`tol`"),
        ] {
            assert!(p.validate().unwrap_err().to_string().contains(key));
        }
        assert!(serde_json::from_str::<RankSvmParams>(r#"{"C": 1}"#).is_err());
        assert!(serde_json::from_str::<RankSvmParams>(r#"{"loss": "l1"}"#).is_err());
        let p: RankSvmParams = serde_json::from_str(r#"{"loss": "squared_hinge", "c": 0.5}"#).unwrap();
        assert_eq!(p, squared(0.5));
        let p: RankSvmParams = serde_json::from_str(r#"{"loss": "hinge", "epsilon": 0.01}"#).unwrap();
        assert_eq!(p, hinge(0.01, 0.01));
        assert_eq!(RankSvmLoss::SquaredHinge.to_string(), "squared_hinge");
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<RankSvmParams>().unwrap();
        ltr_core::check_readme::<RankSvmParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(RankSvmParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        for p in [
            RankSvmParams { c: 1e7, ..Default::default() },
            RankSvmParams { max_iter: 10_001, ..Default::default() },
        ] {
            assert!(p.validate().is_err(), "{p:?}");
        }
    }

    #[test]
    fn non_finite_features_are_an_error() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.push_doc(1, &[f32::NAN], None).unwrap();
        b.push_doc(0, &[0.0], None).unwrap();
        let d = b.finish().unwrap();
        for p in [RankSvmParams::default(), squared(0.01)] {
            assert!(p.validate().unwrap().fit(&d, None, &mut Rng::new(0)).is_err());
        }
    }

    #[test]
    fn deterministic_and_round_trips() {
        let data = random_data(5, &[10, 12, 9], 3, 3, false);
        for p in [RankSvmParams::default(), squared(0.01)] {
            let svm = p.validate().unwrap();
            let a = svm.fit(&data, None, &mut Rng::new(1)).unwrap();
            let b = svm.fit(&data, None, &mut Rng::new(2)).unwrap();
            assert_eq!(a, b);
            let back: RankSvmModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
            let (sa, sb) = (a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
            assert!(sa.iter().zip(&sb).all(|(x, y)| x.to_bits() == y.to_bits()));
        }
    }

    #[test]
    fn hinge_is_bit_identical_at_any_thread_count() {
        // About 4,000 documents: several oracle chunks.
        let sizes: Vec<usize> = (0..80).map(|q| 20 + (q * 37) % 60).collect();
        let data = random_data(6, &sizes, 7, 3, false);
        let svm = hinge(1.0, 1e-4).validate().unwrap();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| svm.fit_with_stats(&data).unwrap())
        };
        let (m1, s1) = run(1);
        for threads in [2, 3, 8] {
            let (m, s) = run(threads);
            assert_eq!(s, s1);
            assert!(m.weights.iter().zip(&m1.weights).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        assert!(s1.converged && s1.iterations > 3, "{s1:?}");
    }

    #[test]
    fn unit_pair_weights_give_the_unweighted_model_bit_for_bit() {
        for (seed, c) in [(40, 0.01), (41, 1.0), (42, 30.0)] {
            let data = random_data(seed, &[9, 14, 1, 22, 7], 4, 3, seed % 2 == 0);
            let svm = hinge(c, 1e-4).validate().unwrap();
            let (m, s) = svm.fit_with_stats(&data).unwrap();
            let (mw, sw) = svm.fit_weighted(&data, &|_, _, _| 1.0).unwrap();
            assert_eq!(s, sw);
            assert!(m.weights.iter().zip(&mw.weights).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    #[test]
    fn weighted_by_hand_and_weight_errors() {
        // One pair (x = 1 vs 0) of weight 3 at c is the unweighted problem at 3c: f(w) =
        // w^2/2 + 3c max(0, 1 - w); 3c = 0.75 < 1 gives w = 0.75.
        let d = one_pair();
        let svm = hinge(0.25, 1e-3).validate().unwrap();
        let (m, _) =
            svm.fit_weighted(&d, &|_, hi, lo| if (hi, lo) == (1, 0) { 3.0 } else { f64::NAN }).unwrap();
        assert!((m.weights[0] - 0.75).abs() < 1e-12, "{m:?}");
        for (bad, msg) in [(-1.0, "not finite"), (f64::INFINITY, "not finite"), (0.0, "weight 0")] {
            let e = svm.fit_weighted(&d, &|_, _, _| bad).unwrap_err();
            assert!(e.to_string().contains(msg), "{e}");
        }
        let e = squared(1.0).validate().unwrap().fit_weighted(&d, &|_, _, _| 1.0).unwrap_err();
        assert!(e.to_string().contains("hinge"), "{e}");
    }
}
