//! PCRank, pairwise concordant ranking (id `pcrank`): per-query closed-form linear weak
//! rankers combined by the query-weighted boosting loop of `ltr-boosting`.
//!
//! For a query with documents `x_i` and (transformed) grades `y_i = psi(r_i)`, maximising
//! the concordance `sum_{y_i > y_j} w.(x_i - x_j)(y_i - y_j) - lambda/2 |w|^2` has the closed
//! form `w_q = (1/lambda) sum_i beta_i x_i` with `beta_i = n y_i - sum_j y_j` (grouped by
//! grade: `sum_r beta_r sum_{i in S_r} x_i`, `beta_r = n r - sum_r' r' |S_r'|`), computed in
//! one pass over the query (O(n d)). The optional same-grade closeness term
//! `gamma sum_r phi(r) sum_{i<j in S_r} |w.x_i - w.x_j|` is handled by subgradient ascent
//! started from the closed form. Each weak ranker is normalised to unit length; the loop
//! picks, round by round, the query model with the best query-weighted measure on the whole
//! training set.
//!
//! No publication describing PCRank was found; the method follows the project's own
//! specification, and the boosting loop is AdaRank's (Xu & Li, SIGIR 2007). See README.

use ltr_boosting::{BoostConfig, BoostOutcome, Ensemble, WeakRanker, WeakSource, boost};
use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params, QueryView, Result,
    Rng, Validation, param_info,
};
use ltr_linear::dot;
use ltr_metrics::{EvalConfig, Metric};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables. No PCRank publication was found: `year` is that of
/// the reference actually cited, AdaRank's boosting loop (2007).
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 73.6 s at one thread on 149,860
/// training rows x 136 features, the largest MSLR-WEB10K-shaped split within its scale limit (`just
/// bench-budget` of 2026-11-23, two fits at a time; its README's "Scale" section), and the time
/// grows as rows^2.04 (the scaling curve of 2026-11-27 in that README, as its `scale_limit` says).
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "pcrank",
    name: "PCRank",
    family: Family::Boosting,
    year: 2007,
    loss: LossType::Pairwise,
    optimizer: "closed form per query + query-weighted boosting",
    reference: "No PCRank publication found; per-query closed form as specified by the ltr project, boosted with the loop of J. Xu, H. Li, AdaRank, SIGIR 2007.",
    summary: "closed-form weak rankers, AdaRank loop",
    scale_limit: Some(ltr_core::ScaleLimit {
        max_train_rows: 150_000,
        measured: "measured time grows as rows^2.04, from 2.4 s of CPU at 22,221 rows to 117 s at \
                   172,019, as every query model is measured on every training query: the set-up \
                   alone would take about 740 s at 728,521 rows; see its README",
    }),
    small_settings: &["rounds=10"],
    cost: Some(ltr_core::FitCost {
        train_rows: ltr_core::FitCost::LIMITED_ROWS,
        row_exponent: 2.04,
        ..ltr_core::FitCost::mslr_web10k(73.6, "just bench-budget 2026-11-23, 149,860 rows, 1 thread")
    }),
    ..AlgorithmInfo::DEFAULT
};

/// The monotone label transform `psi` applied to grades before the closed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelTransform {
    /// `psi(r) = r`.
    Identity,
    /// `psi(r) = 2^r - 1` (the NDCG gain).
    Gain,
}

impl LabelTransform {
    /// `psi(grade)`.
    pub fn apply(self, grade: Grade) -> f64 {
        match self {
            Self::Identity => f64::from(grade),
            Self::Gain => f64::from(grade).exp2() - 1.0,
        }
    }
}

/// The per-grade weight `phi` of the closeness term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClosenessWeight {
    /// `phi(r) = 1`: every grade's documents are pulled together.
    One,
    /// `phi(r) = psi(r)`: the transformed grade, so grade 0 is left free and higher grades
    /// are pulled together harder.
    Label,
}

/// Hyperparameters of PCRank (`pcrank`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PcRankParams {
    /// Maximum number of boosting rounds. Default 100. With validation data the model keeps
    /// the best prefix on it.
    pub rounds: usize,
    /// The per-query measure the loop weights queries by: `map` or `ndcg@K`, computed under
    /// the convention the training data carries. Default `map`.
    pub metric: Metric,
    /// `psi`: `identity` or `gain` (`2^r - 1`). Default `identity`.
    pub label_transform: LabelTransform,
    /// `gamma`, the weight of the same-grade closeness term. Default 0 (pure closed form).
    pub closeness: f64,
    /// `phi`: `one` or `label`. Default `one`. Only used when `closeness > 0`.
    pub closeness_weight: ClosenessWeight,
    /// Subgradient steps per query for the closeness variant (step size `1/k`, best
    /// iterate kept). Default 50. Only used when `closeness > 0`.
    pub subgradient_steps: usize,
    /// Forbid the query model chosen in the previous round. Default `true`.
    pub no_reselect: bool,
    /// Accept a weak ranker only if it improves the weighted measure; stop when none does.
    /// Default `true`.
    pub require_improvement: bool,
    /// Leave out queries whose measure cannot change with the ranking (they still supply
    /// weak rankers when they have two grades). Default `true`.
    pub skip_uninformative: bool,
}

impl Default for PcRankParams {
    fn default() -> Self {
        Self {
            rounds: 100,
            metric: Metric::Map,
            label_transform: LabelTransform::Identity,
            closeness: 0.0,
            closeness_weight: ClosenessWeight::One,
            subgradient_steps: 50,
            no_reselect: true,
            require_improvement: true,
            skip_uninformative: true,
        }
    }
}

impl Params for PcRankParams {
    type Checked = PcRank;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::int(
            "rounds",
            1,
            10_000,
            "round cap of the boosting loop; with vali the best prefix is kept",
        ),
        ParamInfo::choice(
            "metric",
            &["map", "ndcg@K"],
            "the per-query measure E, under the data's convention",
        ),
        ParamInfo::choice("label_transform", &["identity", "gain"], "psi applied to grades: r, or 2^r - 1"),
        ParamInfo::real(
            "closeness",
            0.0,
            1e6,
            "gamma, weight of the same-grade closeness term (0: pure closed form)",
        ),
        ParamInfo::choice(
            "closeness_weight",
            &["one", "label"],
            "phi, the per-grade weight of closeness: 1 or psi(r)",
        ),
        ParamInfo::int(
            "subgradient_steps",
            0,
            10_000,
            "subgradient steps per query; at least 1 when closeness > 0",
        ),
        ParamInfo::flag("no_reselect", "forbid the query model chosen in the previous round"),
        ParamInfo::flag("require_improvement", "accept a model only if it improves the weighted measure"),
        ParamInfo::flag("skip_uninformative", "leave out of the loop queries whose measure cannot change"),
    ];

    fn validate(&self) -> Result<PcRank> {
        let info = |key| param_info(Self::TABLE, key);
        info("rounds").check_int(self.rounds as u64)?;
        info("metric").check_choice(&self.metric.to_string())?;
        info("closeness").check_real(self.closeness)?;
        info("subgradient_steps").check_int(self.subgradient_steps as u64)?;
        if self.closeness > 0.0 && self.subgradient_steps == 0 {
            return Err(Error::param("subgradient_steps", self.subgradient_steps, "must be at least 1"));
        }
        Ok(PcRank { params: self.clone() })
    }
}

/// A per-query linear weak ranker `h(x) = w . x` (unit `w`), tagged with the query it was
/// fitted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearWeak {
    /// The training query id the weights come from.
    pub query: String,
    /// The weights, one per feature.
    pub weights: Vec<f64>,
}

impl WeakRanker for LinearWeak {
    fn score(&self, row: &[f32]) -> f64 {
        dot(&self.weights, row)
    }

    /// One weight per feature of the model: fewer would leave features unread, more would
    /// read features past the model's width.
    fn check(&self, what: &str, n_features: usize) -> Result<()> {
        if self.weights.len() != n_features {
            return Err(Error::model(format!(
                "{what} has {} weights, for a model of {n_features} features",
                self.weights.len()
            )));
        }
        Ok(())
    }

    fn add_weights(&self, alpha: f64, weights: &mut [f64]) -> std::result::Result<(), &'static str> {
        for (a, b) in weights.iter_mut().zip(&self.weights) {
            *a += alpha * b;
        }
        Ok(())
    }

    fn mark_features(&self, used: &mut [bool]) {
        for (u, &w) in used.iter_mut().zip(&self.weights) {
            *u |= w != 0.0;
        }
    }
}

/// A fitted PCRank model.
pub type PcRankModel = Ensemble<LinearWeak>;

/// The closed form `sum_i (n psi(r_i) - sum_j psi(r_j)) x_i` of one query (unnormalised;
/// all zero when the query has a single grade).
pub fn closed_form(q: &QueryView<'_>, psi: impl Fn(Grade) -> f64) -> Vec<f64> {
    let n = q.len() as f64;
    let total: f64 = q.labels.iter().map(|&r| psi(r)).sum();
    let mut w = vec![0.0; q.n_features];
    for (i, &r) in q.labels.iter().enumerate() {
        let beta = n * psi(r) - total;
        if beta != 0.0 {
            for (wj, &x) in w.iter_mut().zip(q.row(i)) {
                *wj += beta * f64::from(x);
            }
        }
    }
    w
}

/// The closeness penalty `P(w) = sum_r phi(r) sum_{i<j in S_r} |s_i - s_j|` of `w` on a query
/// and a subgradient of it (`s = X w`; each group sorted once: the document at sorted
/// position `k` of `m` has coefficient `2k - (m - 1)`).
fn closeness_and_subgradient(
    q: &QueryView<'_>,
    w: &[f64],
    phi: &impl Fn(Grade) -> f64,
    order: &mut Vec<(Grade, f64, usize)>,
    grad: &mut [f64],
) -> f64 {
    order.clear();
    order.extend((0..q.len()).map(|i| (q.labels[i], dot(w, q.row(i)), i)));
    order.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    grad.fill(0.0);
    let mut penalty = 0.0;
    let mut start = 0;
    while start < order.len() {
        let grade = order[start].0;
        let end = start + order[start..].iter().take_while(|e| e.0 == grade).count();
        let (m, weight) = ((end - start) as f64, phi(grade));
        if weight != 0.0 && end - start > 1 {
            for (k, &(_, s, i)) in order[start..end].iter().enumerate() {
                let coef = weight * (2.0 * k as f64 - (m - 1.0));
                penalty += coef * s;
                for (g, &x) in grad.iter_mut().zip(q.row(i)) {
                    *g += coef * f64::from(x);
                }
            }
        }
        start = end;
    }
    penalty
}

/// Maximises `J(w) = c.w - |w|^2/2 - gamma P(w)` by subgradient ascent from `w = c` with
/// step `1/k`, returning the best iterate (the optimal direction does not depend on the
/// regularisation weight, which is therefore fixed to 1).
fn closeness_solve(
    q: &QueryView<'_>,
    c: &[f64],
    gamma: f64,
    phi: impl Fn(Grade) -> f64,
    steps: usize,
) -> Vec<f64> {
    let d = c.len();
    let mut w = c.to_vec();
    let mut grad = vec![0.0; d];
    let mut order = Vec::with_capacity(q.len());
    let objective = |w: &[f64], p: f64| dot(c, w) - 0.5 * dot(w, w) - gamma * p;
    let mut best_w = w.clone();
    let mut best_j = f64::NEG_INFINITY;
    for k in 1..=steps + 1 {
        let p = closeness_and_subgradient(q, &w, &phi, &mut order, &mut grad);
        let j = objective(&w, p);
        if j > best_j {
            best_j = j;
            best_w.copy_from_slice(&w);
        }
        if k > steps {
            break;
        }
        let eta = 1.0 / k as f64;
        for ((wj, cj), gj) in w.iter_mut().zip(c).zip(&grad) {
            *wj += eta * (cj - *wj - gamma * gj);
        }
    }
    best_w
}

/// Validated PCRank.
#[derive(Debug, Clone, PartialEq)]
pub struct PcRank {
    params: PcRankParams,
}

impl PcRank {
    /// The weak ranker of one query: the closed form (or the closeness solution), scaled to
    /// unit length; `None` when it is zero (a single grade, or features that do not vary).
    pub fn query_model(&self, q: &QueryView<'_>) -> Option<LinearWeak> {
        let p = &self.params;
        let psi = |g: Grade| p.label_transform.apply(g);
        let c = closed_form(q, psi);
        let w = if p.closeness > 0.0 {
            let phi = |g: Grade| match p.closeness_weight {
                ClosenessWeight::One => 1.0,
                ClosenessWeight::Label => p.label_transform.apply(g),
            };
            closeness_solve(q, &c, p.closeness, phi, p.subgradient_steps)
        } else {
            c
        };
        let norm = dot(&w, &w).sqrt();
        (norm > 0.0 && norm.is_finite())
            .then(|| LinearWeak { query: q.qid.to_owned(), weights: w.iter().map(|v| v / norm).collect() })
    }

    /// The loop configuration this learner runs on `train`: the measure is computed under
    /// the official configuration of the convention the training data carries
    /// ([`EvalConfig::of`]), the one its numbers are reported under.
    pub fn boost_config(&self, train: &Dataset) -> BoostConfig {
        let p = &self.params;
        BoostConfig {
            max_rounds: p.rounds,
            no_reselect: p.no_reselect,
            require_improvement: p.require_improvement,
            skip_uninformative: p.skip_uninformative,
            ..BoostConfig::new(INFO.id, p.metric, EvalConfig::of(train))
        }
    }

    /// Fits and returns the loop's full outcome (per-round trace, stop reason).
    pub fn fit_outcome(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<BoostOutcome<LinearWeak>> {
        let candidates: Vec<LinearWeak> = (0..train.n_queries())
            .into_par_iter()
            .filter_map(|q| self.query_model(&train.query(q)))
            .collect();
        if candidates.is_empty() {
            return Err(Error::fit(INFO.id, "no training query yields a non-zero weak ranker"));
        }
        log::debug!("pcrank: {} query models from {} queries", candidates.len(), train.n_queries());
        boost(&mut QuerySource { candidates }, train, valid, &self.boost_config(train))
    }
}

#[derive(Debug)]
struct QuerySource {
    candidates: Vec<LinearWeak>,
}

impl WeakSource for QuerySource {
    type Weak = LinearWeak;

    fn n_candidates(&self) -> usize {
        self.candidates.len()
    }

    fn candidate(&self, c: usize) -> &LinearWeak {
        &self.candidates[c]
    }
}

impl Learner for PcRank {
    type Model = PcRankModel;

    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<PcRankModel> {
        Ok(self.fit_outcome(train, valid)?.model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
