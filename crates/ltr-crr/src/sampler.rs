//! `O(1)` sampling of training examples and of same-query pairs with different grades.
//!
//! Documents are grouped by `(query, grade)` into contiguous buckets of one permutation. Every
//! pair of buckets of one query with different grades is a *block* of `n_hi * n_lo` pairs; a
//! pair is drawn uniformly among all pairs by picking a block with probability proportional to
//! its size (Walker's alias method in Vose's construction, in exact integer arithmetic) and
//! then one document uniformly in each of its two buckets. Four draws from the stream per pair,
//! none of them a loop over the data.

use ltr_core::{Dataset, Rng};

/// What one SGD step works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Draw {
    /// A labelled document (index in the data set).
    Example(usize),
    /// A pair of documents of one query, the first with the higher grade.
    Pair(usize, usize),
}

/// Two buckets of one query: `(start, len)` ranges of the permutation.
#[derive(Debug, Clone, Copy)]
struct Block {
    hi: (usize, usize),
    lo: (usize, usize),
}

/// Precomputed buckets and the alias table over blocks.
#[derive(Debug, Clone)]
pub(crate) struct Sampler {
    n_docs: usize,
    /// Document indices grouped by query, then by grade (descending).
    perm: Vec<usize>,
    blocks: Vec<Block>,
    /// Alias table: block `j` is kept when `below(total) < keep[j]`, else `alias[j]` is taken.
    keep: Vec<u64>,
    alias: Vec<usize>,
    total: u64,
    n_pairs: u64,
}

impl Sampler {
    pub(crate) fn new(data: &Dataset) -> Self {
        let mut perm = Vec::with_capacity(data.n_docs());
        let mut blocks = Vec::new();
        let mut weights: Vec<u64> = Vec::new();
        for q in data.queries() {
            let mut local: Vec<usize> = (0..q.len()).collect();
            // Descending grade, then file order.
            local.sort_by(|&a, &b| q.labels[b].cmp(&q.labels[a]).then(a.cmp(&b)));
            let base = perm.len();
            perm.extend(local.iter().map(|&i| q.start + i));
            let mut buckets: Vec<(usize, usize)> = Vec::new();
            let mut k = 0;
            while k < local.len() {
                let g = q.labels[local[k]];
                let s = k;
                while k < local.len() && q.labels[local[k]] == g {
                    k += 1;
                }
                buckets.push((base + s, k - s));
            }
            for (a, &hi) in buckets.iter().enumerate() {
                for &lo in &buckets[a + 1..] {
                    blocks.push(Block { hi, lo });
                    weights.push((hi.1 * lo.1) as u64);
                }
            }
        }
        let n_pairs = weights.iter().sum::<u64>();
        let (keep, alias, total) = alias_table(&weights);
        Self { n_docs: data.n_docs(), perm, blocks, keep, alias, total, n_pairs }
    }

    /// Number of pairs with different grades in the same query.
    pub(crate) fn n_pairs(&self) -> u64 {
        self.n_pairs
    }

    /// Number of documents.
    pub(crate) fn n_docs(&self) -> usize {
        self.n_docs
    }

    /// A uniformly random document.
    #[inline]
    pub(crate) fn example(&self, rng: &mut Rng) -> usize {
        rng.index(self.n_docs)
    }

    /// A uniformly random pair (`n_pairs() > 0`), higher grade first.
    #[inline]
    pub(crate) fn pair(&self, rng: &mut Rng) -> (usize, usize) {
        let j = rng.index(self.blocks.len());
        let j = if rng.below(self.total) < self.keep[j] { j } else { self.alias[j] };
        let b = self.blocks[j];
        let i = self.perm[b.hi.0 + rng.index(b.hi.1)];
        let k = self.perm[b.lo.0 + rng.index(b.lo.1)];
        (i, k)
    }

    /// The probability of each block implied by the alias table, as `numerator / (m * total)`
    /// (for tests).
    #[cfg(test)]
    pub(crate) fn block_numerators(&self) -> (Vec<u64>, u64) {
        let m = self.blocks.len();
        let mut num = vec![0u64; m];
        for j in 0..m {
            num[j] += self.keep[j];
            num[self.alias[j]] += self.total - self.keep[j];
        }
        (num, m as u64 * self.total)
    }

    #[cfg(test)]
    pub(crate) fn block_sizes(&self) -> Vec<u64> {
        self.blocks.iter().map(|b| (b.hi.1 * b.lo.1) as u64).collect()
    }
}

/// Vose's alias construction in integers: with `m` items of weights `w` (sum `W`), item `j` is
/// kept with probability `keep[j] / W` and otherwise replaced by `alias[j]`, so that item `i`
/// is drawn with probability exactly `w_i / W`.
fn alias_table(weights: &[u64]) -> (Vec<u64>, Vec<usize>, u64) {
    let m = weights.len();
    let total: u64 = weights.iter().sum();
    // Invariant: the remaining scaled weights sum to `total` times their count.
    let mut scaled: Vec<u128> = weights.iter().map(|&w| u128::from(w) * m as u128).collect();
    let t = u128::from(total);
    let mut keep = vec![total; m];
    let mut alias: Vec<usize> = (0..m).collect();
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..m).partition(|&i| scaled[i] < t);
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        // scaled[s] < t, so it fits in u64.
        keep[s] = u64::try_from(scaled[s]).unwrap_or(total);
        alias[s] = l;
        scaled[l] = scaled[l] + scaled[s] - t;
        if scaled[l] < t {
            large.pop();
            small.push(l);
        }
    }
    // By the invariant, whatever is left has scaled weight exactly `total`: always kept.
    (keep, alias, total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::DatasetBuilder;

    use super::*;

    fn data() -> Dataset {
        // Query a: grades 2, 0, 1, 0 (buckets {2}: 1, {1}: 1, {0}: 2 -> blocks 1*1, 1*2, 1*2 = 5 pairs).
        // Query b: grades 1, 1 (one bucket, no pairs). Query c: 0, 3, 0 (blocks 1*2 = 2 pairs).
        let mut b = DatasetBuilder::new(1);
        for (qid, grades) in [("a", &[2u8, 0, 1, 0][..]), ("b", &[1, 1]), ("c", &[0, 3, 0])] {
            b.start_query(qid);
            for (i, &g) in grades.iter().enumerate() {
                b.push_doc(g, &[i as f32], None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    #[test]
    fn blocks_and_alias_probabilities_are_exact() {
        let s = Sampler::new(&data());
        assert_eq!(s.n_pairs(), 7);
        assert_eq!(s.block_sizes(), vec![1, 2, 2, 2]);
        let (num, den) = s.block_numerators();
        // P(block) = size / 7 exactly: num / den == size / 7  <=>  7 num == size den.
        for (n, w) in num.iter().zip(s.block_sizes()) {
            assert_eq!(7 * n, w * den);
        }
    }

    #[test]
    fn alias_table_handles_skewed_weights() {
        for weights in [vec![1u64], vec![5, 0, 1], vec![1, 1, 1, 1], vec![100, 1, 1, 7, 0, 3]] {
            let (keep, alias, total) = alias_table(&weights);
            let m = weights.len() as u64;
            // P(i) = num_i / (m W) must equal w_i / W: num_i = m w_i.
            let mut num = vec![0u64; weights.len()];
            for j in 0..weights.len() {
                num[j] += keep[j];
                num[alias[j]] += total - keep[j];
            }
            for (n, w) in num.iter().zip(&weights) {
                assert_eq!(*n, w * m, "{weights:?}");
            }
        }
    }

    #[test]
    fn pairs_are_same_query_higher_grade_first() {
        let d = data();
        let s = Sampler::new(&d);
        let mut rng = Rng::new(1);
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..7000 {
            let (i, j) = s.pair(&mut rng);
            assert!(d.labels()[i] > d.labels()[j]);
            let qi = d.query_offsets().partition_point(|&o| o <= i);
            let qj = d.query_offsets().partition_point(|&o| o <= j);
            assert_eq!(qi, qj);
            *counts.entry((i, j)).or_insert(0u32) += 1;
        }
        // 7 distinct pairs, each about 1000 times.
        assert_eq!(counts.len(), 7);
        assert!(counts.values().all(|&c| (850..1150).contains(&c)), "{counts:?}");
    }
}
