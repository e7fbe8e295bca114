//! The 1-slack cutting-plane method (Joachims, "Training linear SVMs in linear time", KDD 2006;
//! Joachims, Finley & Yu, "Cutting-plane training of structural SVMs", Machine Learning 77,
//! 2009), for any structural SVM whose separation oracle implements [`SeparationOracle`]. For
//! the plain pair hinge it runs in the form `svm_rank` runs by default (`-w 3`: 1-slack, dual
//! QP, margin rescaling, `-l 1` swapped pairs); other structural SVMs (SVM-MAP, PermuRank) run
//! it with their own oracles.
//!
//! Objective, with `H` the oracle's loss averaged over the `Q` training queries (for the pair
//! hinge, [`crate::oracle`]):
//!
//! ```text
//! F(w) = 1/2 |w|^2 + c H(w),   H(w) = (1/Q) sum_q H_q(w)
//! pair hinge: H_q(w) = sum_{(i,j): y_i > y_j} max(0, 1 - w.(x_i - x_j))
//! ```
//!
//! equivalently `min 1/2 |w|^2 + c xi` subject to `xi >= b - a.w` for every plane the oracle
//! can return (pair hinge: every subset of pairs, `b` = its size / Q, `a` = its summed
//! differences / Q). The working set `W` starts empty (`w = 0`). Each iteration:
//!
//! 1. `xi = max(0, max_{k in W} b_k - a_k.w)`, the slack the working set allows at `w`;
//! 2. the oracle returns the most violated constraint `(a, b)` at `w` and `H(w) = b - a.w`;
//! 3. stop when `H(w) - xi <= eps_abs` (svm_struct's `ceps <= epsilon`), where
//!    `eps_abs = epsilon * S / Q` with `S` the oracle's [`SeparationOracle::loss_scale`]: as in
//!    `svm_rank -l 1`, `P / Q` for the pair hinge (`P` pairs; `P/Q = H(0)`, the largest loss;
//!    with pair weights `P` is their sum, still `Q H(0)`);
//! 4. otherwise add `(a, b)` to `W` and re-solve the QP over `W` in its dual
//!    `max_alpha sum_k alpha_k b_k - 1/2 |sum_k alpha_k a_k|^2`, `alpha >= 0`,
//!    `sum_k alpha_k <= c`, with `w = sum_k alpha_k a_k`;
//! 5. drop planes whose `alpha` has been 0 for 50 consecutive QP solves (svm_struct's rule).
//!
//! At the stop, `F(w) <= F* + c eps_abs + (QP error)`, and `|w - w*|^2 <= 2 (F(w) - F*)`.
//!
//! The dual QP is solved on the simplex `{alpha >= 0, sum alpha = c}` over `W` plus the plane
//! `(0, 0)` (whose weight is the unused part of `c`), warm-started from the previous solution,
//! by an exact active-set method ([`crate::qp`]) to a KKT violation
//! `max_{alpha_k > 0} g_k - min_k g_k <= qp_tol` (`g = G alpha - b`, in slack units, from the
//! Gram matrix `G_kl = a_k.a_l` kept incrementally), with
//! `qp_tol = max(1e-3 eps_abs, 1e-14 S/Q)`: the dual error is at most `c qp_tol`, a thousandth
//! of the outer tolerance (svm_struct solves it to `eps/2` only).

use ltr_linear::dot;

use crate::Solution;
use crate::qp::QpSolver;

/// The most violated constraint at `w`, as a separation oracle returns it (besides its normal
/// `a`, written into a buffer): the plane `xi >= offset - a.w` and the loss `offset - a.w`
/// there, both summed over the queries, not divided by `Q`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Separation {
    /// `b`: the constraint's loss part (pair hinge: the summed weight of the violating pairs).
    pub offset: f64,
    /// The loss at `w`, `b - a.w` (pair hinge: the summed hinge).
    pub loss: f64,
}

/// The separation oracle of a 1-slack structural SVM: the most violated constraint of the
/// training set at a weight vector, summed over the queries.
pub trait SeparationOracle {
    /// The size of the loss that the stopping tolerance is relative to, summed over the
    /// queries (`eps_abs = epsilon * loss_scale / Q`): the loss at `w = 0` for the pair hinge,
    /// `Q` for a loss in `[0, 1]` per query (SVM-struct's absolute `epsilon`). Positive.
    fn loss_scale(&self) -> f64;

    /// At `w`: writes the plane's normal `a` (summed over the queries, length `d`) and returns
    /// its offset and the loss. Deterministic: the same `w` gives the same bits.
    fn separate(&mut self, w: &[f64], a: &mut [f64]) -> Separation;
}

/// Planes unused (`alpha = 0`) for this many consecutive QP solves are dropped (svm_struct's
/// `remove_inactive_constraints(..., 50)`).
const INACTIVE_WINDOW: u64 = 50;

/// The working set: plane 0 is the constant `(a, b) = (0, 0)`.
#[derive(Debug, Clone)]
struct WorkingSet {
    d: usize,
    /// Number of planes, including plane 0.
    k: usize,
    /// Plane normals, row-major `k x d`.
    a: Vec<f64>,
    b: Vec<f64>,
    /// Gram matrix `a_k.a_l`, row-major `k x k`.
    gram: Vec<f64>,
    alpha: Vec<f64>,
    /// `G alpha - b`.
    grad: Vec<f64>,
    /// Last QP round in which the plane carried weight (or was added).
    last_active: Vec<u64>,
    /// Scratch for [`Self::prune`].
    keep: Vec<bool>,
    qp: QpSolver,
}

impl WorkingSet {
    fn new(d: usize, c: f64) -> Self {
        Self {
            d,
            k: 1,
            a: vec![0.0; d],
            b: vec![0.0],
            gram: vec![0.0],
            alpha: vec![c],
            grad: vec![0.0],
            last_active: vec![u64::MAX],
            keep: Vec::new(),
            qp: QpSolver::default(),
        }
    }

    fn row(&self, k: usize) -> &[f64] {
        &self.a[k * self.d..(k + 1) * self.d]
    }

    /// `max(0, max_k b_k - a_k.w)`.
    fn slack(&self, w: &[f64]) -> f64 {
        (0..self.k).map(|k| self.b[k] - dot(self.row(k), w)).fold(0.0, f64::max)
    }

    fn add(&mut self, a_new: &[f64], b_new: f64, round: u64) {
        let (k, k1) = (self.k, self.k + 1);
        self.gram.resize(k1 * k1, 0.0);
        for r in (1..k).rev() {
            self.gram.copy_within(r * k..r * k + k, r * k1);
        }
        for r in 0..k {
            let g = dot(self.row(r), a_new);
            self.gram[r * k1 + k] = g;
            self.gram[k * k1 + r] = g;
        }
        self.gram[k * k1 + k] = dot(a_new, a_new);
        self.a.extend_from_slice(a_new);
        self.b.push(b_new);
        self.alpha.push(0.0);
        self.grad.push(0.0);
        self.last_active.push(round);
        self.k = k1;
    }

    /// Drops planes without weight since `INACTIVE_WINDOW` rounds (never plane 0).
    fn prune(&mut self, round: u64) {
        let k = self.k;
        let mut keep = std::mem::take(&mut self.keep);
        keep.clear();
        keep.extend((0..k).map(|i| {
            i == 0 || self.alpha[i] != 0.0 || round.saturating_sub(self.last_active[i]) < INACTIVE_WINDOW
        }));
        let m = keep.iter().filter(|&&x| x).count();
        if m == k {
            self.keep = keep;
            return;
        }
        // Forward in-place compaction: every target index is <= its source index.
        let mut p = 0;
        for (i, _) in keep.iter().enumerate().filter(|&(_, &ki)| ki) {
            for (j, _) in keep.iter().enumerate().filter(|&(_, &kj)| kj) {
                self.gram[p] = self.gram[i * k + j];
                p += 1;
            }
        }
        self.gram.truncate(m * m);
        let d = self.d;
        for (t, (i, _)) in keep.iter().enumerate().filter(|&(_, &ki)| ki).enumerate() {
            self.a.copy_within(i * d..(i + 1) * d, t * d);
            self.b[t] = self.b[i];
            self.alpha[t] = self.alpha[i];
            self.last_active[t] = self.last_active[i];
        }
        self.a.truncate(m * d);
        self.b.truncate(m);
        self.alpha.truncate(m);
        self.last_active.truncate(m);
        self.grad.truncate(m);
        self.k = m;
        self.keep = keep;
    }

    /// Solves the dual QP over the working set to KKT violation `<= tol`, warm-started from
    /// the current `alpha`: the active-set method, SMO if it gives up. Returns
    /// `(reduced solves, SMO steps)`.
    fn solve_qp(&mut self, c: f64, tol: f64) -> (usize, usize) {
        let mut work = 0;
        if self.qp.active_set(&self.gram, &self.b, &mut self.alpha, c, tol, &mut self.grad, &mut work) {
            return (work, 0);
        }
        let steps =
            QpSolver::smo(&self.gram, &self.b, &mut self.alpha, tol, &mut self.grad, 200_000 + 200 * self.k);
        log::debug!("ranksvm cutting plane: QP active set gave up, {steps} SMO steps ({} planes)", self.k);
        (work, steps)
    }

    /// `w = sum_k alpha_k a_k`.
    fn weights(&self, w: &mut [f64]) {
        w.iter_mut().for_each(|x| *x = 0.0);
        for k in 1..self.k {
            let al = self.alpha[k];
            if al != 0.0 {
                for (x, &v) in w.iter_mut().zip(self.row(k)) {
                    *x += al * v;
                }
            }
        }
    }

    fn mark_active(&mut self, round: u64) {
        for k in 1..self.k {
            if self.alpha[k] != 0.0 {
                self.last_active[k] = round;
            }
        }
    }
}

/// What the cutting-plane method reached: the iterate with the smallest `F` seen (the last
/// one, in practice), `F` there, the oracle calls, and whether `H(w) - xi <= eps_abs` was
/// reached within `max_iter`; with the method's own diagnostics.
#[derive(Debug, Clone)]
pub struct OneSlackOutcome {
    /// The iterate, `F` there, oracle calls and convergence.
    pub solution: Solution,
    /// Planes in the final working set (plane 0 excluded).
    pub planes: usize,
    /// Last `H(w) - xi`.
    pub ceps: f64,
    /// The stopping threshold `eps_abs`.
    pub eps_abs: f64,
    /// Total reduced solves of the active-set QP method.
    pub qp_solves: usize,
    /// SMO fallback steps.
    pub smo_steps: usize,
}

/// Minimises `1/2 |w|^2 + (c / Q) sum_q H_q(w)` over `w` in `R^d` by the 1-slack cutting-plane
/// method, `oracle` giving the most violated constraint, `n_queries` = `Q` (every training
/// query). Stops when the oracle's loss exceeds the working set's slack by at most
/// `epsilon * loss_scale / Q`, or after `max_iter` oracle calls.
pub fn one_slack<O: SeparationOracle + ?Sized>(
    oracle: &mut O,
    n_queries: usize,
    d: usize,
    c: f64,
    epsilon: f64,
    max_iter: usize,
) -> OneSlackOutcome {
    OneSlack::new(d, c).run(oracle, n_queries, epsilon, max_iter)
}

/// The cutting-plane method with its working set of planes kept between runs, for a loss that
/// only grows from one run to the next (a working-set method whose constraint sets grow):
/// every plane of an earlier run is still a lower bound of the loss, so a run continues from
/// the previous planes and their QP solution instead of from `w = 0`. A single run on a fresh
/// instance is [`one_slack`].
#[derive(Debug, Clone)]
pub struct OneSlack {
    c: f64,
    ws: WorkingSet,
    /// QP rounds so far (for the pruning of inactive planes).
    round: u64,
}

impl OneSlack {
    /// An empty working set in `R^d` (first iterate `w = 0`) for the trade-off `c`.
    pub fn new(d: usize, c: f64) -> Self {
        Self { c, ws: WorkingSet::new(d, c), round: 0 }
    }

    /// Runs the method from the current working set until the oracle's loss exceeds the
    /// working set's slack by at most `epsilon * loss_scale / Q` (`n_queries` = `Q`), or for
    /// `max_iter` oracle calls. The oracle's loss must be at least the loss of every earlier
    /// run's oracle at every `w`.
    pub fn run<O: SeparationOracle + ?Sized>(
        &mut self,
        oracle: &mut O,
        n_queries: usize,
        epsilon: f64,
        max_iter: usize,
    ) -> OneSlackOutcome {
        let (c, d) = (self.c, self.ws.d);
        let ws = &mut self.ws;
        let inv_q = 1.0 / n_queries as f64;
        let h0 = oracle.loss_scale() * inv_q;
        let eps_abs = epsilon * h0;
        // Dual precision: far below the outer tolerance, floored near rounding level.
        let qp_tol = (1e-3 * eps_abs).max(1e-14 * h0);
        let mut w = vec![0.0; d];
        ws.weights(&mut w);
        let mut a_new = vec![0.0; d];
        let mut best_w = w.clone();
        let mut best_f = f64::INFINITY;
        let (mut iterations, mut converged, mut ceps) = (0, false, f64::INFINITY);
        let (mut qp_solves, mut smo_steps) = (0, 0);
        while iterations < max_iter {
            iterations += 1;
            ltr_core::progress::tick(iterations, max_iter, "iterations");
            let xi = ws.slack(&w);
            let v = oracle.separate(&w, &mut a_new);
            let h = v.loss * inv_q;
            let f = 0.5 * dot(&w, &w) + c * h;
            if !f.is_finite() {
                best_f = f;
                break;
            }
            if f < best_f {
                best_f = f;
                best_w.copy_from_slice(&w);
            }
            ceps = (h - xi).max(0.0);
            log::trace!(
                "cutting plane: iteration {iterations}: F {f:.10e}, H {h:.6e}, xi {xi:.6e}, \
                 ceps {ceps:.3e} (eps {eps_abs:.3e}), {} planes",
                ws.k - 1
            );
            if ceps <= eps_abs {
                converged = true;
                break;
            }
            a_new.iter_mut().for_each(|x| *x *= inv_q);
            self.round += 1;
            let round = self.round;
            ws.add(&a_new, v.offset * inv_q, round);
            let (solves, steps) = ws.solve_qp(c, qp_tol);
            qp_solves += solves;
            smo_steps += steps;
            ws.weights(&mut w);
            ws.mark_active(round);
            ws.prune(round);
        }
        OneSlackOutcome {
            solution: Solution { w: best_w, objective: best_f, iterations, converged },
            planes: ws.k - 1,
            ceps,
            eps_abs,
            qp_solves,
            smo_steps,
        }
    }
}
