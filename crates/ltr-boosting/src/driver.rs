//! The round loop every query-level boosting rule runs on: AdaRank's (`boost`), RankCosine's
//! (`boost_cosine`) and the cascade's (`boost_cascade`).
//!
//! A [`Rule`] says what a candidate is worth this round and with which weight, what the
//! loop looks like after adding it, and how its model scores a data set. The driver does the
//! rest, once for all of them: the round cap, the no-reselect guard, trying candidates in
//! order of value (ties to the lowest index) until one passes the improvement test (the best
//! one parallel over queries, then chunks of candidates in parallel), the validation measure
//! of every prefix with the suite's checkpoint rule, the per-round trace and the stop reason.

use ltr_core::{BestCheckpoint, Dataset, Error, Result, Validation};
use rayon::prelude::*;

use crate::ensemble::Round;
use crate::query_boost::{RoundTrace, StopReason};

/// Candidates tried in parallel, in order, after the best one failed the improvement test.
const TRY_CHUNK: usize = 8;

/// The rule-independent settings of the loop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopSettings {
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
pub(crate) struct Accepted<W> {
    /// What the model stores for the round.
    pub weak: W,
    /// The rule's weighted measure of the chosen candidate (for the trace).
    pub weighted_measure: f64,
    /// The training measure of the loop after the round (for the trace).
    pub train_measure: f64,
    /// Whether the loop is done: nothing left to improve.
    pub perfect: bool,
}

/// One boosting rule on the driver.
pub(crate) trait Rule: Sync {
    /// What the model stores per round.
    type Weak: Clone + Send + Sync;
    /// The state of the training queries after a candidate is tried.
    type Trial: Send;
    /// A model's running state on a data set (validation).
    type Scores;

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
    /// The training queries after adding candidate `c` with weight `alpha`; `parallel`: the
    /// caller is not itself running in parallel, so the work may be split over queries.
    fn trial(&self, c: usize, alpha: f64, parallel: bool) -> Self::Trial;
    /// The improvement test.
    fn improves(&self, trial: &Self::Trial) -> bool;
    /// Adds candidate `c` to the training state.
    fn accept(&mut self, c: usize, alpha: f64, trial: Self::Trial) -> Accepted<Self::Weak>;
    /// The running state of the empty model on `data`.
    fn start_scores(&self, data: &Dataset) -> Self::Scores;
    /// Adds a round to a running state, exactly as the model will score it.
    fn apply(&self, weak: &Self::Weak, alpha: f64, data: &Dataset, scores: &mut Self::Scores);
    /// The document scores of a running state (what the model outputs).
    fn ranking<'s>(&self, scores: &'s Self::Scores) -> &'s [f64];
}

/// What the driver returns.
#[derive(Debug)]
pub(crate) struct Driven<W> {
    /// The kept rounds (the best validation prefix, or all played rounds).
    pub rounds: Vec<Round<W>>,
    pub trace: Vec<RoundTrace>,
    pub stop: StopReason,
    pub best_rounds: usize,
}

/// Runs the rounds of `rule`.
pub(crate) fn drive<R: Rule>(
    rule: &mut R,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    cfg: &LoopSettings,
) -> Result<Driven<R::Weak>> {
    let algo = cfg.algorithm;
    if let Some(v) = valid
        && v.data.n_features() != train.n_features()
    {
        return Err(Error::FeatureCount { expected: train.n_features(), found: v.data.n_features() });
    }
    let mut vscores = valid.map(|v| rule.start_scores(v.data));
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
        let first_trial = r.trial(first, alpha, true);
        let mut chosen = improves(&first_trial).then_some((first, value, alpha, first_trial, 1));
        let mut offset = 1;
        while chosen.is_none() && offset < order.len() {
            let chunk = &order[offset..(offset + TRY_CHUNK).min(order.len())];
            let trials: Vec<R::Trial> = chunk.par_iter().map(|&(c, _, a)| r.trial(c, a, false)).collect();
            chosen = chunk
                .iter()
                .zip(trials)
                .enumerate()
                .find(|(_, (_, trial))| improves(trial))
                .map(|(j, (&(c, v, a), trial))| (c, v, a, trial, offset + j + 1));
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
                rule.apply(&acc.weak, alpha, v.data, vs);
                let value = v.evaluate(rule.ranking(vs))?;
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
    Ok(Driven { rounds, trace, stop, best_rounds })
}
