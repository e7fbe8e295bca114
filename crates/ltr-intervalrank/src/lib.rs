//! IntervalRank (Moon, Smola, Chang, Zheng, "IntervalRank: Isotonic Regression with
//! Listwise and Pairwise Constraints", WSDM 2010), boosted with the histogram trees of
//! `ltr-trees`.
//!
//! Each round, for every query with at least two grades present, the interval problem of
//! [`interval`] places one interval per grade (separated by the grade differences, with
//! slacks) as close as possible to the current scores; a document's gradient is its
//! distance to its grade's interval, `f_j - clip(f_j, l_g(j), u_g(j))`, with hessian 1. A
//! tree fitted to the gradients (least squares: Newton leaves with unit hessians) moves
//! the scores: `f <- f - eta h`. See the README for every parameter.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod interval;

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, Learner, LossType, ParamInfo, Params, Result, Rng,
    Validation, param_info, param_table,
};
use ltr_trees::{BaseTreeParams, BoostConfig, Objective, TreeModel, boost};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::interval::IntervalProblem;

/// Static metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 126.0 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "intervalrank",
    name: "IntervalRank",
    family: Family::Trees,
    year: 2010,
    loss: LossType::Listwise,
    optimizer: "gradient boosting (histogram trees) + log-barrier / conjugate gradient",
    reference: "T. Moon, A. Smola, Y. Chang, Z. Zheng. IntervalRank: Isotonic Regression with \
                Listwise and Pairwise Constraints. WSDM 2010.",
    summary: "on the shared histogram GBDT learner",
    feature_scale: ltr_core::FeatureScale::QUANTILE_BINS,
    small_settings: &["rounds=8"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(126.0, "just bench-budget 2026-11-23, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("rounds", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Distances to an interval below this are treated as 0. The barrier solution leaves a
/// document that the exact solution puts on the end of its interval up to `mu / c` outside
/// it (`mu = 6.25e-7` at the end, `c` the slack of the neighbouring margin constraint).
pub const GRADIENT_TOL: f64 = 1e-5;

/// IntervalRank hyperparameters (keys for specs and `--set`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IntervalRankParams {
    /// Boosting rounds, one tree each (default 100). With a validation split the best prefix
    /// is kept.
    pub rounds: usize,
    /// Step size: each tree's output is scaled by `eta` (default 0.1).
    pub eta: f64,
    /// Weight of the margin slacks `eps` (default 1). Positive.
    pub lambda1: f64,
    /// Weight of the interval widths `xi` (default 1). Positive.
    pub lambda2: f64,
    /// The tree keys every tree ranker has (`leaves`, `min_data_in_leaf`,
    /// `early_stopping_rounds`).
    #[serde(flatten)]
    pub tree: BaseTreeParams,
}

impl Default for IntervalRankParams {
    fn default() -> Self {
        Self { rounds: 100, eta: 0.1, lambda1: 1.0, lambda2: 1.0, tree: BaseTreeParams::default() }
    }
}

impl Params for IntervalRankParams {
    type Checked = IntervalRank;

    /// `rounds <= 10000`: every round solves an interval problem per training query, so a
    /// round costs far more than a LambdaMART tree.
    const TABLE: &'static [ParamInfo] = param_table!(
        &[
            ParamInfo::int(
                "rounds",
                1,
                10_000,
                "boosting rounds, one tree each; with vali the best prefix is kept"
            ),
            ParamInfo::positive("eta", 0.0, 1.0, "step size: each tree's output is scaled by eta"),
            ParamInfo::positive("lambda1", 0.0, 1e6, "weight of the margin slacks eps"),
            ParamInfo::positive("lambda2", 0.0, 1e6, "weight of the interval widths xi"),
        ],
        BaseTreeParams::TABLE,
    );

    fn validate(&self) -> Result<IntervalRank> {
        // The tree keys are checked by `boost_config`, through the same rows.
        let info = |key| param_info(Self::TABLE, key);
        info("rounds").check_int(self.rounds as u64)?;
        info("eta").check_real(self.eta)?;
        info("lambda1").check_real(self.lambda1)?;
        info("lambda2").check_real(self.lambda2)?;
        let boost = self.tree.boost_config(self.rounds, self.eta)?;
        Ok(IntervalRank { params: self.clone(), boost })
    }
}

/// Validated IntervalRank settings.
#[derive(Debug, Clone)]
pub struct IntervalRank {
    params: IntervalRankParams,
    boost: BoostConfig,
}

impl IntervalRank {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &IntervalRankParams {
        &self.params
    }
}

impl Learner for IntervalRank {
    type Model = IntervalRankModel;

    /// Bins the training features once for every fit with the same binning settings.
    fn prepare(&self, train: &Dataset) -> Result<()> {
        ltr_trees::prepare(train, &self.boost)
    }

    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<IntervalRankModel> {
        if train.n_docs() == 0 {
            return Err(Error::fit(INFO.id, "empty training set"));
        }
        let mut objective = IntervalObjective::new(
            train.labels(),
            train.query_offsets(),
            self.params.lambda1,
            self.params.lambda2,
        );
        if objective.active_queries() == 0 {
            return Err(Error::fit(INFO.id, "no training query has two different grades"));
        }
        let boosted = boost(train, valid, &mut objective, &self.boost, rng)?;
        Ok(IntervalRankModel { ensemble: boosted.ensemble })
    }
}

/// One query's state across rounds.
#[derive(Debug, Clone)]
struct QueryState {
    /// Grade index (into the query's distinct grades, ascending) of each document.
    group: Vec<usize>,
    /// Number of distinct grades.
    k: usize,
    /// `g_{a+1} - g_a`.
    margins: Vec<f64>,
    /// The last interval solution (warm start), empty before the first round.
    x: Vec<f64>,
}

/// The IntervalRank objective on one training set.
#[derive(Debug, Clone)]
pub struct IntervalObjective<'a> {
    offsets: &'a [usize],
    lambda1: f64,
    lambda2: f64,
    states: Vec<QueryState>,
}

impl<'a> IntervalObjective<'a> {
    /// The objective for documents with `labels` grouped by `offsets`.
    pub fn new(labels: &'a [Grade], offsets: &'a [usize], lambda1: f64, lambda2: f64) -> Self {
        let states = offsets
            .windows(2)
            .map(|w| {
                let labels = &labels[w[0]..w[1]];
                let mut grades: Vec<Grade> = labels.to_vec();
                grades.sort_unstable();
                grades.dedup();
                let group = labels.iter().map(|g| grades.partition_point(|x| x < g)).collect();
                let margins = grades.windows(2).map(|p| f64::from(p[1]) - f64::from(p[0])).collect();
                QueryState { group, k: grades.len(), margins, x: Vec::new() }
            })
            .collect();
        Self { offsets, lambda1, lambda2, states }
    }

    /// Queries with at least two grades (the others get zero gradients and hessians).
    pub fn active_queries(&self) -> usize {
        self.states.iter().filter(|s| s.k >= 2).count()
    }

    fn query(&self, state: &mut QueryState, scores: &[f64], grad: &mut [f32], hess: &mut [f32]) {
        if state.k < 2 {
            grad.fill(0.0);
            hess.fill(0.0);
            return;
        }
        let mut groups = vec![Vec::new(); state.k];
        for (&a, &s) in state.group.iter().zip(scores) {
            groups[a].push(s);
        }
        let problem = IntervalProblem::new(groups, state.margins.clone(), self.lambda1, self.lambda2);
        let feasible =
            state.x.len() == problem.n_vars() && problem.constraint_values(&state.x).iter().all(|&c| c > 0.0);
        if !feasible {
            state.x = problem.cold_start();
        }
        problem.solve(&mut state.x);
        let k = state.k;
        for ((g, h), (&a, &s)) in grad.iter_mut().zip(hess.iter_mut()).zip(state.group.iter().zip(scores)) {
            let d = interval_gradient(s, state.x[a], state.x[k + a]);
            *g = d as f32;
            *h = 1.0;
        }
    }
}

/// `f - clip(f, l, u)`, 0 within [`GRADIENT_TOL`] of the interval.
pub fn interval_gradient(f: f64, l: f64, u: f64) -> f64 {
    let d = f - f.clamp(l, u.max(l));
    if d.abs() <= GRADIENT_TOL { 0.0 } else { d }
}

impl Objective for IntervalObjective<'_> {
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        let mut states = std::mem::take(&mut self.states);
        let this = &*self;
        let mut parts = Vec::with_capacity(states.len());
        let (mut g_rest, mut h_rest) = (gradients, hessians);
        for (q, state) in states.iter_mut().enumerate() {
            let len = this.offsets[q + 1] - this.offsets[q];
            let (g, gt) = std::mem::take(&mut g_rest).split_at_mut(len);
            let (h, ht) = std::mem::take(&mut h_rest).split_at_mut(len);
            parts.push((q, state, g, h));
            g_rest = gt;
            h_rest = ht;
        }
        // One task per query, each with its own state and documents.
        parts.into_par_iter().for_each(|(q, state, g, h)| {
            this.query(state, &scores[this.offsets[q]..this.offsets[q + 1]], g, h);
        });
        self.states = states;
        Ok(())
    }
}

/// A fitted IntervalRank model: an additive ensemble of regression trees on raw features (the
/// tree rankers' one model type; its JSON is the ensemble's).
pub type IntervalRankModel = TreeModel;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ltr_core::{DatasetBuilder, Ranker};

    /// The default parameters with `edit` applied to the tree keys.
    fn tree(edit: impl FnOnce(&mut BaseTreeParams)) -> IntervalRankParams {
        let mut p = IntervalRankParams::default();
        edit(&mut p.tree);
        p
    }

    /// The tree keys sit flat in the parameters' JSON, in the order and with the values they
    /// had as fields.
    #[test]
    fn parameters_serialise_flat() {
        let json = r#"{"rounds":100,"eta":0.1,"lambda1":1.0,"lambda2":1.0,"leaves":31,"min_data_in_leaf":20,"early_stopping_rounds":0}"#;
        assert_eq!(serde_json::to_string(&IntervalRankParams::default()).unwrap(), json);
        assert_eq!(serde_json::from_str::<IntervalRankParams>(json).unwrap(), IntervalRankParams::default());
        let p: IntervalRankParams = serde_json::from_str(r#"{"leaves": 7, "eta": 0.5}"#).unwrap();
        assert_eq!(p, IntervalRankParams { eta: 0.5, ..tree(|t| t.leaves = 7) });
    }

    #[test]
    fn parameter_table_matches_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<IntervalRankParams>().unwrap();
        ltr_core::check_readme::<IntervalRankParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(IntervalRankParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        for (p, key) in [
            (IntervalRankParams { rounds: 10_001, ..Default::default() }, "`rounds`"),
            (IntervalRankParams { eta: 0.0, ..Default::default() }, "`eta`"),
            (tree(|t| t.leaves = 5000), "`leaves`"),
        ] {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn gradient_is_the_distance_to_the_interval() {
        assert_eq!(interval_gradient(0.5, 0.0, 1.0), 0.0);
        assert_eq!(interval_gradient(1.5, 0.0, 1.0), 0.5);
        assert_eq!(interval_gradient(-2.0, 0.0, 1.0), -2.0);
        assert_eq!(interval_gradient(1.0 + 1e-6, 0.0, 1.0), 0.0);
    }

    /// One document per grade at 0, 1.5 and 3 (grades 0, 1, 2; margins 1): the zero-cost
    /// intervals [0, 0], [1.5, 1.5], [3, 3] contain every score, so no document moves.
    #[test]
    fn scores_inside_their_intervals_get_zero_gradient() {
        let labels = [0u8, 1, 2, 2, 0];
        let offsets = [0usize, 3, 5];
        let mut obj = IntervalObjective::new(&labels, &offsets, 1.0, 1.0);
        let (mut g, mut h) = ([9f32; 5], [9f32; 5]);
        obj.gradients(&[0.0, 1.5, 3.0, 7.0, -7.0], &mut g, &mut h).unwrap();
        assert_eq!(g, [0.0; 5]);
        assert_eq!(h, [1.0; 5]);
        // Misordered scores move: the grade-0 document above the grade-1 one goes down.
        obj.gradients(&[2.0, 0.0, 3.0, 7.0, -7.0], &mut g, &mut h).unwrap();
        assert!(g[0] > 0.0 && g[1] < 0.0, "{g:?}");
    }

    #[test]
    fn single_grade_queries_contribute_nothing() {
        let labels = [1u8, 1, 0, 2];
        let offsets = [0usize, 2, 4];
        let mut obj = IntervalObjective::new(&labels, &offsets, 1.0, 1.0);
        assert_eq!(obj.active_queries(), 1);
        let (mut g, mut h) = ([9f32; 4], [9f32; 4]);
        obj.gradients(&[0.0, 5.0, 0.0, 0.0], &mut g, &mut h).unwrap();
        assert_eq!((g[0], g[1], h[0], h[1]), (0.0, 0.0, 0.0, 0.0));
        assert!(g[2] > 0.0 && g[3] < 0.0);
    }

    fn toy() -> Dataset {
        let mut b = DatasetBuilder::new(2);
        let mut r = Rng::new(5);
        for q in 0..40 {
            b.start_query(&q.to_string());
            for _ in 0..12 {
                let x = [r.uniform() as f32, r.uniform() as f32];
                let y = ((x[0] + 0.3 * x[1]) * 2.0).min(2.0) as u8;
                b.push_doc(y, &x, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    #[test]
    fn learns_a_toy_ranking_and_round_trips_through_json() {
        let data = toy();
        let params =
            IntervalRankParams { rounds: 30, eta: 0.3, ..tree(|t| (t.min_data_in_leaf, t.leaves) = (5, 8)) };
        let model = params.validate().unwrap().fit(&data, None, &mut Rng::new(1)).unwrap();
        let scores = model.score_vec(&data).unwrap();
        // Mean score rises with the grade.
        let mean = |g: u8| {
            let v: Vec<f64> = scores.iter().zip(data.labels()).filter(|p| *p.1 == g).map(|p| *p.0).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        assert!(mean(0) < mean(1) && mean(1) < mean(2), "{} {} {}", mean(0), mean(1), mean(2));
        let json = serde_json::to_string(&model).unwrap();
        let back: IntervalRankModel = serde_json::from_str(&json).unwrap();
        let again = back.score_vec(&data).unwrap();
        assert!(scores.iter().zip(&again).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |p: IntervalRankParams| match p.validate() {
            Err(Error::InvalidParam { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(key(IntervalRankParams { lambda1: 0.0, ..Default::default() }), "lambda1");
        assert_eq!(key(IntervalRankParams { lambda2: -1.0, ..Default::default() }), "lambda2");
        assert_eq!(key(IntervalRankParams { eta: f64::INFINITY, ..Default::default() }), "eta");
        assert_eq!(key(IntervalRankParams { rounds: 0, ..Default::default() }), "rounds");
        assert_eq!(key(tree(|t| t.leaves = 1)), "leaves");
    }
}
