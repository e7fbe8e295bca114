//! MPBoost's loss on the pair loop: pair weights, potentials and the weight of the pairs each
//! cut separates, without enumerating pairs.
//!
//! Within a query, a pair of levels `a > b` (grades `y_a > y_b`) has the target
//! `d_ab = dist(y_a, y_b)`, and its pair `(i, j)` the weight
//! `w_ij = c_q exp(-d_ab (F_i - F_j)) = c_q u_i^(b) v_j^(a)` with
//! `u_i^(b) = exp(-d_ab (F_i - m))` and `v_j^(a) = exp(d_ab (F_j - m))` (`m` the query's
//! mid-range score, which cancels). With the per-level-pair sums `A_ab = sum_{i in a} u_i^(b)`
//! and `B_ab = sum_{j in b} v_j^(a)`:
//!
//! * the total weight is `W = sum_q c_q sum_{a > b} A_ab B_ab` (every weight below is divided
//!   by it, so the pair weights are a distribution);
//! * `S1(h) = sum w d (h_i - h_j) = sum_x h(x) pi(x)` with
//!   `pi(x) = c_q (sum_{b < k} d_kb u_x^(b) B_kb - sum_{a > k} d_ak v_x^(a) A_ak)` for `x` of
//!   level `k`: the shared loop's edge;
//! * `S2(h) = sum w (h_i - h_j)^2`, for a cut: the weight of the pairs with exactly one
//!   document above it, `sum_{x above} rho(x) - 2 both(cut)`, where `rho(x)` is the weight of
//!   the pairs of `x` (the same sums without `d`, an edge too) and `both` the weight of the
//!   pairs with both documents above: `c_q sum_{a > b} A^{>cut}_ab B^{>cut}_ab`, the sums over
//!   the query's documents above the cut. With few cuts ([`BUCKET_CUTS`]) one pass over a
//!   query's documents adds each one's factors to its interval, and the cuts are read from the
//!   top interval down; with more, `both` is found by one sweep of the documents in descending
//!   order of interval, keeping per query and level pair the sums of the documents already
//!   swept: a document of level `k` entering adds
//!   `c_q (sum_{b < k} u_x^(b) B'_kb + sum_{a > k} v_x^(a) A'_ak)`.
//!
//! A round costs O(n L) for the potentials and O(d (n L + Q T L^2)) for the per-interval sums
//! (`L` the levels of a query, at most 5 on LETOR and MSLR; `Q` queries, `T` cuts), parallel
//! over features; the same pass sums the edges `S1`. The sweep order of the many-cut case is
//! made again each round by a counting sort (O(n_q + T)), rather than stored for every feature
//! and document (4 bytes each: 396 MB at the MSLR-WEB10K shape, as much again as the feature
//! matrix).

use std::cmp::Reverse;

use ltr_boosting::{Cuts, Interval, IntervalVisitor, PairSet};
use ltr_core::{Dataset, Result};

use crate::{Ddf, no_pairs};

/// MPBoost's magnitude-preserving exponential pair loss and its round state.
#[derive(Debug, Clone)]
pub struct MagnitudeLoss {
    pairs: PairSet,
    /// The queries with a pair.
    queries: Vec<QueryLayout>,
    /// Per level-pair slot (`a (a - 1) / 2 + b` within its query, `a > b`), the target `d_ab`.
    targets: Vec<f64>,
    /// Per document of `queries` (at `QueryLayout::factors`, `levels - 1` each) and other
    /// level `l` of its query: `u^(l)` for `l` below its level, `v^(l)` above (module docs).
    factors: Vec<f64>,
    /// Per slot, the query's full sums `A_ab` and `B_ab`.
    a_sum: Vec<f64>,
    b_sum: Vec<f64>,
    /// Per document, the weight of its pairs.
    rho: Vec<f64>,
    /// Per document, its level ([`NO_LEVEL`]: in no pair).
    level: Vec<u8>,
    /// Features of at most this many cuts are summed per interval, others swept
    /// ([`BUCKET_CUTS`]; tests set 0 to sweep every feature).
    bucket_cuts: usize,
}

/// A document in no pair.
const NO_LEVEL: u8 = u8::MAX;

/// Most cuts of a feature whose separated weights are summed per interval
/// ([`MagnitudeLoss::bucketed`]: `O(cuts x level pairs)` per query on top of the pass over its
/// documents) rather than by a sweep in interval order.
const BUCKET_CUTS: usize = 64;

/// Where one query's parts lie.
#[derive(Debug, Clone)]
struct QueryLayout {
    /// Its index in the data set.
    index: usize,
    /// Its documents.
    docs: std::ops::Range<usize>,
    /// Its number of levels.
    levels: usize,
    /// Its first slot.
    slots: usize,
    /// Its first factor.
    factors: usize,
    /// `c_q / W` under the last scores.
    scale: f64,
}

impl QueryLayout {
    /// The first factor of document `i` of the query.
    fn factors_of(&self, i: usize) -> usize {
        self.factors + (i - self.docs.start) * (self.levels - 1)
    }
}

/// The slot of level pair `(a, b)`, `a > b`, within its query.
fn slot(a: usize, b: usize) -> usize {
    a * (a - 1) / 2 + b
}

/// The factor position of other level `l` for a document of level `k`.
fn position(k: usize, l: usize) -> usize {
    if l < k { l } else { l - 1 }
}

impl MagnitudeLoss {
    /// The loss on the pairs of `pairs` (the training grades), with the pair target `ddf` of
    /// the grade difference. Errors when no query has a pair.
    pub fn new(data: &Dataset, pairs: PairSet, ddf: Ddf) -> Result<Self> {
        if pairs.is_empty() {
            return Err(no_pairs());
        }
        // Levels index the per-query slots and factors in small integers.
        if (0..data.n_queries()).any(|q| pairs.keys(q).len() >= usize::from(NO_LEVEL)) {
            return Err(ltr_core::Error::fit(
                crate::INFO.id,
                "a training query has more than 254 distinct grades",
            ));
        }
        let level = (0..data.n_docs()).map(|i| pairs.level(i).map_or(NO_LEVEL, |l| l as u8)).collect();
        let mut queries = Vec::new();
        let mut targets = Vec::new();
        let mut factors = 0;
        for q in data.queries() {
            if pairs.query_weight(q.index) == 0.0 {
                continue;
            }
            let keys = pairs.keys(q.index);
            let slots = targets.len();
            for a in 1..keys.len() {
                for b in 0..a {
                    targets.push(ddf.of(keys[a] - keys[b]));
                }
            }
            queries.push(QueryLayout {
                index: q.index,
                docs: q.range(),
                levels: keys.len(),
                slots,
                factors,
                scale: 0.0,
            });
            factors += q.len() * (keys.len() - 1);
        }
        let slots = targets.len();
        Ok(Self {
            queries,
            targets,
            factors: vec![0.0; factors],
            a_sum: vec![0.0; slots],
            b_sum: vec![0.0; slots],
            rho: vec![0.0; data.n_docs()],
            level,
            pairs,
            bucket_cuts: BUCKET_CUTS,
        })
    }

    /// The pair set (levels and initial weights).
    pub fn pairs(&self) -> &PairSet {
        &self.pairs
    }

    /// Every document's pair weight `rho(x)` under the last scores (normalised).
    pub fn pair_weights(&self) -> &[f64] {
        &self.rho
    }

    /// Recomputes the factors and sums from `scores`, writes the potentials `pi / W` into
    /// `out` and keeps `rho / W`. When the total weight is not a positive finite number (the
    /// scores diverged) every potential is 0, which ends training.
    pub(crate) fn update(&mut self, scores: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.rho.fill(0.0);
        self.a_sum.fill(0.0);
        self.b_sum.fill(0.0);
        let mut total = 0.0;
        for q in &mut self.queries {
            let c = self.pairs.query_weight(q.index);
            let s = &scores[q.docs.clone()];
            let (lo, hi) =
                s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
            let mid = 0.5 * (lo + hi);
            for i in q.docs.clone() {
                let Some(k) = self.pairs.level(i) else { continue };
                let at = q.factors_of(i);
                let x = scores[i] - mid;
                for l in (0..q.levels).filter(|&l| l != k) {
                    let (a, b) = if l < k { (k, l) } else { (l, k) };
                    let s = q.slots + slot(a, b);
                    let d = self.targets[s];
                    if l < k {
                        let u = (-d * x).exp();
                        self.factors[at + position(k, l)] = u;
                        self.a_sum[s] += u;
                    } else {
                        let v = (d * x).exp();
                        self.factors[at + position(k, l)] = v;
                        self.b_sum[s] += v;
                    }
                }
            }
            let slots = q.slots..q.slots + q.levels * (q.levels - 1) / 2;
            let wq: f64 = self.a_sum[slots.clone()].iter().zip(&self.b_sum[slots]).map(|(a, b)| a * b).sum();
            total += c * wq;
            for i in q.docs.clone() {
                let Some(k) = self.pairs.level(i) else { continue };
                let at = q.factors_of(i);
                let (mut pi, mut rho) = (0.0, 0.0);
                for l in (0..q.levels).filter(|&l| l != k) {
                    let factor = self.factors[at + position(k, l)];
                    if l < k {
                        let s = q.slots + slot(k, l);
                        let w = factor * self.b_sum[s];
                        pi += self.targets[s] * w;
                        rho += w;
                    } else {
                        let s = q.slots + slot(l, k);
                        let w = factor * self.a_sum[s];
                        pi -= self.targets[s] * w;
                        rho += w;
                    }
                }
                out[i] = c * pi;
                self.rho[i] = c * rho;
            }
            q.scale = c;
        }
        if !(total > 0.0 && total.is_finite()) {
            log::warn!("mpboost: the pair weights are no longer finite; training stops");
            out.fill(0.0);
            self.rho.fill(0.0);
            return;
        }
        for (p, r) in out.iter_mut().zip(self.rho.iter_mut()) {
            *p /= total;
            *r /= total;
        }
        for q in &mut self.queries {
            q.scale /= total;
        }
    }

    /// `S1` and `S2` of every cut of feature `f`: the edge of `potentials` (the documents
    /// above the cut) and the (normalised) weight of the pairs with exactly one document
    /// above it, `P(cut) - 2 both(cut)` with `P` the edge of `rho`. With few cuts both come
    /// from one pass over the feature's documents ([`MagnitudeLoss::bucketed`]); otherwise
    /// `S2` from a sweep in interval order and `S1` from [`Cuts::edges`].
    pub(crate) fn edges_and_separated(
        &self,
        cuts: &Cuts,
        f: usize,
        potentials: &[f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let k = cuts.cuts(f).len();
        if k == 0 {
            return (Vec::new(), Vec::new());
        }
        if k <= self.bucket_cuts {
            return cuts.visit(f, Bucketed { loss: self, k, potentials });
        }
        let mut edges = Vec::new();
        cuts.edges(f, potentials, &mut Vec::new(), &mut edges);
        (edges, cuts.visit(f, Sweep { loss: self, k }))
    }

    /// The same loss summing every feature's separated weights by a sweep in interval order,
    /// as before the per-interval sums (the tests' reference).
    #[cfg(test)]
    pub(crate) fn sweeping(mut self) -> Self {
        self.bucket_cuts = 0;
        self
    }

    /// [`MagnitudeLoss::edges_and_separated`] on a feature of few cuts (at most
    /// [`BUCKET_CUTS`]), its intervals `bins`, without a sweep order: per query, the sums `A_ab` and `B_ab` of the
    /// documents of each interval, one pass in file order; then for each cut `j`, from the
    /// top, the sums above it `A^{>j}`, `B^{>j}` and the weight of the pairs with both
    /// documents above it, `c_q sum_ab A^{>j}_ab B^{>j}_ab`. The same weights as the sweep's,
    /// summed per query as products of sums rather than document by document (equal to
    /// rounding); `rho` by interval is summed in the sweep's order, bit for bit.
    fn bucketed<I: Interval>(&self, bins: &[I], k: usize, potentials: &[f64]) -> (Vec<f64>, Vec<f64>) {
        debug_assert!(k <= BUCKET_CUTS);
        let mut rho = vec![0.0; k + 1];
        let mut pi = vec![0.0; k + 1];
        let mut both_above = vec![0.0; k];
        // Per interval, per level of the current query and factor position `p` of that
        // level, the sum of the factors of its documents: `A` of slot (level, p) below the
        // level, `B` of slot (p + 1, level) above it. All zero between queries: only the
        // intervals a query fills are cleared after it.
        let (mut sums, mut above) = (Vec::new(), Vec::new());
        // Per slot (a, b) of the current query, in slot order, where `A_ab` and `B_ab` are.
        let mut slots: Vec<(u32, u32)> = Vec::new();
        for q in &self.queries {
            let width = q.levels - 1;
            let stride = q.levels * width;
            slots.clear();
            for a in 1..q.levels {
                for b in 0..a {
                    slots.push(((a * width + b) as u32, (b * width + a - 1) as u32));
                }
            }
            if sums.len() < (k + 1) * stride {
                sums.resize((k + 1) * stride, 0.0);
            }
            let docs = q.docs.clone();
            let rows = DocRows {
                bins: &bins[docs.clone()],
                levels: &self.level[docs.clone()],
                rho: &self.rho[docs.clone()],
                potentials: &potentials[docs.clone()],
                factors: &self.factors[q.factors..q.factors + docs.len() * width],
            };
            // The common widths as constants, so that the adds unroll.
            let filled = match width {
                1 => rows.scatter(&mut sums, &mut rho, &mut pi, 1),
                2 => rows.scatter(&mut sums, &mut rho, &mut pi, 2),
                3 => rows.scatter(&mut sums, &mut rho, &mut pi, 3),
                4 => rows.scatter(&mut sums, &mut rho, &mut pi, 4),
                _ => rows.scatter(&mut sums, &mut rho, &mut pi, width),
            };
            above.clear();
            above.resize(stride, 0.0);
            // Above the highest filled interval no pair has both documents (nothing is
            // added); an empty interval leaves the sums above the cut, and so `both`, as they
            // were.
            let mut both: Option<f64> = None;
            for j in (0..k).rev() {
                let t = j + 1;
                if filled >> t & 1 == 1 {
                    let row = &mut sums[t * stride..(t + 1) * stride];
                    for (a, s) in above.iter_mut().zip(row.iter_mut()) {
                        *a += *s;
                        *s = 0.0;
                    }
                    both = Some(slots.iter().map(|&(a, b)| above[a as usize] * above[b as usize]).sum());
                }
                if let Some(both) = both {
                    both_above[j] += q.scale * both;
                }
            }
        }
        let (mut edges, mut out) = (vec![0.0; k], vec![0.0; k]);
        let (mut above_pi, mut above_rho) = (0.0, 0.0);
        for j in (0..k).rev() {
            above_pi += pi[j + 1];
            above_rho += rho[j + 1];
            edges[j] = above_pi;
            out[j] = above_rho - 2.0 * both_above[j];
        }
        (edges, out)
    }

    /// `S2` of [`MagnitudeLoss::edges_and_separated`] on a feature of `k` cuts, its intervals
    /// `bins`, by a sweep of each query's documents in descending order of interval.
    fn sweep<I: Interval>(&self, bins: &[I], k: usize) -> Vec<f64> {
        // Per slot of the current query, the sums of the documents already swept: `A'` in the
        // first `n_slots`, `B'` in the next.
        let mut seen = Vec::new();
        // Per level `k` of the current query and other level `p` (its factor position), the
        // sum a document of level `k` reads with its factor `p` and the one it adds it to
        // (`links`), so that entering a document is one loop of `levels - 1` steps whatever
        // its level, with no branch on it.
        let mut links: Vec<(u32, u32)> = Vec::new();
        // By interval t: `rho` of its documents, and the weight of the pairs whose lower
        // document (in interval) is in t.
        let mut rho = vec![0.0; k + 1];
        let mut both = vec![0.0; k + 1];
        let (mut starts, mut fill, mut order) = (Vec::new(), Vec::new(), Vec::<usize>::new());
        for q in &self.queries {
            let n_slots = q.levels * (q.levels - 1) / 2;
            seen.clear();
            seen.resize(2 * n_slots, 0.0);
            links.clear();
            for level in 0..q.levels {
                for p in 0..q.levels - 1 {
                    // Below its level: the document is `a` of slot (level, p), reads `B'`,
                    // adds to `A'`; above: `b` of slot (p + 1, level), the other way round.
                    let (read, write) = if p < level {
                        let s = slot(level, p);
                        (n_slots + s, s)
                    } else {
                        let s = slot(p + 1, level);
                        (s, n_slots + s)
                    };
                    links.push((read as u32, write as u32));
                }
            }
            let width = q.levels - 1;
            // Enters document `i` into the sweep: its pairs with the documents swept before
            // it, added to `both` (returned, and `rho` of the document) of its interval.
            let mut enter = |i: usize| -> (f64, f64) {
                let level = usize::from(self.level[i]);
                let at = q.factors_of(i);
                let mine = enter_document(
                    &mut seen,
                    &self.factors[at..at + width],
                    &links[level * width..(level + 1) * width],
                );
                (self.rho[i], q.scale * mine)
            };
            // The sweep order: documents in a pair and above the lowest cut (below it a
            // document is in no `both`), interval descending, file order on ties.
            let bucket = |i: usize| if self.level[i] == NO_LEVEL { 0 } else { bins[i].index() };
            order.clear();
            if k > 4 * q.docs.len() + 64 {
                // Far more intervals than documents (every value a cut): a comparison sort.
                order.extend(q.docs.clone().filter(|&i| bucket(i) > 0));
                order.sort_unstable_by_key(|&i| (Reverse(bins[i].index()), i));
                for &i in &order {
                    let t = bins[i].index();
                    let (r, b) = enter(i);
                    rho[t] += r;
                    both[t] += b;
                }
                continue;
            }
            // A counting sort by interval (stable: file order within one), walked from the
            // highest interval down.
            starts.clear();
            starts.resize(k + 2, 0usize);
            for i in q.docs.clone() {
                starts[bucket(i) + 1] += 1;
            }
            for t in 1..=k + 1 {
                starts[t] += starts[t - 1];
            }
            let skipped = starts[1];
            order.resize(q.docs.len() - skipped, 0);
            fill.clear();
            fill.extend_from_slice(&starts);
            for i in q.docs.clone() {
                let t = bucket(i);
                if t > 0 {
                    order[fill[t] - skipped] = i;
                    fill[t] += 1;
                }
            }
            for t in (1..=k).rev() {
                // The interval's sums stay in registers while its documents enter: the same
                // additions in the same order as one at a time in memory.
                let (mut rho_t, mut both_t) = (rho[t], both[t]);
                for &i in &order[starts[t] - skipped..starts[t + 1] - skipped] {
                    let (r, b) = enter(i);
                    rho_t += r;
                    both_t += b;
                }
                (rho[t], both[t]) = (rho_t, both_t);
            }
        }
        let mut out = vec![0.0; k];
        let (mut above, mut acc) = (0.0, 0.0);
        for j in (0..k).rev() {
            above += rho[j + 1];
            acc += both[j + 1];
            out[j] = above - 2.0 * acc;
        }
        out
    }
}

/// One query's documents as [`MagnitudeLoss::bucketed`] reads them.
struct DocRows<'a, I> {
    bins: &'a [I],
    levels: &'a [u8],
    rho: &'a [f64],
    potentials: &'a [f64],
    /// `levels - 1` factors per document.
    factors: &'a [f64],
}

impl<I: Interval> DocRows<'_, I> {
    /// Adds the factors of every document above the lowest cut to the sums of its interval
    /// and level (`levels * width` per interval), and its `rho` and potential to `rho` and
    /// `pi` of its interval (a document in no pair has potential 0); `width` factors per
    /// document. Returns the intervals it added to, one bit each (at most 64). Always inlined,
    /// so that a call with a constant width unrolls the adds.
    #[inline(always)]
    fn scatter(&self, sums: &mut [f64], rho: &mut [f64], pi: &mut [f64], width: usize) -> u128 {
        let stride = (width + 1) * width;
        let mut filled = 0u128;
        let docs = self.bins.iter().zip(self.levels).zip(self.rho.iter().zip(self.potentials));
        for (((&bin, &level), (&r, &p)), factors) in docs.zip(self.factors.chunks_exact(width)) {
            let t = bin.index();
            if t == 0 || level == NO_LEVEL {
                // Below the lowest cut a document is above no cut.
                continue;
            }
            rho[t] += r;
            pi[t] += p;
            filled |= 1 << t;
            let at = t * stride + usize::from(level) * width;
            for (s, &f) in sums[at..at + width].iter_mut().zip(factors) {
                *s += f;
            }
        }
        filled
    }
}

/// One document entering the sweep: `sum_p factors[p] seen[read_p]` (its pairs with the
/// documents swept before it), adding each factor to `seen[write_p]`, in factor order.
#[inline(always)]
fn enter_document(seen: &mut [f64], factors: &[f64], links: &[(u32, u32)]) -> f64 {
    let mut mine = 0.0;
    for (&f, &(read, write)) in factors.iter().zip(links) {
        mine += f * seen[read as usize];
        seen[write as usize] += f;
    }
    mine
}

/// [`MagnitudeLoss::bucketed`] at the type a feature's intervals are stored in.
struct Bucketed<'a> {
    loss: &'a MagnitudeLoss,
    k: usize,
    potentials: &'a [f64],
}

impl IntervalVisitor for Bucketed<'_> {
    type Output = (Vec<f64>, Vec<f64>);
    fn visit<I: Interval>(self, bins: &[I]) -> (Vec<f64>, Vec<f64>) {
        self.loss.bucketed(bins, self.k, self.potentials)
    }
}

/// [`MagnitudeLoss::sweep`] at the type a feature's intervals are stored in.
struct Sweep<'a> {
    loss: &'a MagnitudeLoss,
    k: usize,
}

impl IntervalVisitor for Sweep<'_> {
    type Output = Vec<f64>;
    fn visit<I: Interval>(self, bins: &[I]) -> Vec<f64> {
        self.loss.sweep(bins, self.k)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_boosting::{PairWeighting, ThresholdSpacing};

    /// `separated` as it was computed from a stored sweep order (every document in a pair,
    /// sorted by interval descending, stably, per query), stopping at interval 0.
    fn from_stored_order(l: &MagnitudeLoss, cuts: &Cuts, f: usize) -> Vec<f64> {
        let k = cuts.cuts(f).len();
        let (mut rho, mut both) = (vec![0.0; k + 1], vec![0.0; k + 1]);
        for q in &l.queries {
            let mut docs: Vec<usize> = q.docs.clone().filter(|&i| l.level[i] != NO_LEVEL).collect();
            docs.sort_by_key(|&i| Reverse(cuts.interval(f, i)));
            let n_slots = q.levels * (q.levels - 1) / 2;
            let (mut a_seen, mut b_seen) = (vec![0.0; n_slots], vec![0.0; n_slots]);
            for i in docs {
                let t = cuts.interval(f, i);
                if t == 0 {
                    break;
                }
                let level = usize::from(l.level[i]);
                let factors = &l.factors[q.factors_of(i)..q.factors_of(i) + q.levels - 1];
                let mut mine = 0.0;
                for (b, &u) in factors[..level].iter().enumerate() {
                    mine += u * b_seen[slot(level, b)];
                    a_seen[slot(level, b)] += u;
                }
                for (a, &v) in factors[level..].iter().enumerate().map(|(j, v)| (level + 1 + j, v)) {
                    mine += v * a_seen[slot(a, level)];
                    b_seen[slot(a, level)] += v;
                }
                rho[t] += l.rho[i];
                both[t] += q.scale * mine;
            }
        }
        let mut out = vec![0.0; k];
        let (mut above, mut acc) = (0.0, 0.0);
        for j in (0..k).rev() {
            above += rho[j + 1];
            acc += both[j + 1];
            out[j] = above - 2.0 * acc;
        }
        out
    }

    /// The per-round sweep order (counting sort by interval, or a comparison sort when every
    /// value is a cut) gives `S2` bit for bit as the stored order did, and the per-interval
    /// sums (at most [`BUCKET_CUTS`] cuts) give it to rounding, with documents in no pair
    /// left out and every number of levels from two to five.
    #[test]
    fn separated_equals_the_stored_order_sweep() {
        let data = ltr_testkit::random_graded_dataset(11, 12, 3, 2..60, 4, 0.3, 2);
        let scores: Vec<f64> = data.rows().map(|r| f64::from(r[0]) - 0.5 * f64::from(r[1])).collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (thresholds, spacing) in [
            (10, ThresholdSpacing::Uniform),
            (3, ThresholdSpacing::Quantile),
            (65, ThresholdSpacing::Quantile),
            (0, ThresholdSpacing::Uniform),
        ] {
            let cuts = Cuts::new(&data, thresholds, spacing, "test").unwrap();
            // Documents of grade 3 are in no pair of this set.
            let labels = data.labels();
            let pairs = PairSet::from_keys(&data, PairWeighting::Pairs, |i| {
                (labels[i] != 3).then(|| f64::from(labels[i]))
            });
            let mut loss = MagnitudeLoss::new(&data, pairs, crate::Ddf::Linear).unwrap();
            let mut out = vec![0.0; data.n_docs()];
            loss.update(&scores, &mut out);
            let swept = loss.clone().sweeping();
            for f in 0..3 {
                let want = from_stored_order(&loss, &cuts, f);
                let mut want_edges = Vec::new();
                cuts.edges(f, &out, &mut Vec::new(), &mut want_edges);
                let (swept_edges, swept_s2) = swept.edges_and_separated(&cuts, f, &out);
                assert_eq!(bits(&swept_s2), bits(&want), "T {thresholds}");
                assert_eq!(bits(&swept_edges), bits(&want_edges), "T {thresholds}");
                let (edges, got) = loss.edges_and_separated(&cuts, f, &out);
                if cuts.cuts(f).len() > BUCKET_CUTS {
                    assert_eq!(bits(&got), bits(&want), "T {thresholds}");
                    assert_eq!(bits(&edges), bits(&want_edges), "T {thresholds}");
                }
                // The pair weights are a distribution: absolute differences are relative.
                for (g, w) in got.iter().zip(&want).chain(edges.iter().zip(&want_edges)) {
                    assert!((g - w).abs() <= 1e-15, "T {thresholds} feature {f}: {g} vs {w}");
                }
            }
        }
    }

    /// Trained with the per-interval sums and with the sweep, 60 rounds choose the same cuts
    /// and end at the same training loss `sum_q c_q sum exp(-d (F_i - F_j))` to 1e-9.
    #[test]
    fn per_interval_sums_train_like_the_sweep() {
        use ltr_boosting::PairBooster;
        let data = ltr_testkit::random_graded_dataset(5, 40, 6, 2..80, 5, 0.3, 2);
        let fit = |sweep: bool| {
            let cuts = Cuts::new(&data, 10, ThresholdSpacing::Uniform, "test").unwrap();
            let pairs =
                PairSet::from_keys(&data, PairWeighting::Queries, |i| Some(f64::from(data.labels()[i])));
            let loss = MagnitudeLoss::new(&data, pairs, crate::Ddf::Linear).unwrap();
            let loss = if sweep { loss.sweeping() } else { loss };
            let mut b = PairBooster::new(&data, cuts, loss);
            let picks: Vec<(usize, usize)> =
                std::iter::from_fn(|| b.step()).take(60).map(|r| (r.weak.feature, r.cut)).collect();
            let f = b.scores();
            let mut objective = 0.0;
            for q in data.queries() {
                let (mut sum, mut n) = (0.0, 0usize);
                for i in q.range() {
                    for j in q.range().filter(|&j| data.labels()[i] > data.labels()[j]) {
                        let d = f64::from(data.labels()[i] - data.labels()[j]);
                        sum += (-d * (f[i] - f[j])).exp();
                        n += 1;
                    }
                }
                if n > 0 {
                    objective += sum / n as f64;
                }
            }
            (picks, objective)
        };
        let (picks, objective) = fit(false);
        let (want_picks, want) = fit(true);
        assert_eq!(picks.len(), 60);
        assert_eq!(picks, want_picks);
        assert!((objective - want).abs() <= 1e-9 * want, "{objective} vs {want}");
    }
}
