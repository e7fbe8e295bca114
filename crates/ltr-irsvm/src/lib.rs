//! IR-SVM (Cao, Xu, Liu, Li, Huang & Hon, "Adapting Ranking SVM to Document Retrieval",
//! SIGIR 2006): RankSVM whose hinge on each pair is weighted by the cost `tau_k` of the pair's
//! rank type `k` (its two grades) and by a query normaliser `mu_q`, trained on RankSVM's
//! weighted 1-slack cutting plane ([`ltr_ranksvm::RankSvm::fit_weighted`]).
//!
//! # Objective
//!
//! ```text
//! f(w) = 1/2 |w|^2 + (c / Q) sum_q sum_{(i,j): y_i > y_j} v_q(y_i, y_j) max(0, 1 - w.(x_i - x_j)),
//! v_q(a, b) = tau(a, b) mu_q / M,    M = mean over all pairs of tau mu
//! ```
//!
//! * `tau(a, b)` (`costs = "ndcg1"`): the expected drop of NDCG@1 when, in a ranking of a
//!   training query by grade, a uniformly random document of grade `a` and one of grade `b`
//!   swap places, averaged over the training queries holding both grades (the paper's
//!   estimate, which swaps random documents of the type, taken in expectation instead of by
//!   sampling). NDCG@1 only sees the top document, a document of the query's highest grade
//!   `m_q`, so the drop is `[a = m_q] (1 - G(b) / G(a)) / n_a(q)` with `G` the gain of the
//!   data's metric convention (`2^g - 1`) and `n_a(q)` the number of documents of grade `a`.
//!   `costs = "uniform"`: every `tau = 1`.
//! * `mu_q` (`query_norm = true`): `max_q' P_q' / P_q`, `P_q` the pairs of query `q`, so that
//!   every query weighs as much as the one with the most pairs; `false`: every `mu_q = 1`.
//! * `M` rescales the weights to mean 1 over the pairs: the loss at `w = 0` is `P / Q` as in
//!   RankSVM, so `c` keeps RankSVM's scale (and its grid). It is a change of `c` only: the
//!   paper's objective `sum tau mu hinge + lambda |w|^2` at `lambda = M Q / (2 c)` has the
//!   same minimiser.
//!
//! With `costs = "uniform"` and `query_norm = false` every weight is 1 and the model is
//! RankSVM's, bit for bit (tested).
//!
//! # Cost
//!
//! The costs take one pass over the training labels (`O(n)`). Each cutting-plane iteration
//! calls RankSVM's separation oracle with weights: `O(n log n + n L + n d)` per query of `n`
//! documents, `L` distinct grades and `d` features, never enumerating the pairs (the weights
//! depend only on the query and the two grades, so the per-level counts of the unweighted
//! oracle still suffice). The validation split is not used.

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, LossType, ParamInfo, Params, Result, param_info,
};
use ltr_linear::LinearModel;
use ltr_metrics::EvalConfig;
use ltr_ranksvm::{FitStats, RankSvmLoss, RankSvmParams};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 88.6 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-23, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ir-svm",
    name: "IR-SVM",
    family: Family::Svm,
    year: 2006,
    loss: LossType::Pairwise,
    optimizer: "1-slack cutting plane (weighted pairs)",
    reference: "Cao, Xu, Liu, Li, Huang & Hon, Adapting Ranking SVM to Document Retrieval, SIGIR 2006",
    summary: "cost-sensitive, query-normalised pairs",
    cost: Some(ltr_core::FitCost::mslr_web10k(88.6, "just bench-budget 2026-11-23, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// How the rank-type costs `tau` are set, spec key `costs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Costs {
    /// `"ndcg1"`: the expected NDCG@1 drop of swapping two documents of the type in a ranking
    /// by grade, averaged over the training queries (the paper's estimate). The default.
    #[default]
    Ndcg1,
    /// `"uniform"`: every rank type costs 1.
    Uniform,
}

/// Hyperparameters of IR-SVM (spec keys `c`, `costs`, `query_norm`, `epsilon`, `cp_max_iter`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IrSvmParams {
    /// Trade-off `c > 0` in `1/2 |w|^2 + (c/Q) sum_pairs v hinge`, with the weights `v` of mean
    /// 1: RankSVM's scale. Default `0.01`, RankSVM's (`svm_rank`'s) default.
    pub c: f64,
    /// Rank-type costs: `"ndcg1"` (default, the paper's estimate) or `"uniform"`.
    pub costs: Costs,
    /// Query normalisation `mu_q = max_q' P_q' / P_q`. Default `true` (the paper).
    pub query_norm: bool,
    /// Stop when the most violated constraint exceeds the working set's slack by at most
    /// `epsilon` times the loss at `w = 0` (RankSVM's rule); `> 0`. Default `0.001`.
    pub epsilon: f64,
    /// Maximum cutting-plane iterations, at least 1. Default `100000` (RankSVM's).
    pub cp_max_iter: usize,
}

impl Default for IrSvmParams {
    fn default() -> Self {
        Self { c: 0.01, costs: Costs::Ndcg1, query_norm: true, epsilon: 0.001, cp_max_iter: 100_000 }
    }
}

impl Params for IrSvmParams {
    type Checked = IrSvm;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive(
            "c",
            0.0,
            1e6,
            "trade-off in 1/2 |w|^2 + (c/Q) sum_pairs v hinge, weights of mean 1",
        ),
        ParamInfo::choice(
            "costs",
            &["ndcg1", "uniform"],
            "rank-type costs tau: expected NDCG@1 drop of a swap (ndcg1) or 1 (uniform)",
        ),
        ParamInfo::flag("query_norm", "weight query q by mu_q = max pairs over queries / pairs of q"),
        ParamInfo::positive("epsilon", 0.0, 1.0, "stop when H(w) - xi <= epsilon * H(0) (RankSVM's rule)"),
        ParamInfo::int("cp_max_iter", 1, 1_000_000, "maximum cutting-plane iterations"),
    ];

    fn validate(&self) -> Result<IrSvm> {
        let info = |key| param_info(Self::TABLE, key);
        info("c").check_real(self.c)?;
        info("epsilon").check_real(self.epsilon)?;
        info("cp_max_iter").check_int(self.cp_max_iter as u64)?;
        let svm = RankSvmParams {
            loss: RankSvmLoss::Hinge,
            c: self.c,
            epsilon: self.epsilon,
            cp_max_iter: self.cp_max_iter,
            ..Default::default()
        }
        .validate()?;
        Ok(IrSvm { svm, costs: self.costs, query_norm: self.query_norm })
    }
}

/// Validated IR-SVM, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct IrSvm {
    svm: ltr_ranksvm::RankSvm,
    costs: Costs,
    query_norm: bool,
}

/// The rank-type costs `tau(a, b)` estimated on a training set, for `a > b`.
#[derive(Debug, Clone, PartialEq)]
pub struct RankTypeCosts {
    /// `(higher grade, lower grade, tau)` for every grade pair present together in at least
    /// one training query, ordered by higher then lower grade.
    pub costs: Vec<(Grade, Grade, f64)>,
}

impl RankTypeCosts {
    /// `tau(a, b)`; 0 for a type no query holds.
    pub fn get(&self, a: Grade, b: Grade) -> f64 {
        self.costs.iter().find(|&&(x, y, _)| (x, y) == (a, b)).map_or(0.0, |c| c.2)
    }
}

/// Per grade: the number of documents of that grade in one query.
fn grade_counts(labels: &[Grade]) -> [u32; 256] {
    let mut n = [0u32; 256];
    for &g in labels {
        n[usize::from(g)] += 1;
    }
    n
}

/// Number of pairs `(i, j)` with `y_i > y_j` from the per-grade counts.
fn pair_count(n: &[u32; 256]) -> u64 {
    let (mut below, mut pairs) = (0u64, 0u64);
    for &c in n {
        pairs += u64::from(c) * below;
        below += u64::from(c);
    }
    pairs
}

/// The paper's cost estimate on `train`: for each grade pair `a > b`, the mean over the
/// training queries holding both of the expected NDCG@1 drop when a random document of grade
/// `a` and one of grade `b` swap places in a ranking by grade (gains of `cfg`).
pub fn estimate_costs(train: &Dataset, cfg: &EvalConfig) -> RankTypeCosts {
    // Sums and query counts per (a, b), a > b, flattened a * 256 + b; only grades seen matter.
    let mut sum = vec![0.0f64; 256 * 256];
    let mut queries = vec![0u32; 256 * 256];
    for q in train.queries() {
        let n = grade_counts(q.labels);
        let Some(top) = (0..256).rev().find(|&g| n[g] > 0) else { continue };
        for a in 1..256 {
            if n[a] == 0 {
                continue;
            }
            for b in 0..a {
                if n[b] == 0 {
                    continue;
                }
                queries[a * 256 + b] += 1;
                if a == top {
                    // The grade-a document swapped is the top one with probability 1 / n_a;
                    // NDCG@1 then falls from 1 to G(b) / G(a).
                    let (ga, gb) = (cfg.gain(a as Grade), cfg.gain(b as Grade));
                    sum[a * 256 + b] += (1.0 - gb / ga) / f64::from(n[a]);
                }
            }
        }
    }
    let mut costs = Vec::new();
    for a in 1..256 {
        for b in 0..a {
            let k = queries[a * 256 + b];
            if k > 0 {
                costs.push((a as Grade, b as Grade, sum[a * 256 + b] / f64::from(k)));
            }
        }
    }
    RankTypeCosts { costs }
}

/// The pair weights `v_q(a, b) = tau(a, b) mu_q / M` of a training set: a `256 x 256` table of
/// `tau / M` and one `mu_q` per query (0 for queries without pairs).
#[derive(Debug, Clone)]
struct Weights {
    tau: Vec<f64>,
    mu: Vec<f64>,
}

impl Weights {
    fn new(train: &Dataset, costs: Costs, query_norm: bool) -> Self {
        let mut tau = vec![1.0f64; 256 * 256];
        if costs == Costs::Ndcg1 {
            tau.iter_mut().for_each(|t| *t = 0.0);
            for (a, b, t) in estimate_costs(train, &EvalConfig::of(train)).costs {
                tau[usize::from(a) * 256 + usize::from(b)] = t;
            }
        }
        let counts: Vec<[u32; 256]> = train.queries().map(|q| grade_counts(q.labels)).collect();
        let pairs: Vec<u64> = counts.iter().map(pair_count).collect();
        let most = pairs.iter().copied().max().unwrap_or(0);
        let mu: Vec<f64> = pairs
            .iter()
            .map(|&p| match (p, query_norm) {
                (0, _) => 0.0,
                (_, true) => most as f64 / p as f64,
                (_, false) => 1.0,
            })
            .collect();
        // M: the mean of tau mu over all pairs.
        let (mut total, mut n_pairs) = (0.0, 0u64);
        for (n, &m) in counts.iter().zip(&mu) {
            for a in 1..256 {
                for b in 0..a {
                    if n[a] > 0 && n[b] > 0 {
                        let p = u64::from(n[a]) * u64::from(n[b]);
                        total += tau[a * 256 + b] * m * p as f64;
                        n_pairs += p;
                    }
                }
            }
        }
        let mean = if n_pairs > 0 { total / n_pairs as f64 } else { 0.0 };
        if mean > 0.0 && mean != 1.0 {
            tau.iter_mut().for_each(|t| *t /= mean);
        }
        Self { tau, mu }
    }

    fn of(&self, q: usize, a: Grade, b: Grade) -> f64 {
        self.tau[usize::from(a) * 256 + usize::from(b)] * self.mu[q]
    }
}

impl IrSvm {
    /// Fits and also returns RankSVM's diagnostics (objective, iterations, pairs, planes).
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let weights = Weights::new(train, self.costs, self.query_norm);
        let (model, stats) =
            self.svm.fit_weighted(train, &|q, a, b| weights.of(q, a, b)).map_err(|e| match e {
                Error::Fit { reason, .. } => Error::fit(INFO.id, reason),
                other => other,
            })?;
        log::debug!(
            "ir-svm: {} pairs, {} iterations, converged {}, f {:.10e}",
            stats.pairs,
            stats.iterations,
            stats.converged,
            stats.objective
        );
        Ok((model, stats))
    }
}

ltr_linear::learner_of_fit_with_stats!(IrSvm);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{Convention, Learner, Ranker, Rng};
    use ltr_testkit::dataset;

    use super::*;

    fn params(c: f64, costs: Costs, query_norm: bool) -> IrSvmParams {
        IrSvmParams { c, costs, query_norm, epsilon: 1e-6, ..Default::default() }
    }

    #[test]
    fn costs_by_hand() {
        // Query A, grades [2, 1, 0]: top grade 2, one document of it. Swapping it with the 0
        // drops NDCG@1 from 1 to 0 (drop 1), with the 1 to G(1)/G(2) = 1/3 (drop 2/3); a 1-0
        // swap leaves the top alone (drop 0).
        // Query B, grades [1, 0, 0]: top grade 1; the 1-0 swap drops 1.
        // Query C, grades [2, 2, 0]: a random 2 is the top one with probability 1/2: 2-0 drop
        // 1/2.
        // tau(2,0) = (1 + 1/2)/2 = 3/4 (queries A, C); tau(2,1) = 2/3 (A); tau(1,0) = (0 + 1)/2
        // (A, B).
        let x = [[0.0f32]; 3];
        let data = dataset(1, &[(&[2, 1, 0], &x), (&[1, 0, 0], &x), (&[2, 2, 0], &x)]);
        let t = estimate_costs(&data, &EvalConfig::official(Convention::Letor3));
        assert_eq!(t.costs.len(), 3);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
        assert!(close(t.get(2, 0), 0.75), "{t:?}");
        assert!(close(t.get(2, 1), 2.0 / 3.0), "{t:?}");
        assert!(close(t.get(1, 0), 0.5), "{t:?}");
        assert_eq!(t.get(3, 0), 0.0);
    }

    #[test]
    fn uniform_costs_without_query_norm_is_ranksvm_bit_for_bit() {
        let mut rng = Rng::new(3);
        let mut qs: Vec<(Vec<u8>, Vec<[f32; 3]>)> = Vec::new();
        for q in 0..12 {
            let n = 3 + (q * 5) % 17;
            let labels = (0..n).map(|_| rng.below(3) as u8).collect();
            let rows =
                (0..n).map(|_| [rng.normal() as f32, rng.normal() as f32, rng.uniform() as f32]).collect();
            qs.push((labels, rows));
        }
        let refs: Vec<(&[u8], &[[f32; 3]])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        let data = dataset(3, &refs);
        for c in [0.01, 1.0, 100.0] {
            let ir = IrSvmParams { c, costs: Costs::Uniform, query_norm: false, ..Default::default() };
            let (m, s) = ir.validate().unwrap().fit_with_stats(&data).unwrap();
            let svm = RankSvmParams { c, ..Default::default() }.validate().unwrap();
            let (r, rs) = svm.fit_with_stats(&data).unwrap();
            assert_eq!(s, rs, "c {c}");
            assert!(m.weights.iter().zip(&r.weights).all(|(a, b)| a.to_bits() == b.to_bits()), "c {c}");
            // With the paper's weights the model differs.
            let (w, _) = params(c, Costs::Ndcg1, true).validate().unwrap().fit_with_stats(&data).unwrap();
            assert_ne!(w.weights, r.weights);
        }
    }

    #[test]
    fn query_normalisation_by_hand() {
        // One feature, uniform costs. Query A: grades [1, 0] at x = [1, 0]: one pair, d = 1.
        // Query B: grades [1, 1, 0, 0] at x = [0.5, 0.5, 0, 0]: four pairs, d = 1/2. Q = 2.
        //
        // Without normalisation (weights 1), c = 0.4:
        //   f(w) = w^2/2 + 0.2 [max(0, 1 - w) + 4 max(0, 1 - w/2)];
        //   on w < 1: f'(w) = w - 0.2 - 0.4 = 0 -> w = 0.6.
        // With mu_A = 4/1 = 4, mu_B = 4/4 = 1, the mean of the weights over the 5 pairs is
        // (4 + 4)/5 = 8/5, so A's pair weighs 4 / (8/5) = 2.5 and B's pairs 0.625 each:
        //   f(w) = w^2/2 + 0.2 [2.5 max(0, 1 - w) + 2.5 max(0, 1 - w/2)];
        //   on w < 1: f'(w) = w - 0.5 - 0.25 = 0 -> w = 0.75.
        let data =
            dataset(1, &[(&[1, 0], &[[1.0f32], [0.0]]), (&[1, 1, 0, 0], &[[0.5f32], [0.5], [0.0], [0.0]])]);
        let fit = |norm| params(0.4, Costs::Uniform, norm).validate().unwrap().fit_with_stats(&data).unwrap();
        let (plain, ps) = fit(false);
        let (normed, ns) = fit(true);
        assert!(ps.converged && ns.converged);
        assert!((plain.weights[0] - 0.6).abs() < 1e-9, "{plain:?}");
        assert!((normed.weights[0] - 0.75).abs() < 1e-9, "{normed:?}");
        // f at the optimum: 0.18 + 0.2 * (0.4 + 4 * 0.7) = 0.82; 0.28125 + 0.2 * 2.5 * (0.25 + 0.625).
        assert!((ps.objective - 0.82).abs() < 1e-9, "{ps:?}");
        assert!((ns.objective - (0.28125 + 0.4375)).abs() < 1e-9, "{ns:?}");
    }

    #[test]
    fn costs_change_the_model_by_hand() {
        // One feature. Query A: grades [2, 1, 0] at x = [1, 1, 0]; query B: grades [1, 0] at
        // x = [0, 1] (a reversed pair). No query normalisation, NDCG@1 costs:
        // tau(2,0) = 1, tau(2,1) = 2/3 (A only), tau(1,0) = (0 + 1)/2 = 1/2 (A and B).
        // Pairs: A 2-0 (d = 1, tau 1), A 2-1 (d = 0, 2/3), A 1-0 (d = 1, 1/2), B 1-0 (d = -1, 1/2).
        // Mean weight (1 + 2/3 + 1/2 + 1/2)/4 = 2/3: weights 3/2, 1, 3/4, 3/4.
        // c = 0.2, Q = 2: f(w) = w^2/2 + 0.1 [1.5 (1 - w)_+ + 1 + 0.75 (1 - w)_+ + 0.75 (1 + w)_+].
        // On -1 < w < 1: f'(w) = w - 0.1 (1.5 + 0.75 - 0.75) = w - 0.15 -> w = 0.15.
        let data = dataset(1, &[(&[2, 1, 0], &[[1.0f32], [1.0], [0.0]]), (&[1, 0], &[[0.0f32], [1.0]])]);
        let (m, s) = params(0.2, Costs::Ndcg1, false).validate().unwrap().fit_with_stats(&data).unwrap();
        assert!(s.converged);
        assert!((m.weights[0] - 0.15).abs() < 1e-9, "{m:?}");
        // Uniform: f'(w) = w - 0.1 (1 + 1 - 1) -> w = 0.1.
        let (u, _) = params(0.2, Costs::Uniform, false).validate().unwrap().fit_with_stats(&data).unwrap();
        assert!((u.weights[0] - 0.1).abs() < 1e-9, "{u:?}");
    }

    #[test]
    fn errors_defaults_and_table() {
        let x = [[0.0f32]; 2];
        let data = dataset(1, &[(&[1, 1], &x)]);
        let e = IrSvmParams::default().validate().unwrap().fit(&data, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("ir-svm") && e.to_string().contains("no pairs"), "{e}");
        for (p, key) in [
            (IrSvmParams { c: 0.0, ..Default::default() }, "`c`"),
            (IrSvmParams { epsilon: f64::NAN, ..Default::default() }, "`epsilon`"),
            (IrSvmParams { cp_max_iter: 0, ..Default::default() }, "`cp_max_iter`"),
        ] {
            assert!(p.validate().unwrap_err().to_string().contains(key));
        }
        assert!(serde_json::from_str::<IrSvmParams>(r#"{"costs": "ndcg"}"#).is_err());
        let p: IrSvmParams = serde_json::from_str(r#"{"costs": "uniform", "query_norm": false}"#).unwrap();
        assert_eq!(p, IrSvmParams { costs: Costs::Uniform, query_norm: false, ..Default::default() });
        let readme = include_str!("../README.md");
        ltr_core::check_table::<IrSvmParams>().unwrap();
        ltr_core::check_readme::<IrSvmParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(IrSvmParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
    }

    #[test]
    fn deterministic_and_round_trips() {
        let data = dataset(
            2,
            &[
                (&[2, 1, 0, 0], &[[1.0f32, 0.5], [0.2, 0.1], [0.3, 0.9], [0.0, 0.0]]),
                (&[1, 0, 2], &[[0.4f32, 0.4], [0.1, 0.7], [0.9, 0.2]]),
            ],
        );
        let ir = IrSvmParams::default().validate().unwrap();
        let a = ir.fit(&data, None, &mut Rng::new(1)).unwrap();
        let b = ir.fit(&data, None, &mut Rng::new(2)).unwrap();
        assert_eq!(a, b);
        let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
    }
}
