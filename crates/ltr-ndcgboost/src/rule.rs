//! NDCGBoost's round on the query-level boosting driver of `ltr-boosting`.
//!
//! Round `t`, with the current scores `F`: every loop query's expected ranks `pibar`,
//! weights `w` and potentials `gamma` (see `objective`); the binary weak ranker `h` (a
//! threshold on one feature) that maximises `|sum_q sum_i gamma_i h(x_i)|` (the weighted
//! classification of the paper: documents labelled by the sign of `gamma` and weighted by
//! its size; the slope of the relaxed objective along `h`) is tried first, with the weight
//! `alpha = 1/4 ln(up / down)` that maximises the bound (computed only for the candidates
//! the driver tries: it needs a pass over every pair). The driver accepts it when the relaxed
//! expected NDCG summed over the loop queries rises, otherwise tries the next candidate.

use std::ops::Range;

use ltr_boosting::{
    ALPHA_DENOMINATOR_FLOOR, Accepted, CutCandidates, Ensemble, Rule, ThresholdRanker, mass_weights,
};
use ltr_core::{Dataset, Result};
use rayon::prelude::*;

use crate::objective::{
    Sigmoids, expected_ranks, gain, ideal_dcg, potentials, rank_weights, relaxed_from_ranks, up_down,
};

/// One training query of the loop.
#[derive(Debug, Clone)]
pub(crate) struct NdcgQuery {
    /// Index of the query in the training data.
    pub query: usize,
    range: Range<usize>,
    gains: Vec<f64>,
    ideal: f64,
}

impl NdcgQuery {
    /// Query `q`, or `None` when no document has a positive gain (its NDCG is undefined).
    pub fn new(train: &Dataset, q: usize) -> Option<Self> {
        let view = train.query(q);
        let gains: Vec<f64> = view.labels.iter().map(|&y| gain(y)).collect();
        let ideal = ideal_dcg(&gains);
        (ideal > 0.0).then(|| Self { query: q, range: view.range(), gains, ideal })
    }

    /// The relaxed expected NDCG of the query with scores `scores[i] + shift(i)`.
    fn relaxed(&self, scores: &[f64], shift: impl Fn(usize) -> f64) -> f64 {
        let mut sig = Sigmoids::default();
        sig.set(self.range.clone().map(|i| scores[i] + shift(i)));
        let mut ranks = Vec::new();
        expected_ranks(&sig, &mut ranks);
        relaxed_from_ranks(&self.gains, self.ideal, &ranks)
    }
}

/// NDCGBoost's rule.
pub(crate) struct NdcgRule<'a> {
    pub cands: &'a CutCandidates,
    pub train: &'a Dataset,
    pub queries: Vec<NdcgQuery>,
    /// `F` of every training document.
    scores: Vec<f64>,
    /// The relaxed expected NDCG per loop query under `F`.
    pub cur: Vec<f64>,
    /// This round's `w_i` and `gamma_i` per training document (0 outside the loop).
    w: Vec<f64>,
    gamma: Vec<f64>,
    /// This round's `sum_i gamma_i h_c(x_i)` per candidate.
    sums: Vec<f64>,
    /// This round's `sum |gamma_i|` per loop query (the trace's query weights).
    mass: Vec<f64>,
    /// The training indices of `queries`.
    loop_queries: Vec<usize>,
}

impl<'a> NdcgRule<'a> {
    pub fn new(cands: &'a CutCandidates, train: &'a Dataset, queries: Vec<NdcgQuery>) -> Self {
        let scores = vec![0.0; train.n_docs()];
        let cur = queries.iter().map(|q| q.relaxed(&scores, |_| 0.0)).collect();
        let n = train.n_docs();
        let loop_queries = queries.iter().map(|q| q.query).collect();
        Self {
            loop_queries,
            cands,
            train,
            queries,
            scores,
            cur,
            w: vec![0.0; n],
            gamma: vec![0.0; n],
            sums: Vec::new(),
            mass: Vec::new(),
        }
    }

    /// The mean relaxed expected NDCG over the loop queries, summed in query order.
    pub fn mean(&self, per_query: &[f64]) -> f64 {
        per_query.iter().sum::<f64>() / self.queries.len() as f64
    }
}

impl Rule for NdcgRule<'_> {
    type Weak = ThresholdRanker;
    /// The relaxed expected NDCG per loop query after the candidate.
    type Trial = Vec<f64>;
    type Scores = Vec<f64>;

    fn begin_round(&mut self, _t: usize) -> Result<()> {
        let scores = &self.scores;
        let per_query: Vec<(Vec<f64>, Vec<f64>)> = self
            .queries
            .par_iter()
            .map(|q| {
                let mut sig = Sigmoids::default();
                sig.set(q.range.clone().map(|i| scores[i]));
                let (mut ranks, mut w, mut gamma) = (Vec::new(), Vec::new(), Vec::new());
                expected_ranks(&sig, &mut ranks);
                rank_weights(&q.gains, q.ideal, &ranks, &mut w);
                potentials(&sig, &w, &mut gamma);
                (w, gamma)
            })
            .collect();
        self.mass.clear();
        for (q, (w, gamma)) in self.queries.iter().zip(per_query) {
            self.w[q.range.clone()].copy_from_slice(&w);
            self.gamma[q.range.clone()].copy_from_slice(&gamma);
            self.mass.push(gamma.iter().map(|g| g.abs()).sum());
        }
        self.sums = self.cands.edges(&self.gamma);
        Ok(())
    }

    /// `sum_i |gamma_i|` of each query normalised to sum 1 (0 outside the loop).
    fn query_weights(&self) -> Vec<f64> {
        mass_weights(self.train.n_queries(), &self.loop_queries, &self.mass)
    }

    fn n_candidates(&self) -> usize {
        self.cands.n_candidates()
    }

    fn group(&self, c: usize) -> usize {
        self.cands.feature(c)
    }

    /// `|sum_i gamma_i h_c(x_i)|`; the weight comes from [`Rule::weight`].
    fn choice(&self, c: usize) -> Option<(f64, f64)> {
        let v = self.sums[c].abs();
        (v > 0.0 && v.is_finite()).then_some((v, 0.0))
    }

    fn weight(&self, c: usize, _alpha: f64) -> f64 {
        let parts: Vec<(f64, f64)> = self
            .queries
            .par_iter()
            .map(|q| {
                let mut sig = Sigmoids::default();
                sig.set(q.range.clone().map(|i| self.scores[i]));
                let h: Vec<bool> = q.range.clone().map(|i| self.cands.fires(c, i)).collect();
                up_down(&sig, &self.w[q.range.clone()], &h)
            })
            .collect();
        let (up, down) = parts.iter().fold((0.0, 0.0), |(u, d), &(a, b)| (u + a, d + b));
        let floor = ALPHA_DENOMINATOR_FLOOR * (up + down);
        0.25 * (up.max(floor) / down.max(floor)).ln()
    }

    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Vec<f64> {
        let shift = |i: usize| if self.cands.fires(c, i) { alpha } else { 0.0 };
        let one = |q: &NdcgQuery| q.relaxed(&self.scores, shift);
        if parallel {
            self.queries.par_iter().map(one).collect()
        } else {
            self.queries.iter().map(one).collect()
        }
    }

    fn improves(&self, trial: &Vec<f64>) -> bool {
        trial.iter().sum::<f64>() > self.cur.iter().sum::<f64>()
    }

    fn accept(&mut self, c: usize, alpha: f64, trial: Vec<f64>) -> Accepted<ThresholdRanker> {
        let weak = self.cands.ranker(c);
        Ensemble::add_round(&weak, alpha, self.train, &mut self.scores);
        self.cur = trial;
        Accepted { weak, weighted_measure: self.sums[c], train_measure: self.mean(&self.cur), perfect: false }
    }

    fn loop_queries(&self) -> &[usize] {
        &self.loop_queries
    }
}
