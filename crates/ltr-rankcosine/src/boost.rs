//! RankCosine's rule on `ltr-boosting`'s loop (Qin, Zhang, Tsai, Wang, Liu, Li, "Query-level loss
//! functions for information retrieval", Information Processing & Management 44(2), 2008):
//! the additive model `f_t = f_{t-1} + alpha_t h_t` that minimises the query-level cosine
//! loss `sum_q 1/2 (1 - cos(delta(q), f(q)))` between the score vector `f(q)` of a query's
//! documents and its target vector `delta(q)` (a monotone function of the grades,
//! normalised to unit length).
//!
//! Every round, every candidate `h` gets the weight that zeroes the derivative of the loss
//! when each query's factor `beta_q = |f_{t-1}(q) + alpha h(q)|^-3` is frozen at
//! `beta_q = (f_{t-1}(q)' f_{t-1}(q))^-3/2` (the survey's 23.94-23.96): with `f = f_{t-1}(q)`,
//! `h = h(q)`, `d = delta(q)`,
//!
//! ```text
//! alpha = sum_q beta_q ((f'f)(d'h) - (d'f)(f'h)) / sum_q beta_q ((h'h)(d'f) - (d'h)(h'f))
//! ```
//!
//! (the derivative of `cos(d, f + alpha h)` is `beta_q` times a numerator that is exactly
//! linear in `alpha`: the `alpha^2` terms cancel). The candidate with the smallest loss at
//! its `alpha` is added. A candidate whose denominator is not positive (its stationary
//! point would be a minimum of the cosine) is not offered. In round 1 `f = 0`, the cosine
//! of `alpha h` does not depend on `alpha > 0`, and `alpha_1 = 1` (the loss is
//! scale-invariant: every later weight scales with it).

use std::ops::Range;

use ltr_core::{Dataset, Error, Grade, Result, Validation};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use ltr_boosting::{
    Accepted, BoostOutcome, CandidateScores, Ensemble, LoopSettings, RoundContext, Rule, WeakRanker,
    WeakSource, candidate_major, drive,
};

/// The target vector `delta(q)`: a monotone function of the grades, then normalised to unit
/// length per query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CosineTarget {
    /// `2^y - 1` (NDCG's gain).
    Gain,
    /// `y`, the grade itself.
    Grade,
}

impl CosineTarget {
    /// The unnormalised target of a grade.
    pub fn of(self, y: Grade) -> f64 {
        match self {
            Self::Gain => 2f64.powi(i32::from(y)) - 1.0,
            Self::Grade => f64::from(y),
        }
    }
}

/// Settings of [`boost_cosine`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CosineConfig {
    /// Algorithm id, for error messages and logs.
    pub algorithm: &'static str,
    /// The target vector.
    pub target: CosineTarget,
    /// Round cap.
    pub max_rounds: usize,
    /// Forbid the weak ranker (group) chosen in the previous round.
    pub no_reselect: bool,
    /// Only accept a weak ranker that lowers the training loss, and stop when none does.
    pub require_improvement: bool,
    /// With validation: stop after this many rounds without a better validation measure
    /// (0: never). The loss keeps falling slowly long after the validation measure has
    /// stopped rising, so this mostly saves time.
    pub early_stopping_rounds: usize,
    /// Leave out queries with a single grade (their target is constant, so the cosine only
    /// rewards scoring all their documents alike, which does not change their ranking).
    /// Queries whose target is zero (no relevant document) are always left out: their
    /// cosine is undefined.
    pub skip_uninformative: bool,
}

impl CosineConfig {
    /// The defaults: target `gain`, 200 rounds, re-selection allowed (the weight of a weak
    /// ranker is only approximately optimal, so adding it again refines it), improvement
    /// required, early stopping after 50 rounds without a better validation measure,
    /// single-grade queries left out.
    pub fn new(algorithm: &'static str) -> Self {
        Self {
            algorithm,
            target: CosineTarget::Gain,
            max_rounds: 200,
            no_reselect: false,
            require_improvement: true,
            early_stopping_rounds: 50,
            skip_uninformative: true,
        }
    }
}

/// `cos = d'f / |f|` (0 for a zero vector) from the sums `d'f` and `f'f`.
fn cosine(df: f64, ff: f64) -> f64 {
    if ff > 0.0 { df / ff.sqrt() } else { 0.0 }
}

/// The cosine rule on the driver.
struct CosineRule<'a, S: WeakSource> {
    source: &'a mut S,
    train: &'a Dataset,
    /// The loop queries (indices into `train`).
    queries: Vec<usize>,
    /// Their document ranges.
    ranges: Vec<Range<usize>>,
    /// `delta(q)` of every training document (unit length per loop query, 0 elsewhere).
    delta: Vec<f64>,
    /// `f_{t-1}` of every training document.
    scores: Vec<f64>,
    /// `(d'f, f'f)` per loop query.
    cur: Vec<(f64, f64)>,
    /// `beta_q = (f'f)^-3/2` per loop query (0 where `f(q) = 0`).
    beta: Vec<f64>,
    /// Per candidate and loop query (`[c * m + k]`): `(d'h, h'h)`.
    fixed_dots: Vec<(f64, f64)>,
    /// Per candidate and loop query: `f_{t-1}'h`.
    fh: Vec<f64>,
    cache: CandidateScores,
}

/// One candidate's scores of the training documents: cached, or computed.
enum CandidateRow<'a, W> {
    Cached(&'a [f64]),
    Live(&'a W, &'a Dataset),
}

impl<W: WeakRanker> CandidateRow<'_, W> {
    #[inline]
    fn get(&self, i: usize) -> f64 {
        match self {
            Self::Cached(row) => row[i],
            Self::Live(w, data) => w.score(data.row(i)),
        }
    }
}

impl<S: WeakSource> CosineRule<'_, S> {
    fn m(&self) -> usize {
        self.queries.len()
    }

    fn candidate(&self, c: usize) -> CandidateRow<'_, S::Weak> {
        match self.cache.row(c, self.train.n_docs()) {
            Some(row) => CandidateRow::Cached(row),
            None => CandidateRow::Live(self.source.candidate(c), self.train),
        }
    }

    /// `(sum_i a_i h_c(i), sum_i h_c(i)^2)` of every candidate `c` (the squares only when
    /// `squares`) over the documents of every loop query, candidate-major (`[c * m + k]`).
    /// Parallel over queries, each query's rows read once for all candidates; every sum runs
    /// over the query's documents in order, as a candidate-by-candidate pass would.
    fn dots(&self, a: &[f64], squares: bool) -> Vec<(f64, f64)> {
        let all: Vec<usize> = (0..self.source.n_candidates()).collect();
        let by_query: Vec<Vec<(f64, f64)>> = self
            .ranges
            .par_iter()
            .map_init(Vec::new, |block, r| {
                self.cache.block_by_doc(&*self.source, self.train, &all, r.clone(), block);
                let n = all.len();
                let (mut ah, mut hh) = (vec![0.0; n], vec![0.0; n]);
                for (i, h) in r.clone().zip(block.chunks_exact(n.max(1))) {
                    let ai = a[i];
                    for (sum, &v) in ah.iter_mut().zip(h) {
                        *sum += ai * v;
                    }
                    if squares {
                        for (sum, &v) in hh.iter_mut().zip(h) {
                            *sum += v * v;
                        }
                    }
                }
                ah.into_iter().zip(hh).collect::<Vec<_>>()
            })
            .collect();
        candidate_major(&by_query, all.len())
    }

    /// The mean cosine of the loop queries after adding candidate `c` with weight `alpha`,
    /// from the dot products.
    fn mean_cosine(&self, c: usize, alpha: f64) -> f64 {
        let m = self.m();
        let sum: f64 = (0..m)
            .map(|k| {
                let (df, ff) = self.cur[k];
                let (dh, hh) = self.fixed_dots[c * m + k];
                let fh = self.fh[c * m + k];
                cosine(df + alpha * dh, ff + 2.0 * alpha * fh + alpha * alpha * hh)
            })
            .sum();
        sum / m as f64
    }

    /// The closed-form weight of candidate `c`, or `None` when it has no maximum.
    fn alpha(&self, c: usize) -> Option<f64> {
        let m = self.m();
        if self.beta.iter().all(|&b| b == 0.0) {
            return Some(1.0);
        }
        let (mut num, mut den) = (0.0, 0.0);
        for k in 0..m {
            let beta = self.beta[k];
            if beta == 0.0 {
                continue;
            }
            let (df, ff) = self.cur[k];
            let (dh, hh) = self.fixed_dots[c * m + k];
            let fh = self.fh[c * m + k];
            num += beta * (ff * dh - df * fh);
            den += beta * (hh * df - dh * fh);
        }
        let alpha = num / den;
        (den > 0.0 && alpha.is_finite()).then_some(alpha)
    }

    /// `(d's, s's)` of loop query `k` for `s = f + alpha h_c`.
    fn query_trial(&self, h: &CandidateRow<'_, S::Weak>, alpha: f64, k: usize) -> (f64, f64) {
        let (mut ds, mut ss) = (0.0, 0.0);
        for i in self.ranges[k].clone() {
            let s = self.scores[i] + alpha * h.get(i);
            ds += self.delta[i] * s;
            ss += s * s;
        }
        (ds, ss)
    }
}

impl<S: WeakSource> Rule for CosineRule<'_, S> {
    type Weak = S::Weak;
    /// `(d'f, f'f)` per loop query.
    type Trial = Vec<(f64, f64)>;
    type Scores = Vec<f64>;

    fn begin_round(&mut self, t: usize) -> Result<()> {
        self.beta =
            self.cur.iter().map(|&(_, ff)| if ff > 0.0 { 1.0 / (ff * ff.sqrt()) } else { 0.0 }).collect();
        let query_weights = self.query_weights();
        let ctx =
            RoundContext { round: t, train: self.train, query_weights: &query_weights, scores: &self.scores };
        if self.cache.refresh(&mut *self.source, &ctx)? {
            self.fixed_dots = self.dots(&self.delta, true);
        }
        // `f_{t-1}'h` changes with every round; `d'h` and `h'h` only with the candidates.
        self.fh = self.dots(&self.scores, false).into_iter().map(|(fh, _)| fh).collect();
        Ok(())
    }

    /// `beta_q = (f'f)^-3/2` normalised to sum 1 (uniform while `f = 0`), the per-query
    /// weights of the closed-form `alpha`.
    fn query_weights(&self) -> Vec<f64> {
        let beta = &self.beta;
        let total: f64 = beta.iter().sum();
        let mut w = vec![0.0; self.train.n_queries()];
        for (k, &q) in self.queries.iter().enumerate() {
            w[q] = if total > 0.0 { beta[k] / total } else { 1.0 / self.m() as f64 };
        }
        w
    }

    fn n_candidates(&self) -> usize {
        self.source.n_candidates()
    }

    fn group(&self, c: usize) -> usize {
        self.source.group(c)
    }

    fn choice(&self, c: usize) -> Option<(f64, f64)> {
        let alpha = self.alpha(c)?;
        Some((self.mean_cosine(c, alpha), alpha))
    }

    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Vec<(f64, f64)> {
        let h = self.candidate(c);
        if parallel {
            (0..self.m()).into_par_iter().map(|k| self.query_trial(&h, alpha, k)).collect()
        } else {
            (0..self.m()).map(|k| self.query_trial(&h, alpha, k)).collect()
        }
    }

    fn improves(&self, trial: &Vec<(f64, f64)>) -> bool {
        let sum = |v: &[(f64, f64)]| v.iter().map(|&(d, f)| cosine(d, f)).sum::<f64>();
        sum(trial) > sum(&self.cur)
    }

    fn accept(&mut self, c: usize, alpha: f64, trial: Vec<(f64, f64)>) -> Accepted<S::Weak> {
        let weak = self.source.candidate(c).clone();
        let predicted = self.mean_cosine(c, alpha);
        Ensemble::add_round(&weak, alpha, self.train, &mut self.scores);
        self.cur = trial;
        let cosines: Vec<f64> = self.cur.iter().map(|&(d, f)| cosine(d, f)).collect();
        let train_measure = cosines.iter().sum::<f64>() / self.m() as f64;
        let perfect = cosines.iter().all(|&x| x >= 1.0 - 1e-12);
        Accepted { weak, weighted_measure: predicted, train_measure, perfect }
    }

    fn loop_queries(&self) -> &[usize] {
        &self.queries
    }
}

/// The training queries RankCosine learns from and the unit target vector of every
/// training document (0 outside those queries).
pub fn cosine_targets(
    train: &Dataset,
    target: CosineTarget,
    skip_uninformative: bool,
) -> (Vec<usize>, Vec<f64>) {
    let mut delta = vec![0.0; train.n_docs()];
    let mut queries = Vec::new();
    for q in 0..train.n_queries() {
        let view = train.query(q);
        let norm = view.labels.iter().map(|&y| target.of(y).powi(2)).sum::<f64>().sqrt();
        let single_grade = view.labels.iter().all(|&y| y == view.labels[0]);
        if norm == 0.0 || (skip_uninformative && single_grade) {
            continue;
        }
        for (i, &y) in view.range().zip(view.labels) {
            delta[i] = target.of(y) / norm;
        }
        queries.push(q);
    }
    (queries, delta)
}

/// Runs RankCosine's rule on the loop. In the trace, `query_weights` are the normalised
/// `beta_q`, `weighted_measure` the mean cosine the closed form predicted for the chosen
/// candidate and `train_measure` the mean cosine over the loop queries after the round.
/// With `valid`, the model keeps the best prefix on it (earliest on ties).
///
/// Parallel over candidates (dot products) and queries; every value is computed
/// independently and reduced in index order, so the result is bit-identical at any thread
/// count.
pub fn boost_cosine<S: WeakSource>(
    source: &mut S,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &CosineConfig,
) -> Result<BoostOutcome<S::Weak>> {
    let algo = cfg.algorithm;
    let (queries, delta) = cosine_targets(train, cfg.target, cfg.skip_uninformative);
    if queries.is_empty() {
        return Err(Error::fit(algo, "no training query with a non-constant, non-zero target"));
    }
    let m = queries.len();
    let ranges = queries.iter().map(|&q| train.query(q).range()).collect();
    let mut rule = CosineRule {
        source,
        train,
        queries,
        ranges,
        beta: Vec::new(),
        delta,
        scores: vec![0.0; train.n_docs()],
        cur: vec![(0.0, 0.0); m],
        fixed_dots: Vec::new(),
        fh: Vec::new(),
        cache: CandidateScores::default(),
    };
    let settings = LoopSettings {
        algorithm: algo,
        max_rounds: cfg.max_rounds,
        no_reselect: cfg.no_reselect,
        require_improvement: cfg.require_improvement,
        patience: cfg.early_stopping_rounds,
    };
    let out = drive(&mut rule, train, valid, &settings)?;
    Ok(out.map_model(|rounds| Ensemble { n_features: train.n_features(), rounds }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_boosting::{FeatureSource, StopReason};
    use ltr_core::Ranker;
    use ltr_metrics::{Criterion, EvalConfig, Metric};
    use ltr_testkit::dataset;

    fn cfg() -> CosineConfig {
        CosineConfig::new("test")
    }

    /// One query, grades [2, 1]: gains [3, 1], delta = (3, 1) / sqrt 10. x0 = (1, 1),
    /// x1 = (1, 0).
    ///
    /// Round 1 (alpha 1): cos(delta, x0) = 4 / sqrt 20 = 0.894, cos(delta, x1) = 3 / sqrt 10 =
    /// 0.949: x1, f = (1, 0). Round 2: for x1, h = f, so the denominator
    /// (h'h)(d'f) - (d'h)(h'f) = 3/sqrt 10 - 3/sqrt 10 = 0: not offered. For x0: f'f = 1,
    /// d'f = 3/sqrt 10, d'h = 4/sqrt 10, h'h = 2, f'h = 1: alpha = (4 - 3)/sqrt 10 / ((6 - 4)/sqrt 10)
    /// = 1/2, f + h/2 = (1.5, 0.5), parallel to delta: cosine 1, the loop stops.
    #[test]
    fn one_query_reaches_its_target_in_two_rounds() {
        let d = dataset(2, &[(&[2, 1], &[[1.0, 1.0], [1.0, 0.0]])]);
        let out = boost_cosine(&mut FeatureSource::new(2, false), &d, None, &cfg()).unwrap();
        assert_eq!(out.trace.len(), 2);
        let (r1, r2) = (&out.trace[0], &out.trace[1]);
        assert_eq!((r1.candidate, r1.alpha), (1, 1.0));
        assert!((r1.train_measure - 3.0 / 10f64.sqrt()).abs() < 1e-15);
        assert_eq!(r2.candidate, 0);
        assert!((r2.alpha - 0.5).abs() < 1e-15);
        assert!((r2.train_measure - 1.0).abs() < 1e-12);
        assert_eq!(out.stop, StopReason::Perfect);
        let s = out.model.score_vec(&d).unwrap();
        assert!((s[0] - 1.5).abs() < 1e-15 && (s[1] - 0.5).abs() < 1e-15);
    }

    /// Two queries. A: grades [2, 1] (delta (3, 1)/sqrt 10), x0 = (1, 1), x1 = (1, 0). B: grades
    /// [1, 0] (delta (1, 0)), x0 = (0, 1), x1 = (2, 0).
    ///
    /// Round 1: mean cosines x0 (0.894 + 0)/2, x1 (0.949 + 1)/2: x1 with alpha 1, so
    /// f_A = (1, 0), f_B = (2, 0). Round 2: x1 is parallel to f on both queries (denominator
    /// 0). x0: on A, beta = 1, numerator 1/sqrt 10, denominator 2/sqrt 10; on B, f'f = 4,
    /// beta = 4^-3/2 = 1/8, d'h = f'h = 0, so numerator 0 and denominator (h'h)(d'f) = 2:
    /// alpha = (1/sqrt 10) / (2/sqrt 10 + 2/8) = 0.358350. The query weights are the
    /// normalised betas (8/9, 1/9); the cosines after the round are
    /// (3(1 + alpha) + alpha) / (sqrt 10 sqrt((1 + alpha)^2 + alpha^2)) on A and
    /// 2 / sqrt(4 + alpha^2) on B.
    #[test]
    fn two_queries_weight_the_closed_form_by_beta() {
        let d = dataset(2, &[(&[2, 1], &[[1.0, 1.0], [1.0, 0.0]]), (&[1, 0], &[[0.0, 2.0], [1.0, 0.0]])]);
        let c = CosineConfig { max_rounds: 2, ..cfg() };
        let out = boost_cosine(&mut FeatureSource::new(2, false), &d, None, &c).unwrap();
        let r10 = 10f64.sqrt();
        assert_eq!(out.trace[0].candidate, 1);
        assert!((out.trace[0].train_measure - (3.0 / r10 + 1.0) / 2.0).abs() < 1e-15);
        let r2 = &out.trace[1];
        assert_eq!(r2.candidate, 0);
        let alpha = (1.0 / r10) / (2.0 / r10 + 0.25);
        assert!((r2.alpha - alpha).abs() < 1e-15, "{} vs {alpha}", r2.alpha);
        assert!((r2.alpha - 0.358350).abs() < 1e-6);
        assert!((r2.query_weights[0] - 8.0 / 9.0).abs() < 1e-15);
        assert!((r2.query_weights[1] - 1.0 / 9.0).abs() < 1e-15);
        let cos_a = (3.0 * (1.0 + alpha) + alpha) / (r10 * ((1.0 + alpha).powi(2) + alpha * alpha).sqrt());
        let cos_b = 2.0 / (4.0 + alpha * alpha).sqrt();
        assert!((r2.train_measure - (cos_a + cos_b) / 2.0).abs() < 1e-14);
        assert!((r2.weighted_measure - r2.train_measure).abs() < 1e-14);
        assert_eq!(out.stop, StopReason::RoundCap);
    }

    /// Targets: a query without a relevant document has a zero target and is always left
    /// out; a single-grade query only when asked.
    #[test]
    fn targets_and_left_out_queries() {
        let d = dataset(
            1,
            &[(&[0, 0], &[[1.0], [2.0]]), (&[2, 2], &[[1.0], [2.0]]), (&[2, 0, 1], &[[1.0], [2.0], [3.0]])],
        );
        let (q, delta) = cosine_targets(&d, CosineTarget::Gain, true);
        assert_eq!(q, vec![2]);
        let n = 10f64.sqrt();
        assert_eq!(delta, vec![0.0, 0.0, 0.0, 0.0, 3.0 / n, 0.0, 1.0 / n]);
        let (q, delta) = cosine_targets(&d, CosineTarget::Grade, false);
        assert_eq!(q, vec![1, 2]);
        let s = 0.5f64.sqrt();
        assert!((delta[2] - s).abs() < 1e-15 && (delta[3] - s).abs() < 1e-15);
        assert!((delta[4] - 2.0 / 5f64.sqrt()).abs() < 1e-15);
        let none = dataset(1, &[(&[0, 0], &[[1.0], [2.0]])]);
        assert!(boost_cosine(&mut FeatureSource::new(1, false), &none, None, &cfg()).is_err());
    }

    fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
        ltr_testkit::random_dataset(seed, queries, d, 3..23, 0.2, 3)
    }

    /// The loss never rises (improvement test), the result does not depend on the thread
    /// count, and the kept prefix is the best validation round.
    #[test]
    fn deterministic_monotone_and_checkpointed() {
        let (train, vali) = (random_data(5, 40, 6), random_data(6, 15, 6));
        let crit = Criterion::new(Metric::Map, EvalConfig::of(&vali));
        let valid = Validation { data: &vali, measure: &crit };
        let c = CosineConfig { max_rounds: 40, ..cfg() };
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                boost_cosine(&mut FeatureSource::new(6, false), &train, Some(&valid), &c).unwrap()
            })
        };
        let (one, four) = (run(1), run(4));
        assert_eq!(one.model, four.model);
        assert_eq!(one.trace, four.trace);
        assert!(one.trace.len() > 5);
        assert!(one.trace.windows(2).all(|w| w[1].train_measure > w[0].train_measure));
        let best = one.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
        let first = one.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
        assert_eq!(one.best_rounds, first + 1);
        assert_eq!(one.model.len(), first + 1);
        // Patience: the loop stops 3 rounds after its best validation round, same model.
        let early = CosineConfig { early_stopping_rounds: 3, ..c };
        let out = boost_cosine(&mut FeatureSource::new(6, false), &train, Some(&valid), &early).unwrap();
        let best = out.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
        let first = out.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
        assert_eq!((out.stop, out.trace.len()), (StopReason::EarlyStop, first + 4));
        assert_eq!(out.trace[..], one.trace[..first + 4]);
    }
}
