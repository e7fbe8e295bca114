//! Learning a cascade (L. Wang, J. Lin, D. Metzler, SIGIR 2011) on the query-level loop of
//! `ltr-boosting`.
//!
//! Learning is AdaRank's loop with a cost term (the survey's Algorithm 18): with query
//! weights `P_t(q)`, per-stage costs `C(q, S)` in `[0, 1]` and `gamma` in `[0, 1]`,
//!
//! ```text
//! eta(S) = sum_q P_t(q) / (1 - gamma C(q, S))        phi(S) = sum_q P_t(q) E(q, S) / (1 - gamma C(q, S))
//! S_t    = argmin_S eta(S)^2 - phi(S)^2               alpha_t = 1/2 ln((eta + phi) / (eta - phi))
//! P_{t+1}(q) ∝ exp(-E(q, G_t) + gamma sum_{k <= t} C(q, S_k))
//! ```
//!
//! (`eta^2 - phi^2` bounds the round's factor of the normaliser `Z_t`, through
//! `exp(gamma C) <= 1 / (1 - gamma C)`: the cheaper a stage, the smaller its `eta`), where a
//! candidate stage `S` is a weak ranker and a pruning function, `E(q, S)` is the
//! measure of the ranking where the survivors of `S`'s pruning are ordered by its weak ranker
//! alone and the other documents keep their cascade order below them (for a stage that prunes
//! nothing, AdaRank's `E(q, h)`), and `E(q, G_t)` is the measure of the cascade's ranking.
//! With `gamma = 0` and no pruning offered, the loop is AdaRank's, bit for bit.
//!
//! Cost: LETOR has no feature costs, so every evaluation of a weak ranker (one feature) on
//! one document costs 1. `C(q, S_t)` is the fraction of the query's documents stage `t`
//! scores (`|R_{q,t}| / n_q`); a feature used by two stages is charged twice, as the paper
//! charges each stage `U_t |R_{q,t}|`. [`Cascade::cost`] reports the unnormalised count per
//! query.

use ltr_boosting::{
    Accepted, BoostConfig, CandidateScores, Outcome, PERFECT_EPS, QueryMeasure, Rule, Scratch, WeakRanker,
    WeakSource, capped_alpha, drive, full_weights,
};
use ltr_core::{Dataset, Error, Result, Validation};
use ltr_linear::dot;
use ltr_metrics::rank_order;
use rayon::prelude::*;

use crate::model::{Cascade, CascadeState, Pruning, Stage, by_score_desc};

/// Settings of [`boost_cascade`]: AdaRank's loop with a cost term and pruning.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadeConfig {
    /// The loop: the measure `E` (learners pass `EvalConfig::of(train)`), the stage cap,
    /// no-reselect (the weak ranker group of the previous stage), the improvement test of
    /// the cascade's weighted measure, and whether uninformative queries are left out.
    pub boost: BoostConfig,
    /// `gamma`, the weight of the cost in the tradeoff `E - gamma C`.
    pub gamma: f64,
    /// The prunings offered to every stage after the first, besides [`Pruning::None`].
    pub prunings: Vec<Pruning>,
}

/// Every weak ranker's order of the loop queries' documents is kept (as `u32`, 256 MiB at
/// most) when there are at most this many (weak ranker, document) pairs; otherwise each order
/// is sorted again when needed. The values are the same either way.
const ORDER_ENTRIES: usize = 1 << 26;

/// The cascade's rule on the driver.
struct CascadeRule<'a, S: WeakSource> {
    source: &'a mut S,
    train: &'a Dataset,
    measure: QueryMeasure,
    gamma: f64,
    /// `None` first, then the configured prunings.
    prunings: Vec<Pruning>,
    queries: Vec<usize>,
    /// Offsets of the loop queries' documents in `hord`.
    qoff: Vec<usize>,
    /// Per candidate, the loop queries' documents (local indices) ordered by the
    /// candidate's score (desc, file order on ties), candidate-major; empty when too large
    /// ([`ORDER_ENTRIES`]).
    hord: Vec<u32>,
    cache: CandidateScores,
    state: CascadeState,
    p: Vec<f64>,
    /// `sum_k C(q, S_k)` per loop query.
    cum_cost: Vec<f64>,
    cur_e: Vec<f64>,
    /// This round: survivors per pruning and loop query (`[b * m + k]`).
    keep: Vec<usize>,
    /// This round: `(eta, phi)` per candidate.
    etaphi: Vec<(f64, f64)>,
    round: usize,
    /// [`ORDER_ENTRIES`] (tests lower it).
    order_limit: usize,
}

impl<S: WeakSource> CascadeRule<'_, S> {
    fn m(&self) -> usize {
        self.queries.len()
    }

    fn n_prunings(&self) -> usize {
        self.prunings.len()
    }

    fn split(&self, cand: usize) -> (usize, usize) {
        (cand / self.n_prunings(), cand % self.n_prunings())
    }

    /// Orders of every candidate over the loop queries' documents.
    fn candidate_orders(&self) -> Vec<u32> {
        let n = self.train.n_docs();
        let rows: Vec<Vec<u32>> = (0..self.source.n_candidates())
            .into_par_iter()
            .map_init(Vec::new, |order, c| {
                let mut out = Vec::with_capacity(*self.qoff.last().unwrap_or(&0));
                let row = self.cache.row(c, n);
                let mut buf = Vec::new();
                for &q in &self.queries {
                    let r = self.train.query(q).range();
                    buf.clear();
                    match row {
                        Some(row) => buf.extend_from_slice(&row[r]),
                        None => buf.extend(r.map(|i| self.source.candidate(c).score(self.train.row(i)))),
                    }
                    rank_order(&buf, order);
                    out.extend(order.iter().map(|&j| j as u32));
                }
                out
            })
            .collect();
        rows.concat()
    }

    /// `E(q, S)` of candidate `(c, b)` on loop query `k`; `rank[j]` is local document `j`'s
    /// position among the alive documents (`u32::MAX` when dropped).
    fn stage_value(&self, s: &mut Scratch, c: usize, b: usize, k: usize, rank: &[u32]) -> f64 {
        let q = self.queries[k];
        let view = self.train.query(q);
        let start = view.range().start;
        let qs = &self.state.queries[q];
        let keep = self.keep[b * self.m() + k];
        let total = *self.qoff.last().unwrap_or(&0);
        let order: &[u32] = if self.hord.is_empty() {
            // Too many documents to keep every order: sort this one now.
            s.buf.clear();
            s.buf.extend(view.range().map(|i| self.cache.get(&*self.source, self.train, c, i)));
            rank_order(&s.buf, &mut s.order);
            s.order32.clear();
            s.order32.extend(s.order.iter().map(|&j| j as u32));
            &s.order32
        } else {
            &self.hord[c * total + self.qoff[k]..c * total + self.qoff[k + 1]]
        };
        s.ranked.clear();
        s.ranked.extend(
            order.iter().filter(|&&j| (rank[j as usize] as usize) < keep).map(|&j| view.labels[j as usize]),
        );
        s.ranked.extend(qs.alive[keep..].iter().chain(&qs.tail).map(|&i| view.labels[i - start]));
        self.measure.ranked_value(&s.ranked, &mut s.ideal)
    }

    /// `E(q, G_{t-1} + S)` of candidate `(c, b)` with weight `alpha` on loop query `k`.
    fn trial_value(&self, s: &mut Scratch, c: usize, b: usize, alpha: f64, k: usize) -> f64 {
        let q = self.queries[k];
        let view = self.train.query(q);
        let start = view.range().start;
        let qs = &self.state.queries[q];
        let keep = self.keep[b * self.m() + k];
        s.buf.clear();
        s.buf.extend(
            qs.alive[..keep]
                .iter()
                .map(|&i| self.state.f[i] + alpha * self.cache.get(&*self.source, self.train, c, i)),
        );
        // Ties go to the lower document index, as in the evaluation's stable sort by score.
        let alive = &qs.alive[..keep];
        let buf = &s.buf;
        s.order.clear();
        s.order.extend(0..keep);
        s.order.sort_by(|&x, &y| by_score_desc(buf[x], buf[y]).then(alive[x].cmp(&alive[y])));
        s.ranked.clear();
        s.ranked.extend(s.order.iter().map(|&j| view.labels[alive[j] - start]));
        s.ranked.extend(qs.alive[keep..].iter().chain(&qs.tail).map(|&i| view.labels[i - start]));
        self.measure.ranked_value(&s.ranked, &mut s.ideal)
    }
}

impl<S: WeakSource> Rule for CascadeRule<'_, S> {
    type Weak = Stage<S::Weak>;
    type Trial = Vec<f64>;
    type Scores = CascadeState;

    fn begin_round(&mut self, t: usize) -> Result<()> {
        self.round = t;
        let m = self.m();
        if t == 1 {
            self.cache = CandidateScores::fill(&*self.source, self.train);
            let entries = self.source.n_candidates().saturating_mul(*self.qoff.last().unwrap_or(&0));
            if entries <= self.order_limit {
                self.hord = self.candidate_orders();
            }
        }
        // Survivors of every pruning on every loop query, from the alive documents' scores.
        let mut keep = vec![0; self.n_prunings() * m];
        let mut ranks = Vec::with_capacity(m);
        for (k, &q) in self.queries.iter().enumerate() {
            let qs = &self.state.queries[q];
            let sorted: Vec<f64> = qs.alive.iter().map(|&i| self.state.f[i]).collect();
            for (b, pr) in self.prunings.iter().enumerate() {
                keep[b * m + k] = pr.survivors(&sorted);
            }
            let start = self.train.query(q).range().start;
            let mut rank = vec![u32::MAX; self.train.query(q).len()];
            for (pos, &i) in qs.alive.iter().enumerate() {
                rank[i - start] = pos as u32;
            }
            ranks.push(rank);
        }
        self.keep = keep;
        // `1 / (1 - gamma C) - 1` per pruning and loop query: eta and phi are written as
        // `1 + sum P u` and `sum P E + sum P u E` (`sum P = 1`), so that with `gamma = 0`
        // they are exactly AdaRank's `1` and `W`.
        let gamma = self.gamma;
        let u: Vec<Vec<f64>> = (0..self.n_prunings())
            .map(|b| {
                (0..m)
                    .map(|k| {
                        let cost =
                            self.keep[b * m + k] as f64 / self.train.query(self.queries[k]).len() as f64;
                        gamma * cost / (1.0 - gamma * cost)
                    })
                    .collect()
            })
            .collect();
        let this = &*self;
        let n_cand = this.source.n_candidates() * this.n_prunings();
        self.etaphi = (0..n_cand)
            .into_par_iter()
            .map_init(Scratch::default, |s, cand| {
                let (c, b) = this.split(cand);
                let e: Vec<f64> = (0..m).map(|k| this.stage_value(s, c, b, k, &ranks[k])).collect();
                let ue: Vec<f64> = u[b].iter().zip(&e).map(|(u, e)| u * e).collect();
                let eta = 1.0 + dot(&this.p, &u[b]);
                let phi = dot(&this.p, &e) + dot(&this.p, &ue);
                (eta, phi)
            })
            .collect();
        Ok(())
    }

    fn query_weights(&self) -> Vec<f64> {
        full_weights(self.train.n_queries(), &self.queries, &self.p)
    }

    fn n_candidates(&self) -> usize {
        self.source.n_candidates() * self.n_prunings()
    }

    fn group(&self, cand: usize) -> usize {
        self.source.group(self.split(cand).0)
    }

    fn choice(&self, cand: usize) -> Option<(f64, f64)> {
        let (_, b) = self.split(cand);
        if self.round == 1 && b != 0 {
            return None;
        }
        let (eta, phi) = self.etaphi[cand];
        (phi > 0.0).then(|| (phi * phi - eta * eta, capped_alpha(eta + phi, eta - phi)))
    }

    fn trial(&self, cand: usize, alpha: f64, parallel: bool) -> Vec<f64> {
        let (c, b) = self.split(cand);
        let m = self.m();
        if parallel {
            (0..m)
                .into_par_iter()
                .map_init(Scratch::default, |s, k| self.trial_value(s, c, b, alpha, k))
                .collect()
        } else {
            let mut s = Scratch::default();
            (0..m).map(|k| self.trial_value(&mut s, c, b, alpha, k)).collect()
        }
    }

    fn improves(&self, trial: &Vec<f64>) -> bool {
        dot(&self.p, trial) > dot(&self.p, &self.cur_e)
    }

    fn accept(&mut self, cand: usize, alpha: f64, trial: Vec<f64>) -> Accepted<Stage<S::Weak>> {
        let (c, b) = self.split(cand);
        let stage = Stage { pruning: self.prunings[b], weak: self.source.candidate(c).clone(), alpha };
        let m = self.m();
        for k in 0..m {
            self.cum_cost[k] += self.keep[b * m + k] as f64 / self.train.query(self.queries[k]).len() as f64;
        }
        self.state.apply(stage.pruning, &stage.weak, alpha, self.train);
        self.cur_e = trial;
        let train_measure = self.cur_e.iter().sum::<f64>() / m as f64;
        let (eta, phi) = self.etaphi[cand];
        let perfect = eta - phi <= PERFECT_EPS || self.cur_e.iter().all(|&e| e >= 1.0);
        let v: Vec<f64> =
            self.cur_e.iter().zip(&self.cum_cost).map(|(e, cc)| (-e + self.gamma * cc).exp()).collect();
        let total: f64 = v.iter().sum();
        for (pk, vk) in self.p.iter_mut().zip(&v) {
            *pk = vk / total;
        }
        Accepted { weak: stage, weighted_measure: phi, train_measure, perfect }
    }

    fn loop_queries(&self) -> &[usize] {
        &self.queries
    }
}

/// Learns a cascade. With `valid`, the validation measure of the cascade after every stage
/// is computed and the model keeps the best prefix (earliest on ties); without it, every
/// played stage. In the outcome's trace, `weighted_measure` is `phi(S_t)` and `candidate`
/// indexes `(weak ranker, pruning)` pairs as `c * (1 + prunings) + p` (`p = 0`: no pruning).
///
/// Parallel over candidates and queries; every value is computed independently and reduced
/// in index order, so the result is bit-identical at any thread count.
pub fn boost_cascade<S: WeakSource>(
    source: &mut S,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &CascadeConfig,
) -> Result<Outcome<Cascade<S::Weak>>> {
    boost_cascade_with(source, train, valid, cfg, ORDER_ENTRIES)
}

fn boost_cascade_with<S: WeakSource>(
    source: &mut S,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &CascadeConfig,
    order_limit: usize,
) -> Result<Outcome<Cascade<S::Weak>>> {
    if !source.fixed() {
        return Err(Error::fit(cfg.boost.algorithm, "the cascade needs a fixed set of weak rankers"));
    }
    if !(0.0..1.0).contains(&cfg.gamma) {
        return Err(Error::param("gamma", cfg.gamma, "must be in [0, 1)"));
    }
    let (measure, queries) = cfg.boost.loop_queries(train)?;
    let m = queries.len();
    let mut qoff = vec![0];
    for &q in &queries {
        qoff.push(qoff[qoff.len() - 1] + train.query(q).len());
    }
    let mut prunings = vec![Pruning::None];
    prunings.extend(cfg.prunings.iter().copied().filter(|&p| p != Pruning::None));
    let mut rule = CascadeRule {
        source,
        train,
        measure,
        gamma: cfg.gamma,
        prunings,
        queries,
        qoff,
        hord: Vec::new(),
        cache: CandidateScores::default(),
        state: CascadeState::new(train),
        p: vec![1.0 / m as f64; m],
        cum_cost: vec![0.0; m],
        cur_e: vec![0.0; m],
        keep: Vec::new(),
        etaphi: Vec::new(),
        round: 0,
        order_limit,
    };
    let out = drive(&mut rule, train, valid, &cfg.boost.settings())?;
    Ok(out.map_model(|rounds| Cascade {
        n_features: train.n_features(),
        stages: rounds.into_iter().map(|r| r.weak).collect(),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{PruningKind, ranked_labels};
    use ltr_boosting::{FeatureRanker, FeatureSource, StopReason, boost};
    use ltr_core::Ranker;
    use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
    use ltr_testkit::dataset;

    fn config(gamma: f64, prunings: Vec<Pruning>) -> CascadeConfig {
        let boost = BoostConfig::new("test", Metric::Map, EvalConfig::official(Convention::Letor3));
        CascadeConfig { boost, gamma, prunings }
    }

    /// One query, grades [1, 0, 0, 0], E = AP, gamma = 1/2, rank pruning 0.5 offered.
    /// x0 = (0.9, 1.0, 0.1, 0.2) ranks d1 d0 d3 d2 (AP 1/2); x1 = (0.5, 0.1, 0.9, 0.3) ranks
    /// d2 d0 d3 d1 (AP 1/2).
    ///
    /// Round 1 (no pruning: cost 1, 1/(1 - gamma) - 1 = 1): eta = 1 + 1 = 2, phi = 1/2 + 1/2 = 1
    /// for both; the tie goes to x0, alpha = 1/2 ln(3/1). Round 2 (x0 may not be reselected):
    /// x1 unpruned has eta = 2, phi = 1 (eta^2 - phi^2 = 3); x1 after pruning to the top two by
    /// f (d1, d0) orders them d0 d1 by x1 and keeps d3 d2 below: AP 1, cost 1/2,
    /// 1/(1 - 1/4) - 1 = 1/3, so eta = phi = 4/3 (eta^2 - phi^2 = 0). It wins with the capped
    /// weight 1/2 ln((8/3)/1e-9), the cascade is perfect and the loop stops. Cost 4 + 2.
    #[test]
    fn a_cheaper_pruned_stage_wins_by_hand() {
        let d = dataset(2, &[(&[1, 0, 0, 0], &[[0.9, 0.5], [1.0, 0.1], [0.1, 0.9], [0.2, 0.3]])]);
        let cfg = config(0.5, vec![Pruning::Rank(0.5)]);
        let out = boost_cascade(&mut FeatureSource::new(2, false), &d, None, &cfg).unwrap();
        assert_eq!(out.trace.len(), 2);
        let (r1, r2) = (&out.trace[0], &out.trace[1]);
        assert_eq!(r1.candidate, 0); // x0, no pruning
        assert_eq!(r1.weighted_measure, 1.0);
        assert!((r1.alpha - 0.5 * 3f64.ln()).abs() < 1e-15);
        assert_eq!(r2.candidate, 3); // x1 (1 * 2) with the pruning (+ 1)
        assert!((r2.weighted_measure - 4.0 / 3.0).abs() < 1e-15);
        assert!((r2.alpha - 0.5 * ((8.0 / 3.0) / 1e-9f64).ln()).abs() < 1e-9);
        assert_eq!(r2.train_measure, 1.0);
        assert_eq!(out.stop, StopReason::Perfect);
        let m = &out.model;
        assert_eq!(m.stages[0].pruning, Pruning::None);
        assert_eq!((m.stages[1].pruning, m.stages[1].weak), (Pruning::Rank(0.5), FeatureRanker::plain(1)));
        assert_eq!(ranked_labels(m, &d, 0), vec![1, 0, 0, 0]);
        assert_eq!(m.cost(&d).unwrap().mean, 6.0);
    }

    fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
        ltr_testkit::random_dataset(seed, queries, d, 3..28, 0.15, 3)
    }

    /// With gamma = 0 and no pruning offered the cascade is AdaRank: the same rounds, weights,
    /// query weights and measures, bit for bit, and the same test rankings.
    #[test]
    fn without_cost_and_pruning_it_is_adarank() {
        let (train, vali, test) = (random_data(3, 40, 8), random_data(4, 15, 8), random_data(5, 15, 8));
        for metric in [Metric::Map, Metric::Ndcg(5)] {
            let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
            let valid = Validation { data: &vali, measure: &crit };
            let ada_cfg = BoostConfig {
                max_rounds: 60,
                ..BoostConfig::new("test", metric, EvalConfig::official(Convention::Letor3))
            };
            let ada = boost(&mut FeatureSource::new(8, false), &train, Some(&valid), &ada_cfg).unwrap();
            let cfg = CascadeConfig { boost: ada_cfg, ..config(0.0, Vec::new()) };
            let cas = boost_cascade(&mut FeatureSource::new(8, false), &train, Some(&valid), &cfg).unwrap();
            assert!(ada.trace.len() > 2);
            assert_eq!(cas.trace, ada.trace);
            assert_eq!((cas.stop, cas.best_rounds), (ada.stop, ada.best_rounds));
            assert_eq!(cas.model.stages.len(), ada.model.rounds.len());
            for (s, r) in cas.model.stages.iter().zip(&ada.model.rounds) {
                assert_eq!(
                    (s.pruning, s.weak, s.alpha.to_bits()),
                    (Pruning::None, r.weak, r.alpha.to_bits())
                );
            }
            let eval = EvalConfig::official(Convention::Letor3);
            let a = Metric::Map.mean(&test, &ada.model.score_vec(&test).unwrap(), &eval).unwrap();
            let c = Metric::Map.mean(&test, &cas.model.score_vec(&test).unwrap(), &eval).unwrap();
            assert_eq!(a, c);
        }
    }

    /// With costs and pruning: the same result at any thread count, the kept prefix is the best
    /// validation stage, stage 1 never prunes, and the model reproduces the validation
    /// measure the loop saw.
    #[test]
    fn deterministic_and_checkpointed_with_pruning() {
        let (train, vali) = (random_data(7, 40, 6), random_data(8, 15, 6));
        let crit = Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3));
        let valid = Validation { data: &vali, measure: &crit };
        for kind in [PruningKind::Rank, PruningKind::Score, PruningKind::MeanMax] {
            let cfg = config(0.2, (1..=4).map(|j| kind.with(0.15 * j as f64)).collect());
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    boost_cascade(&mut FeatureSource::new(6, false), &train, Some(&valid), &cfg).unwrap()
                })
            };
            let (one, four) = (run(1), run(4));
            assert_eq!(one.model, four.model);
            assert_eq!(one.trace, four.trace);
            // Without the kept orders (sorted again when needed): the same run.
            let resorted =
                boost_cascade_with(&mut FeatureSource::new(6, false), &train, Some(&valid), &cfg, 0).unwrap();
            assert_eq!((resorted.model, resorted.trace), (one.model.clone(), one.trace.clone()));
            assert_eq!(one.model.stages[0].pruning, Pruning::None);
            assert!(one.trace.iter().any(|r| r.candidate % 5 != 0), "{kind:?}: no stage pruned");
            let best = one.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
            let first = one.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
            assert_eq!(one.model.stages.len(), first + 1);
            assert_eq!(valid.evaluate_model(&one.model).unwrap(), best);
        }
    }
}
