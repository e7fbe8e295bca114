//! The RankSVM ensemble of the survey's section 23.4 (its reference \[235\]; as far as we can
//! tell C. Jung, L. C. Jiao, Y. Shen, "Ensemble Ranking SVM for learning to rank", IEEE MLSP
//! 2011): one RankSVM per training query, combined by a greedy forward pass on the validation
//! split, repeated over random orders, the median run kept.
//!
//! # Algorithm
//!
//! 1. Every training query with two distinct grades is a training set of its own: RankSVM
//!    (`ltr-ranksvm`, hinge, cutting plane; `c`, `epsilon`, `cp_max_iter`) fits a base ranker
//!    `f_q(x) = w_q.x` on it alone, with `Q = 1`: `1/2 |w|^2 + c sum_pairs(q) hinge`.
//! 2. A round puts the `m` base rankers in a random order `pi` (the `Rng` given to `fit`). The
//!    first is the candidate ensemble `F`, with validation measure `mp` (the harness's
//!    selection measure, MAP by default, mean over the validation queries). Each next base
//!    ranker `f` is added, `F <- F + f` (scores summed), when `mp(F + f) >= mp(F)`, i.e. when
//!    the addition does not lower the measure; otherwise it is skipped. At the end of the order
//!    `F` and its measure `mp_max` are the round's result.
//! 3. `rounds` (the survey's `T`) rounds with independent orders; they are sorted by `mp_max`
//!    (ties in round order) and the one in the middle position is kept: the median for odd
//!    `T`, the lower of the two middle ones for even `T`.
//!
//! The ensemble is linear (`F(x) = (sum_kept w_q).x`), so the model is one weight vector. The
//! decisions are taken on summed validation scores; the model's score `(sum w).x` equals them
//! up to rounding.
//!
//! Without a validation split there is nothing to select on: the model is the sum of every
//! base ranker (in query order).
//!
//! # Cost
//!
//! The base rankers cost what RankSVM costs on each query alone: with `M` documents in `m`
//! queries of about `M/m` each, all-pairs training would be `O((M/m)^2)` per query, `O(M^2/m)`
//! in total, against `O(M^2)` for pairs over all queries (the survey's comparison); with
//! RankSVM's sorted oracle it is `O((M/m) log(M/m))` per query and iteration. The rounds then
//! cost `T m` evaluations of the measure on the validation split (`O(n_vali log n_vali)` each,
//! on precomputed base-ranker scores).

use std::sync::atomic::{AtomicUsize, Ordering};

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation,
    param_info,
};
use ltr_linear::{LinearModel, dot};
use ltr_ranksvm::{RankSvm, RankSvmParams};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 138.0 s at one thread on 149,860
/// training rows x 136 features, the largest MSLR-WEB10K-shaped split within its scale limit (`just
/// bench-budget` of 2026-11-23, two fits at a time; its README's "Scale" section), and the time
/// grows as rows^1.01 (the scaling curve of 2026-11-27 in that README, as its `scale_limit` says).
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ranksvm-ensemble",
    name: "RankSVM ensemble",
    family: Family::Svm,
    year: 2011,
    loss: LossType::Pairwise,
    optimizer: "RankSVM per query (cutting plane) + greedy forward selection on vali",
    reference: "Survey 23.4 [235]: Jung, Jiao & Shen, Ensemble Ranking SVM for learning to rank, \
                IEEE MLSP 2011",
    summary: "one RankSVM per query, kept on vali",
    scale_limit: Some(ltr_core::ScaleLimit {
        max_train_rows: 150_000,
        measured: "measured time grows as rows^1.01, from 34.6 s of CPU at 22,221 rows to 270 s at \
                   172,019 (one RankSVM per training query): about 1,130 s at 728,521 rows, where \
                   the validation scores it keeps (rows^2) would take 11.8 GB; see its README",
    }),
    cost: Some(ltr_core::FitCost {
        train_rows: ltr_core::FitCost::LIMITED_ROWS,
        row_exponent: 1.01,
        ..ltr_core::FitCost::mslr_web10k(138.0, "just bench-budget 2026-11-23, 149,860 rows, 1 thread")
    }),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of the RankSVM ensemble (spec keys `c`, `rounds`, `epsilon`,
/// `cp_max_iter`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EnsembleParams {
    /// Trade-off `c > 0` of each base RankSVM, fitted on one query (`Q = 1`):
    /// `1/2 |w|^2 + c sum_pairs hinge`. Default `0.01` (`svm_rank`'s default).
    pub c: f64,
    /// Rounds `T` of the greedy pass, each with its own random order; the median one is kept.
    /// At least 1. Default `5`.
    pub rounds: usize,
    /// Base RankSVM's stopping tolerance (`svm_rank`'s `-e`), `> 0`. Default `0.001`.
    pub epsilon: f64,
    /// Base RankSVM's maximum cutting-plane iterations, at least 1. Default `100000`.
    pub cp_max_iter: usize,
}

impl Default for EnsembleParams {
    fn default() -> Self {
        Self { c: 0.01, rounds: 5, epsilon: 0.001, cp_max_iter: 100_000 }
    }
}

impl Params for EnsembleParams {
    type Checked = Ensemble;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive("c", 0.0, 1e6, "trade-off of each base RankSVM on its one query (Q = 1)"),
        ParamInfo::int(
            "rounds",
            1,
            1000,
            "rounds T of the greedy pass over a random order; the median is kept",
        ),
        ParamInfo::positive("epsilon", 0.0, 1.0, "base RankSVM's stopping tolerance (svm_rank -e)"),
        ParamInfo::int("cp_max_iter", 1, 1_000_000, "base RankSVM's maximum cutting-plane iterations"),
    ];

    fn validate(&self) -> Result<Ensemble> {
        let info = |key| param_info(Self::TABLE, key);
        info("c").check_real(self.c)?;
        info("rounds").check_int(self.rounds as u64)?;
        info("epsilon").check_real(self.epsilon)?;
        info("cp_max_iter").check_int(self.cp_max_iter as u64)?;
        let base = RankSvmParams {
            c: self.c,
            epsilon: self.epsilon,
            cp_max_iter: self.cp_max_iter,
            ..Default::default()
        }
        .validate()?;
        Ok(Ensemble { base, rounds: self.rounds })
    }
}

/// Validated RankSVM ensemble, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Ensemble {
    base: RankSvm,
    rounds: usize,
}

/// One round of the greedy pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// The order the base rankers were offered in (indices into [`Trace::base_queries`]).
    pub order: Vec<usize>,
    /// The base rankers kept, in the order they were added (the first of `order` always).
    pub kept: Vec<usize>,
    /// The validation measure after each kept addition (`values[k]` with `kept[..=k]`).
    pub values: Vec<f64>,
}

impl Round {
    /// The round's final validation measure `mp_max`.
    pub fn value(&self) -> f64 {
        self.values.last().copied().unwrap_or(f64::NAN)
    }
}

/// What a fit did: the base rankers, every round and the one kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The training query (index in the training set) of each base ranker.
    pub base_queries: Vec<usize>,
    /// The base rankers.
    pub base: Vec<LinearModel>,
    /// The rounds (empty without validation).
    pub rounds: Vec<Round>,
    /// The index of the round kept (the median by value).
    pub chosen: Option<usize>,
}

/// A fitted ensemble: the summed weights of the kept base rankers, `score(x) = w.x`.
/// Serialised flat: `{"weights": [...], "bias": 0.0, "members": k, "base_rankers": m}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnsembleModel {
    /// `sum_kept w_q`.
    #[serde(flatten)]
    pub linear: LinearModel,
    /// Number of base rankers in the ensemble.
    pub members: usize,
    /// Number of base rankers trained (training queries with two distinct grades).
    pub base_rankers: usize,
}

ltr_linear::ranker_of_linear!(EnsembleModel);

/// The index, among `values`, of the median: sorted ascending (ties by index), the middle
/// position, the lower middle one for an even count.
fn median_index(values: &[f64]) -> Option<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    idx.get(values.len().saturating_sub(1) / 2).copied()
}

/// One greedy round over `order`: `scores[k]` are base ranker `k`'s validation scores.
fn greedy_round(order: Vec<usize>, scores: &[Vec<f64>], valid: &Validation<'_>) -> Result<Round> {
    let first = order[0];
    let mut current = scores[first].clone();
    let mut best = valid.evaluate(&current)?;
    let (mut kept, mut values) = (vec![first], vec![best]);
    let mut candidate = vec![0.0; current.len()];
    for &k in &order[1..] {
        for ((c, a), b) in candidate.iter_mut().zip(&current).zip(&scores[k]) {
            *c = a + b;
        }
        let v = valid.evaluate(&candidate)?;
        // "Does not decrease": ties are added; a NaN measure never is.
        if v >= best {
            std::mem::swap(&mut current, &mut candidate);
            best = v;
            kept.push(k);
            values.push(v);
        }
    }
    Ok(Round { order, kept, values })
}

impl Ensemble {
    /// Fits and returns the trace of the greedy rounds.
    pub fn fit_with_trace(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<(EnsembleModel, Trace)> {
        let base_queries: Vec<usize> =
            train.queries().filter(|q| q.labels.iter().any(|&g| g != q.labels[0])).map(|q| q.index).collect();
        if base_queries.is_empty() {
            return Err(Error::fit(INFO.id, "no training query has documents with different grades"));
        }
        // Each base fit is deterministic; collect keeps query order at any thread count. The
        // base fits report no progress of their own (they run as parallel jobs): the ensemble
        // counts them.
        let progress = ltr_core::progress::current();
        let fitted = AtomicUsize::new(0);
        let base: Vec<LinearModel> = base_queries
            .par_iter()
            .map(|&q| {
                let one = train.select_queries(&[q])?;
                let fit = ltr_core::progress::with(None, || self.base.fit_with_stats(&one));
                if let Some(r) = &progress {
                    r.tick(fitted.fetch_add(1, Ordering::Relaxed) + 1, base_queries.len(), "base rankers");
                }
                fit.map(|(m, _)| m).map_err(|e| {
                    Error::fit(INFO.id, format!("base RankSVM on query {}: {e}", train.query_ids()[q]))
                })
            })
            .collect::<Result<_>>()?;
        let d = train.n_features();
        let sum = |members: &[usize]| {
            let mut w = vec![0.0; d];
            for &k in members {
                for (x, y) in w.iter_mut().zip(&base[k].weights) {
                    *x += y;
                }
            }
            w
        };
        let m = base.len();
        let Some(valid) = valid else {
            let all: Vec<usize> = (0..m).collect();
            let model =
                EnsembleModel { linear: LinearModel::new(sum(&all), 0.0), members: m, base_rankers: m };
            return Ok((model, Trace { base_queries, base, rounds: Vec::new(), chosen: None }));
        };
        // Validation scores of every base ranker, computed once.
        let scores: Vec<Vec<f64>> =
            base.par_iter().map(|w| valid.data.rows().map(|r| dot(&w.weights, r)).collect()).collect();
        // The orders are drawn before any round runs, so the rounds could run in any order.
        let orders: Vec<Vec<usize>> = (0..self.rounds)
            .map(|_| {
                let mut o: Vec<usize> = (0..m).collect();
                rng.shuffle(&mut o);
                o
            })
            .collect();
        let rounds: Vec<Round> =
            orders.into_par_iter().map(|o| greedy_round(o, &scores, valid)).collect::<Result<_>>()?;
        let values: Vec<f64> = rounds.iter().map(Round::value).collect();
        let chosen = median_index(&values).unwrap_or(0);
        let kept = &rounds[chosen].kept;
        log::debug!(
            "ranksvm-ensemble: {m} base rankers, round values {values:?}, kept round {chosen}: {} members, {} {:.6}",
            kept.len(),
            valid.measure.name(),
            values[chosen]
        );
        let model =
            EnsembleModel { linear: LinearModel::new(sum(kept), 0.0), members: kept.len(), base_rankers: m };
        Ok((model, Trace { base_queries, base, rounds, chosen: Some(chosen) }))
    }
}

impl Learner for Ensemble {
    type Model = EnsembleModel;

    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<EnsembleModel> {
        self.fit_with_trace(train, valid, rng).map(|(m, _)| m)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::Convention;
    use ltr_metrics::{Criterion, EvalConfig, Metric};
    use ltr_testkit::dataset;

    use super::*;

    /// NDCG@3: the validation queries are short, and NDCG@k past a query's end is 0 in letor3.
    fn ndcg3() -> Criterion {
        Criterion::new(Metric::Ndcg(3), EvalConfig::official(Convention::Letor3))
    }

    /// Training queries where feature 0 orders the grades ("good") or reverses them ("bad");
    /// feature 1 is noise. Validation queries are ordered by feature 0.
    fn constructed() -> (Dataset, Dataset, Vec<bool>) {
        let good = |s: f32| (vec![2u8, 1, 0], vec![[1.0f32, 0.1 * s], [0.5, -0.2 * s], [0.0, 0.3]]);
        let bad = |s: f32| (vec![2u8, 1, 0], vec![[0.0f32, 0.2], [0.5, 0.1 * s], [1.0, -0.1 * s]]);
        let kinds = [true, false, true, true, false, true, false, true];
        let qs: Vec<(Vec<u8>, Vec<[f32; 2]>)> =
            kinds.iter().enumerate().map(|(i, &g)| if g { good(i as f32) } else { bad(i as f32) }).collect();
        let refs: Vec<(&[u8], &[[f32; 2]])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        let train = dataset(2, &refs);
        let vali = dataset(
            2,
            &[
                (&[0, 2, 1, 0], &[[0.1f32, 0.9], [0.9, -0.5], [0.6, 0.0], [0.2, 0.4]]),
                (&[1, 0, 2], &[[0.5f32, 0.3], [0.0, 0.8], [1.0, -0.4]]),
            ],
        );
        (train, vali, kinds.to_vec())
    }

    #[test]
    fn keeps_only_base_rankers_that_do_not_lower_the_measure() {
        let (train, vali, good) = constructed();
        let crit = ndcg3();
        let valid = Validation { data: &vali, measure: &crit };
        let ens = EnsembleParams { c: 10.0, rounds: 7, ..Default::default() }.validate().unwrap();
        let (model, trace) = ens.fit_with_trace(&train, Some(&valid), &mut Rng::new(9)).unwrap();
        assert_eq!(trace.base.len(), 8);
        assert_eq!(trace.rounds.len(), 7);
        // Each good base ranker puts weight on feature 0 forward, each bad one backward.
        for (w, &g) in trace.base.iter().zip(&good) {
            assert_eq!(w.weights[0] > 0.0, g, "{w:?}");
        }
        let score = |members: &[usize]| {
            let mut s = vec![0.0; vali.n_docs()];
            for &k in members {
                for (x, r) in s.iter_mut().zip(vali.rows()) {
                    *x += dot(&trace.base[k].weights, r);
                }
            }
            valid.evaluate(&s).unwrap()
        };
        let mut rejected_bad = 0;
        for round in &trace.rounds {
            // Replay: an offered ranker is kept exactly when adding it does not lower the
            // measure of the ensemble so far.
            let mut members = vec![round.order[0]];
            let mut value = score(&members);
            let mut kept = vec![round.order[0]];
            for &k in &round.order[1..] {
                let mut with = members.clone();
                with.push(k);
                let v = score(&with);
                if v >= value {
                    members = with;
                    value = v;
                    kept.push(k);
                }
            }
            assert_eq!(kept, round.kept);
            assert!(round.values.windows(2).all(|w| w[1] >= w[0]), "{round:?}");
            assert_eq!(round.value(), value);
            rejected_bad += round.order.iter().filter(|&&k| !good[k] && !round.kept.contains(&k)).count();
        }
        // Not vacuous: bad rankers were offered and turned away.
        assert!(rejected_bad > 0);
        // The median round: 3 rounds at or below its value, 3 at or above.
        let chosen = trace.chosen.unwrap();
        let v = trace.rounds[chosen].value();
        assert!(trace.rounds.iter().filter(|r| r.value() <= v).count() >= 4);
        assert!(trace.rounds.iter().filter(|r| r.value() >= v).count() >= 4);
        assert_eq!(model.members, trace.rounds[chosen].kept.len());
        assert_eq!(model.base_rankers, 8);
        let mut w = vec![0.0; 2];
        for &k in &trace.rounds[chosen].kept {
            w[0] += trace.base[k].weights[0];
            w[1] += trace.base[k].weights[1];
        }
        assert_eq!(model.linear.weights, w);
    }

    #[test]
    fn median_of_rounds() {
        assert_eq!(median_index(&[0.3, 0.1, 0.2]), Some(2));
        assert_eq!(median_index(&[0.4, 0.1, 0.3, 0.2]), Some(3), "lower middle: 0.2");
        assert_eq!(median_index(&[0.5, 0.5, 0.5]), Some(1), "ties in round order");
        assert_eq!(median_index(&[0.7]), Some(0));
        assert_eq!(median_index(&[]), None);
    }

    #[test]
    fn base_rankers_are_per_query_ranksvm_and_no_validation_sums_them() {
        let (train, _, _) = constructed();
        let ens = EnsembleParams { c: 0.5, ..Default::default() }.validate().unwrap();
        let (model, trace) = ens.fit_with_trace(&train, None, &mut Rng::new(1)).unwrap();
        assert!(trace.rounds.is_empty() && trace.chosen.is_none());
        let svm = RankSvmParams { c: 0.5, ..Default::default() }.validate().unwrap();
        let mut sum = vec![0.0; 2];
        for (k, &q) in trace.base_queries.iter().enumerate() {
            let (m, _) = svm.fit_with_stats(&train.select_queries(&[q]).unwrap()).unwrap();
            assert_eq!(m, trace.base[k]);
            sum.iter_mut().zip(&m.weights).for_each(|(s, w)| *s += w);
        }
        assert_eq!(model.linear.weights, sum);
        assert_eq!((model.members, model.base_rankers), (8, 8));
    }

    #[test]
    fn single_grade_queries_have_no_base_ranker_and_errors() {
        let x = [[0.0f32, 1.0]; 2];
        let flat = dataset(2, &[(&[1, 1], &x), (&[0, 0], &x)]);
        let e = EnsembleParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("ranksvm-ensemble"), "{e}");
        let mixed = dataset(2, &[(&[1, 1], &x), (&[1, 0], &[[1.0f32, 0.0], [0.0, 0.0]])]);
        let (m, t) = EnsembleParams::default()
            .validate()
            .unwrap()
            .fit_with_trace(&mixed, None, &mut Rng::new(0))
            .unwrap();
        assert_eq!(t.base_queries, vec![1]);
        assert_eq!(m.base_rankers, 1);
        for (p, key) in [
            (EnsembleParams { c: -1.0, ..Default::default() }, "`c`"),
            (EnsembleParams { rounds: 0, ..Default::default() }, "`rounds`"),
            (EnsembleParams { epsilon: 0.0, ..Default::default() }, "`epsilon`"),
            (EnsembleParams { cp_max_iter: 0, ..Default::default() }, "`cp_max_iter`"),
        ] {
            assert!(p.validate().unwrap_err().to_string().contains(key));
        }
        let readme = include_str!("../README.md");
        ltr_core::check_table::<EnsembleParams>().unwrap();
        ltr_core::check_readme::<EnsembleParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(EnsembleParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
    }

    #[test]
    fn deterministic_at_any_thread_count_and_round_trips() {
        let (train, vali, _) = constructed();
        let crit = ndcg3();
        let valid = Validation { data: &vali, measure: &crit };
        let ens = EnsembleParams { c: 1.0, rounds: 4, ..Default::default() }.validate().unwrap();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| ens.fit_with_trace(&train, Some(&valid), &mut Rng::new(5)).unwrap())
        };
        let (m1, t1) = run(1);
        let (m2, t2) = run(3);
        assert_eq!(t1, t2);
        assert!(m1.linear.weights.iter().zip(&m2.linear.weights).all(|(a, b)| a.to_bits() == b.to_bits()));
        let back: EnsembleModel = serde_json::from_str(&serde_json::to_string(&m1).unwrap()).unwrap();
        assert_eq!(back, m1);
        // Another seed gives other orders.
        let (_, t3) = ens.fit_with_trace(&train, Some(&valid), &mut Rng::new(6)).unwrap();
        assert_ne!(t1.rounds[0].order, t3.rounds[0].order);
    }
}
