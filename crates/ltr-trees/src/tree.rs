//! Fitted regression trees and additive ensembles of them, scored on raw features.

use std::fmt::Write as _;

use ltr_core::{Dataset, Ranker, Result, check_scoring};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bins::clean;

/// A binary regression tree with real-valued thresholds.
///
/// Internal node `k` sends a document left when `x[split_feature[k]] <= threshold[k]`
/// (NaN read as 0). A child index `c >= 0` is an internal node, `c < 0` is leaf `!c`. A
/// tree with one leaf has no internal node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Feature (0-based) tested at each internal node.
    pub split_feature: Vec<u32>,
    /// Threshold of each internal node: left when `value <= threshold`.
    pub threshold: Vec<f64>,
    /// Left child of each internal node.
    pub left: Vec<i32>,
    /// Right child of each internal node.
    pub right: Vec<i32>,
    /// Gain of each split (the decrease of the second-order objective, before shrinkage).
    pub split_gain: Vec<f64>,
    /// Training documents reaching each internal node.
    pub internal_count: Vec<u32>,
    /// Output of each leaf, shrinkage included.
    pub leaf_value: Vec<f64>,
    /// Training documents reaching each leaf.
    pub leaf_count: Vec<u32>,
}

impl Tree {
    /// A tree with one leaf.
    pub fn constant(value: f64, count: u32) -> Self {
        Self {
            split_feature: Vec::new(),
            threshold: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            split_gain: Vec::new(),
            internal_count: Vec::new(),
            leaf_value: vec![value],
            leaf_count: vec![count],
        }
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.leaf_value.len()
    }

    /// The leaf a row falls into.
    #[inline]
    pub fn leaf_of(&self, row: &[f32]) -> usize {
        self.walk(|k| f64::from(clean(row[self.split_feature[k] as usize])) <= self.threshold[k])
    }

    /// The leaf a document falls into given the bin of each feature it is asked for
    /// (`bin(f)`) and each internal node's bin threshold (`node_bins`): a node sends the
    /// document left at `bin <= node_bins[k]`. On bins of the training set's binning this is
    /// the leaf of [`Tree::leaf_of`] on the raw values, because a stored threshold is the upper
    /// bound of its bin: `x <= upper(b)` exactly when `bin(x) <= b`. Panics if `node_bins` has
    /// fewer entries than the tree has internal nodes.
    #[inline]
    pub fn leaf_of_bins(&self, node_bins: &[u8], bin: impl Fn(usize) -> u8) -> usize {
        self.walk(|k| bin(self.split_feature[k] as usize) <= node_bins[k])
    }

    /// The leaf reached from the root when internal node `k` sends the document left exactly
    /// when `goes_left(k)`.
    #[inline]
    fn walk(&self, goes_left: impl Fn(usize) -> bool) -> usize {
        if self.split_feature.is_empty() {
            return 0;
        }
        let mut node = 0usize;
        loop {
            let next = if goes_left(node) { self.left[node] } else { self.right[node] };
            if next < 0 {
                return !next as usize;
            }
            node = next as usize;
        }
    }

    /// The tree's output for a row.
    #[inline]
    pub fn predict(&self, row: &[f32]) -> f64 {
        self.leaf_value[self.leaf_of(row)]
    }

    /// Checks the structure (every index in range, every leaf reached once); used after
    /// deserialising.
    pub fn check(&self, n_features: usize) -> std::result::Result<(), String> {
        let n_internal = self.split_feature.len();
        let lens = [
            self.threshold.len(),
            self.left.len(),
            self.right.len(),
            self.split_gain.len(),
            self.internal_count.len(),
        ];
        if lens.iter().any(|&l| l != n_internal) {
            return Err("internal-node arrays of different lengths".into());
        }
        if self.leaf_value.len() != n_internal + 1 || self.leaf_count.len() != n_internal + 1 {
            return Err("a tree with k internal nodes must have k + 1 leaves".into());
        }
        if self.split_feature.iter().any(|&f| f as usize >= n_features) {
            return Err("split feature out of range".into());
        }
        let mut seen_leaf = vec![false; n_internal + 1];
        let mut seen_node = vec![false; n_internal];
        let mut stack = if n_internal == 0 { vec![] } else { vec![0i32] };
        if n_internal == 0 {
            seen_leaf[0] = true;
        }
        while let Some(node) = stack.pop() {
            let k = node as usize;
            if seen_node[k] {
                return Err("a node is reached twice".into());
            }
            seen_node[k] = true;
            for c in [self.left[k], self.right[k]] {
                if c >= 0 {
                    if c as usize >= n_internal {
                        return Err("child node out of range".into());
                    }
                    stack.push(c);
                } else {
                    let l = !c as usize;
                    if l > n_internal || std::mem::replace(&mut seen_leaf[l], true) {
                        return Err("leaf out of range or reached twice".into());
                    }
                }
            }
        }
        if !seen_leaf.iter().all(|&s| s) || !seen_node.iter().all(|&s| s) {
            return Err("unreachable node or leaf".into());
        }
        Ok(())
    }

    /// A readable dump, features 1-based as in LETOR files.
    pub fn dump(&self, out: &mut String) {
        if self.split_feature.is_empty() {
            let _ = writeln!(out, "  leaf 0: {} ({} docs)", self.leaf_value[0], self.leaf_count[0]);
            return;
        }
        self.dump_node(0, 1, out);
    }

    fn dump_node(&self, node: i32, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        if node < 0 {
            let l = !node as usize;
            let _ = writeln!(out, "{pad}leaf {l}: {} ({} docs)", self.leaf_value[l], self.leaf_count[l]);
            return;
        }
        let k = node as usize;
        let _ = writeln!(
            out,
            "{pad}if f{} <= {} (gain {:.6}, {} docs)",
            self.split_feature[k] + 1,
            self.threshold[k],
            self.split_gain[k],
            self.internal_count[k]
        );
        self.dump_node(self.left[k], depth + 1, out);
        let _ = writeln!(out, "{pad}else");
        self.dump_node(self.right[k], depth + 1, out);
    }
}

/// An additive ensemble: `score(x) = base_score + sum of the trees' outputs`, added in tree
/// order.
///
/// Deserialising checks every tree ([`Ensemble::check`]), so a loaded model cannot index
/// out of range or loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawEnsemble")]
pub struct Ensemble {
    /// Number of features the ensemble was trained on.
    pub n_features: usize,
    /// Constant added to every score.
    pub base_score: f64,
    /// The trees, in boosting order.
    pub trees: Vec<Tree>,
}

impl Ensemble {
    /// An empty ensemble (every score is `base_score`).
    pub fn new(n_features: usize, base_score: f64) -> Self {
        Self { n_features, base_score, trees: Vec::new() }
    }

    /// Keeps the first `n` trees.
    pub fn truncate(&mut self, n: usize) {
        self.trees.truncate(n);
    }

    /// The scores of the documents `first..first + out.len()` of `data` into `out`, the same
    /// bits as [`Ranker::score_row`] of each: the base score, then the trees in order. The
    /// trees go outermost, so one tree's arrays serve the whole block from the L1 cache while
    /// the block's rows are read again for each tree (from the L2 cache for a block of
    /// [`SCORE_BLOCK`] rows). Panics unless those documents exist.
    pub fn score_block(&self, data: &Dataset, first: usize, out: &mut [f64]) {
        out.fill(self.base_score);
        for t in &self.trees {
            for (k, o) in out.iter_mut().enumerate() {
                *o += t.predict(data.row(first + k));
            }
        }
    }

    /// Checks every tree's structure and feature indices (use after loading from JSON).
    pub fn check(&self) -> Result<()> {
        for (i, t) in self.trees.iter().enumerate() {
            t.check(self.n_features).map_err(|e| ltr_core::Error::InvalidDataset {
                reason: format!("tree {i} of the ensemble is malformed: {e}"),
            })?;
        }
        Ok(())
    }

    /// A readable text dump of every tree.
    pub fn dump(&self) -> String {
        let mut out = format!(
            "ensemble: {} trees, {} features, base score {}\n",
            self.trees.len(),
            self.n_features,
            self.base_score
        );
        for (i, t) in self.trees.iter().enumerate() {
            let _ = writeln!(out, "tree {i} ({} leaves)", t.n_leaves());
            t.dump(&mut out);
        }
        out
    }
}

/// Rows scored together by [`Ensemble::score`] (136 KB of 136 `f32` features: they stay in
/// the L2 cache while every tree walks them).
pub const SCORE_BLOCK: usize = 256;

/// The unchecked serialised form of [`Ensemble`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnsemble {
    n_features: usize,
    base_score: f64,
    trees: Vec<Tree>,
}

impl TryFrom<RawEnsemble> for Ensemble {
    type Error = String;
    fn try_from(raw: RawEnsemble) -> std::result::Result<Self, String> {
        let e = Ensemble { n_features: raw.n_features, base_score: raw.base_score, trees: raw.trees };
        e.check().map_err(|err| err.to_string())?;
        Ok(e)
    }
}

impl Ranker for Ensemble {
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.n_features)?;
        Ensemble::check(self)
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        let mut s = self.base_score;
        for t in &self.trees {
            s += t.predict(row);
        }
        s
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Trees(
            self.trees
                .iter()
                .map(|t| ltr_core::TreeSplits { features: &t.split_feature, gains: &t.split_gain })
                .collect(),
        )
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features, data, out)?;
        // Rows are independent: any split of the work gives the same bits.
        out.par_chunks_mut(SCORE_BLOCK)
            .enumerate()
            .for_each(|(c, block)| self.score_block(data, c * SCORE_BLOCK, block));
        Ok(())
    }
}

/// A fitted model of one score column (LambdaMART, IntervalRank): an additive ensemble of
/// regression trees on raw features. It serialises as its ensemble alone, and scores,
/// checks and reports feature weights as the ensemble does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TreeModel {
    /// The trees.
    pub ensemble: Ensemble,
}

impl TreeModel {
    /// A readable dump of every tree.
    pub fn dump(&self) -> String {
        self.ensemble.dump()
    }
}

impl Ranker for TreeModel {
    fn n_features(&self) -> usize {
        self.ensemble.n_features
    }

    fn check(&self) -> Result<()> {
        Ranker::check(&self.ensemble)
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        self.ensemble.score_row(row)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        self.ensemble.score(data, out)
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        self.ensemble.feature_weights()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f0 <= 0.5 ? (f1 <= 2 ? leaf0 = 1 : leaf2 = 3) : leaf1 = 2.
    fn stump() -> Tree {
        Tree {
            split_feature: vec![0, 1],
            threshold: vec![0.5, 2.0],
            left: vec![1, !0],
            right: vec![!1, !2],
            split_gain: vec![4.0, 1.0],
            internal_count: vec![10, 6],
            leaf_value: vec![1.0, 2.0, 3.0],
            leaf_count: vec![3, 4, 3],
        }
    }

    #[test]
    fn prediction_follows_thresholds_and_reads_nan_as_zero() {
        let t = stump();
        t.check(2).unwrap();
        assert_eq!(t.predict(&[0.5, 2.0]), 1.0); // both "<=" go left
        assert_eq!(t.predict(&[0.0, 2.5]), 3.0);
        assert_eq!(t.predict(&[0.6, 0.0]), 2.0);
        assert_eq!(t.predict(&[f32::NAN, f32::NAN]), 1.0);
        assert!(t.check(1).is_err());
        let mut bad = stump();
        bad.left[1] = !1;
        assert!(bad.check(2).is_err());
    }

    #[test]
    fn ensemble_adds_trees_in_order_and_dumps() {
        let e = Ensemble { n_features: 2, base_score: 0.5, trees: vec![stump(), Tree::constant(-1.0, 10)] };
        assert_eq!(e.score_row(&[0.0, 0.0]), 0.5 + 1.0 - 1.0);
        let one = Ensemble { n_features: 2, base_score: 0.5, trees: vec![stump()] };
        let want = "ensemble: 1 trees, 2 features, base score 0.5\ntree 0 (3 leaves)\n  if f1 <= 0.5 (gain 4.000000, 10 docs)\n    if f2 <= 2 (gain 1.000000, 6 docs)\n      leaf 0: 1 (3 docs)\n    else\n      leaf 2: 3 (3 docs)\n  else\n    leaf 1: 2 (4 docs)\n";
        assert_eq!(one.dump(), want);
        let d = e.dump();
        assert!(d.contains("if f1 <= 0.5"), "{d}");
        assert!(d.contains("leaf 2: 3 (3 docs)"), "{d}");
        e.check().unwrap();
        let json = serde_json::to_string(&e).unwrap();
        let back: Ensemble = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
        let broken = json.replace("\"split_feature\":[0,1]", "\"split_feature\":[0,7]");
        assert_ne!(broken, json);
        assert!(serde_json::from_str::<Ensemble>(&broken).is_err());
    }
}
