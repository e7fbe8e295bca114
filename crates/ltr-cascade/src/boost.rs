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
    Accepted, BoostConfig, CandidateScores, Outcome, PERFECT_EPS, QueryMeasure, Rule, Scratch, WeakSource,
    candidate_major, capped_alpha, desc_key, drive, full_weights, rank_order_keyed,
};
use ltr_core::{Dataset, Error, Result, Validation};
use ltr_linear::dot;
use rayon::prelude::*;

use crate::model::{Cascade, CascadeState, Pruning, Stage};

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

/// Every weak ranker's order of the loop queries' documents is kept when it fits in this
/// many bytes (local indices as `u16` when no loop query has more than 65,536 documents,
/// else `u32`): 198 MB at the MSLR-WEB10K shape (136 features, 728,521 documents);
/// otherwise each order is sorted again every round. The values are the same either way.
const ORDER_BYTES: usize = 256 << 20;

/// Every candidate's order (descending score, ties in file order) of every loop query's
/// documents, as local indices, query-major: loop query `k`'s orders start at
/// `qoff[k] * n_candidates`, candidate `c`'s at `c * n_k` after that. They depend only on
/// the candidates, so they are sorted once per fit.
enum Orders {
    /// Not kept (too large): sorted when needed.
    None,
    /// Every loop query has at most 65,536 documents.
    Narrow(Vec<u16>),
    /// Some loop query has more.
    Wide(Vec<u32>),
}

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
    /// Every candidate's order of every loop query's documents ([`ORDER_BYTES`]).
    orders: Orders,
    /// `0..n_candidates` of the source.
    all: Vec<usize>,
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
    /// [`ORDER_BYTES`] (tests lower it).
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

    /// Every candidate's order of the documents of loop query `k` (local indices, one block
    /// of `n_k` per candidate), the query's rows read once for all candidates.
    fn query_orders(&self, s: &mut Scratch, k: usize) -> Vec<usize> {
        let range = self.train.query(self.queries[k]).range();
        let len = range.len();
        let mut block = std::mem::take(&mut s.block);
        self.cache.block(&*self.source, self.train, &self.all, range, &mut block);
        let mut out = Vec::with_capacity(self.all.len() * len);
        for h in block.chunks_exact(len.max(1)) {
            rank_order_keyed(h, &mut s.keys, &mut s.order);
            out.extend_from_slice(&s.order);
        }
        s.block = block;
        out
    }

    /// [`Self::query_orders`] of every loop query, kept narrow or wide (parallel over
    /// queries, written in place: no second copy).
    fn candidate_orders(&self) -> Orders {
        let narrow = self.queries.iter().all(|&q| self.train.query(q).len() <= 1 << 16);
        if narrow {
            // Local indices below 65,536 (checked above).
            Orders::Narrow(self.fill_orders(|j| j as u16))
        } else {
            Orders::Wide(self.fill_orders(|j| j as u32))
        }
    }

    fn fill_orders<T: Copy + Default + Send>(&self, narrow: impl Fn(usize) -> T + Sync) -> Vec<T> {
        let n_cand = self.all.len();
        let mut out = vec![T::default(); n_cand * *self.qoff.last().unwrap_or(&0)];
        let mut parts = Vec::with_capacity(self.m());
        let mut rest = &mut out[..];
        for k in 0..self.m() {
            let (part, tail) = rest.split_at_mut(n_cand * (self.qoff[k + 1] - self.qoff[k]));
            parts.push((k, part));
            rest = tail;
        }
        parts.into_par_iter().for_each_init(Scratch::default, |s, (k, part)| {
            for (slot, j) in part.iter_mut().zip(self.query_orders(s, k)) {
                *slot = narrow(j);
            }
        });
        out
    }

    /// `E(q, S)` of every candidate `(c, b)` on loop query `k` (`[c * n_prunings + b]`);
    /// `rank[j]` is local document `j`'s position among the alive documents (`u32::MAX` when
    /// dropped). Each candidate's order is read (or sorted) once for all prunings.
    fn query_stage_values(&self, s: &mut Scratch, k: usize, rank: &[u32], out: &mut [f64]) {
        let len = self.train.query(self.queries[k]).len();
        let base = self.qoff[k] * self.all.len();
        let computed = match self.orders {
            Orders::None => self.query_orders(s, k),
            _ => Vec::new(),
        };
        let mut order = std::mem::take(&mut s.order32);
        let n_prunings = self.n_prunings();
        for c in 0..self.all.len() {
            let at = c * len..(c + 1) * len;
            order.clear();
            match &self.orders {
                Orders::None => order.extend(computed[at].iter().map(|&j| j as u32)),
                Orders::Narrow(v) => {
                    order.extend(v[base + at.start..base + at.end].iter().map(|&j| u32::from(j)))
                }
                Orders::Wide(v) => order.extend_from_slice(&v[base + at.start..base + at.end]),
            }
            for b in 0..n_prunings {
                // Stage 1 never prunes (`choice`): its pruned candidates are not valued.
                let skip = self.round == 1 && b != 0;
                out[c * n_prunings + b] = if skip { 0.0 } else { self.stage_value(s, &order, b, k, rank) };
            }
        }
        s.order32 = order;
    }

    /// `E(q, S)` of the candidate whose order of loop query `k`'s documents is `order`,
    /// with pruning `b`.
    fn stage_value(&self, s: &mut Scratch, order: &[u32], b: usize, k: usize, rank: &[u32]) -> f64 {
        let q = self.queries[k];
        let view = self.train.query(q);
        let start = view.range().start;
        let qs = &self.state.queries[q];
        let keep = self.keep[b * self.m() + k];
        s.ranked.clear();
        s.ranked.extend(
            order.iter().filter(|&&j| (rank[j as usize] as usize) < keep).map(|&j| view.labels[j as usize]),
        );
        s.ranked.extend(qs.alive[keep..].iter().chain(&qs.tail).map(|&i| view.labels[i - start]));
        self.measure.ranked_value(&s.ranked, &mut s.ideal)
    }

    /// `E(q, G_{t-1} + S)` of every `(candidate, weight)` of `tries` on loop query `k`, the
    /// query's rows read once for all of them.
    fn trial_values(&self, s: &mut Scratch, tries: &[(usize, f64)], k: usize) -> Vec<f64> {
        let q = self.queries[k];
        let view = self.train.query(q);
        let (range, len) = (view.range(), view.len());
        let start = range.start;
        let qs = &self.state.queries[q];
        let cands: Vec<usize> = tries.iter().map(|&(cand, _)| self.split(cand).0).collect();
        let mut block = std::mem::take(&mut s.block);
        self.cache.block(&*self.source, self.train, &cands, range, &mut block);
        let values = tries
            .iter()
            .enumerate()
            .map(|(j, &(cand, alpha))| {
                let b = self.split(cand).1;
                let keep = self.keep[b * self.m() + k];
                let h = &block[j * len..(j + 1) * len];
                // Ties go to the lower document index, as in the evaluation's stable sort
                // by score: `(key, document)` pairs sorted.
                s.keys.clear();
                s.keys.extend(
                    qs.alive[..keep].iter().map(|&i| (desc_key(self.state.f[i] + alpha * h[i - start]), i)),
                );
                s.keys.sort_unstable();
                s.ranked.clear();
                s.ranked.extend(s.keys.iter().map(|&(_, i)| view.labels[i - start]));
                s.ranked.extend(qs.alive[keep..].iter().chain(&qs.tail).map(|&i| view.labels[i - start]));
                self.measure.ranked_value(&s.ranked, &mut s.ideal)
            })
            .collect();
        s.block = block;
        values
    }

    /// [`Self::trial_values`] of every loop query, per try (parallel over queries).
    fn all_trials(&self, tries: &[(usize, f64)]) -> Vec<Vec<f64>> {
        let m = self.m();
        let by_query: Vec<Vec<f64>> = (0..m)
            .into_par_iter()
            .map_init(Scratch::default, |s, k| self.trial_values(s, tries, k))
            .collect();
        candidate_major(&by_query, tries.len()).chunks(m.max(1)).map(<[f64]>::to_vec).collect()
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
            self.all = (0..self.source.n_candidates()).collect();
            let entries = self.all.len().saturating_mul(*self.qoff.last().unwrap_or(&0));
            let longest = self.queries.iter().map(|&q| self.train.query(q).len()).max().unwrap_or(0);
            let width = if longest <= 1 << 16 { 2 } else { 4 };
            if entries.saturating_mul(width) <= self.order_limit {
                self.orders = self.candidate_orders();
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
        // `E(q, S)` query-major (`[k * n_cand + cand]`, 39 MB at the MSLR-WEB10K shape), each
        // candidate's column gathered for its sums.
        let mut stage_e = vec![0.0; m * n_cand];
        stage_e
            .par_chunks_mut(n_cand.max(1))
            .enumerate()
            .for_each_init(Scratch::default, |s, (k, out)| this.query_stage_values(s, k, &ranks[k], out));
        self.etaphi = (0..n_cand)
            .into_par_iter()
            .map(|cand| {
                let (_, b) = this.split(cand);
                let e: Vec<f64> = (0..m).map(|k| stage_e[k * n_cand + cand]).collect();
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
        if parallel {
            self.all_trials(&[(cand, alpha)]).swap_remove(0)
        } else {
            let mut s = Scratch::default();
            (0..self.m()).map(|k| self.trial_values(&mut s, &[(cand, alpha)], k)[0]).collect()
        }
    }

    /// All of `tries` in one pass over the queries (parallel over queries).
    fn trials(&self, tries: &[(usize, f64)]) -> Vec<Vec<f64>> {
        self.all_trials(tries)
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
    boost_cascade_with(source, train, valid, cfg, ORDER_BYTES)
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
        orders: Orders::None,
        all: Vec::new(),
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
