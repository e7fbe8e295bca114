//! Permutations of one query: the measure `E` of a permutation, the paper's `F(q, d, pi)`, and
//! the permutations PermuRank adds to its working sets, the best perfect one
//! (`argmax_{pi in Pi*} F`) and the best imperfect one (`argmax_{pi not in Pi*} F`).
//!
//! `F(pi) = 1/(n(n-1)) sum_{k<l} z_kl (f_k - f_l)` (`z_kl = +1` when `pi` ranks document `k`
//! above `l`, else `-1`; `f = w.x`) is linear in `w`: `F(pi) = w.Psi(pi)` with
//! `Psi(pi) = sum_k c_k x_k`, `c_k = (#below k - #above k) / (n(n-1)) = (n - 1 - 2 pos_k) / (n(n-1))`.
//! Between two permutations, `F` differs by `2/(n(n-1))` times the score differences of the
//! pairs they order differently, so `argmax F` keeps the score order as far as the constraint
//! allows:
//!
//! * imperfect: the score order itself when it is imperfect (ties broken towards the lower
//!   grade, the lowest `E` among the maximisers); otherwise the cheapest single move of one
//!   document that makes it imperfect (MAP: swapping the last relevant and the first
//!   non-relevant document);
//! * perfect: the ideal arrangement of the positions `E` sees (MAP: every relevant document;
//!   NDCG@k: the top `k`) with each grade's documents taken in score order, the documents of a
//!   run of equal discounts (ranks 1 and 2 of the LETOR scripts) in score order, and every
//!   other document after them in score order.
//!
//! The tests compare both with a search over every permutation.

use ltr_core::Grade;
use ltr_metrics::{EvalConfig, Metric};

/// The measure `E` of a query's permutations: a metric under a convention.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measure {
    pub(crate) metric: Metric,
    pub(crate) cfg: EvalConfig,
    /// ERR's top grade (unused by MAP and NDCG, passed through).
    pub(crate) max_grade: Grade,
}

/// Reusable buffers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    keyed: Vec<(f64, Grade, u32)>,
    ranked: Vec<Grade>,
    ideal: Vec<Grade>,
    tail: Vec<u32>,
}

impl Measure {
    /// `E` of the permutation `order` (document indices, best first) of `grades`.
    pub(crate) fn of(&self, order: &[u32], grades: &[Grade], s: &mut Scratch) -> f64 {
        s.ranked.clear();
        s.ranked.extend(order.iter().map(|&k| grades[k as usize]));
        self.metric.ranked_value(&s.ranked, &self.cfg, self.max_grade, &mut s.ideal)
    }

    /// The largest `E` over the permutations of `grades` (that of the grade order), and whether
    /// some permutation has a smaller one (otherwise `E` is constant and the query adds
    /// nothing to the bound).
    pub(crate) fn range(&self, grades: &[Grade], s: &mut Scratch) -> (f64, bool) {
        let n = grades.len() as u32;
        let mut order: Vec<u32> = (0..n).collect();
        order.sort_by(|&a, &b| grades[b as usize].cmp(&grades[a as usize]).then(a.cmp(&b)));
        let best = self.of(&order, grades, s);
        order.reverse();
        let worst = self.of(&order, grades, s);
        (best, worst < best)
    }

    /// The positions `E` sees: MAP every relevant document's, NDCG@k the first `k`.
    fn window(&self, grades: &[Grade]) -> usize {
        match self.metric {
            Metric::Ndcg(k) => k.min(grades.len()),
            _ => grades.iter().filter(|&&g| self.cfg.is_relevant(g)).count(),
        }
    }

    /// The discount of 0-based position `r` inside the window.
    fn discount(&self, r: usize) -> f64 {
        self.cfg.discount(r + 1)
    }
}

/// `argmax F` over the perfect permutations at scores `z`, into `order`.
pub(crate) fn best_perfect(z: &[f64], grades: &[Grade], m: &Measure, s: &mut Scratch, order: &mut Vec<u32>) {
    let n = z.len();
    let class = |g: Grade| if let Metric::Ndcg(_) = m.metric { g } else { Grade::from(m.cfg.is_relevant(g)) };
    s.keyed.clear();
    s.keyed.extend((0..n as u32).map(|k| (z[k as usize], class(grades[k as usize]), k)));
    // Best class first, each class in score order.
    s.keyed.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.total_cmp(&a.0)).then(a.2.cmp(&b.2)));
    let w = m.window(grades);
    order.clear();
    order.extend(s.keyed[..w].iter().map(|x| x.2));
    // Runs of equal discount inside the window hold their documents in any order: score order.
    if let Metric::Ndcg(_) = m.metric {
        let mut r = 0;
        while r < w {
            let mut e = r + 1;
            while e < w && m.discount(e) == m.discount(r) {
                e += 1;
            }
            order[r..e].sort_by(|&a, &b| z[b as usize].total_cmp(&z[a as usize]).then(a.cmp(&b)));
            r = e;
        }
    }
    s.tail.clear();
    s.tail.extend(s.keyed[w..].iter().map(|x| x.2));
    s.tail.sort_by(|&a, &b| z[b as usize].total_cmp(&z[a as usize]).then(a.cmp(&b)));
    order.extend_from_slice(&s.tail);
}

/// `argmax F` over the imperfect permutations at scores `z` (`e_max` the largest `E`), into
/// `order`; returns its `E`. The query must have an imperfect permutation.
pub(crate) fn best_imperfect(
    z: &[f64],
    grades: &[Grade],
    m: &Measure,
    e_max: f64,
    s: &mut Scratch,
    order: &mut Vec<u32>,
) -> f64 {
    let n = z.len();
    // Score order, ties towards the lower grade (the lowest E among F's maximisers).
    order.clear();
    order.extend(0..n as u32);
    order.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        z[b].total_cmp(&z[a]).then(grades[a].cmp(&grades[b])).then(a.cmp(&b))
    });
    let e = m.of(order, grades, s);
    if e < e_max {
        return e;
    }
    // Perfect: the cheapest single move that makes it imperfect. Moving the document at q up
    // to p < q costs sum_{r=p}^{q-1} (z_r - z_q) (times 2/(n(n-1))), moving the one at p down
    // to q the same with z_p; both grow with q, so for each p the first imperfect q is the
    // cheapest.
    let zs: Vec<f64> = order.iter().map(|&k| z[k as usize]).collect();
    let gs: Vec<Grade> = order.iter().map(|&k| grades[k as usize]).collect();
    let (mut best, mut best_cost) = ((0, 0, true), f64::INFINITY);
    let mut consider = |p: usize, q: usize, up: bool, cost: f64| {
        if cost < best_cost {
            (best, best_cost) = ((p, q, up), cost);
        }
    };
    if let Metric::Ndcg(_) = m.metric {
        let w = m.window(grades);
        let d = |r: usize| if r < w { m.discount(r) } else { 0.0 };
        let gain = |r: usize| m.cfg.gain(gs[r]);
        // The DCG of the perfect order is the ideal one; a move is imperfect when it lowers it.
        let tol = 1e-9 * (0..w).map(|r| gain(r) * d(r)).sum::<f64>();
        for p in 0..w {
            // Up-moves of q to p: the documents p..q-1 each go down one place.
            let (mut shift, mut above) = (0.0, 0.0);
            for q in p + 1..n {
                shift += gain(q - 1) * (d(q) - d(q - 1));
                above += zs[q - 1];
                let cost = above - (q - p) as f64 * zs[q];
                let delta = gain(q) * (d(p) - d(q)) + shift;
                if delta < -tol {
                    consider(p, q, true, cost);
                    break;
                }
            }
            // Down-moves of p to q: the documents p+1..q each go up one place.
            let (mut shift, mut cost) = (0.0, 0.0);
            for q in p + 1..n {
                shift += gain(q) * (d(q - 1) - d(q));
                cost += zs[p] - zs[q];
                let delta = gain(p) * (d(q) - d(p)) + shift;
                if delta < -tol {
                    consider(p, q, false, cost);
                    break;
                }
            }
        }
    } else {
        // Perfect under MAP: the relevant documents come first; the boundary swap is the
        // cheapest inversion of a relevant and a non-relevant document.
        let r = m.window(grades);
        consider(r - 1, r, true, zs[r - 1] - zs[r]);
    }
    let (p, q, up) = best;
    if up {
        let k = order.remove(q);
        order.insert(p, k);
    } else {
        let k = order.remove(p);
        order.insert(q, k);
    }
    m.of(order, grades, s)
}

/// `Psi(order) = sum_k c_k x_k` into `psi` (length `d`), `rows` the query's feature rows.
pub(crate) fn psi(order: &[u32], rows: &[f32], d: usize, psi: &mut [f64]) {
    let n = order.len();
    psi.iter_mut().for_each(|x| *x = 0.0);
    if n < 2 {
        return;
    }
    let norm = 1.0 / (n as f64 * (n - 1) as f64);
    for (pos, &k) in order.iter().enumerate() {
        let c = (n as f64 - 1.0 - 2.0 * pos as f64) * norm;
        if c != 0.0 {
            let row = &rows[k as usize * d..(k as usize + 1) * d];
            for (x, &v) in psi.iter_mut().zip(row) {
                *x += c * f64::from(v);
            }
        }
    }
}
