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
//!   pairs with both documents above. `both` is found for every cut of a feature by one sweep
//!   of its documents in descending order of interval, keeping per query and level pair the
//!   sums of the documents already swept: a document of level `k` entering adds
//!   `c_q (sum_{b < k} u_x^(b) B'_kb + sum_{a > k} v_x^(a) A'_ak)`.
//!
//! A round costs O(n L) for the potentials and O(d n L) for the sweeps (`L` the levels of a
//! query, at most 5 on LETOR and MSLR), parallel over features. The sweep order of a query's
//! documents is made again each round, one list per interval threaded through them
//! (O(n_q + T)), rather than stored for every feature and document (4 bytes each: 396 MB at
//! the MSLR-WEB10K shape, as much again as the feature matrix); it costs about a third more
//! time per sweep.

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
}

/// A document in no pair.
const NO_LEVEL: u8 = u8::MAX;

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

    /// `S2` of every cut of feature `f`: the (normalised) weight of the pairs with exactly one
    /// document above the cut, `P(cut) - 2 both(cut)` with `P` the edge of `rho`, both summed
    /// by interval in one sweep of the documents above the lowest cut.
    pub(crate) fn separated(&self, cuts: &Cuts, f: usize) -> Vec<f64> {
        let k = cuts.cuts(f).len();
        if k == 0 {
            return Vec::new();
        }
        cuts.visit(f, Sweep { loss: self, k })
    }

    /// [`MagnitudeLoss::separated`] on a feature of `k` cuts, its intervals `bins`.
    fn sweep<I: Interval>(&self, bins: &[I], k: usize) -> Vec<f64> {
        // Per slot of the current query, the sums of the documents already swept.
        let (mut a_seen, mut b_seen) = (Vec::new(), Vec::new());
        // By interval t: `rho` of its documents, and the weight of the pairs whose lower
        // document (in interval) is in t.
        let mut rho = vec![0.0; k + 1];
        let mut both = vec![0.0; k + 1];
        let (mut head, mut next, mut order) = (Vec::new(), Vec::new(), Vec::new());
        for q in &self.queries {
            let n_slots = q.levels * (q.levels - 1) / 2;
            a_seen.clear();
            a_seen.resize(n_slots, 0.0);
            b_seen.clear();
            b_seen.resize(n_slots, 0.0);
            // Enters document `i` into the sweep: its pairs with the documents swept before
            // it, added to `both` (returned, and `rho` of the document) of its interval.
            let mut enter = |i: usize| -> (f64, f64) {
                let level = usize::from(self.level[i]);
                let factors = &self.factors[q.factors_of(i)..q.factors_of(i) + q.levels - 1];
                let mut mine = 0.0;
                for (b, &u) in factors[..level].iter().enumerate() {
                    let s = slot(level, b);
                    mine += u * b_seen[s];
                    a_seen[s] += u;
                }
                for (a, &v) in factors[level..].iter().enumerate().map(|(j, v)| (level + 1 + j, v)) {
                    let s = slot(a, level);
                    mine += v * a_seen[s];
                    b_seen[s] += v;
                }
                (self.rho[i], q.scale * mine)
            };
            // The sweep order: documents in a pair and above the lowest cut (below it a
            // document is in no `both`), interval descending, file order on ties.
            let bucket = |i: usize| if self.level[i] == NO_LEVEL { 0 } else { bins[i].index() };
            let start = q.docs.start;
            if k > 4 * q.docs.len() + 64 || q.docs.len() >= u32::MAX as usize {
                // Far more intervals than documents (every value a cut): a comparison sort.
                order.clear();
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
            // One list per interval, threaded through the documents in file order (built
            // backwards), walked from the highest interval down.
            head.clear();
            head.resize(k + 1, u32::MAX);
            next.resize(q.docs.len(), u32::MAX);
            for i in q.docs.clone().rev() {
                let t = bucket(i);
                next[i - start] = head[t];
                head[t] = (i - start) as u32;
            }
            for t in (1..=k).rev() {
                // The interval's sums stay in registers while its documents enter: the same
                // additions in the same order as one at a time in memory.
                let (mut rho_t, mut both_t) = (rho[t], both[t]);
                let mut j = head[t];
                while j != u32::MAX {
                    let (r, b) = enter(start + j as usize);
                    rho_t += r;
                    both_t += b;
                    j = next[j as usize];
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

    /// The per-round sweep order (interval lists, or a sort when every value is a cut) gives
    /// `S2` bit for bit as the stored order did, with documents in no pair left out.
    #[test]
    fn separated_equals_the_stored_order_sweep_bit_for_bit() {
        let data = ltr_testkit::random_graded_dataset(11, 12, 3, 2..60, 4, 0.3, 2);
        let scores: Vec<f64> = data.rows().map(|r| f64::from(r[0]) - 0.5 * f64::from(r[1])).collect();
        for (thresholds, spacing) in [(10, ThresholdSpacing::Uniform), (0, ThresholdSpacing::Uniform)] {
            let cuts = Cuts::new(&data, thresholds, spacing, "test").unwrap();
            // Documents of grade 3 are in no pair of this set.
            let labels = data.labels();
            let pairs = PairSet::from_keys(&data, PairWeighting::Pairs, |i| {
                (labels[i] != 3).then(|| f64::from(labels[i]))
            });
            let mut loss = MagnitudeLoss::new(&data, pairs, crate::Ddf::Linear).unwrap();
            let mut out = vec![0.0; data.n_docs()];
            loss.update(&scores, &mut out);
            for f in 0..3 {
                let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
                assert_eq!(
                    bits(loss.separated(&cuts, f)),
                    bits(from_stored_order(&loss, &cuts, f)),
                    "T {thresholds}"
                );
            }
        }
    }
}
