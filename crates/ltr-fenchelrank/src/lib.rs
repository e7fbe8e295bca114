//! FenchelRank (Lai, Pan, Liu, Lin & Tang, SIGIR 2013; survey 23.34): sparse learning to rank,
//! the squared pair hinge of a linear ranking function minimised under an L1 constraint by a
//! greedy primal-dual (Fenchel duality) method.
//!
//! # Objective
//!
//! For the `p` pairs `(i, j)` of documents of one training query with `y_i > y_j` (the rows
//! `x_i - x_j` of the survey's pairwise comparison error matrix `K`, eq. 23.108):
//!
//! ```text
//! min_{|w|_1 <= r}  F(w) = (1/p) sum_{(i,j)} max(0, 1 - w.(x_i - x_j))^2
//! ```
//!
//! the constrained form of `|w|_1 + (C/p) sum max(0, 1 - Kw)^2` (eq. 23.107; each `C` has its
//! `r`). `F(0) = 1`.
//!
//! # Algorithm
//!
//! From `w = 0`, each iteration computes `g = grad F(w)`; the dual point `theta = grad of the
//! loss at Kw` gives the Fenchel duality gap `delta = g.w + r |g|_inf`, an upper bound of
//! `F(w) - min F` (for an L1 ball the gap of the Fenchel dual is exactly this); training stops
//! when `delta <= tol`. Otherwise the coordinate `j = argmax |g_j|` gives the ball's vertex
//! `s = -r sign(g_j) e_j` (the greedy coordinate step of the paper). `w` is held as a convex
//! combination of atoms (the vertices `sign(w_k) r e_k` with weights `|w_k| / r`, and the origin
//! with the rest), and the step moves mass `eta` from the *away* atom `a` (the weighted atom
//! with the largest `g.a`) to `s`: `w <- w + eta (s - a)`, `eta` in `[0, weight(a)]` minimising
//! `F` on the segment (a convex piecewise quadratic in `eta`: safeguarded 1-D Newton steps from
//! the curvature at `eta = 0`, stopped when `|F'(eta)|` is below a hundredth of its value at 0).
//! This is the pairwise Frank-Wolfe step (Lacoste-Julien & Jaggi, NIPS 2015); from the origin
//! it is the plain Frank-Wolfe step. Plain steps only shrink the old weights, which makes the gap
//! fall as `O(1/T)` (the survey's `epsilon = O(1/T)`); the pairwise step can also empty a
//! coordinate and converges much faster where the constraint binds. Every iterate stays in the
//! ball, `|w|_1 <= r` (also enforced against rounding), and each iteration adds at most one
//! non-zero weight, so the model is sparse.
//!
//! Losses, gradients and curvatures are sums over pairs taken in `O(n log n + n L)` per query
//! from the scores (`ltr_ranksvm::SquaredHingePairs`), never enumerating the pairs; one
//! iteration costs `O(n d)` for `X^T theta` plus one or two such sums.
//!
//! # Radius
//!
//! The survey chooses `r` on the validation split from `{2^i, i = 0..8}`. Here one fit runs the
//! radii `2^i`, `i = log2_radius_min..=log2_radius_max`, in increasing order, each warm-started
//! from the previous solution (feasible for the larger ball), evaluates each on the validation
//! split and keeps the best (the suite's rule: earliest, i.e. smallest and sparsest, on ties).
//! Without a validation split only the largest radius is solved, from `w = 0`. With
//! `patience > 0` the path stops after that many radii without a better validation value (the
//! large radii, where the gap falls slowest, are then often skipped).

use ltr_core::{
    AlgorithmInfo, BestCheckpoint, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng,
    Validation, param_info,
};
use ltr_linear::{LinearModel, dot};
use ltr_ranksvm::SquaredHingePairs;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 173.6 s at one thread on 149,860
/// training rows x 136 features, the largest MSLR-WEB10K-shaped split within its scale limit (`just
/// bench-budget` of 2026-11-23, two fits at a time; its README's "Scale" section), and the time
/// grows as rows^1.07 (the scaling curve of 2026-11-27 in that README, as its `scale_limit` says).
/// Linear in `max_iter`: every iteration costs the same, and at the defaults every radius ran to
/// the cap.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "fenchelrank",
    name: "FenchelRank",
    family: Family::Svm,
    year: 2013,
    loss: LossType::Pairwise,
    optimizer: "Fenchel-dual greedy coordinate (pairwise Frank-Wolfe) on the L1 ball",
    reference: "Lai, Pan, Liu, Lin & Tang, FenchelRank: a novel sparse learning to rank algorithm \
                via Fenchel duality, SIGIR 2013",
    summary: "L1-constrained, sparse; sparsity in the report",
    scale_limit: Some(ltr_core::ScaleLimit {
        max_train_rows: 150_000,
        measured: "measured time grows as rows^1.07, 54.6 s of CPU at 22,221 rows for 9 radii of \
                   up to 1,000 iterations, each a pass over the data: about 2,250 s at 728,521 rows; \
                   see its README",
    }),
    small_settings: &["max_iter=50"],
    cost: Some(ltr_core::FitCost {
        train_rows: ltr_core::FitCost::LIMITED_ROWS,
        row_exponent: 1.07,
        ..ltr_core::FitCost::mslr_web10k(173.6, "just bench-budget 2026-11-23, 149,860 rows, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("max_iter", 1000.0)])
    }),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of FenchelRank (spec keys `log2_radius_min`, `log2_radius_max`, `max_iter`,
/// `tol`, `patience`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FenchelRankParams {
    /// Smallest radius `2^log2_radius_min` tried. Default `0` (`r = 1`, the survey's).
    pub log2_radius_min: u32,
    /// Largest radius `2^log2_radius_max` tried (the one used without validation). Default `8`
    /// (`r = 256`, the survey's).
    pub log2_radius_max: u32,
    /// Maximum iterations per radius, at least 1. Default `1000` (the survey's `T`).
    pub max_iter: usize,
    /// Stop a radius when the duality gap is at most `tol` (`F(0) = 1`); `> 0`. Default `0.001`
    /// (the survey's `epsilon`).
    pub tol: f64,
    /// With validation: stop the radius path after this many radii without a better
    /// validation value; `0` tries every radius (the survey). Default `0`.
    pub patience: usize,
}

impl Default for FenchelRankParams {
    fn default() -> Self {
        Self { log2_radius_min: 0, log2_radius_max: 8, max_iter: 1000, tol: 0.001, patience: 0 }
    }
}

impl Params for FenchelRankParams {
    type Checked = FenchelRank;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int("log2_radius_min", 0, 20, "smallest L1 radius tried: 2^log2_radius_min"),
        ParamInfo::int(
            "log2_radius_max",
            0,
            20,
            "largest L1 radius tried: 2^log2_radius_max (used without vali)",
        ),
        ParamInfo::int("max_iter", 1, 1_000_000, "maximum iterations per radius (the survey's T)"),
        ParamInfo::positive("tol", 0.0, 1.0, "stop a radius when the duality gap is at most tol (F(0) = 1)"),
        ParamInfo::int(
            "patience",
            0,
            20,
            "with vali: stop after this many radii without improvement (0: all)",
        ),
    ];

    fn validate(&self) -> Result<FenchelRank> {
        let info = |key| param_info(Self::TABLE, key);
        info("log2_radius_min").check_int(u64::from(self.log2_radius_min))?;
        info("log2_radius_max").check_int(u64::from(self.log2_radius_max))?;
        info("max_iter").check_int(self.max_iter as u64)?;
        info("tol").check_real(self.tol)?;
        info("patience").check_int(self.patience as u64)?;
        if self.log2_radius_min > self.log2_radius_max {
            return Err(Error::param(
                "log2_radius_max",
                self.log2_radius_max,
                format!("must be at least log2_radius_min = {}", self.log2_radius_min),
            ));
        }
        Ok(FenchelRank { params: self.clone() })
    }
}

/// Validated FenchelRank, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FenchelRank {
    params: FenchelRankParams,
}

/// `|w|_1`, summed left to right: the norm the constraint is enforced in.
pub fn l1_norm(w: &[f64]) -> f64 {
    w.iter().map(|x| x.abs()).sum()
}

/// The sparsity ratio `1 - |w|_0 / d` of a weight vector (the survey's measure; 0 for `d = 0`).
pub fn sparsity_ratio(w: &[f64]) -> f64 {
    if w.is_empty() {
        return 0.0;
    }
    1.0 - w.iter().filter(|&&x| x != 0.0).count() as f64 / w.len() as f64
}

/// Scales `w` down until `l1_norm(w) <= r` (rounding can leave a convex combination of points
/// of the ball a few ulps outside it).
fn clamp_l1(w: &mut [f64], r: f64) {
    let mut norm = l1_norm(w);
    while norm > r {
        let f = r / norm * (1.0 - 2.0 * f64::EPSILON);
        w.iter_mut().for_each(|x| *x *= f);
        norm = l1_norm(w);
    }
}

/// A fitted FenchelRank model: `score(x) = w.x` with `|w|_1 <= radius`. Serialised flat:
/// `{"weights": [...], "bias": 0.0, "radius": r}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FenchelRankModel {
    /// The weights (bias 0).
    #[serde(flatten)]
    pub linear: LinearModel,
    /// The L1 radius it was trained under.
    pub radius: f64,
}

impl FenchelRankModel {
    /// Number of non-zero weights `|w|_0`.
    pub fn nonzeros(&self) -> usize {
        self.linear.weights.iter().filter(|&&x| x != 0.0).count()
    }

    /// The sparsity ratio `1 - |w|_0 / d` the report shows.
    pub fn sparsity_ratio(&self) -> f64 {
        sparsity_ratio(&self.linear.weights)
    }

    /// `|w|_1`, never above [`Self::radius`].
    pub fn l1_norm(&self) -> f64 {
        l1_norm(&self.linear.weights)
    }
}

ltr_linear::ranker_of_linear!(FenchelRankModel);

/// One radius of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct PathPoint {
    /// The radius `r`.
    pub radius: f64,
    /// The model at the end of this radius.
    pub model: FenchelRankModel,
    /// Iterations spent on this radius.
    pub iterations: usize,
    /// The last duality gap (an upper bound of `F(w) - min F`).
    pub gap: f64,
    /// Whether the gap reached `tol` within `max_iter`.
    pub converged: bool,
    /// `F(w)`.
    pub loss: f64,
    /// The validation measure (`None` without validation).
    pub value: Option<f64>,
}

/// The training problem: data, pair sums, buffers.
#[derive(Debug)]
struct Solver<'a> {
    data: &'a Dataset,
    pairs: SquaredHingePairs,
    /// `1/p`.
    inv_p: f64,
    /// Document ranges of the queries with pairs.
    ranges: Vec<std::ops::Range<usize>>,
    /// Scores at `w`, trial scores, direction, `dL/dz` and `A^T A q`, one per document.
    z: Vec<f64>,
    zt: Vec<f64>,
    q: Vec<f64>,
    gamma: Vec<f64>,
    rho: Vec<f64>,
    /// `grad F(w)`.
    g: Vec<f64>,
}

/// The outcome of one radius.
#[derive(Debug, Clone, Copy)]
struct RadiusRun {
    iterations: usize,
    gap: f64,
    converged: bool,
    loss: f64,
}

impl<'a> Solver<'a> {
    fn new(data: &'a Dataset) -> Option<Self> {
        let pairs = SquaredHingePairs::new(data)?;
        let n = data.n_docs();
        Some(Self {
            data,
            inv_p: 1.0 / pairs.n_pairs() as f64,
            ranges: pairs.query_ranges().collect(),
            pairs,
            z: vec![0.0; n],
            zt: vec![0.0; n],
            q: vec![0.0; n],
            gamma: vec![0.0; n],
            rho: vec![0.0; n],
            g: vec![0.0; data.n_features()],
        })
    }

    /// `z = X w`, then `F` and `dL/dz` there.
    fn start(&mut self, w: &[f64]) -> f64 {
        for r in &self.ranges {
            for i in r.clone() {
                self.z[i] = dot(w, self.data.row(i));
            }
        }
        self.inv_p * self.pairs.loss_grad(&self.z, &mut self.gamma)
    }

    /// `g = (1/p) X^T gamma`.
    fn gradient(&mut self) {
        self.g.iter_mut().for_each(|x| *x = 0.0);
        for r in &self.ranges {
            for i in r.clone() {
                let gi = self.gamma[i];
                if gi != 0.0 {
                    for (gk, &x) in self.g.iter_mut().zip(self.data.row(i)) {
                        *gk += gi * f64::from(x);
                    }
                }
            }
        }
        let inv_p = self.inv_p;
        self.g.iter_mut().for_each(|x| *x *= inv_p);
    }

    /// `phi'(t)` along `q` at the prepared point.
    fn slope(&self) -> f64 {
        let mut d1 = 0.0;
        for r in &self.ranges {
            for i in r.clone() {
                d1 += self.gamma[i] * self.q[i];
            }
        }
        self.inv_p * d1
    }

    /// `phi''(t)` along `q` at the prepared point (the curvature from its active pairs).
    fn curvature(&mut self) -> f64 {
        self.pairs.active_gram(&self.q, &mut self.rho);
        let mut d2 = 0.0;
        for r in &self.ranges {
            for i in r.clone() {
                d2 += self.rho[i] * self.q[i];
            }
        }
        2.0 * self.inv_p * d2
    }

    /// Prepares the point `z + t q` (into `zt`): `(phi(t), phi'(t))`.
    fn trial(&mut self, t: f64) -> (f64, f64) {
        for r in &self.ranges {
            for i in r.clone() {
                self.zt[i] = self.z[i] + t * self.q[i];
            }
        }
        let f = self.inv_p * self.pairs.loss_grad(&self.zt, &mut self.gamma);
        (f, self.slope())
    }

    /// Pairwise Frank-Wolfe on the ball of radius `r` from `w` (inside it), in place.
    fn run(&mut self, w: &mut [f64], r: f64, max_iter: usize, tol: f64) -> RadiusRun {
        let mut f = self.start(w);
        self.gradient();
        let mut iterations = 0;
        let gap = loop {
            // The Frank-Wolfe vertex: the first coordinate of largest |g_j|.
            let mut j = 0;
            for (k, gk) in self.g.iter().enumerate() {
                if gk.abs() > self.g[j].abs() {
                    j = k;
                }
            }
            let gj = self.g[j];
            let gap = dot(&self.g, w) + r * gj.abs();
            if gap.is_nan() || gap <= tol || iterations == max_iter || !f.is_finite() {
                break gap;
            }
            iterations += 1;
            let vertex = if gj > 0.0 { -r } else { r };
            // The away atom: of the atoms carrying weight (the vertex sign(w_k) r e_k with
            // weight |w_k| / r, and the origin with the rest of the mass), the one with the
            // largest g.a; the origin first on ties.
            let spare = 1.0 - l1_norm(w) / r;
            let (mut away, mut away_value) = (None, if spare > 0.0 { 0.0 } else { f64::NEG_INFINITY });
            for (k, (&wk, &gk)) in w.iter().zip(&self.g).enumerate() {
                if wk != 0.0 {
                    let v = r * wk.signum() * gk;
                    if v > away_value {
                        (away, away_value) = (Some(k), v);
                    }
                }
            }
            let (tmax, a_value) = match away {
                Some(k) => (w[k].abs() / r, w[k].signum() * r),
                None => (spare, 0.0),
            };
            // Moving mass t from the away atom to the vertex: w + t (s - a); the slope is
            // -(g.a - g.s), at least the duality gap.
            let slope = away_value + r * gj.abs();
            let (data, q) = (self.data, &mut self.q);
            for rg in &self.ranges {
                for i in rg.clone() {
                    let row = data.row(i);
                    let a_part = away.map_or(0.0, |k| a_value * f64::from(row[k]));
                    q[i] = vertex * f64::from(row[j]) - a_part;
                }
            }
            let Some((t, ft)) = self.line_search(f, slope, tmax) else { break gap };
            std::mem::swap(&mut self.z, &mut self.zt);
            f = ft;
            w[j] += t * vertex;
            if let Some(k) = away {
                // A full step empties the away atom ("drop step"): exactly 0, not rounding.
                if t >= tmax && k != j {
                    w[k] = 0.0;
                } else {
                    w[k] -= t * a_value;
                }
            }
            clamp_l1(w, r);
            self.gradient();
            log::trace!(
                "fenchelrank: r {r}: iteration {iterations}: F {f:.8e}, gap {gap:.3e}, j {j}, away {away:?}, t {t:.4}"
            );
        };
        RadiusRun { iterations, gap, converged: gap <= tol, loss: f }
    }

    /// Minimises `phi(t) = F(z + t q)` over `[0, tmax]` (`phi'(0) = -slope < 0`), leaving the
    /// pair sums prepared at the returned `t` and its scores in `zt`. `None` when no `t > 0`
    /// is known to decrease `F` (rounding at the optimum).
    fn line_search(&mut self, f0: f64, slope: f64, tmax: f64) -> Option<(f64, f64)> {
        // The curvature at t = 0, from the pairs prepared at z.
        let c0 = self.curvature();
        let mut t = if c0 > 0.0 { (slope / c0).min(tmax) } else { tmax };
        let (mut lo, mut hi) = (0.0_f64, tmax);
        let (mut ft, mut dt) = (f64::INFINITY, f64::NAN);
        for _ in 0..50 {
            let (f, d1) = self.trial(t);
            (ft, dt) = (f, d1);
            if d1.abs() <= 0.01 * slope || (d1 < 0.0 && t >= tmax) {
                break;
            }
            // Only a step that needs correcting pays for the curvature.
            let d2 = self.curvature();
            if d1 < 0.0 {
                lo = t;
            } else {
                hi = t;
            }
            let mut next = if d2 > 0.0 { t - d1 / d2 } else { f64::NAN };
            if !(next > lo && next < hi) {
                next = 0.5 * (lo + hi);
            }
            if hi - lo <= 1e-12 * tmax {
                break;
            }
            t = next;
        }
        // phi is convex with phi'(0) < 0: wherever phi' <= 0, phi is below phi(0), even when
        // rounding hides the decrease (a short drop step, say).
        if ft < f0 || dt <= 0.0 {
            return Some((t, ft));
        }
        // Past the minimum and no visible decrease: the bracket's lower end, if it moved.
        if lo > 0.0 {
            let (f, _) = self.trial(lo);
            return Some((lo, f));
        }
        None
    }
}

impl FenchelRank {
    /// Fits and returns every radius tried (in increasing order) with its model, iterations,
    /// gap, loss and validation value.
    pub fn fit_with_path(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<(FenchelRankModel, Vec<PathPoint>)> {
        let p = &self.params;
        let mut solver = Solver::new(train).ok_or_else(|| {
            Error::fit(INFO.id, "no training query has documents with different grades: there are no pairs")
        })?;
        if solver.ranges.iter().any(|r| r.clone().any(|i| train.row(i).iter().any(|x| !x.is_finite()))) {
            return Err(Error::fit(INFO.id, "non-finite feature values"));
        }
        let exponents = if valid.is_some() {
            p.log2_radius_min..=p.log2_radius_max
        } else {
            p.log2_radius_max..=p.log2_radius_max
        };
        let exponents_len = exponents.clone().count();
        let mut w = vec![0.0; train.n_features()];
        let mut path = Vec::new();
        let mut best = BestCheckpoint::new();
        for (k, e) in exponents.enumerate() {
            let radius = f64::from(e).exp2();
            let run = solver.run(&mut w, radius, p.max_iter, p.tol);
            let model = FenchelRankModel { linear: LinearModel::new(w.clone(), 0.0), radius };
            let value = match valid {
                Some(v) => {
                    let value = v.evaluate_model(&model)?;
                    best.offer(k, value, || model.clone());
                    Some(value)
                }
                None => None,
            };
            log::debug!(
                "fenchelrank: r {radius}: {} iterations, gap {:.3e}, F {:.6e}, {} non-zero weights, validation {value:?}",
                run.iterations,
                run.gap,
                run.loss,
                model.nonzeros()
            );
            if !run.converged {
                log::debug!(
                    "fenchelrank: r {radius}: gap {:.3e} > tol {} after {} iterations",
                    run.gap,
                    p.tol,
                    run.iterations
                );
            }
            ltr_core::progress::tick(k + 1, exponents_len, "radii");
            path.push(PathPoint {
                radius,
                model,
                iterations: run.iterations,
                gap: run.gap,
                converged: run.converged,
                loss: run.loss,
                value,
            });
            if best.should_stop(k, p.patience) {
                break;
            }
        }
        let model = match best.into_best() {
            Some(c) => c.state,
            None => path.last().map(|p| p.model.clone()).ok_or_else(|| Error::fit(INFO.id, "no radius"))?,
        };
        if !model.linear.is_finite() {
            return Err(Error::fit(INFO.id, "the weights are not finite"));
        }
        Ok((model, path))
    }
}

impl Learner for FenchelRank {
    type Model = FenchelRankModel;

    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<FenchelRankModel> {
        self.fit_with_path(train, valid).map(|(m, _)| m)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
