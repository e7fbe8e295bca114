//! Sets of preference pairs defined by a level per document: within a query, every document
//! of a higher level is preferred to every document of a lower level (the crucial pairs of
//! graded relevance, or of any other ordering such as a base ranker's scores). Documents
//! without a level take part in no pair of the set.
//!
//! Nothing is enumerated pair by pair. Under the exponential pair loss the weight of a pair
//! `(x1, x2)` (`x1` preferred) is `c_q exp(F(x2) - F(x1))` with `F` the current scores, which
//! factorises per document, so per-level sums give every document's potential
//! `pi(x) = sum_{x2 below x} w(x, x2) - sum_{x1 above x} w(x1, x)` and the total weight `Z` in
//! O(n) per set.

use ltr_core::Dataset;
use ltr_linear::dot;
use serde::{Deserialize, Serialize};

/// How the initial weight of a set spreads over its pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairWeighting {
    /// Uniform over all pairs of the set (RankLib's RankBoost; queries with many pairs weigh
    /// more).
    Pairs,
    /// Every query with at least one pair gets the same total weight, uniform over its pairs
    /// (the per-user normalisation of RankBoost's EachMovie experiments).
    Queries,
}

/// A document outside every pair of a set.
const NO_LEVEL: u32 = u32::MAX;

/// The pairs of a data set ordered by a per-document level.
#[derive(Debug, Clone, PartialEq)]
pub struct PairSet {
    /// Per document, the index of its level among its query's distinct levels (ascending), or
    /// [`NO_LEVEL`].
    level: Vec<u32>,
    /// Per query, its distinct level keys, ascending (flattened; `key_offsets` delimit them).
    keys: Vec<f64>,
    key_offsets: Vec<usize>,
    /// Per query, the initial weight `c_q` of each of its pairs up to a common factor (0:
    /// the query has no pair).
    weight: Vec<f64>,
    /// Per query, its number of pairs.
    pairs: Vec<usize>,
}

/// Scratch of the per-query sums.
#[derive(Debug, Default)]
struct QuerySums {
    a: Vec<f64>,
    b: Vec<f64>,
    ea: Vec<f64>,
    eb: Vec<f64>,
    below: Vec<f64>,
    above: Vec<f64>,
}

impl PairSet {
    /// The set ordered by `key(i)` (higher preferred; `None` or NaN: the document is in no
    /// pair). Equal keys of one query are one level: no pair between them.
    pub fn from_keys(data: &Dataset, weighting: PairWeighting, key: impl Fn(usize) -> Option<f64>) -> Self {
        let mut level = vec![NO_LEVEL; data.n_docs()];
        let mut keys = Vec::new();
        let mut key_offsets = vec![0];
        let mut weight = Vec::with_capacity(data.n_queries());
        let mut pairs_of = Vec::with_capacity(data.n_queries());
        let mut count = Vec::new();
        for q in data.queries() {
            let start = keys.len();
            keys.extend(q.range().filter_map(&key).filter(|k| !k.is_nan()));
            keys[start..].sort_unstable_by(f64::total_cmp);
            let mut levels = keys.split_off(start);
            levels.dedup();
            count.clear();
            count.resize(levels.len(), 0usize);
            for i in q.range() {
                if let Some(k) = key(i).filter(|k| !k.is_nan()) {
                    let g = levels.partition_point(|&x| x < k);
                    level[i] = g as u32;
                    count[g] += 1;
                }
            }
            let mut below = 0usize;
            let mut pairs = 0usize;
            for &c in &count {
                pairs += c * below;
                below += c;
            }
            keys.extend(levels);
            key_offsets.push(keys.len());
            pairs_of.push(pairs);
            weight.push(match (pairs, weighting) {
                (0, _) => 0.0,
                (_, PairWeighting::Pairs) => 1.0,
                (_, PairWeighting::Queries) => 1.0 / pairs as f64,
            });
        }
        Self { level, keys, key_offsets, weight, pairs: pairs_of }
    }

    /// The crucial pairs of graded relevance: a document of a higher grade is preferred.
    pub fn from_grades(data: &Dataset, weighting: PairWeighting) -> Self {
        Self::from_keys(data, weighting, |i| Some(f64::from(data.labels()[i])))
    }

    /// Number of pairs.
    pub fn n_pairs(&self) -> usize {
        self.pairs.iter().sum()
    }

    /// Whether the set has no pair.
    pub fn is_empty(&self) -> bool {
        self.weight.iter().all(|&w| w == 0.0)
    }

    /// The total initial weight `sum_q c_q pairs_q` (the number of pairs, or of queries with
    /// a pair): dividing by it makes the initial weights a distribution.
    pub fn mass(&self) -> f64 {
        self.weight.iter().zip(&self.pairs).map(|(&c, &p)| c * p as f64).sum()
    }

    /// The level index of document `i` in its query, if it is in the set.
    #[inline]
    pub fn level(&self, i: usize) -> Option<usize> {
        (self.level[i] != NO_LEVEL).then_some(self.level[i] as usize)
    }

    /// The distinct level keys of query `q`, ascending.
    #[inline]
    pub fn keys(&self, q: usize) -> &[f64] {
        &self.keys[self.key_offsets[q]..self.key_offsets[q + 1]]
    }

    /// The initial weight `c_q` of each pair of query `q` (0: no pair).
    #[inline]
    pub fn query_weight(&self, q: usize) -> f64 {
        self.weight[q]
    }

    /// Per-level sums of query `q` under the scores: `a[k] = sum e^{-(F - mid)}` and
    /// `b[k] = sum e^{F - mid}` over its documents of level `k`, the per-document terms in
    /// `ea`/`eb` (0 for documents outside the set). Returns `mid`, the query's mid-range
    /// score, which keeps the exponentials in range and cancels in every pair weight
    /// `c_q e^{-(F(x1) - mid)} e^{F(x2) - mid}`.
    fn query_sums(&self, data: &Dataset, q: usize, scores: &[f64], sums: &mut QuerySums) -> f64 {
        let range = data.query(q).range();
        let s = &scores[range.clone()];
        let (lo, hi) = s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
        let mid = 0.5 * (lo + hi);
        let g = self.keys(q).len();
        sums.a.clear();
        sums.a.resize(g, 0.0);
        sums.b.clear();
        sums.b.resize(g, 0.0);
        sums.ea.clear();
        sums.eb.clear();
        for i in range {
            let Some(k) = self.level(i) else {
                sums.ea.push(0.0);
                sums.eb.push(0.0);
                continue;
            };
            let (ea, eb) = ((mid - scores[i]).exp(), (scores[i] - mid).exp());
            sums.a[k] += ea;
            sums.b[k] += eb;
            sums.ea.push(ea);
            sums.eb.push(eb);
        }
        mid
    }

    /// Writes every document's potential under the current scores into `out`, un-normalised:
    /// `pi(x) = c_q (e^{-F(x)} B_<(x) - e^{F(x)} A_>(x))` (shifted by the query's mid-range),
    /// where `B_<` sums `e^{F}` over the query's documents of lower levels and `A_>` sums
    /// `e^{-F}` over higher levels; 0 for documents in no pair. Returns the total pair weight
    /// `Z = sum_q c_q sum_k a_k B_<k` (the normaliser of the distribution).
    pub fn potentials(&self, data: &Dataset, scores: &[f64], out: &mut [f64]) -> f64 {
        let mut sums = QuerySums::default();
        let mut z = 0.0;
        for q in 0..data.n_queries() {
            let range = data.query(q).range();
            let c = self.weight[q];
            if c == 0.0 {
                out[range].fill(0.0);
                continue;
            }
            self.query_sums(data, q, scores, &mut sums);
            let g = sums.a.len();
            let QuerySums { a, b, ea, eb, below, above } = &mut sums;
            // below[k] = sum of b over levels < k; above[k] = sum of a over levels > k.
            below.clear();
            below.resize(g, 0.0);
            above.clear();
            above.resize(g, 0.0);
            for k in 1..g {
                below[k] = below[k - 1] + b[k - 1];
            }
            for k in (0..g - 1).rev() {
                above[k] = above[k + 1] + a[k + 1];
            }
            z += c * dot(a, below);
            for (j, i) in range.enumerate() {
                out[i] = match self.level(i) {
                    Some(k) => c * (ea[j] * below[k] - eb[j] * above[k]),
                    None => 0.0,
                };
            }
        }
        z
    }

    /// Every pair with its current weight `c_q e^{F(x2) - F(x1)}` (computed as the potentials
    /// compute it, mid-range shifted), as `(preferred doc, other doc, weight)`, queries in
    /// order and within one the documents in file order: O(pairs), for tests and inspection.
    pub fn weighted_pairs(&self, data: &Dataset, scores: &[f64]) -> Vec<(usize, usize, f64)> {
        let mut out = Vec::new();
        let mut sums = QuerySums::default();
        for q in 0..data.n_queries() {
            let c = self.weight[q];
            if c == 0.0 {
                continue;
            }
            let mid = self.query_sums(data, q, scores, &mut sums);
            let range = data.query(q).range();
            for i in range.clone() {
                for j in range.clone() {
                    if let (Some(a), Some(b)) = (self.level(i), self.level(j))
                        && a > b
                    {
                        let w = c * (-(scores[i] - mid)).exp() * (scores[j] - mid).exp();
                        out.push((i, j, w));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_testkit::dataset;

    /// Query 0: keys [2, 0, 2, 1] -> levels [2, 0, 2, 1], pairs 2*1 + 2*1 + 1*1 = 5.
    /// Query 1: keys [1, 1] -> one level, no pair. Query 2: doc 0 without a key, [_, 3, 0] ->
    /// one pair.
    #[test]
    fn levels_pairs_and_weights_by_hand() {
        let d = dataset(
            1,
            &[
                (&[2, 0, 2, 1], &[[0.0], [0.0], [0.0], [0.0]]),
                (&[1, 1], &[[0.0], [0.0]]),
                (&[9, 3, 0], &[[0.0], [0.0], [0.0]]),
            ],
        );
        let set =
            PairSet::from_keys(&d, PairWeighting::Queries, |i| (i != 6).then(|| f64::from(d.labels()[i])));
        assert_eq!(
            (0..9).map(|i| set.level(i)).collect::<Vec<_>>(),
            [Some(2), Some(0), Some(2), Some(1), Some(0), Some(0), None, Some(1), Some(0)]
        );
        assert_eq!(set.keys(0), &[0.0, 1.0, 2.0]);
        assert_eq!(set.n_pairs(), 6);
        assert_eq!((set.query_weight(0), set.query_weight(1), set.query_weight(2)), (0.2, 0.0, 1.0));
        assert!((set.mass() - 2.0).abs() < 1e-15);
        let by_pairs = PairSet::from_grades(&d, PairWeighting::Pairs);
        assert_eq!(by_pairs.n_pairs(), 5 + 3);
        assert_eq!(by_pairs.mass(), 8.0);
        assert!(!by_pairs.is_empty());
        assert!(PairSet::from_keys(&d, PairWeighting::Pairs, |_| None).is_empty());
    }

    /// The potentials equal the pair-by-pair sums of the explicit weights, and Z their total.
    #[test]
    fn potentials_equal_the_explicit_pair_sums() {
        let d = dataset(
            1,
            &[(&[2, 0, 2, 1, 0], &[[0.0], [0.0], [0.0], [0.0], [0.0]]), (&[1, 0, 1], &[[0.0], [0.0], [0.0]])],
        );
        let scores = [0.3, -1.2, 2.0, 0.1, 0.7, 5.0, -3.0, 4.5];
        for weighting in [PairWeighting::Pairs, PairWeighting::Queries] {
            let set = PairSet::from_grades(&d, weighting);
            let mut pi = vec![f64::NAN; 8];
            let z = set.potentials(&d, &scores, &mut pi);
            let pairs = set.weighted_pairs(&d, &scores);
            assert_eq!(pairs.len(), set.n_pairs());
            let mut want = [0.0; 8];
            let mut total = 0.0;
            for &(i, j, w) in &pairs {
                let c = set.query_weight(usize::from(i >= 5));
                assert!((w - c * (scores[j] - scores[i]).exp()).abs() < 1e-12 * w.max(1.0));
                want[i] += w;
                want[j] -= w;
                total += w;
            }
            assert!((z - total).abs() < 1e-12 * total);
            for (p, w) in pi.iter().zip(want) {
                assert!((p - w).abs() < 1e-12 * total, "{p} vs {w}");
            }
        }
    }
}
