//! The round loop every query-level boosting rule runs on: AdaRank's ([`boost`](crate::boost)),
//! and the rules of the crates built on this one (RankCosine's in `ltr-rankcosine`, the
//! cascade's in `ltr-cascade`).
//!
//! A [`Rule`] says what a candidate is worth this round and with which weight, what the
//! loop looks like after adding it, and how its model scores a data set. The driver does the
//! rest, once for all of them: the round cap, the no-reselect guard, trying candidates in
//! order of value (ties to the lowest index) until one passes the improvement test (the best
//! one parallel over queries, then chunks of candidates in parallel), the validation measure
//! of every prefix with the suite's checkpoint rule, the per-round trace and the stop reason.

use ltr_core::{BestCheckpoint, Dataset, Error, Result, Validation};
use rayon::prelude::*;

use crate::ensemble::{Ensemble, Round, WeakRanker};

/// Candidates tried in parallel, in order, after the best one failed the improvement test.
const TRY_CHUNK: usize = 8;

/// The rule-independent settings of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSettings {
    /// Algorithm id, for errors and logs.
    pub algorithm: &'static str,
    /// Round cap.
    pub max_rounds: usize,
    /// Forbid the previous round's candidate group.
    pub no_reselect: bool,
    /// Accept a candidate only if [`Rule::improves`] says so (round 1 excepted); stop when
    /// none does.
    pub require_improvement: bool,
    /// With validation: stop after this many rounds without a better validation measure
    /// (0: never).
    pub patience: usize,
}

/// What accepting a candidate reports back to the driver.
#[derive(Debug)]
pub struct Accepted<W> {
    /// What the model stores for the round.
    pub weak: W,
    /// The rule's weighted measure of the chosen candidate (for the trace).
    pub weighted_measure: f64,
    /// The training measure of the loop after the round (for the trace).
    pub train_measure: f64,
    /// Whether the loop is done: nothing left to improve.
    pub perfect: bool,
}

/// A model's running state on a data set (the validation split), updated round by round
/// with exactly the operations the model scores with, so the validation measure the loop
/// sees is the one the fitted model gets.
pub trait RunningScores<W> {
    /// The state of the empty model on `data`.
    fn start(data: &Dataset) -> Self;
    /// Adds round `(weak, alpha)`.
    fn add(&mut self, weak: &W, alpha: f64, data: &Dataset);
    /// The document scores of the state (what the model outputs).
    fn ranking(&self) -> &[f64];
}

/// An additive model's running state: its scores, updated by [`Ensemble::add_round`].
impl<W: WeakRanker> RunningScores<W> for Vec<f64> {
    fn start(data: &Dataset) -> Self {
        vec![0.0; data.n_docs()]
    }

    fn add(&mut self, weak: &W, alpha: f64, data: &Dataset) {
        Ensemble::add_round(weak, alpha, data, self);
    }

    fn ranking(&self) -> &[f64] {
        self
    }
}

/// One boosting rule on the driver.
pub trait Rule: Sync {
    /// What the model stores per round.
    type Weak: Clone + Send + Sync;
    /// The state of the training queries after a candidate is tried.
    type Trial: Send;
    /// A model's running state on a data set (validation).
    type Scores: RunningScores<Self::Weak>;

    /// Prepares round `t` (1-based): refreshes candidates and their values.
    fn begin_round(&mut self, t: usize) -> Result<()>;
    /// The query weights in force this round, one per training query (for the trace).
    fn query_weights(&self) -> Vec<f64>;
    /// Number of candidates this round.
    fn n_candidates(&self) -> usize;
    /// Candidates of one group count as the same weak ranker for no-reselect.
    fn group(&self, c: usize) -> usize;
    /// `(value, alpha)` of candidate `c` this round (higher value first), or `None` when it
    /// may not be chosen.
    fn choice(&self, c: usize) -> Option<(f64, f64)>;
    /// The weight candidate `c` is tried and added with, given the `alpha` of
    /// [`Rule::choice`]; called once for each candidate the driver tries, before
    /// [`Rule::trial`]. A rule whose weight costs a pass over the training pairs computes it
    /// here, for the few candidates tried, instead of for every candidate in `choice`.
    /// Default: `alpha` unchanged.
    fn weight(&self, c: usize, alpha: f64) -> f64 {
        let _ = c;
        alpha
    }
    /// The training queries after adding candidate `c` with weight `alpha`; `parallel`: the
    /// caller is not itself running in parallel, so the work may be split over queries.
    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Self::Trial;
    /// [`Rule::trial`] of each `(candidate, weight)` of `tries`, in order (the chunk the
    /// driver tries after the best candidate failed the improvement test). Default: one
    /// candidate per task. A rule whose trials read the same rows may instead go through
    /// the queries once for all of them.
    fn trials(&self, tries: &[(usize, f64)]) -> Vec<Self::Trial> {
        tries.par_iter().map(|&(c, alpha)| self.trial(c, alpha, false)).collect()
    }
    /// The improvement test.
    fn improves(&self, trial: &Self::Trial) -> bool;
    /// Adds candidate `c` to the training state.
    fn accept(&mut self, c: usize, alpha: f64, trial: Self::Trial) -> Accepted<Self::Weak>;
    /// The indices of the training queries that take part in the loop.
    fn loop_queries(&self) -> &[usize];
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// `max_rounds` rounds were played.
    RoundCap,
    /// No allowed candidate improved the weighted measure (`require_improvement`).
    NoImprovement,
    /// No allowed candidate has a positive weighted measure (or there is none).
    NoCandidate,
    /// The last weak ranker was perfect on the weighted queries, or the ensemble is perfect
    /// on every query of the loop.
    Perfect,
    /// The validation measure did not improve for the configured number of rounds.
    EarlyStop,
}

/// One played round. What `weighted_measure` and `query_weights` hold is the rule's (see
/// each rule's function).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundTrace {
    /// Round number (1-based).
    pub round: usize,
    /// Index of the chosen candidate.
    pub candidate: usize,
    /// Its weight.
    pub alpha: f64,
    /// `P_t(q)` used in this round, for every query of the training data (0 outside the loop).
    pub query_weights: Vec<f64>,
    /// `W_t(h_t) = sum_q P_t(q) E(q, h_t)`.
    pub weighted_measure: f64,
    /// Mean of `E(q, f_t)` over the queries of the loop.
    pub train_measure: f64,
    /// The validation measure of `f_t`, when validation data was given.
    pub valid_measure: Option<f64>,
    /// Candidates evaluated for the improvement test before one was accepted.
    pub tries: usize,
}

/// The result of a boosting loop, whatever its rule; `M` is the model (an
/// [`Ensemble`], a cascade, or the driver's kept rounds before they become one).
#[derive(Debug, Clone)]
pub struct Outcome<M> {
    /// The model: all played rounds, or the best prefix on the validation data.
    pub model: M,
    /// Every played round (also those cut off by validation).
    pub trace: Vec<RoundTrace>,
    /// Why the loop ended.
    pub stop: StopReason,
    /// Rounds kept in `model`.
    pub best_rounds: usize,
    /// Indices of the training queries that took part in the loop.
    pub loop_queries: Vec<usize>,
}

impl<M> Outcome<M> {
    /// The same outcome with the model turned into another (the kept rounds into the
    /// rule's model type).
    pub fn map_model<N>(self, f: impl FnOnce(M) -> N) -> Outcome<N> {
        Outcome {
            model: f(self.model),
            trace: self.trace,
            stop: self.stop,
            best_rounds: self.best_rounds,
            loop_queries: self.loop_queries,
        }
    }
}

/// Runs the rounds of `rule`; the outcome's model is the kept rounds (the best validation
/// prefix, the earliest on ties, or every played round without validation).
///
/// # Errors
/// When `valid` has another feature count than `train`, when the rule's source has no
/// candidate, or when the rule or the validation measure fails.
pub fn drive<R: Rule>(
    rule: &mut R,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &LoopSettings,
) -> Result<Outcome<Vec<Round<R::Weak>>>> {
    let algo = cfg.algorithm;
    if let Some(v) = valid
        && v.data.n_features() != train.n_features()
    {
        return Err(Error::FeatureCount { expected: train.n_features(), found: v.data.n_features() });
    }
    let mut vscores = valid.map(|v| R::Scores::start(v.data));
    let mut rounds: Vec<Round<R::Weak>> = Vec::new();
    let mut trace = Vec::new();
    let mut prev_group = None;
    // The kept prefix: the round count is the step, the state nothing.
    let mut best = BestCheckpoint::new();
    let mut stop = StopReason::RoundCap;

    for t in 1..=cfg.max_rounds {
        rule.begin_round(t)?;
        let query_weights = rule.query_weights();
        let n_cand = rule.n_candidates();
        if n_cand == 0 && t == 1 {
            return Err(Error::fit(algo, "the weak-ranker source has no candidate"));
        }
        let r = &*rule;
        let choices: Vec<Option<(f64, f64)>> = (0..n_cand).into_par_iter().map(|c| r.choice(c)).collect();
        let mut order: Vec<(usize, f64, f64)> = choices
            .iter()
            .enumerate()
            .filter_map(|(c, ch)| ch.map(|(v, a)| (c, v, a)))
            .filter(|&(c, _, _)| !(cfg.no_reselect && prev_group == Some(r.group(c))))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let Some(&(first, value, alpha)) = order.first() else {
            stop = StopReason::NoCandidate;
            break;
        };
        // The best candidate alone (parallel over queries); if it does not pass the
        // improvement test, the next ones in chunks (parallel over candidates), the first
        // passing one in order wins.
        let improves = |trial: &R::Trial| t == 1 || !cfg.require_improvement || r.improves(trial);
        let alpha = r.weight(first, alpha);
        let first_trial = r.trial(first, alpha, true);
        let mut chosen = improves(&first_trial).then_some((first, value, alpha, first_trial, 1));
        let mut offset = 1;
        while chosen.is_none() && offset < order.len() {
            let chunk = &order[offset..(offset + TRY_CHUNK).min(order.len())];
            let tries: Vec<(usize, f64)> = chunk.par_iter().map(|&(c, _, a)| (c, r.weight(c, a))).collect();
            let trials = r.trials(&tries);
            chosen = chunk
                .iter()
                .zip(tries.iter().zip(trials))
                .enumerate()
                .find(|(_, (_, (_, trial)))| improves(trial))
                .map(|(j, (&(c, v, _), (&(_, a), trial)))| (c, v, a, trial, offset + j + 1));
            offset += chunk.len();
        }
        let Some((c, value, alpha, trial, tries)) = chosen else {
            stop = StopReason::NoImprovement;
            break;
        };
        let group = rule.group(c);
        let acc = rule.accept(c, alpha, trial);
        let valid_measure = match (valid, vscores.as_mut()) {
            (Some(v), Some(vs)) => {
                vs.add(&acc.weak, alpha, v.data);
                let value = v.evaluate(vs.ranking())?;
                best.offer(t, value, || ());
                Some(value)
            }
            _ => None,
        };
        log::debug!(
            "{algo}: round {t}: candidate {c} value {value:.5} alpha {alpha:.5} weighted {:.5} train {:.5} valid {valid_measure:?} ({tries} tried)",
            acc.weighted_measure,
            acc.train_measure,
        );
        trace.push(RoundTrace {
            round: t,
            candidate: c,
            alpha,
            query_weights,
            weighted_measure: acc.weighted_measure,
            train_measure: acc.train_measure,
            valid_measure,
            tries,
        });
        rounds.push(Round { weak: acc.weak, alpha });
        ltr_core::progress::tick(t, cfg.max_rounds, "rounds");
        prev_group = Some(group);
        if acc.perfect {
            stop = StopReason::Perfect;
            break;
        }
        if best.should_stop(t, cfg.patience) {
            stop = StopReason::EarlyStop;
            break;
        }
    }
    let best_rounds = match best.best() {
        Some(b) => b.step,
        None if valid.is_some() => 0,
        None => rounds.len(),
    };
    rounds.truncate(best_rounds);
    log::debug!("{algo}: stopped ({stop:?}) after {} rounds; keeping {best_rounds}", trace.len());
    Ok(Outcome { model: rounds, trace, stop, best_rounds, loop_queries: rule.loop_queries().to_vec() })
}
