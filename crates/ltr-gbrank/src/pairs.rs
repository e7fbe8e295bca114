//! The preference pairs of a training set, as both papers use graded data: every two
//! documents of one query with different grades, the higher-graded one preferred.

use ltr_core::Grade;

/// Every pair `(i, j)` of one query with `y_i > y_j`, enumerated without storing the pairs:
/// per query the documents ordered by grade, highest first (file order within a grade), and
/// for each position where the strictly lower grades begin. Memory `O(n)`; a pass over the
/// pairs costs `O(P)`.
#[derive(Debug, Clone)]
pub struct PairIndex {
    /// Query `q`'s documents are positions `offsets[q]..offsets[q + 1]` of `order`.
    offsets: Vec<usize>,
    /// Document indices, each query's ordered by grade, highest first.
    order: Vec<u32>,
    /// For each position of `order`, the first position of its query with a lower grade.
    lower: Vec<u32>,
    /// Pairs each document is in (document order).
    per_doc: Vec<u32>,
    n_pairs: u64,
}

impl PairIndex {
    /// The pairs of documents with `labels` grouped into queries by `offsets` (the
    /// `Dataset::query_offsets` layout: `offsets[0] = 0`, last = number of documents).
    pub fn new(labels: &[Grade], offsets: &[usize]) -> Self {
        let n = labels.len();
        let (mut order, mut lower, mut per_doc) = (Vec::with_capacity(n), vec![0u32; n], vec![0u32; n]);
        let mut n_pairs = 0u64;
        for w in offsets.windows(2) {
            let (start, end) = (w[0], w[1]);
            let mut docs: Vec<u32> = (start as u32..end as u32).collect();
            docs.sort_by_key(|&i| std::cmp::Reverse(labels[i as usize]));
            order.extend_from_slice(&docs);
            // Positions start..group are higher-graded than the current group.
            let mut group = start;
            while group < end {
                let grade = labels[order[group] as usize];
                let mut next = group;
                while next < end && labels[order[next] as usize] == grade {
                    next += 1;
                }
                for p in group..next {
                    lower[p] = next as u32;
                    per_doc[order[p] as usize] = ((group - start) + (end - next)) as u32;
                }
                n_pairs += ((next - group) * (end - next)) as u64;
                group = next;
            }
        }
        Self { offsets: offsets.to_vec(), order, lower, per_doc, n_pairs }
    }

    /// Number of pairs.
    pub fn n_pairs(&self) -> u64 {
        self.n_pairs
    }

    /// Number of pairs document `i` is in (as the preferred or the other document).
    pub fn pairs_of(&self, i: usize) -> u32 {
        self.per_doc[i]
    }

    /// Calls `f(i, j)` for every pair, `i` the preferred (higher-graded) document, query by
    /// query in a fixed order.
    pub fn for_each_pair(&self, mut f: impl FnMut(usize, usize)) {
        for w in self.offsets.windows(2) {
            for p in w[0]..w[1] {
                let i = self.order[p] as usize;
                for &j in &self.order[self.lower[p] as usize..w[1]] {
                    f(i, j as usize);
                }
            }
        }
    }
}
