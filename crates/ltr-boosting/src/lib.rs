//! The two boosting loops and their weak rankers: the query-level round driver for every
//! query-reweighting rule with AdaRank's rule on it, the pair-distribution loop of RankBoost
//! and its kin, single features and thresholds as weak rankers, and the additive ensemble
//! model of every boosting learner.
//!
//! * [`PairBooster`]: the pair-distribution loop (Freund, Iyer, Schapire & Singer, "An
//!   efficient boosting algorithm for combining preferences", JMLR 2003): a distribution over
//!   preference pairs reweighted each round, one threshold weak ranker ([`ThresholdRanker`],
//!   cuts placed and documents binned once by [`Cuts`]) per round, generic over a
//!   [`PairRule`]: the exponential loss over weighted [`PairSet`]s ([`ExpPairLoss`]:
//!   RankBoost) or a rule of the learner's own. Its keys: [`PairLoopParams`].
//! * [`drive`]: the round driver (candidates tried in order of value until one passes the
//!   improvement test, no-reselect, round cap, patience, best prefix on the validation
//!   split, per-round trace). A [`Rule`] supplies the rest; every loop returns an
//!   [`Outcome`]. The rules of RankCosine (`ltr-rankcosine`) and of the cascade ranking
//!   model (`ltr-cascade`) live in their crates and run on this driver through this public
//!   API ([`CandidateScores`], [`QueryMeasure`], [`Scratch`], [`full_weights`], [`mass_weights`]).
//! * [`boost`]: AdaRank's loop (Xu & Li, "AdaRank: a boosting algorithm for information
//!   retrieval", SIGIR 2007), generic over a [`WeakSource`]: pick the weak ranker with the
//!   best query-weighted measure, weight it, reweight the queries by how badly the ensemble
//!   ranks them, with the guards against AdaRank's failure modes (improvement test,
//!   no-reselect, round cap, best prefix on the validation split). AdaRank and PCRank.
//! * [`CutCandidates`]: every cut of every feature as the candidates of a rule on the
//!   driver, with the edges and pair sums such rules need, and the keys of the learners that
//!   boost them ([`ThresholdLoopParams`], flattened): FRank's and NDCGBoost's rules.
//! * [`FeatureRanker`], [`FeatureSource`]: single features as weak rankers.
//! * [`Ensemble`]: `f(x) = sum_t alpha_t h_t(x)` over any [`WeakRanker`], the model of both
//!   loops.
//!
//! The per-query measure `E(q, .)` comes from `ltr-metrics` under an explicit
//! [`ltr_metrics::EvalConfig`]; learners pass the one of the convention the training data
//! carries (`EvalConfig::of(train)`), so the measure trained on is the measure reported.

mod cut_candidates;
mod driver;
mod ensemble;
mod features;
mod measure;
mod pair_boost;
mod pair_sets;
mod query_boost;
mod source;
mod threshold;

pub use cut_candidates::{CutCandidates, DocBlock, PairSums, ThresholdLoopParams};
pub use driver::{Accepted, LoopSettings, Outcome, RoundTrace, Rule, RunningScores, StopReason, drive};
pub use ensemble::{Ensemble, Round, WeakRanker};
pub use features::{FeatureRanker, FeatureSource};
pub use measure::{
    CandidateScores, QueryMeasure, SCORE_CACHE_ENTRIES, Scratch, candidate_major, desc_key, full_weights,
    mass_weights, rank_order_keyed,
};
pub use pair_boost::{
    EDGE_EPS, ExpPairLoss, PairBooster, PairLoopParams, PairRound, PairRule, Pick, rankboost_alpha,
};
pub use pair_sets::{PairSet, PairWeighting};
pub use query_boost::{ALPHA_DENOMINATOR_FLOOR, BoostConfig, BoostOutcome, PERFECT_EPS, boost, capped_alpha};
pub use source::{RoundContext, WeakSource};
pub use threshold::{
    Cuts, Interval, IntervalVisitor, IntervalWidth, ThresholdRanker, ThresholdSpacing, cut_points,
};

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_core::{Dataset, Validation};
    use ltr_metrics::{Convention, Criterion, EvalConfig, Metric};
    use ltr_testkit::dataset;

    type Feat = FeatureRanker;

    struct Features {
        cands: Vec<Feat>,
        fixed: bool,
        proposals: usize,
    }
    impl Features {
        fn new(d: usize) -> Self {
            Self { cands: (0..d).map(FeatureRanker::plain).collect(), fixed: true, proposals: 0 }
        }
    }
    impl WeakSource for Features {
        type Weak = Feat;
        fn n_candidates(&self) -> usize {
            self.cands.len()
        }
        fn candidate(&self, c: usize) -> &Feat {
            &self.cands[c]
        }
        fn fixed(&self) -> bool {
            self.fixed
        }
        fn propose(&mut self, ctx: &RoundContext<'_>) -> ltr_core::Result<()> {
            self.proposals += 1;
            assert!((ctx.query_weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            Ok(())
        }
    }

    fn map_config() -> BoostConfig {
        BoostConfig::new("test", Metric::Map, EvalConfig::official(Convention::Letor3))
    }

    /// Two queries, two features, E = AP (letor3: relevant means grade >= 1).
    ///
    /// Query A: grades [1, 0, 0], x0 = [3, 2, 1], x1 = [2, 1, 3].
    ///   x0 puts the relevant doc first: AP 1. x1 ranks doc2, doc0, doc1: AP 1/2.
    /// Query B: grades [0, 0, 1], x0 = [3, 2, 1] (relevant last: AP 1/3), x1 = [0, 1, 3] (AP 1).
    ///
    /// Round 1, P_1 = (1/2, 1/2): W(x0) = (1 + 1/3)/2 = 2/3, W(x1) = (1/2 + 1)/2 = 3/4, so x1
    /// wins with alpha_1 = 1/2 ln((1 + 3/4)/(1 - 3/4)) = 1/2 ln 7. f_1 ranks like x1:
    /// E = (1/2, 1), so P_2 = (e^-1/2, e^-1) / (e^-1/2 + e^-1) = (1, e^-1/2) / (1 + e^-1/2).
    /// Round 2 (x1 may not be reselected): W(x0) = P_2(A) + P_2(B)/3 = 0.748306...,
    /// alpha_2 = 1/2 ln((1 + W)/(1 - W)) = 0.969095...; f_2 = alpha_1 x1 + alpha_2 x0 scores
    /// A as (4.853, 2.911, 3.888) and B as (2.907, 2.911, 3.888): both perfect (AP 1), so the
    /// loop stops with reason Perfect.
    #[test]
    fn alpha_and_query_weights_on_a_two_query_example() {
        let d = dataset(
            2,
            &[
                (&[1, 0, 0], &[[3.0, 2.0], [2.0, 1.0], [1.0, 3.0]]),
                (&[0, 0, 1], &[[3.0, 0.0], [2.0, 1.0], [1.0, 3.0]]),
            ],
        );
        let out = boost(&mut Features::new(2), &d, None, &map_config()).unwrap();
        assert_eq!(out.trace.len(), 2);
        let (r1, r2) = (&out.trace[0], &out.trace[1]);
        assert_eq!(r1.candidate, 1);
        assert_eq!(r1.query_weights, vec![0.5, 0.5]);
        assert!((r1.weighted_measure - 0.75).abs() < 1e-15);
        assert!((r1.alpha - 0.5 * 7f64.ln()).abs() < 1e-15);
        assert!((r1.train_measure - 0.75).abs() < 1e-15);
        let e = (-0.5f64).exp();
        let p2 = [1.0 / (1.0 + e), e / (1.0 + e)];
        assert!((r2.query_weights[0] - p2[0]).abs() < 1e-15);
        assert!((r2.query_weights[1] - p2[1]).abs() < 1e-15);
        assert!((r2.query_weights[0] - 0.622459).abs() < 1e-6);
        assert_eq!(r2.candidate, 0);
        let w2 = p2[0] + p2[1] / 3.0;
        assert!((r2.weighted_measure - w2).abs() < 1e-15);
        assert!((r2.weighted_measure - 0.748306).abs() < 1e-6);
        assert!((r2.alpha - 0.5 * ((1.0 + w2) / (1.0 - w2)).ln()).abs() < 1e-14);
        assert!((r2.alpha - 0.969095).abs() < 1e-6);
        assert_eq!(r2.train_measure, 1.0);
        assert_eq!(out.stop, StopReason::Perfect);
        assert_eq!(out.best_rounds, 2);
    }

    /// Feature 0 orders every query perfectly: round 1 has W = 1, gets the finite capped
    /// weight 1/2 ln(2 / 1e-9) and the loop stops at once.
    #[test]
    fn stops_cleanly_when_one_feature_is_perfect() {
        let d = dataset(
            2,
            &[
                (&[2, 0, 1, 0], &[[0.9, 0.1], [0.1, 0.5], [0.5, 0.9], [0.2, 0.3]]),
                (&[0, 1], &[[0.3, 0.8], [0.7, 0.2]]),
            ],
        );
        for metric in [Metric::Map, Metric::Ndcg(2)] {
            let cfg = BoostConfig { metric, ..map_config() };
            let crit = Criterion::new(metric, cfg.eval);
            let valid = Validation { data: &d, measure: &crit };
            let out = boost(&mut Features::new(2), &d, Some(&valid), &cfg).unwrap();
            assert_eq!(out.stop, StopReason::Perfect);
            assert_eq!(out.trace.len(), 1);
            assert_eq!(out.trace[0].candidate, 0);
            let alpha = out.model.rounds[0].alpha;
            assert!(alpha.is_finite());
            assert!((alpha - 0.5 * (2.0f64 / 1e-9).ln()).abs() < 1e-9);
            assert_eq!(out.trace[0].valid_measure, Some(1.0));
        }
    }

    /// One query, grades [1, 0, 0]; x0 = [2, 3, 1] ranks the relevant doc second (AP 1/2),
    /// x1 = [0, 1, 2] ranks it last (AP 1/3). Round 1 takes x0 (alpha = 1/2 ln 3). In round 2
    /// re-adding x0 leaves the ranking (AP 1/2) unchanged and adding x1 with
    /// alpha = 1/2 ln((4/3)/(2/3)) = 1/2 ln 2 gives scores (1.099, 1.994, 1.243), AP 1/3: no
    /// candidate improves, the loop stops.
    #[test]
    fn no_improvement_stops_the_loop() {
        let d = dataset(2, &[(&[1, 0, 0], &[[2.0, 0.0], [3.0, 1.0], [1.0, 2.0]])]);
        let cfg = BoostConfig { no_reselect: false, ..map_config() };
        let out = boost(&mut Features::new(2), &d, None, &cfg).unwrap();
        assert_eq!(out.trace.len(), 1);
        assert!((out.trace[0].alpha - 0.5 * 3f64.ln()).abs() < 1e-15);
        assert_eq!(out.stop, StopReason::NoImprovement);
        // Without the improvement test the loop re-adds x0 until the cap.
        let cfg = BoostConfig { require_improvement: false, max_rounds: 7, ..cfg };
        let out = boost(&mut Features::new(2), &d, None, &cfg).unwrap();
        assert_eq!(out.trace.len(), 7);
        assert!(out.trace.iter().all(|r| r.candidate == 0));
        assert_eq!(out.stop, StopReason::RoundCap);
        // With no-reselect instead, the two features alternate.
        let cfg = BoostConfig { no_reselect: true, ..cfg };
        let out = boost(&mut Features::new(2), &d, None, &cfg).unwrap();
        let picks: Vec<usize> = out.trace.iter().map(|r| r.candidate).collect();
        assert_eq!(picks, vec![0, 1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn uninformative_queries_are_left_out() {
        let d = dataset(
            2,
            &[
                (&[1, 0, 0], &[[3.0, 2.0], [2.0, 1.0], [1.0, 3.0]]),
                (&[0, 0], &[[1.0, 1.0], [2.0, 2.0]]),
                (&[1, 1], &[[1.0, 1.0], [2.0, 2.0]]),
            ],
        );
        let out = boost(&mut Features::new(2), &d, None, &map_config()).unwrap();
        assert_eq!(out.loop_queries, vec![0]);
        assert_eq!(out.trace[0].query_weights, vec![1.0, 0.0, 0.0]);
        let cfg = BoostConfig { skip_uninformative: false, ..map_config() };
        let out = boost(&mut Features::new(2), &d, None, &cfg).unwrap();
        assert_eq!(out.loop_queries, vec![0, 1, 2]);
        assert_eq!(out.trace[0].query_weights, vec![1.0 / 3.0; 3]);
        let none = dataset(2, &[(&[0, 0], &[[1.0, 1.0], [2.0, 2.0]])]);
        assert!(boost(&mut Features::new(2), &none, None, &map_config()).is_err());
    }

    fn random_data(seed: u64, queries: usize, d: usize) -> Dataset {
        ltr_testkit::random_dataset(seed, queries, d, 3..23, 0.15, 3)
    }

    fn run_in_pool(threads: usize, f: impl FnOnce() -> BoostOutcome<Feat> + Send) -> BoostOutcome<Feat> {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    }

    #[test]
    fn identical_at_any_thread_count_and_for_adaptive_sources() {
        let train = random_data(3, 40, 8);
        let vali = random_data(4, 15, 8);
        for metric in [Metric::Map, Metric::Ndcg(5)] {
            let cfg = BoostConfig { metric, max_rounds: 60, ..map_config() };
            let crit = Criterion::new(Metric::Map, cfg.eval);
            let valid = Validation { data: &vali, measure: &crit };
            let one = run_in_pool(1, || boost(&mut Features::new(8), &train, Some(&valid), &cfg).unwrap());
            let four = run_in_pool(4, || boost(&mut Features::new(8), &train, Some(&valid), &cfg).unwrap());
            assert_eq!(one.model, four.model);
            assert_eq!(one.trace, four.trace);
            assert!(one.trace.len() > 2, "{:?}", one.stop);
            let mut adaptive = Features { fixed: false, ..Features::new(8) };
            let ad = boost(&mut adaptive, &train, Some(&valid), &cfg).unwrap();
            assert_eq!(ad.trace, one.trace);
            assert_eq!(adaptive.proposals, one.trace.len() + usize::from(one.stop != StopReason::RoundCap));
            // The kept prefix is the best validation round (earliest on ties).
            let best = one.trace.iter().map(|r| r.valid_measure.unwrap()).fold(f64::NEG_INFINITY, f64::max);
            let first = one.trace.iter().position(|r| r.valid_measure == Some(best)).unwrap();
            assert_eq!(one.best_rounds, first + 1);
            // No-reselect: consecutive rounds never pick the same feature.
            assert!(one.trace.windows(2).all(|w| w[0].candidate != w[1].candidate));
        }
    }
}
