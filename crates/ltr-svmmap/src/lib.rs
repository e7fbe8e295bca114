//! SVM-MAP (Y. Yue, T. Finley, F. Radlinski, T. Joachims, "A support vector method for
//! optimizing average precision", SIGIR 2007; survey 23.6): a structural SVM whose slack bounds
//! `1 - AP` of the ranking a linear function `f(x) = w.x` produces.
//!
//! # Objective
//!
//! Per training query, relevance is binary as MAP defines it under the training data's
//! convention (`ltr_metrics::EvalConfig::of`: grade `>= 1` under `letor3` and `letor4`, `>= 2`
//! under `mslr`). With `Psi(y) = 1/(RN) sum_{i rel, j non} y_ij (x_i - x_j)` (`R` relevant and
//! `N` non-relevant documents, `y_ij = +1` when `i` is ranked above `j`, else `-1`) and `y*` the
//! correct ranking (every relevant document first):
//!
//! ```text
//! min_w 1/2 |w|^2 + (c / Q) sum_q xi_q
//!   s.t. w.Psi_q(y*) >= w.Psi_q(y) + 1 - AP_q(y) - xi_q   for every query q and ranking y,
//! ```
//!
//! the paper's optimisation problem (its `C / n`, `n` = `Q` every training query, the scaling
//! of SVM-struct). Queries without a relevant or without a non-relevant document have no
//! constraint but count in `Q`, as RankSVM's do.
//!
//! # Optimisation
//!
//! The paper solves it by cutting planes (SVM-struct's working-set algorithm); we use the
//! equivalent 1-slack formulation on RankSVM's machinery ([`ltr_ranksvm::one_slack`]: the same
//! working set, dual QP and stopping rule as `ranksvm`), with the paper's exact most violated
//! constraint per query (`src/oracle.rs`): both classes sorted by score, then the optimal
//! position of each non-relevant document found independently, in `O(n log n)` per query.
//! Stop when the most violated constraint exceeds the working set's slack by at most `epsilon`
//! (an absolute tolerance on the averaged `1 - AP`, SVM-struct's `-e`). No randomness; the
//! validation split is not used (`c` is chosen by the harness grid).

mod oracle;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_info,
};
use ltr_linear::LinearModel;
use ltr_metrics::EvalConfig;
use serde::{Deserialize, Serialize};

use crate::oracle::ApOracle;

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 66.6 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "svm-map",
    name: "SVM-MAP",
    family: Family::Svm,
    year: 2007,
    loss: LossType::Listwise,
    optimizer: "1-slack cutting plane, exact most violated ranking by sorting",
    reference: "Yue, Finley, Radlinski & Joachims, A support vector method for optimizing average \
                precision, SIGIR 2007",
    summary: "structural SVM bounding 1 - AP",
    cost: Some(ltr_core::FitCost::mslr_web10k(66.6, "just bench-budget 2026-11-27, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of SVM-MAP (spec keys `c`, `epsilon`, `cp_max_iter`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SvmMapParams {
    /// Trade-off `c > 0` in `1/2 |w|^2 + (c/Q) sum_q xi_q`, `Q` the training queries (the
    /// paper's `C/n`). Default `1`.
    pub c: f64,
    /// Stop when the most violated constraint exceeds the working set's slack by at most
    /// `epsilon` (on the `1 - AP` scale, averaged over the queries); `> 0`. Default `0.001`.
    pub epsilon: f64,
    /// Maximum cutting-plane iterations (oracle calls), at least 1. Default `100000`.
    pub cp_max_iter: usize,
}

impl Default for SvmMapParams {
    fn default() -> Self {
        Self { c: 1.0, epsilon: 0.001, cp_max_iter: 100_000 }
    }
}

impl Params for SvmMapParams {
    type Checked = SvmMap;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive("c", 0.0, 1e6, "trade-off in 1/2 |w|^2 + (c/Q) sum_q xi_q (the paper's C/n)"),
        ParamInfo::positive(
            "epsilon",
            0.0,
            1.0,
            "stop when the most violated constraint exceeds the slack by at most epsilon (1 - AP scale)",
        ),
        ParamInfo::int("cp_max_iter", 1, 1_000_000, "maximum cutting-plane iterations"),
    ];

    fn validate(&self) -> Result<SvmMap> {
        let info = |key| param_info(Self::TABLE, key);
        info("c").check_real(self.c)?;
        info("epsilon").check_real(self.epsilon)?;
        info("cp_max_iter").check_int(self.cp_max_iter as u64)?;
        Ok(SvmMap { params: self.clone() })
    }
}

/// Validated SVM-MAP, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct SvmMap {
    params: SvmMapParams,
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitStats {
    /// Final objective `1/2 |w|^2 + (c/Q) sum_q xi_q(w)`.
    pub objective: f64,
    /// Cutting-plane iterations (oracle calls).
    pub iterations: usize,
    /// Whether the stopping rule was met within `cp_max_iter`.
    pub converged: bool,
    /// Cutting planes in the final working set.
    pub planes: usize,
    /// Training queries with a constraint (both a relevant and a non-relevant document).
    pub constrained_queries: usize,
}

impl SvmMap {
    /// Fits and also returns diagnostics.
    ///
    /// # Errors
    /// No query with both a relevant and a non-relevant document, non-finite features.
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let p = &self.params;
        let cfg = EvalConfig::of(train);
        let mut oracle = ApOracle::new(train, |g| cfg.is_relevant(g)).ok_or_else(|| {
            Error::fit(
                INFO.id,
                "no training query has both a relevant and a non-relevant document: there is no constraint",
            )
        })?;
        let not_finite = || Error::fit(INFO.id, "the objective is not finite (non-finite feature values?)");
        if !oracle.features_finite() {
            return Err(not_finite());
        }
        let outcome = ltr_ranksvm::one_slack(
            &mut oracle,
            train.n_queries(),
            train.n_features(),
            p.c,
            p.epsilon,
            p.cp_max_iter,
        );
        let sol = &outcome.solution;
        if !sol.objective.is_finite() || sol.w.iter().any(|w| !w.is_finite()) {
            return Err(not_finite());
        }
        if !sol.converged {
            log::warn!(
                "svm-map: not converged after {} cutting-plane iterations (c = {}, F = {:.6e}, violation \
                 {:.3e} > {:.3e})",
                sol.iterations,
                p.c,
                sol.objective,
                outcome.ceps,
                outcome.eps_abs
            );
        }
        log::debug!(
            "svm-map: c {}, {} constrained queries, {} iterations, {} planes, {} QP solves, F {:.10e}",
            p.c,
            oracle.n_constrained(),
            sol.iterations,
            outcome.planes,
            outcome.qp_solves,
            sol.objective
        );
        let stats = FitStats {
            objective: sol.objective,
            iterations: sol.iterations,
            converged: sol.converged,
            planes: outcome.planes,
            constrained_queries: oracle.n_constrained(),
        };
        Ok((LinearModel::new(outcome.solution.w, 0.0), stats))
    }
}

impl Learner for SvmMap {
    type Model = LinearModel;

    fn fit(&self, train: &Dataset, _valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<LinearModel> {
        self.fit_with_stats(train).map(|(m, _)| m)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
