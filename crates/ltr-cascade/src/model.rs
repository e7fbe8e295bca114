//! The cascade ranking model (L. Wang, J. Lin, D. Metzler, "A cascade ranking model for
//! efficient ranked retrieval", SIGIR 2011; the survey's 23.35): the model.
//!
//! A cascade is a sequence of stages `(J_t(beta_t), h_t, alpha_t)`. Every query starts with
//! all its documents; stage `t` first prunes the documents that reached it by their cascade
//! score so far, `f_{t-1}`, with `J_t` (stage 1 prunes nothing), then scores the survivors
//! with its weak ranker: `f_t = f_{t-1} + alpha_t h_t` on them. The final ranking puts the
//! documents that reached the last stage first, by `f_T`; below them those dropped at stage
//! `T`, by the score they had when dropped; then those dropped at stage `T - 1`; and so on
//! (ties in file order throughout).
//!
//!
//! Cost: LETOR has no feature costs, so every evaluation of a weak ranker (one feature) on
//! one document costs 1; [`Cascade::cost`] reports the count per query.

use ltr_boosting::{RunningScores, WeakRanker};
use ltr_core::{Dataset, Error, Ranker, Result, check_scoring};
use serde::{Deserialize, Serialize};

/// How a stage prunes the documents that reach it, by their cascade score so far. A
/// pruning function always keeps at least one document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "beta", rename_all = "kebab-case")]
pub enum Pruning {
    /// Keep every document.
    None,
    /// Rank-based: keep the top `floor((1 - beta) n)` of the `n` documents.
    Rank(f64),
    /// Score-based: keep the documents scoring at least `min + beta (max - min)`.
    Score(f64),
    /// Mean-max threshold: keep the documents scoring at least `beta max + (1 - beta) mean`.
    MeanMax(f64),
}

/// The pruning families offered to the stages (each with its `beta`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PruningKind {
    /// [`Pruning::Rank`].
    Rank,
    /// [`Pruning::Score`].
    Score,
    /// [`Pruning::MeanMax`].
    MeanMax,
}

impl PruningKind {
    /// This family's pruning with parameter `beta`.
    pub fn with(self, beta: f64) -> Pruning {
        match self {
            Self::Rank => Pruning::Rank(beta),
            Self::Score => Pruning::Score(beta),
            Self::MeanMax => Pruning::MeanMax(beta),
        }
    }
}

impl Pruning {
    /// How many documents survive, given their scores in descending order (at least one
    /// of a non-empty list).
    pub fn survivors(self, sorted: &[f64]) -> usize {
        let n = sorted.len();
        if n == 0 {
            return 0;
        }
        let at_least = |theta: f64| sorted.iter().take_while(|&&s| s >= theta).count();
        let keep = match self {
            Self::None => n,
            // The small epsilon keeps e.g. (1 - 0.3) * 10 = 6.9999... at 7.
            Self::Rank(beta) => ((1.0 - beta) * n as f64 + 1e-9).floor() as usize,
            Self::Score(beta) => {
                let (max, min) = (sorted[0], sorted[n - 1]);
                at_least(min + beta * (max - min))
            }
            Self::MeanMax(beta) => {
                let mean = sorted.iter().sum::<f64>() / n as f64;
                at_least(beta * sorted[0] + (1.0 - beta) * mean)
            }
        };
        keep.clamp(1, n)
    }
}

/// One stage of a cascade: prune, then add `alpha` times the weak ranker to the survivors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage<W> {
    /// The pruning applied to the documents reaching this stage.
    pub pruning: Pruning,
    /// The stage's weak ranker.
    pub weak: W,
    /// Its weight.
    pub alpha: f64,
}

/// A cascade ranking model.
///
/// [`Ranker::score`] runs the cascade query by query and returns, per document, its rank
/// from the bottom (`n_q - position`, so higher ranks first; the values are positions, not
/// relevance estimates). [`Ranker::score_row`] cannot prune (a single row has no query): it
/// gives the additive score of every stage, `sum_t alpha_t h_t(x)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cascade<W> {
    /// Number of features of the training data.
    pub n_features: usize,
    /// The stages, in order.
    pub stages: Vec<Stage<W>>,
}

/// What running a cascade on a data set costs: weak-ranker evaluations (one feature on one
/// document each), per query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CascadeCost {
    /// Evaluations per query, in query order.
    pub per_query: Vec<f64>,
    /// Their mean: the average cost per query.
    pub mean: f64,
    /// The mean cost of the same stages without pruning (`stages x n_q`).
    pub unpruned_mean: f64,
}

impl CascadeCost {
    /// `mean / unpruned_mean` (1 without pruning; 0 for an empty cascade).
    pub fn relative(&self) -> f64 {
        if self.unpruned_mean > 0.0 { self.mean / self.unpruned_mean } else { 0.0 }
    }
}

impl<W: WeakRanker> Cascade<W> {
    /// The running state of the cascade on `data` after all stages.
    fn run(&self, data: &Dataset) -> CascadeState {
        let mut state = CascadeState::new(data);
        for s in &self.stages {
            state.apply(s.pruning, &s.weak, s.alpha, data);
        }
        state
    }

    /// The cost of ranking every query of `data` (an error when the feature count differs).
    pub fn cost(&self, data: &Dataset) -> Result<CascadeCost> {
        if data.n_features() != self.n_features {
            return Err(Error::FeatureCount { expected: self.n_features, found: data.n_features() });
        }
        let state = self.run(data);
        let nq = data.n_queries().max(1) as f64;
        let mean = state.cost.iter().sum::<f64>() / nq;
        let unpruned_mean = (self.stages.len() * data.n_docs()) as f64 / nq;
        Ok(CascadeCost { per_query: state.cost, mean, unpruned_mean })
    }
}

impl<W: WeakRanker> Ranker for Cascade<W> {
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.n_features)?;
        for (t, s) in self.stages.iter().enumerate() {
            s.weak.check(&format!("stage {}", t + 1), self.n_features)?;
        }
        Ok(())
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        let mut acc = 0.0;
        for s in &self.stages {
            acc += s.alpha * s.weak.score(row);
        }
        acc
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features, data, out)?;
        out.copy_from_slice(&self.run(data).out);
        Ok(())
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Undefined(
            "a cascade of pruning stages, not a linear function of the features",
        )
    }

    /// The distinct features its stages read, and the number of stages.
    fn model_size(&self) -> ltr_core::ModelSize {
        let mut used = vec![false; self.n_features];
        for s in &self.stages {
            s.weak.mark_features(&mut used);
        }
        ltr_core::ModelSize::of_marked(&used, self.stages.len())
    }
}

/// One query's place in a running cascade.
#[derive(Debug, Clone)]
pub(crate) struct QueryState {
    /// Documents still in the cascade, sorted by `(f desc, index asc)`.
    pub alive: Vec<usize>,
    /// Dropped documents in their final order (the latest dropped first).
    pub tail: Vec<usize>,
}

/// A cascade running over a data set.
#[derive(Debug, Clone)]
pub(crate) struct CascadeState {
    /// The cascade score of every document (frozen once dropped).
    pub f: Vec<f64>,
    /// Where each query's documents stand.
    pub queries: Vec<QueryState>,
    /// `n_q - position` of every document in its query's cascade ranking.
    out: Vec<f64>,
    /// Weak-ranker evaluations so far, per query.
    cost: Vec<f64>,
}

/// A cascade's running state on the validation split: stages applied as the model applies
/// them, ranked by position.
impl<W: WeakRanker> RunningScores<Stage<W>> for CascadeState {
    fn start(data: &Dataset) -> Self {
        Self::new(data)
    }

    fn add(&mut self, stage: &Stage<W>, alpha: f64, data: &Dataset) {
        self.apply(stage.pruning, &stage.weak, alpha, data);
    }

    fn ranking(&self) -> &[f64] {
        &self.out
    }
}

/// `b`'s score before `a`'s: descending, a total order even with NaN (a model read from a
/// file may hold any weight). `+ 0.0` turns -0 into +0, which the evaluation's sort ties
/// with +0 (cascade scores are sums starting at +0, so -0 does not arise in practice).
pub(crate) fn by_score_desc(fa: f64, fb: f64) -> std::cmp::Ordering {
    (fb + 0.0).total_cmp(&(fa + 0.0))
}

/// Sorts documents by `(f desc, index asc)`: the order the evaluation gives to tied scores
/// (its stable sort by score keeps file order).
fn sort_by_score(docs: &mut [usize], f: &[f64]) {
    docs.sort_by(|&a, &b| by_score_desc(f[a], f[b]).then(a.cmp(&b)));
}

impl CascadeState {
    /// The state before the first stage: every document alive, in file order.
    pub fn new(data: &Dataset) -> Self {
        let queries =
            data.queries().map(|q| QueryState { alive: q.range().collect(), tail: Vec::new() }).collect();
        let mut s = Self {
            f: vec![0.0; data.n_docs()],
            queries,
            out: vec![0.0; data.n_docs()],
            cost: vec![0.0; data.n_queries()],
        };
        s.refresh_all();
        s
    }

    /// Applies one stage to query `q`.
    fn apply_query<W: WeakRanker>(
        &mut self,
        q: usize,
        pruning: Pruning,
        weak: &W,
        alpha: f64,
        data: &Dataset,
    ) {
        let qs = &mut self.queries[q];
        let sorted: Vec<f64> = qs.alive.iter().map(|&i| self.f[i]).collect();
        let keep = pruning.survivors(&sorted);
        let dropped = qs.alive.split_off(keep);
        qs.tail.splice(0..0, dropped);
        for &i in &qs.alive {
            self.f[i] += alpha * weak.score(data.row(i));
        }
        sort_by_score(&mut qs.alive, &self.f);
        self.cost[q] += keep as f64;
    }

    /// Rewrites `out` for query `q`.
    fn refresh(&mut self, q: usize) {
        let qs = &self.queries[q];
        let n = qs.alive.len() + qs.tail.len();
        for (pos, &i) in qs.alive.iter().chain(&qs.tail).enumerate() {
            self.out[i] = (n - pos) as f64;
        }
    }

    fn refresh_all(&mut self) {
        for q in 0..self.queries.len() {
            self.refresh(q);
        }
    }

    /// Applies one stage to every query.
    pub fn apply<W: WeakRanker>(&mut self, pruning: Pruning, weak: &W, alpha: f64, data: &Dataset) {
        for q in 0..self.queries.len() {
            self.apply_query(q, pruning, weak, alpha, data);
            self.refresh(q);
        }
    }
}

/// The labels of a query in the cascade's order (for tests).
#[cfg(test)]
pub(crate) fn ranked_labels<W: WeakRanker>(
    model: &Cascade<W>,
    data: &Dataset,
    q: usize,
) -> Vec<ltr_core::Grade> {
    let state = model.run(data);
    let qs = &state.queries[q];
    qs.alive.iter().chain(&qs.tail).map(|&i| data.labels()[i]).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_boosting::FeatureRanker;
    use ltr_testkit::dataset;

    #[test]
    fn pruning_functions_by_hand() {
        let s = [4.0, 3.0, 2.0, 1.0, 0.0];
        assert_eq!(Pruning::None.survivors(&s), 5);
        assert_eq!(Pruning::Rank(0.5).survivors(&s), 2); // floor(2.5)
        assert_eq!(Pruning::Rank(0.3).survivors(&[0.0; 10]), 7); // (1 - 0.3) 10 = 6.9999...
        assert_eq!(Pruning::Rank(0.95).survivors(&s[..3]), 1); // floor(0.15), at least one
        assert_eq!(Pruning::Score(0.5).survivors(&s), 3); // theta = 0 + 0.5 (4 - 0) = 2
        assert_eq!(Pruning::MeanMax(0.5).survivors(&s), 2); // theta = 0.5 * 4 + 0.5 * 2 = 3
        assert_eq!(Pruning::MeanMax(0.0).survivors(&s), 3); // the mean, 2
        assert_eq!(Pruning::Score(0.9).survivors(&[1.0, 1.0]), 2);
        assert_eq!(Pruning::Rank(0.5).survivors(&[]), 0);
        assert_eq!(PruningKind::MeanMax.with(0.25), Pruning::MeanMax(0.25));
    }

    /// Stage 1 scores all four documents with x0 = (0.4, 0.3, 0.2, 0.1): order d0 d1 d2 d3,
    /// cost 4. Stage 2 keeps the top floor(0.5 * 4) = 2 (d0, d1), drops d2 and d3 (in that
    /// order) and adds 2 x1 = (0, 2, -, -) to the survivors: f(d1) = 2.3 > f(d0) = 0.4, cost 2.
    /// The ranking is d1 d0 d2 d3 (scores 4 3 2 1), although d3's additive score
    /// 0.1 + 2 * 5 = 10.1 is the highest. Cost 6 against 8 unpruned.
    #[test]
    fn a_cascade_ranks_by_stage_and_counts_its_cost() {
        let d = dataset(2, &[(&[0, 1, 2, 0], &[[0.4, 0.0], [0.3, 1.0], [0.2, 0.0], [0.1, 5.0]])]);
        let model = Cascade {
            n_features: 2,
            stages: vec![
                Stage { pruning: Pruning::None, weak: FeatureRanker::plain(0), alpha: 1.0 },
                Stage { pruning: Pruning::Rank(0.5), weak: FeatureRanker::plain(1), alpha: 2.0 },
            ],
        };
        assert_eq!(model.score_vec(&d).unwrap(), vec![3.0, 4.0, 2.0, 1.0]);
        assert_eq!(ranked_labels(&model, &d, 0), vec![1, 0, 2, 0]);
        assert!((model.score_row(d.row(3)) - 10.1).abs() < 1e-6);
        let cost = model.cost(&d).unwrap();
        assert_eq!(cost.per_query, vec![6.0]);
        assert_eq!((cost.mean, cost.unpruned_mean, cost.relative()), (6.0, 8.0, 0.75));
        let json = serde_json::to_string(&model).unwrap();
        assert!(json.contains(r#"{"kind":"rank","beta":0.5}"#), "{json}");
        let back: Cascade<FeatureRanker> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, model);
        let wide = dataset(3, &[(&[0, 1], &[[0.0; 3], [1.0; 3]])]);
        assert!(model.cost(&wide).is_err() && model.score_vec(&wide).is_err());
    }
}
