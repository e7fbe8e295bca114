//! RankRLS (T. Pahikkala, E. Tsivtsivadze, A. Airola, J. Järvinen, J. Boberg, "An efficient
//! algorithm for learning to rank from preference graphs", Machine Learning 75(1):129-165,
//! 2009): regularised least squares on the score differences of the pairs of a preference
//! graph, for a linear `f(x) = w.x`.
//!
//! # Objective
//!
//! For the training queries, the preference graph joins two documents of one query when their
//! grades differ (`pairs = "graded"`, the default) or always (`pairs = "all"`); `P` counts its
//! edges. With `L` the graph's Laplacian (block-diagonal, one block per query), `X` the
//! feature rows and `y` the grades, the paper's RLS ranking cost with a linear kernel is
//!
//! ```text
//! F(w) = 1/P sum_{edges (i, j)} ((y_i - y_j) - w.(x_i - x_j))^2 + lambda |w|^2
//!      = 1/P (y - Xw)^T L (y - Xw) + lambda |w|^2
//! ```
//!
//! (the paper writes `lambda` unnormalised: its `lambda` is ours times `P`). The minimiser
//! solves `(X^T L X / P + lambda I) w = X^T L y / P`, one `d x d` Cholesky solve.
//!
//! # Cost
//!
//! The pairs are never enumerated. A query's block of `L` on the graph "different grades" is
//! `diag(n - n_g(i)) - (1 1^T - sum_g 1_g 1_g^T)` (`n_g` documents of grade `g`); `L 1 = 0`,
//! so the rows can be centred on the query's mean first (`c_i = x_i - mean`, `sum_i c_i =
//! 0`), and then
//!
//! ```text
//! X_q^T L_q X_q = sum_i (n - n_g(i)) c_i c_i^T + sum_g s_g s_g^T,   s_g = sum_{i in g} c_i
//! X_q^T L_q y_q = sum_i (n - n_g(i)) y_i c_i  + sum_g (n_g y_g) s_g
//! ```
//!
//! With every pair (`"all"`, the complete graph `n I - 1 1^T`) both reduce to `n sum_i c_i
//! c_i^T` and `n sum_i y_i c_i`. Accumulating them costs `O(n d^2)` for `n` training documents,
//! whatever the number of pairs; the solve `O(d^3)`. The system does not depend on `lambda`:
//! it is computed once per training set ([`ltr_core::Learner::prepare`], cached with the data) and
//! shared by every grid point. No randomness; the validation split is not used.

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, Grade, LossType, ParamInfo, Params, Result, param_info,
};
use ltr_linear::newton::add_outer_lower;
use ltr_linear::{LinearModel, PivotFloor, cholesky, dot};
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 2.1 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "rankrls",
    name: "RankRLS",
    family: Family::Regression,
    year: 2009,
    loss: LossType::Pairwise,
    optimizer: "closed form (query-wise Laplacian, Cholesky)",
    reference: "Pahikkala, Tsivtsivadze, Airola, Jarvinen, Boberg, An efficient algorithm for learning to \
                rank from preference graphs, Machine Learning 75(1), 2009",
    summary: "pairwise least squares, closed form",
    cost: Some(ltr_core::FitCost::mslr_web10k(2.1, "just bench-budget 2026-11-27, 1 thread")),
    ..AlgorithmInfo::DEFAULT
};

/// Which pairs of a query form the preference graph, spec key `pairs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Graph {
    /// `"graded"`: the pairs of different grade (the default).
    #[default]
    Graded,
    /// `"all"`: every pair of the query; pairs of equal grade have target difference 0 (the
    /// query-structured RankRLS of the authors' RLScore library, without its per-query
    /// normalisation).
    All,
}

impl Graph {
    fn name(self) -> &'static str {
        match self {
            Self::Graded => "graded",
            Self::All => "all",
        }
    }
}

/// Hyperparameters of RankRLS (spec keys `lambda`, `pairs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankRlsParams {
    /// Regularisation `lambda > 0` in `1/P sum_edges (dy - w.dx)^2 + lambda |w|^2`.
    /// Default `0.1` (selected on vali in 8 of the 10 LETOR folds).
    pub lambda: f64,
    /// `"graded"` (default) or `"all"`.
    pub pairs: Graph,
}

impl Default for RankRlsParams {
    fn default() -> Self {
        Self { lambda: 0.1, pairs: Graph::Graded }
    }
}

impl Params for RankRlsParams {
    type Checked = RankRls;

    const TABLE: &'static [ParamInfo] = &[
        ParamInfo::positive(
            "lambda",
            0.0,
            1e6,
            "regularisation in 1/P sum_pairs (dy - w.dx)^2 + lambda |w|^2",
        ),
        ParamInfo::choice(
            "pairs",
            &["graded", "all"],
            "the preference graph: pairs of different grade (graded) or every pair of a query (all)",
        ),
    ];

    fn validate(&self) -> Result<RankRls> {
        param_info(Self::TABLE, "lambda").check_real(self.lambda)?;
        Ok(RankRls { params: self.clone() })
    }
}

/// Validated RankRLS, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRls {
    params: RankRlsParams,
}

/// The normal equations of a training set, independent of `lambda`.
#[derive(Debug, Clone, PartialEq)]
pub struct LaplacianSystem {
    /// `X^T L X`, lower triangle, row-major `d x d`.
    pub xlx: Vec<f64>,
    /// `X^T L y`.
    pub xly: Vec<f64>,
    /// `y^T L y`: the cost of `w = 0` times `P`.
    pub yly: f64,
    /// `P`, the number of edges.
    pub pairs: u64,
}

impl LaplacianSystem {
    /// Accumulates the system of `data` on the graph `graph`, query by query.
    pub fn new(data: &Dataset, graph: Graph) -> Self {
        let d = data.n_features();
        let (mut xlx, mut xly) = (vec![0.0; d * d], vec![0.0; d]);
        let (mut yly, mut pairs) = (0.0, 0u64);
        let (mut mean, mut c) = (vec![0.0; d], vec![0.0; d]);
        // Per grade present in the query: its count and the sum of its centred rows.
        let mut count = [0usize; 256];
        let mut sums: Vec<Vec<f64>> = Vec::new();
        let mut slot = [usize::MAX; 256];
        for q in data.queries() {
            let n = q.len();
            count.iter_mut().for_each(|x| *x = 0);
            for &y in q.labels {
                count[usize::from(y)] += 1;
            }
            let grades: Vec<Grade> = (0..=255u8).filter(|&g| count[usize::from(g)] > 0).collect();
            let q_pairs = match graph {
                Graph::Graded => {
                    let (mut below, mut p) = (0u64, 0u64);
                    for &g in &grades {
                        let m = count[usize::from(g)] as u64;
                        p += m * below;
                        below += m;
                    }
                    p
                }
                Graph::All => (n as u64) * (n as u64 - 1) / 2,
            };
            if q_pairs == 0 {
                continue;
            }
            pairs += q_pairs;
            for (a, &ga) in grades.iter().enumerate() {
                for &gb in &grades[..a] {
                    let diff = f64::from(ga) - f64::from(gb);
                    yly += (count[usize::from(ga)] * count[usize::from(gb)]) as f64 * diff * diff;
                }
            }
            mean.iter_mut().for_each(|x| *x = 0.0);
            for i in 0..n {
                for (m, &x) in mean.iter_mut().zip(q.row(i)) {
                    *m += f64::from(x);
                }
            }
            mean.iter_mut().for_each(|m| *m /= n as f64);
            sums.resize_with(grades.len(), Vec::new);
            for (k, &g) in grades.iter().enumerate() {
                slot[usize::from(g)] = k;
                sums[k].clear();
                sums[k].resize(d, 0.0);
            }
            for i in 0..n {
                for ((ck, &x), &m) in c.iter_mut().zip(q.row(i)).zip(&mean) {
                    *ck = f64::from(x) - m;
                }
                let y = q.labels[i];
                let degree = match graph {
                    Graph::Graded => (n - count[usize::from(y)]) as f64,
                    // The complete graph's degree n - 1, plus the singleton group's c c^T.
                    Graph::All => n as f64,
                };
                add_outer_lower(&mut xlx, d, degree, &c, &c);
                let coef = degree * f64::from(y);
                for (b, &ck) in xly.iter_mut().zip(&c) {
                    *b += coef * ck;
                }
                if graph == Graph::Graded {
                    for (s, &ck) in sums[slot[usize::from(y)]].iter_mut().zip(&c) {
                        *s += ck;
                    }
                }
            }
            if graph == Graph::Graded {
                for (k, &g) in grades.iter().enumerate() {
                    let s = &sums[k];
                    add_outer_lower(&mut xlx, d, 1.0, s, s);
                    let coef = count[usize::from(g)] as f64 * f64::from(g);
                    for (b, &sk) in xly.iter_mut().zip(s) {
                        *b += coef * sk;
                    }
                }
            }
        }
        Self { xlx, xly, yly, pairs }
    }

    /// The cost `F(w)` of the objective with `lambda`.
    pub fn objective(&self, w: &[f64], lambda: f64) -> f64 {
        let d = w.len();
        let mut quad = 0.0;
        for a in 0..d {
            for b in 0..d {
                let (i, j) = if a >= b { (a, b) } else { (b, a) };
                quad += w[a] * self.xlx[i * d + j] * w[b];
            }
        }
        (self.yly - 2.0 * dot(w, &self.xly) + quad) / self.pairs as f64 + lambda * dot(w, w)
    }
}

/// Diagnostics of one fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitStats {
    /// Edges of the preference graph (pairs).
    pub pairs: u64,
    /// `F(w)` at the solution.
    pub objective: f64,
}

impl RankRls {
    fn cache_key(&self) -> String {
        format!("rankrls laplacian pairs={}", self.params.pairs.name())
    }

    /// The training set's system, from its cache or computed and stored there.
    fn system(&self, train: &Dataset) -> Result<std::sync::Arc<LaplacianSystem>> {
        train.derived().get_or_try_insert(&self.cache_key(), || {
            let s = LaplacianSystem::new(train, self.params.pairs);
            if s.pairs == 0 {
                let why = match self.params.pairs {
                    Graph::Graded => "no training query has documents with different grades",
                    Graph::All => "no training query has two documents",
                };
                return Err(Error::fit(INFO.id, format!("{why}: there are no pairs")));
            }
            if !(s.xlx.iter().chain(&s.xly).all(|x| x.is_finite())) {
                return Err(Error::fit(INFO.id, "non-finite feature values"));
            }
            Ok(s)
        })
    }

    /// Fits and also returns diagnostics.
    pub fn fit_with_stats(&self, train: &Dataset) -> Result<(LinearModel, FitStats)> {
        let lambda = self.params.lambda;
        let s = self.system(train)?;
        let d = train.n_features();
        let p = s.pairs as f64;
        let mut h = vec![0.0; d * d];
        for a in 0..d {
            for b in 0..=a {
                h[a * d + b] = s.xlx[a * d + b] / p;
            }
            h[a * d + a] += lambda;
        }
        let rhs: Vec<f64> = s.xly.iter().map(|x| x / p).collect();
        // H >= lambda I: a failing pivot means an overflow.
        let w = cholesky::solve(&h, &rhs, PivotFloor::Largest(0.0))
            .map_err(|e| Error::fit(INFO.id, format!("normal equations: {e}")))?;
        let objective = s.objective(&w, lambda);
        log::debug!(
            "rankrls ({}): lambda {lambda}, {} pairs, F {objective:.10e}",
            self.params.pairs.name(),
            s.pairs
        );
        let model = LinearModel::new(w, 0.0);
        if !model.is_finite() {
            return Err(Error::fit(INFO.id, "the weights are not finite"));
        }
        Ok((model, FitStats { pairs: s.pairs, objective }))
    }
}

ltr_linear::learner_of_fit_with_stats!(RankRls, prepare = system);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::{Learner, Ranker, Rng};
    use ltr_testkit::dataset;

    use super::*;

    fn fit(lambda: f64, pairs: Graph, data: &Dataset) -> (LinearModel, FitStats) {
        RankRlsParams { lambda, pairs }.validate().unwrap().fit_with_stats(data).unwrap()
    }

    #[test]
    fn one_feature_by_hand() {
        // One query, x = (2, 1, 0), grades (2, 1, 0). Pairs (dx, dy): (1, 1), (2, 2), (1, 1):
        // P = 3, sum dx^2 = 6, sum dx dy = 6. F(w) = (1/3) sum (dy - w dx)^2 + lambda w^2,
        // so w = (6/3) / (6/3 + lambda) = 2 / (2 + lambda): 1/2 at lambda = 2.
        let data = dataset(1, &[(&[2, 1, 0], &[[2.0f32], [1.0], [0.0]])]);
        let (m, s) = fit(2.0, Graph::Graded, &data);
        assert!((m.weights[0] - 0.5).abs() < 1e-15, "{m:?}");
        assert_eq!((s.pairs, m.bias), (3, 0.0));
        // F(1/2) = (1/3)(3 * (1/2)^2 ... per pair: (1 - 1/2)^2 + (2 - 1)^2 + (1 - 1/2)^2 = 1.5;
        // 1.5 / 3 + 2 / 4 = 1.
        assert!((s.objective - 1.0).abs() < 1e-15, "{s:?}");
        // Grades (1, 1, 0): the graph drops the tie (2, 1). Pairs (2, 0) and (1, 0): dx 2 and
        // 1, dy 1 and 1: w = (3/2) / (5/2 + lambda) = 1/3 at lambda = 2.
        let tied = dataset(1, &[(&[1, 1, 0], &[[2.0f32], [1.0], [0.0]])]);
        let (m, s) = fit(2.0, Graph::Graded, &tied);
        assert!((m.weights[0] - 1.0 / 3.0).abs() < 1e-15 && s.pairs == 2, "{m:?}");
        // With every pair the tie counts with target 0: dx (1, 2, 1), dy (0, 1, 1):
        // w = (3/3) / (6/3 + 2) = 1/4.
        let (m, s) = fit(2.0, Graph::All, &tied);
        assert!((m.weights[0] - 0.25).abs() < 1e-15 && s.pairs == 3, "{m:?}");
    }

    /// Random queries with grades 0..3 and `d` features (some queries with one grade).
    fn random(seed: u64, d: usize) -> Dataset {
        let mut rng = Rng::new(seed);
        let mut qs: Vec<(Vec<u8>, Vec<Vec<f32>>)> = Vec::new();
        for q in 0..8 {
            let n = 1 + (q * 5) % 11;
            let top = if q == 3 { 1 } else { 3 };
            let labels: Vec<u8> = (0..n).map(|_| rng.below(top) as u8).collect();
            let rows = labels
                .iter()
                .map(|&l| {
                    (0..d).map(|k| (rng.normal() + if k == 0 { f64::from(l) } else { 3.0 }) as f32).collect()
                })
                .collect();
            qs.push((labels, rows));
        }
        let refs: Vec<(&[u8], &[Vec<f32>])> = qs.iter().map(|(l, r)| (l.as_slice(), r.as_slice())).collect();
        dataset(d, &refs)
    }

    /// The least-squares solution over explicitly enumerated pairs: the normal equations of
    /// the pair-difference matrix `D` (one row per pair), `(D^T D / P + lambda I) w = D^T t / P`.
    fn brute(data: &Dataset, lambda: f64, graph: Graph) -> (Vec<f64>, f64) {
        let d = data.n_features();
        let (mut dd, mut dt, mut pairs) = (vec![0.0; d * d], vec![0.0; d], 0usize);
        let mut rows: Vec<(Vec<f64>, f64)> = Vec::new();
        for q in data.queries() {
            for i in q.range() {
                for j in q.range() {
                    let (yi, yj) = (data.labels()[i], data.labels()[j]);
                    let take = match graph {
                        Graph::Graded => yi > yj,
                        Graph::All => i < j,
                    };
                    if take {
                        let diff: Vec<f64> = data
                            .row(i)
                            .iter()
                            .zip(data.row(j))
                            .map(|(&a, &b)| f64::from(a) - f64::from(b))
                            .collect();
                        rows.push((diff, f64::from(yi) - f64::from(yj)));
                    }
                }
            }
        }
        for (diff, t) in &rows {
            pairs += 1;
            for a in 0..d {
                dt[a] += diff[a] * t;
                for b in 0..d {
                    dd[a * d + b] += diff[a] * diff[b];
                }
            }
        }
        let p = pairs as f64;
        for a in 0..d {
            for b in 0..d {
                dd[a * d + b] /= p;
            }
            dd[a * d + a] += lambda;
            dt[a] /= p;
        }
        let w = cholesky::solve(&dd, &dt, PivotFloor::Largest(1e-14)).unwrap();
        let cost =
            rows.iter().map(|(diff, t)| (t - dot(&w, diff)).powi(2)).sum::<f64>() / p + lambda * dot(&w, &w);
        (w, cost)
    }

    #[test]
    fn equals_the_explicit_all_pairs_least_squares_solution() {
        for (seed, lambda) in [(1, 1e-3), (2, 0.1), (3, 10.0)] {
            for graph in [Graph::Graded, Graph::All] {
                let data = random(seed, 4);
                let (m, s) = fit(lambda, graph, &data);
                let (w, cost) = brute(&data, lambda, graph);
                for (a, b) in m.weights.iter().zip(&w) {
                    assert!((a - b).abs() <= 1e-10 * b.abs().max(1.0), "{graph:?}: {:?} vs {w:?}", m.weights);
                }
                assert!((s.objective - cost).abs() <= 1e-10 * cost, "{} vs {cost}", s.objective);
                assert!(m.weights[0] > 0.0, "feature 0 carries the grade");
            }
        }
    }

    #[test]
    fn the_system_is_shared_through_the_cache() {
        let data = random(4, 3);
        let lr = RankRlsParams::default().validate().unwrap();
        lr.prepare(&data).unwrap();
        assert_eq!(data.derived().len(), 1);
        let a = lr.fit(&data, None, &mut Rng::new(1)).unwrap();
        let b = RankRlsParams { lambda: 1.0, ..Default::default() }.validate().unwrap();
        b.fit(&data, None, &mut Rng::new(2)).unwrap();
        assert_eq!(data.derived().len(), 1, "one system for every lambda");
        RankRlsParams { pairs: Graph::All, ..Default::default() }.validate().unwrap().prepare(&data).unwrap();
        assert_eq!(data.derived().len(), 2);
        // A fit without the cache gives the same bits.
        let fresh = data.clone();
        assert_eq!(lr.fit(&fresh, None, &mut Rng::new(3)).unwrap(), a);
    }

    #[test]
    fn errors_defaults_table_and_determinism() {
        let x = [[0.0f32]; 2];
        let flat = dataset(1, &[(&[1, 1], &x)]);
        let e = RankRlsParams::default().validate().unwrap().fit(&flat, None, &mut Rng::new(0)).unwrap_err();
        assert!(e.to_string().contains("no pairs"), "{e}");
        let single = dataset(1, &[(&[1], &[[0.0f32]])]);
        let all = RankRlsParams { pairs: Graph::All, ..Default::default() }.validate().unwrap();
        assert!(all.fit(&single, None, &mut Rng::new(0)).unwrap_err().to_string().contains("no pairs"));
        let nan = dataset(1, &[(&[1, 0], &[[f32::NAN], [0.0]])]);
        assert!(RankRlsParams::default().validate().unwrap().fit(&nan, None, &mut Rng::new(0)).is_err());
        for lambda in [0.0, -1.0, f64::NAN, 2e6] {
            let e = RankRlsParams { lambda, ..Default::default() }.validate().unwrap_err();
            assert!(e.to_string().contains("`lambda`"), "{e}");
        }
        assert!(serde_json::from_str::<RankRlsParams>(r#"{"pairs": "some"}"#).is_err());
        let readme = include_str!("../README.md");
        ltr_core::check_table::<RankRlsParams>().unwrap();
        ltr_core::check_readme::<RankRlsParams>(readme).unwrap();
        for row in ltr_core::readme_rows(readme) {
            assert!(RankRlsParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        let data = random(7, 3);
        let lr = RankRlsParams::default().validate().unwrap();
        let a = lr.fit(&data, None, &mut Rng::new(1)).unwrap();
        let back: LinearModel = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.score_vec(&data).unwrap(), back.score_vec(&data).unwrap());
    }
}
