//! Growing one tree from per-document gradients and hessians on binned features.
//!
//! Leaf-wise (best-first) growth as in LightGBM: every leaf holds its best split; the leaf
//! whose split gains most is split next, until `max_leaves` leaves or no split gains.
//! A leaf's histogram holds, per feature and bin, the sums of gradients and hessians and
//! the document count. Only the smaller child of a split is histogrammed; the larger one
//! is the parent minus the smaller (sibling subtraction), computed in place.
//!
//! Histograms are built from the column-major bins of [`BinnedData`] (no second copy of the
//! bins). Before a pass, the gradients and hessians of the small leaf's documents are copied
//! into leaf order ("ordered gradients"), so every feature group streams them contiguously.
//! A group reads its features' columns a few at a time, interleaved per document: each
//! document adds to one cell of several features, so consecutive additions hit different
//! cells (no store-to-load chain on a frequent bin), and the group's columns are read as a
//! few short streams instead of one cache line per document and group (which a row-major
//! copy costs when the groups are narrower than a row).
//!
//! # One parallel pass per split
//! The usable features are cut once into groups whose cells fit in the L1 cache. After a
//! split, one task per group does everything that group needs: it histograms the smaller
//! child, subtracts it from the parent's histogram (which becomes the larger child's) and
//! scans both children's bins for their best split on the group's features. A split thus
//! costs a single fork-join, with no sequential pass over the histograms between phases.
//!
//! # Determinism
//! Every histogram cell is summed by a single task, over the leaf's documents in ascending
//! order, whatever the grouping or the thread count. Each feature's best split is found by
//! one task; the best split of a leaf is then chosen by a sequential pass in feature order
//! (ties: the lower feature, then the lower bin). The partition of the documents is
//! sequential and stable. No result depends on the thread count or on how rayon schedules
//! the tasks, so the trees are bit-identical at any thread count.

use std::sync::Arc;

use ltr_core::{Error, Result, Rng};
use rayon::prelude::*;

use crate::bins::BinnedData;
use crate::config::TreeConfig;
use crate::tree::Tree;

/// Below this much work (histogram additions plus bins scanned) a split is processed on one
/// thread: spreading a few microseconds of work costs more than it saves.
const PAR_MIN_WORK: usize = 16 * 1024;

/// Histogram cells per feature group (24 KB: the group's cells stay in the L1 cache while
/// a leaf's documents stream through).
const GROUP_CELLS: usize = 1024;

/// One histogram cell.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    /// Sums of gradients and hessians (adjacent, so one vector addition updates both).
    gh: [f64; 2],
    n: u32,
}

/// The best split of a leaf; the right side is the leaf minus the left side.
#[derive(Debug, Clone, Copy)]
struct Split {
    feature: usize,
    bin: u8,
    /// Decrease of the objective: `GL^2/(HL+l) + GR^2/(HR+l) - G^2/(H+l)`.
    gain: f64,
    left_g: f64,
    left_h: f64,
    left_n: u32,
}

#[derive(Debug, Clone)]
struct Leaf {
    /// The leaf's documents are `indices[begin..begin + count]`.
    begin: usize,
    count: usize,
    g: f64,
    h: f64,
    /// Histogram slot, while the leaf may still be split.
    slot: Option<usize>,
    best: Option<Split>,
    /// Internal node whose child this leaf is (`None` for the root).
    parent: Option<(usize, bool)>,
}

/// Grows trees on one binned training set, reusing its buffers from tree to tree.
#[derive(Debug)]
pub struct TreeLearner {
    cfg: TreeConfig,
    /// Shared: one training set's bins serve every learner fitted on it.
    data: Arc<BinnedData>,
    /// Features with more than one bin (the others can never be split on).
    usable: Vec<usize>,
    /// Per usable feature (index into `usable`): whether the current tree may split on it.
    active: Vec<bool>,
    /// Feature `f`'s cells in a histogram slot are `offsets[f]..offsets[f + 1]`.
    offsets: Vec<usize>,
    /// Usable features (indices into `usable`) in groups of at most `GROUP_CELLS` cells.
    groups: Vec<std::ops::Range<usize>>,
    /// Cell offset of each usable feature (`offsets[usable[k]]`).
    bases: Vec<usize>,
    /// Histogram slots (`offsets[n_features]` cells each), allocated on first use.
    pool: Vec<Vec<Cell>>,
    free: Vec<usize>,
    indices: Vec<u32>,
    tmp: Vec<u32>,
    /// (gradient, hessian) per document, document order.
    gh: Vec<[f32; 2]>,
    /// (gradient, hessian) of the current pass's small leaf, in the leaf's document order.
    ordered: Vec<[f32; 2]>,
    leaves: Vec<Leaf>,
    /// Per usable feature, the best split of the two leaves of the current pass.
    found: Vec<[Option<Split>; 2]>,
    /// Whether every document is in the current tree's sample.
    full: bool,
    /// Per internal node of the current tree: the bin threshold (for scoring
    /// out-of-sample training documents on bins).
    node_bins: Vec<u8>,
}

impl TreeLearner {
    /// A learner for `data` (validate `cfg` first; it is checked again here).
    pub fn new(data: impl Into<Arc<BinnedData>>, cfg: TreeConfig) -> Result<Self> {
        cfg.validate()?;
        let data = data.into();
        let usable: Vec<usize> = (0..data.n_features()).filter(|&f| data.n_bins(f) > 1).collect();
        let n = data.n_rows();
        let mut offsets = vec![0usize];
        for f in 0..data.n_features() {
            offsets.push(offsets[f] + data.n_bins(f));
        }
        let bases: Vec<usize> = usable.iter().map(|&f| offsets[f]).collect();
        let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
        for (k, &f) in usable.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if offsets[f + 1] - bases[g.start] <= GROUP_CELLS => g.end = k + 1,
                _ => groups.push(k..k + 1),
            }
        }
        Ok(Self {
            cfg,
            offsets,
            groups,
            bases,
            active: vec![true; usable.len()],
            found: vec![[None; 2]; usable.len()],
            usable,
            pool: Vec::new(),
            free: Vec::new(),
            indices: Vec::with_capacity(n),
            tmp: Vec::with_capacity(n),
            gh: vec![[0.0; 2]; n],
            ordered: Vec::with_capacity(n),
            leaves: Vec::new(),
            full: true,
            node_bins: Vec::new(),
            data,
        })
    }

    /// The binned training data.
    pub fn data(&self) -> &BinnedData {
        &self.data
    }

    /// The configuration.
    pub fn config(&self) -> &TreeConfig {
        &self.cfg
    }

    /// Grows one tree on `gradients` and `hessians` (one per training document, the
    /// derivatives of the loss with respect to the score). Leaf values are Newton steps
    /// `-learning_rate * G / (H + lambda_l2)`. `rng` is drawn from only when rows or
    /// features are subsampled.
    pub fn grow(&mut self, gradients: &[f32], hessians: &[f32], rng: &mut Rng) -> Result<Tree> {
        let n = self.data.n_rows();
        if gradients.len() != n || hessians.len() != n {
            return Err(Error::fit(
                "trees",
                format!("{} gradients and {} hessians for {n} documents", gradients.len(), hessians.len()),
            ));
        }
        self.sample(rng);
        for ((p, &g), &h) in self.gh.iter_mut().zip(gradients).zip(hessians) {
            *p = [g, h];
        }
        self.leaves.clear();
        self.free.clear();
        self.free.extend((0..self.pool.len()).rev());
        let mut tree = Tree::constant(0.0, 0);
        self.node_bins.clear();

        let (mut g, mut h) = (0.0f64, 0.0f64);
        for &r in &self.indices {
            let [gr, hr] = self.gh[r as usize];
            g += f64::from(gr);
            h += f64::from(hr);
        }
        let count = self.indices.len();
        self.leaves.push(Leaf { begin: 0, count, g, h, slot: None, best: None, parent: None });
        if self.splittable(0) && self.active.contains(&true) {
            let slot = self.take_slot();
            self.leaves[0].slot = Some(slot);
            self.pass(Side { leaf: 0, scan: true }, None);
        }

        while self.leaves.len() < self.cfg.max_leaves {
            let mut pick: Option<(usize, f64)> = None;
            for (i, leaf) in self.leaves.iter().enumerate() {
                if let Some(s) = leaf.best
                    && pick.is_none_or(|(_, g)| s.gain > g)
                {
                    pick = Some((i, s.gain));
                }
            }
            let Some((l, _)) = pick else { break };
            self.split(l, &mut tree);
        }

        let (lambda, lr) = (self.cfg.lambda_l2, self.cfg.learning_rate);
        tree.leaf_value.clear();
        tree.leaf_count.clear();
        for leaf in &self.leaves {
            let denom = leaf.h + lambda;
            let v = if denom > 0.0 { -lr * leaf.g / denom } else { 0.0 };
            if !v.is_finite() {
                return Err(Error::fit("trees", "a leaf value is not finite (are the gradients finite?)"));
            }
            tree.leaf_value.push(v);
            tree.leaf_count.push(leaf.count as u32);
        }
        Ok(tree)
    }

    /// Adds the tree just grown to the training scores: sampled documents through the
    /// leaf partition, the others by walking the tree on their bins.
    pub fn add_to_scores(&self, tree: &Tree, scores: &mut [f64]) {
        if self.full {
            for (l, leaf) in self.leaves.iter().enumerate() {
                let v = tree.leaf_value[l];
                for &r in &self.indices[leaf.begin..leaf.begin + leaf.count] {
                    scores[r as usize] += v;
                }
            }
            return;
        }
        for (r, s) in scores.iter_mut().enumerate() {
            *s += tree.leaf_value[tree.leaf_of_bins(&self.node_bins, |f| self.data.column(f)[r])];
        }
    }

    /// The bin threshold of each internal node of the tree grown last (a node sends a
    /// document left at `bin <= node_bins[k]`; see [`Tree::leaf_of_bins`]).
    pub fn node_bins(&self) -> &[u8] {
        &self.node_bins
    }

    fn sample(&mut self, rng: &mut Rng) {
        let n = self.data.n_rows();
        self.indices.clear();
        if self.cfg.row_subsample < 1.0 {
            let k = ((n as f64 * self.cfg.row_subsample).round() as usize).clamp(1, n);
            self.indices.extend(rng.sample_sorted(n, k).into_iter().map(|i| i as u32));
        } else {
            self.indices.extend(0..n as u32);
        }
        self.full = self.indices.len() == n;
        if self.cfg.feature_subsample < 1.0 && !self.usable.is_empty() {
            let u = self.usable.len();
            let k = ((u as f64 * self.cfg.feature_subsample).round() as usize).clamp(1, u);
            self.active.fill(false);
            for i in rng.sample_sorted(u, k) {
                self.active[i] = true;
            }
        } else {
            self.active.fill(true);
        }
    }

    fn splittable(&self, l: usize) -> bool {
        let leaf = &self.leaves[l];
        leaf.count >= 2 * self.cfg.min_data_in_leaf && leaf.h >= 2.0 * self.cfg.min_sum_hessian_in_leaf
    }

    fn take_slot(&mut self) -> usize {
        if let Some(s) = self.free.pop() {
            return s;
        }
        self.pool.push(vec![Cell::default(); self.offsets[self.data.n_features()]]);
        self.pool.len() - 1
    }

    fn release(&mut self, l: usize) {
        if let Some(s) = self.leaves[l].slot.take() {
            self.free.push(s);
        }
    }

    /// One pass over the feature groups, a task per group (see the module docs): histograms
    /// the documents of `small` into its slot; with `large`, subtracts that histogram from
    /// the large leaf's slot (its parent's histogram until now); then finds the best split
    /// of each side that asks for a scan. A side without a split gives its slot back.
    fn pass(&mut self, small: Side, large: Option<Side>) {
        let Self {
            cfg,
            bases,
            offsets,
            usable,
            groups,
            data,
            pool,
            indices,
            gh,
            ordered,
            leaves,
            active,
            found,
            ..
        } = self;
        let u = bases.len();
        let (bases, offsets, usable, active) = (&bases[..], &offsets[..], &usable[..], &active[..]);
        let (data, cfg) = (&*data, &*cfg);
        let totals = |l: usize| (leaves[l].g, leaves[l].h, leaves[l].count as u32);
        let small_leaf = &leaves[small.leaf];
        let rows = &indices[small_leaf.begin..small_leaf.begin + small_leaf.count];
        let small_totals = small.scan.then(|| totals(small.leaf));
        let large_totals = large.filter(|s| s.scan).map(|s| totals(s.leaf));
        let Some(small_slot) = small_leaf.slot else { return };
        let large_slot = large.and_then(|s| leaves[s.leaf].slot);
        let (small_cells, large_cells) = two_slots(pool, small_slot, large_slot);
        ordered.clear();
        ordered.extend(rows.iter().map(|&r| gh[r as usize]));
        let ordered = &ordered[..];

        // Cut the slots and the results into the groups' disjoint pieces.
        let mut tasks: Vec<GroupTask<'_>> = Vec::with_capacity(groups.len());
        let (mut small_rest, mut large_rest, mut found_rest) = (small_cells, large_cells, &mut found[..]);
        let mut at = 0usize;
        let mut cells_total = 0usize;
        for ks in groups.iter().cloned() {
            let (lo, hi) = (bases[ks.start], offsets[usable[ks.end - 1] + 1]);
            let small = carve(&mut small_rest, lo - at, hi - lo);
            let large = large_rest.as_mut().map(|rest| carve(rest, lo - at, hi - lo));
            let found = carve(&mut found_rest, 0, ks.len());
            tasks.push(GroupTask { small, large, found, lo, ks });
            cells_total += hi - lo;
            at = hi;
        }

        let run = |task: GroupTask<'_>| {
            let GroupTask { small, mut large, found, lo, ks } = task;
            // Histogram, a few features at a time, interleaved per document (module docs).
            // Every cell sums in document order.
            small.fill(Cell::default());
            let mut k = ks.start;
            while k < ks.end {
                let w = (ks.end - k).min(INTERLEAVE);
                let cols: [&[u8]; INTERLEAVE] =
                    std::array::from_fn(|j| data.column(usable[k + j.min(w - 1)]));
                let at: [usize; INTERLEAVE] = std::array::from_fn(|j| bases[k + j.min(w - 1)] - lo);
                match w {
                    4 => histogram::<4>(&cols, &at, rows, ordered, small),
                    3 => histogram::<3>(&cols, &at, rows, ordered, small),
                    2 => histogram::<2>(&cols, &at, rows, ordered, small),
                    _ => histogram::<1>(&cols, &at, rows, ordered, small),
                }
                k += w;
            }
            // Sibling subtraction: the parent's histogram becomes the large child's.
            if let Some(large) = large.as_deref_mut() {
                for (d, s) in large.iter_mut().zip(small.iter()) {
                    d.gh[0] -= s.gh[0];
                    d.gh[1] -= s.gh[1];
                    d.n -= s.n;
                }
            }
            for (slot, k) in found.iter_mut().zip(ks) {
                *slot = [None, None];
                if !active[k] {
                    continue;
                }
                let f = usable[k];
                let cells = offsets[f] - lo..offsets[f + 1] - lo;
                if let Some(t) = small_totals {
                    slot[0] = scan(&small[cells.clone()], f, t, cfg);
                }
                if let (Some(t), Some(large)) = (large_totals, large.as_deref()) {
                    slot[1] = scan(&large[cells], f, t, cfg);
                }
            }
        };
        let work = rows.len() * u + cells_total * (1 + usize::from(large.is_some()));
        if work >= PAR_MIN_WORK && tasks.len() > 1 {
            tasks.into_par_iter().for_each(run);
        } else {
            tasks.into_iter().for_each(run);
        }

        // The best split of each side: a sequential pass in feature order.
        let mut bests = [None::<Split>; 2];
        for (i, best) in bests.iter_mut().enumerate() {
            for s in found.iter().filter_map(|f| f[i].as_ref()) {
                if best.is_none_or(|b| s.gain > b.gain) {
                    *best = Some(*s);
                }
            }
        }
        for (side, best) in [Some(small), large].into_iter().zip(bests) {
            let Some(side) = side else { continue };
            self.leaves[side.leaf].best = best;
            if best.is_none() {
                self.release(side.leaf);
            }
        }
    }

    fn split(&mut self, l: usize, tree: &mut Tree) {
        let Some(s) = self.leaves[l].best.take() else { return };
        let Leaf { begin, count, g, h, parent, .. } = self.leaves[l].clone();
        // Stable partition: left documents first, both sides keep their order.
        let col = self.data.column(s.feature);
        let rows = &mut self.indices[begin..begin + count];
        self.tmp.clear();
        let mut nl = 0usize;
        for i in 0..count {
            let r = rows[i];
            if col[r as usize] <= s.bin {
                rows[nl] = r;
                nl += 1;
            } else {
                self.tmp.push(r);
            }
        }
        rows[nl..].copy_from_slice(&self.tmp);
        debug_assert_eq!(nl, s.left_n as usize);

        let node = tree.split_feature.len();
        let r = self.leaves.len();
        tree.split_feature.push(s.feature as u32);
        tree.threshold.push(self.data.upper(s.feature, usize::from(s.bin)));
        tree.left.push(!(l as i32));
        tree.right.push(!(r as i32));
        tree.split_gain.push(s.gain);
        tree.internal_count.push(count as u32);
        self.node_bins.push(s.bin);
        if let Some((p, is_left)) = parent {
            if is_left {
                tree.left[p] = node as i32;
            } else {
                tree.right[p] = node as i32;
            }
        }
        let slot = self.leaves[l].slot.take();
        self.leaves[l] = Leaf {
            begin,
            count: nl,
            g: s.left_g,
            h: s.left_h,
            slot: None,
            best: None,
            parent: Some((node, true)),
        };
        self.leaves.push(Leaf {
            begin: begin + nl,
            count: count - nl,
            g: g - s.left_g,
            h: h - s.left_h,
            slot: None,
            best: None,
            parent: Some((node, false)),
        });

        let room = self.leaves.len() < self.cfg.max_leaves;
        let (left_ok, right_ok) = (self.splittable(l), self.splittable(r));
        let Some(parent_slot) = slot else { return };
        if !room || !(left_ok || right_ok) {
            self.free.push(parent_slot);
            return;
        }
        let (small, large) = if nl <= count - nl { (l, r) } else { (r, l) };
        self.leaves[small].slot = Some(self.take_slot());
        self.leaves[large].slot = Some(parent_slot);
        let scan = |leaf: usize| Side { leaf, scan: if leaf == l { left_ok } else { right_ok } };
        self.pass(scan(small), Some(scan(large)));
    }
}

/// A leaf taking part in a [`TreeLearner::pass`], and whether to look for its best split.
#[derive(Debug, Clone, Copy)]
struct Side {
    leaf: usize,
    scan: bool,
}

/// One feature group's share of a pass: its cells in the small and the large leaf's
/// histograms (`lo` is the slot offset of the first), and its features' results.
struct GroupTask<'a> {
    small: &'a mut [Cell],
    large: Option<&'a mut [Cell]>,
    found: &'a mut [[Option<Split>; 2]],
    lo: usize,
    ks: std::ops::Range<usize>,
}

/// Takes `len` items off the front of `rest`, after dropping the `skip` before them.
fn carve<'a, T>(rest: &mut &'a mut [T], skip: usize, len: usize) -> &'a mut [T] {
    let (_, tail) = std::mem::take(rest).split_at_mut(skip);
    let (head, tail) = tail.split_at_mut(len);
    *rest = tail;
    head
}

/// Mutable access to slot `a` and, if given, to a different slot `b`.
fn two_slots(pool: &mut [Vec<Cell>], a: usize, b: Option<usize>) -> (&mut [Cell], Option<&mut [Cell]>) {
    match b {
        None => (&mut pool[a], None),
        Some(b) if a < b => {
            let (x, y) = pool.split_at_mut(b);
            (&mut x[a], Some(&mut y[0]))
        }
        Some(b) => {
            let (x, y) = pool.split_at_mut(a);
            (&mut y[0], Some(&mut x[b]))
        }
    }
}

/// Features histogrammed together, interleaved per document.
const INTERLEAVE: usize = 4;

/// Adds the documents `rows` (with their gradients and hessians `ordered`, in the same order)
/// to the cells of `W` features: feature `j` reads its bins from `cols[j]` and its cells start
/// at `cells[at[j]]`.
#[inline]
fn histogram<const W: usize>(
    cols: &[&[u8]; INTERLEAVE],
    at: &[usize; INTERLEAVE],
    rows: &[u32],
    ordered: &[[f32; 2]],
    cells: &mut [Cell],
) {
    for (&r, &[g, h]) in rows.iter().zip(ordered) {
        let (r, g, h) = (r as usize, f64::from(g), f64::from(h));
        for j in 0..W {
            let c = &mut cells[at[j] + usize::from(cols[j][r])];
            c.gh[0] += g;
            c.gh[1] += h;
            c.n += 1;
        }
    }
}

/// The best threshold of one feature for one leaf: scans the bins left to right.
fn scan(cells: &[Cell], feature: usize, (g, h, n): (f64, f64, u32), cfg: &TreeConfig) -> Option<Split> {
    let lambda = cfg.lambda_l2;
    let min_n = cfg.min_data_in_leaf as u32;
    let min_h = cfg.min_sum_hessian_in_leaf;
    let parent = g * g / (h + lambda);
    let (mut lg, mut lh, mut ln) = (0.0f64, 0.0f64, 0u32);
    let mut best_gain = f64::NEG_INFINITY;
    let (mut best_bin, mut best_lg, mut best_lh, mut best_ln) = (usize::MAX, 0.0, 0.0, 0u32);
    let last = cells.len().saturating_sub(1);
    for (b, c) in cells[..last].iter().enumerate() {
        if c.n == 0 {
            continue;
        }
        lg += c.gh[0];
        lh += c.gh[1];
        ln += c.n;
        if ln < min_n || lh < min_h {
            continue;
        }
        if n - ln < min_n {
            break;
        }
        let rh = h - lh;
        if rh < min_h {
            continue;
        }
        let rg = g - lg;
        // GL^2/(HL+l) + GR^2/(HR+l) with one division.
        let (dl, dr) = (lh + lambda, rh + lambda);
        if !(dl > 0.0 && dr > 0.0) {
            continue;
        }
        let gain = (lg * lg * dr + rg * rg * dl) / (dl * dr);
        if gain > best_gain {
            (best_gain, best_bin, best_lg, best_lh, best_ln) = (gain, b, lg, lh, ln);
        }
    }
    let gain = best_gain - parent;
    (best_bin != usize::MAX && gain > 0.0 && gain.is_finite()).then_some(Split {
        feature,
        bin: best_bin as u8,
        gain,
        left_g: best_lg,
        left_h: best_lh,
        left_n: best_ln,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn cfg(max_leaves: usize, min_data: usize) -> TreeConfig {
        TreeConfig {
            max_leaves,
            min_data_in_leaf: min_data,
            min_sum_hessian_in_leaf: 0.0,
            lambda_l2: 0.0,
            learning_rate: 1.0,
            min_data_in_bin: 1,
            ..TreeConfig::default()
        }
    }

    /// x = 1, 2, 3, 4 with gradients -1, -1, 1, 1 and unit hessians: bins at 1.5, 2.5, 3.5.
    /// Root G = 0, H = 4. Thresholds: after x=1: (-1)^2/1 + 1^2/3 = 4/3; after x=2:
    /// (-2)^2/2 + 2^2/2 = 4; after x=3: 4/3. Best: x <= 2.5, gain 4 - 0 = 4. Leaves:
    /// -(-2)/2 = 1 and -(2)/2 = -1.
    #[test]
    fn one_split_by_hand() {
        let data = BinnedData::from_rows(&[1.0, 2.0, 3.0, 4.0], 1, 255, 1).unwrap();
        let mut l = TreeLearner::new(data, cfg(2, 1)).unwrap();
        let t = l.grow(&[-1.0, -1.0, 1.0, 1.0], &[1.0; 4], &mut Rng::new(0)).unwrap();
        assert_eq!(t.threshold, vec![2.5]);
        assert_eq!(t.split_gain, vec![4.0]);
        assert_eq!(t.leaf_value, vec![1.0, -1.0]);
        assert_eq!(t.leaf_count, vec![2, 2]);
        let mut scores = vec![0.0; 4];
        l.add_to_scores(&t, &mut scores);
        assert_eq!(scores, vec![1.0, 1.0, -1.0, -1.0]);
        // With lambda_l2 = 2 and learning rate 0.5: left = -0.5 * (-2) / (2 + 2) = 0.25.
        let data = BinnedData::from_rows(&[1.0, 2.0, 3.0, 4.0], 1, 255, 1).unwrap();
        let c = TreeConfig { lambda_l2: 2.0, learning_rate: 0.5, ..cfg(2, 1) };
        let t = TreeLearner::new(data, c).unwrap().grow(&[-1.0, -1.0, 1.0, 1.0], &[1.0; 4], &mut Rng::new(0));
        assert_eq!(t.unwrap().leaf_value, vec![0.25, -0.25]);
    }

    /// min_data_in_leaf = 3 on 4 documents: no split leaves 3 on each side, so the tree is
    /// one leaf, -G/H = -(-1 -1 + 1 + 3)/4 = -0.5.
    #[test]
    fn min_data_in_leaf_blocks_splits() {
        let data = BinnedData::from_rows(&[1.0, 2.0, 3.0, 4.0], 1, 255, 1).unwrap();
        let mut l = TreeLearner::new(data, cfg(8, 3)).unwrap();
        let t = l.grow(&[-1.0, -1.0, 1.0, 3.0], &[1.0; 4], &mut Rng::new(0)).unwrap();
        assert_eq!(t.n_leaves(), 1);
        assert_eq!(t.leaf_value, vec![-0.5]);
    }

    /// min_sum_hessian_in_leaf = 1.5 with hessians 1, 1, 1, 1: the x <= 1.5 and x <= 3.5
    /// splits leave a hessian of 1 on one side; only x <= 2.5 remains.
    #[test]
    fn min_sum_hessian_blocks_splits() {
        let data = BinnedData::from_rows(&[1.0, 2.0, 3.0, 4.0], 1, 255, 1).unwrap();
        let c = TreeConfig { min_sum_hessian_in_leaf: 1.5, ..cfg(2, 1) };
        let mut l = TreeLearner::new(data, c).unwrap();
        let t = l.grow(&[-5.0, 1.0, 1.0, 3.0], &[1.0; 4], &mut Rng::new(0)).unwrap();
        assert_eq!(t.threshold, vec![2.5]);
    }

    fn random_problem(n: usize, nf: usize, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let mut r = Rng::new(seed);
        let x: Vec<f32> = (0..n * nf).map(|_| r.index(12) as f32 * 0.25).collect();
        let g: Vec<f32> = (0..n).map(|_| (r.normal() as f32 * 1024.0).round() / 1024.0).collect();
        let h: Vec<f32> =
            (0..n).map(|_| (0.25 + r.uniform() as f32 * 1024.0).round() / 1024.0 + 0.25).collect();
        (x, g, h)
    }

    /// A brute-force best-first learner on raw values (no bins, no histograms): the
    /// partition of the training rows it produces must be the histogram learner's.
    fn reference(x: &[f32], nf: usize, g: &[f32], h: &[f32], c: &TreeConfig) -> Vec<f64> {
        let n = g.len();
        let score = |rows: &[usize]| {
            let (sg, sh) =
                rows.iter().fold((0.0, 0.0), |a, &r| (a.0 + f64::from(g[r]), a.1 + f64::from(h[r])));
            (sg, sh)
        };
        let best_split = |rows: &[usize]| -> Option<(f64, usize, f32)> {
            let (sg, sh) = score(rows);
            if rows.len() < 2 * c.min_data_in_leaf {
                return None;
            }
            let parent = sg * sg / (sh + c.lambda_l2);
            let mut best: Option<(f64, usize, f32)> = None;
            for f in 0..nf {
                let mut vals: Vec<f32> = rows.iter().map(|&r| x[r * nf + f]).collect();
                vals.sort_by(f32::total_cmp);
                vals.dedup();
                for &t in &vals[..vals.len().saturating_sub(1)] {
                    let left: Vec<usize> = rows.iter().copied().filter(|&r| x[r * nf + f] <= t).collect();
                    let right: Vec<usize> = rows.iter().copied().filter(|&r| x[r * nf + f] > t).collect();
                    if left.len() < c.min_data_in_leaf || right.len() < c.min_data_in_leaf {
                        continue;
                    }
                    let ((lg, lh), (rg, rh)) = (score(&left), score(&right));
                    let gain = lg * lg / (lh + c.lambda_l2) + rg * rg / (rh + c.lambda_l2) - parent;
                    if gain > 1e-9 && best.is_none_or(|b| gain > b.0 + 1e-9) {
                        best = Some((gain, f, t));
                    }
                }
            }
            best
        };
        let mut leaves: Vec<Vec<usize>> = vec![(0..n).collect()];
        let mut splits: Vec<Option<(f64, usize, f32)>> = vec![best_split(&leaves[0])];
        while leaves.len() < c.max_leaves {
            let mut pick: Option<(usize, f64)> = None;
            for (i, s) in splits.iter().enumerate() {
                if let Some((gain, ..)) = s
                    && pick.is_none_or(|p| *gain > p.1 + 1e-9)
                {
                    pick = Some((i, *gain));
                }
            }
            let Some((l, _)) = pick else { break };
            let (_, f, t) = splits[l].unwrap();
            let rows = std::mem::take(&mut leaves[l]);
            let (left, right): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&r| x[r * nf + f] <= t);
            splits[l] = best_split(&left);
            splits.push(best_split(&right));
            leaves[l] = left;
            leaves.push(right);
        }
        let mut out = vec![0.0; n];
        for rows in &leaves {
            let (sg, sh) = score(rows);
            for &r in rows {
                out[r] = -c.learning_rate * sg / (sh + c.lambda_l2);
            }
        }
        out
    }

    #[test]
    fn histogram_learner_matches_brute_force() {
        for seed in 0..6 {
            let (n, nf) = (300, 4);
            let (x, g, h) = random_problem(n, nf, seed);
            let c = TreeConfig { lambda_l2: 0.5, learning_rate: 0.3, ..cfg(12, 7) };
            let want = reference(&x, nf, &g, &h, &c);
            let data = BinnedData::from_rows(&x, nf, 255, 1).unwrap();
            let mut l = TreeLearner::new(data, c).unwrap();
            let t = l.grow(&g, &h, &mut Rng::new(0)).unwrap();
            let mut got = vec![0.0; n];
            l.add_to_scores(&t, &mut got);
            for i in 0..n {
                assert!((got[i] - want[i]).abs() < 1e-9, "seed {seed} row {i}: {} vs {}", got[i], want[i]);
                assert_eq!(got[i], t.predict(&x[i * nf..(i + 1) * nf]));
            }
            assert_eq!(t.n_leaves(), 12);
            t.check(nf).unwrap();
        }
    }

    #[test]
    fn subsampled_trees_score_out_of_sample_rows_like_predict() {
        let (n, nf) = (500, 5);
        let (x, g, h) = random_problem(n, nf, 11);
        let c = TreeConfig { row_subsample: 0.5, feature_subsample: 0.6, ..cfg(8, 5) };
        let data = BinnedData::from_rows(&x, nf, 255, 1).unwrap();
        let mut l = TreeLearner::new(data, c).unwrap();
        let mut rng = Rng::new(3);
        let t = l.grow(&g, &h, &mut rng).unwrap();
        assert_eq!(t.leaf_count.iter().sum::<u32>(), 250);
        let used: std::collections::BTreeSet<u32> = t.split_feature.iter().copied().collect();
        assert!(used.len() <= 3, "{used:?}");
        let mut s = vec![0.0; n];
        l.add_to_scores(&t, &mut s);
        for i in 0..n {
            assert_eq!(s[i], t.predict(&x[i * nf..(i + 1) * nf]));
        }
    }

    #[test]
    fn trees_are_identical_at_any_thread_count() {
        let (n, nf) = (4000, 20);
        let (_, g, h) = random_problem(n, nf, 5);
        // Continuous features: about 255 bins each, so the cells span several feature
        // groups and every split takes the parallel path.
        let mut r = Rng::new(6);
        let x: Vec<f32> = (0..n * nf).map(|_| r.uniform() as f32).collect();
        let grow = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let data = BinnedData::from_rows(&x, nf, 255, 3).unwrap();
                let c = TreeConfig { row_subsample: 0.9, feature_subsample: 0.8, ..TreeConfig::default() };
                let mut l = TreeLearner::new(data, c).unwrap();
                assert!(l.groups.len() >= 4, "{} feature groups", l.groups.len());
                let mut rng = Rng::new(9);
                (0..3).map(|_| l.grow(&g, &h, &mut rng).unwrap()).collect::<Vec<_>>()
            })
        };
        let one = grow(1);
        assert_eq!(one[0].n_leaves(), 31);
        for threads in [2, 3, 4] {
            assert_eq!(one, grow(threads), "{threads} threads");
        }
    }

    #[test]
    fn wrong_lengths_and_non_finite_gradients_are_errors() {
        let data = BinnedData::from_rows(&[1.0, 2.0, 3.0, 4.0], 1, 255, 1).unwrap();
        let mut l = TreeLearner::new(data, cfg(2, 1)).unwrap();
        assert!(l.grow(&[0.0; 3], &[1.0; 4], &mut Rng::new(0)).is_err());
        assert!(l.grow(&[f32::NAN, 0.0, 0.0, 0.0], &[1.0; 4], &mut Rng::new(0)).is_err());
    }
}
