//! PermuRank (J. Xu, T.-Y. Liu, M. Lu, H. Li, W.-Y. Ma, "Directly optimizing evaluation
//! measures in learning to rank", SIGIR 2008; survey 23.25): a linear ranking function
//! `f(x) = w.x` trained on a hinge upper bound, over permutations, of the loss `1 - E` of an
//! IR measure `E` (MAP, or NDCG@k), with working sets of permutations per query.
//!
//! # Objective
//!
//! For a query with documents `d`, `F(q, d, pi) = 1/(n(n-1)) sum_{k<l} z_kl (f(x_k) - f(x_l))`
//! (`z_kl = +1` when `pi` ranks `k` above `l`, else `-1`) scores a permutation; the model ranks
//! by `argmax_pi F`, the score order. `Pi*` is the set of perfect permutations (largest `E`).
//! The paper's type-two bound with the hinge in place of the indicator,
//!
//! ```text
//! sum_q max_{pi* in Pi*_q, pi not in Pi*_q} (E(pi*) - E(pi)) [1 - (F(q, pi*) - F(q, pi))]_+ ,
//! ```
//!
//! is at least `sum_q (E_max - E(ranking by f))`: the model's own ranking `pi` has
//! `F(pi) >= F(pi*)`, so its hinge is at least 1 (tested). It is the structural SVM loss with
//! *slack rescaling*, where SVM-MAP uses margin rescaling. PermuRank minimises it with an L2
//! regulariser (the scale of RankSVM and SVM-MAP: `1/2 |w|^2 + (c/Q) sum_q`) over working sets
//! `B_q` (perfect) and `C_q` (imperfect) instead of all permutations:
//!
//! 1. `B_q`, `C_q` start empty and `w = 0`;
//! 2. each round adds to `B_q` the best perfect permutation `argmax_{pi in Pi*} F(q, pi)` and to
//!    `C_q` the best imperfect one `argmax_{pi not in Pi*} F(q, pi)` at the current `w` (the
//!    first round, at `w = 0`, the ideal ranking and the worst one);
//! 3. if no set changed, stop; otherwise minimise the objective over the working sets and
//!    repeat (at most `max_rounds` rounds).
//!
//! Each round's minimisation is exact (to `epsilon`): every term of the bound is linear in `w`,
//! so the working-set problem is a structural SVM solved by RankSVM's 1-slack cutting plane
//! ([`ltr_ranksvm::OneSlack`]) with the working sets as its separation oracle
//! (`src/working.rs`). The sets only grow, so the planes of earlier rounds remain lower bounds
//! of the loss and each round's cutting plane continues from them (warm start; the minimiser
//! is the same). The measure is computed under the training data's convention
//! (`ltr_metrics::EvalConfig::of`). No randomness; the validation split is not used.

mod perm;
mod working;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_info,
};
use ltr_linear::LinearModel;
use ltr_metrics::{EvalConfig, Metric};
use ltr_ranksvm::OneSlack;
use serde::{Deserialize, Serialize};

use crate::perm::Measure;
use crate::working::WorkingSets;

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 6.1 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "permurank",
    name: "PermuRank",
    family: Family::Svm,
    year: 2008,
    loss: LossType::Listwise,
    optimizer: "working sets of permutations, 1-slack cutting plane per round",
    reference: "Xu, Liu, Lu, Li & Ma, Directly optimizing evaluation measures in learning to rank, SIGIR 2008",
    summary: "hinge bound over permutations of 1 - MAP",
    cost: Some(ltr_core::FitCost::mslr_web10k(6.1, "just bench-budget 2026-11-27, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of PermuRank (spec keys `metric`, `c`, `max_rounds`, `epsilon`,
/// `cp_max_iter`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PermuRankParams {
    /// The measure `E`: `map` or `ndcg@K`, under the training data's convention. Default `map`.
    pub metric: Metric,
    /// Trade-off `c > 0` in `1/2 |w|^2 + (c/Q) sum_q L_q(w)`, `Q` the training queries.
    /// Default `1`.
    pub c: f64,
    /// Maximum rounds of working-set updates, at least 1. Default `100`.
    pub max_rounds: usize,
    /// Each round's cutting plane stops when the most violated constraint exceeds the working
    /// set's slack by at most `epsilon` (on the `1 - E` scale, averaged over the queries); `> 0`.
    /// Default `0.001`.
    pub epsilon: f64,
    /// Maximum cutting-plane iterations per round, at least 1. Default `100000`.
    pub cp_max_iter: usize,
}

impl Default for PermuRankParams {
    fn default() -> Self {
        Self { metric: Metric::Map, c: 1.0, max_rounds: 100, epsilon: 0.001, cp_max_iter: 100_000 }
    }
}

impl Params for PermuRankParams {
    type Checked = PermuRank;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::choice(
            "metric",
            &["map", "ndcg@K"],
            "the measure E of the bound, under the data's convention",
        ),
        ParamInfo::positive("c", 0.0, 1e6, "trade-off in 1/2 |w|^2 + (c/Q) sum_q L_q"),
        ParamInfo::int("max_rounds", 1, 10_000, "maximum rounds of working-set updates"),
        ParamInfo::positive(
            "epsilon",
            0.0,
            1.0,
            "per round: stop when the most violated constraint exceeds the slack by at most epsilon",
        ),
        ParamInfo::int("cp_max_iter", 1, 1_000_000, "maximum cutting-plane iterations per round"),
    ];

    fn validate(&self) -> Result<PermuRank> {
        let info = |key| param_info(Self::TABLE, key);
        info("metric").check_choice(&self.metric.to_string())?;
        if let Metric::Ndcg(k) = self.metric
            && k > ltr_metrics::MAX_K
        {
            return Err(Error::param(
                "metric",
                self.metric,
                format!("k must be at most {}", ltr_metrics::MAX_K),
            ));
        }
        info("c").check_real(self.c)?;
        info("max_rounds").check_int(self.max_rounds as u64)?;
        info("epsilon").check_real(self.epsilon)?;
        info("cp_max_iter").check_int(self.cp_max_iter as u64)?;
        Ok(PermuRank { params: self.clone() })
    }
}

/// Validated PermuRank, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct PermuRank {
    params: PermuRankParams,
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitStats {
    /// The objective over the final working sets, `1/2 |w|^2 + (c/Q) sum_q L_q(w)`.
    pub objective: f64,
    /// Rounds run (working-set updates).
    pub rounds: usize,
    /// Whether the working sets stopped changing within `max_rounds`.
    pub converged: bool,
    /// Cutting-plane iterations over all rounds.
    pub cp_iterations: usize,
    /// Stored perfect and imperfect permutations over all queries.
    pub perfect: usize,
    /// See `perfect`.
    pub imperfect: usize,
    /// Training queries whose measure varies over their permutations.
    pub informative_queries: usize,
}

impl PermuRank {
    /// Fits and also returns diagnostics.
    ///
    /// # Errors
    /// No query whose measure varies over its permutations, non-finite features.
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let p = &self.params;
        let cfg = EvalConfig::of(train);
        let measure = Measure {
            metric: p.metric,
            cfg: p.metric.config(&cfg),
            max_grade: cfg.max_grade.unwrap_or_else(|| train.max_grade()),
        };
        let mut sets = WorkingSets::new(train, measure).ok_or_else(|| {
            Error::fit(
                INFO.id,
                format!(
                    "no training query has permutations of different {}: there is no constraint",
                    p.metric
                ),
            )
        })?;
        let not_finite = || Error::fit(INFO.id, "the objective is not finite (non-finite feature values?)");
        if !sets.features_finite() {
            return Err(not_finite());
        }
        let (d, q) = (train.n_features(), train.n_queries());
        let mut w = vec![0.0; d];
        let (mut rounds, mut converged, mut cp_iterations) = (0, false, 0);
        let mut objective = f64::NAN;
        // The working sets only grow, so each round's loss is at least the last one's: the
        // cutting planes of earlier rounds stay valid and each round continues from them.
        let mut cutting_plane = OneSlack::new(d, p.c);
        while rounds < p.max_rounds {
            if sets.update(&w) == 0 {
                converged = true;
                break;
            }
            rounds += 1;
            let sol = cutting_plane.run(&mut sets, q, p.epsilon, p.cp_max_iter).solution;
            if !sol.objective.is_finite() || sol.w.iter().any(|x| !x.is_finite()) {
                return Err(not_finite());
            }
            if !sol.converged {
                log::warn!(
                    "permurank: round {rounds}: cutting plane not converged after {} iterations (c = {})",
                    sol.iterations,
                    p.c
                );
            }
            cp_iterations += sol.iterations;
            objective = sol.objective;
            w = sol.w;
            log::trace!(
                "permurank: round {rounds}: {:?} permutations, {} cutting-plane iterations, F {objective:.10e}",
                sets.sizes(),
                sol.iterations
            );
        }
        if !converged {
            log::warn!("permurank: working sets still growing after {rounds} rounds (c = {})", p.c);
        }
        let (perfect, imperfect) = sets.sizes();
        log::debug!(
            "permurank ({}): c {}, {} informative queries, {rounds} rounds, {cp_iterations} cutting-plane \
             iterations, {perfect} + {imperfect} permutations, bound {:.6e}, F {objective:.10e}",
            p.metric,
            p.c,
            sets.n_queries(),
            sets.bound(&w)
        );
        let stats = FitStats {
            objective,
            rounds,
            converged,
            cp_iterations,
            perfect,
            imperfect,
            informative_queries: sets.n_queries(),
        };
        Ok((LinearModel::new(w, 0.0), stats))
    }
}

impl Learner for PermuRank {
    type Model = LinearModel;

    fn fit(&self, train: &Dataset, _valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<LinearModel> {
        self.fit_with_stats(train).map(|(m, _)| m)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
