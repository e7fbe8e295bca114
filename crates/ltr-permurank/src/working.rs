//! PermuRank's working sets and the separation oracle over them.
//!
//! Each informative training query `q` (one whose measure is not constant over its
//! permutations) keeps a set `B_q` of perfect permutations and a set `C_q` of imperfect ones,
//! each stored as its order, its `E` and its `Psi` (`F(pi) = w.Psi(pi)`). The loss of the
//! working sets is the paper's hinge bound restricted to them:
//!
//! ```text
//! L_q(w) = max_{b in B_q, c in C_q} (E(b) - E(c)) [1 - w.(Psi(b) - Psi(c))]_+ .
//! ```
//!
//! Every perfect permutation has the same `E` (the largest), so the best `b` for every `c` is
//! the one with the smallest `w.Psi(b)`, and `L_q` costs `O((|B_q| + |C_q|) d)`. A term is
//! linear in `w`, so the most violated pair is a cutting plane
//! `xi >= (E(b) - E(c)) - (E(b) - E(c)) (Psi(b) - Psi(c)).w` of RankSVM's 1-slack method (and
//! the term 0, the plane `(0, 0)`, when no pair is violated).
//!
//! The oracle runs over a fixed partition of the queries in chunks, in parallel, reduced in
//! chunk order: bit-identical at any thread count.

use ltr_core::{Dataset, Grade};
use ltr_linear::{dot, dot_lanes};
use ltr_ranksvm::{Separation, SeparationOracle};
use rayon::prelude::*;

use crate::perm::{self, Measure, Scratch};

/// Queries per chunk of the fixed partition.
const CHUNK_QUERIES: usize = 32;

/// The stored permutations of one side of one query.
#[derive(Debug, Clone, Default)]
struct PermSet {
    /// Orders, `len` entries each, concatenated.
    orders: Vec<u32>,
    /// `E` of each.
    e: Vec<f64>,
    /// `Psi` of each, `d` entries each, concatenated.
    psi: Vec<f64>,
}

impl PermSet {
    fn len(&self) -> usize {
        self.e.len()
    }

    fn contains(&self, order: &[u32]) -> bool {
        self.orders.chunks_exact(order.len()).any(|o| o == order)
    }

    fn psi(&self, i: usize, d: usize) -> &[f64] {
        &self.psi[i * d..(i + 1) * d]
    }

    /// Stores one permutation. The sets grow by one permutation per round, so the buffers
    /// grow exactly: doubling capacities would leave up to half of every query's `Psi` and
    /// orders unused (about a third of the working sets' memory at web scale).
    fn push(&mut self, order: &[u32], e: f64, psi: &[f64]) {
        self.orders.reserve_exact(order.len());
        self.orders.extend_from_slice(order);
        self.e.reserve_exact(1);
        self.e.push(e);
        self.psi.reserve_exact(psi.len());
        self.psi.extend_from_slice(psi);
    }
}

/// One informative query.
#[derive(Debug, Clone)]
struct Query {
    start: usize,
    len: usize,
    /// The largest `E` (that of every perfect permutation).
    e_max: f64,
    perfect: PermSet,
    imperfect: PermSet,
}

/// The working sets of a training set.
#[derive(Debug)]
pub(crate) struct WorkingSets<'a> {
    data: &'a Dataset,
    measure: Measure,
    queries: Vec<Query>,
    /// Per chunk: its query range and its partial sums `(a, offset, loss)`.
    chunks: Vec<(usize, usize, Vec<f64>, f64, f64)>,
}

impl<'a> WorkingSets<'a> {
    /// Empty working sets for the informative queries of `data`; `None` if there are none.
    pub(crate) fn new(data: &'a Dataset, measure: Measure) -> Option<Self> {
        let mut s = Scratch::default();
        let queries: Vec<Query> = data
            .queries()
            .filter_map(|q| {
                let (e_max, informative) = measure.range(q.labels, &mut s);
                informative.then(|| Query {
                    start: q.start,
                    len: q.len(),
                    e_max,
                    perfect: PermSet::default(),
                    imperfect: PermSet::default(),
                })
            })
            .collect();
        if queries.is_empty() {
            return None;
        }
        let d = data.n_features();
        let chunks = (0..queries.len())
            .step_by(CHUNK_QUERIES)
            .map(|first| (first, (first + CHUNK_QUERIES).min(queries.len()), vec![0.0; d], 0.0, 0.0))
            .collect();
        Some(Self { data, measure, queries, chunks })
    }

    /// Number of informative queries.
    pub(crate) fn n_queries(&self) -> usize {
        self.queries.len()
    }

    /// Total stored perfect and imperfect permutations.
    pub(crate) fn sizes(&self) -> (usize, usize) {
        self.queries.iter().fold((0, 0), |(b, c), q| (b + q.perfect.len(), c + q.imperfect.len()))
    }

    /// Whether every feature of the informative queries is finite.
    pub(crate) fn features_finite(&self) -> bool {
        let d = self.data.n_features();
        let f = self.data.features();
        self.queries.iter().all(|q| f[q.start * d..(q.start + q.len) * d].iter().all(|x| x.is_finite()))
    }

    /// Adds to each query the best perfect and the best imperfect permutation at `w` (the
    /// paper's update of `B` and `C`) when not already there; returns how many were new.
    pub(crate) fn update(&mut self, w: &[f64]) -> usize {
        let (data, measure) = (self.data, self.measure);
        let d = data.n_features();
        let labels = data.labels();
        let added: Vec<usize> = self
            .queries
            .par_chunks_mut(CHUNK_QUERIES)
            .map(|qs| {
                let (mut s, mut order, mut z, mut psi) =
                    (Scratch::default(), Vec::new(), Vec::new(), vec![0.0; d]);
                let mut added = 0;
                for q in qs {
                    let rows = &data.features()[q.start * d..(q.start + q.len) * d];
                    let grades: &[Grade] = &labels[q.start..q.start + q.len];
                    z.clear();
                    z.extend(rows.chunks_exact(d).map(|r| dot_lanes(w, r)));
                    perm::best_perfect(&z, grades, &measure, &mut s, &mut order);
                    if !q.perfect.contains(&order) {
                        perm::psi(&order, rows, d, &mut psi);
                        q.perfect.push(&order, q.e_max, &psi);
                        added += 1;
                    }
                    let e = perm::best_imperfect(&z, grades, &measure, q.e_max, &mut s, &mut order);
                    if !q.imperfect.contains(&order) {
                        perm::psi(&order, rows, d, &mut psi);
                        q.imperfect.push(&order, e, &psi);
                        added += 1;
                    }
                }
                added
            })
            .collect();
        added.iter().sum()
    }

    /// The bound of the working sets at `w`, summed over the queries.
    pub(crate) fn bound(&self, w: &[f64]) -> f64 {
        let d = self.data.n_features();
        self.queries.iter().map(|q| most_violated(q, w, d).map_or(0.0, |(_, _, v)| v)).sum()
    }
}

/// The most violated pair of a query's working sets at `w`: `(b, c, value)` with a positive
/// value, or `None`.
fn most_violated(q: &Query, w: &[f64], d: usize) -> Option<(usize, usize, f64)> {
    let mut b = 0;
    let mut fb = f64::INFINITY;
    for i in 0..q.perfect.len() {
        let f = dot(w, q.perfect.psi(i, d));
        if f < fb {
            (b, fb) = (i, f);
        }
    }
    let mut best: Option<(usize, usize, f64)> = None;
    for c in 0..q.imperfect.len() {
        let v = (q.e_max - q.imperfect.e[c]) * (1.0 - fb + dot(w, q.imperfect.psi(c, d)));
        if v > best.map_or(0.0, |x| x.2) {
            best = Some((b, c, v));
        }
    }
    best
}

impl SeparationOracle for WorkingSets<'_> {
    /// `Q`: at `w = 0` the loss of a query is its largest `E(b) - E(c)`, at most 1, and
    /// `epsilon` is absolute on that scale.
    fn loss_scale(&self) -> f64 {
        self.data.n_queries() as f64
    }

    fn separate(&mut self, w: &[f64], a: &mut [f64]) -> Separation {
        let d = self.data.n_features();
        let queries = &self.queries;
        self.chunks.par_iter_mut().for_each(|(first, end, ca, offset, loss)| {
            ca.iter_mut().for_each(|x| *x = 0.0);
            (*offset, *loss) = (0.0, 0.0);
            for q in &queries[*first..*end] {
                if let Some((b, c, v)) = most_violated(q, w, d) {
                    let de = q.e_max - q.imperfect.e[c];
                    for ((x, &pb), &pc) in ca.iter_mut().zip(q.perfect.psi(b, d)).zip(q.imperfect.psi(c, d)) {
                        *x += de * (pb - pc);
                    }
                    *offset += de;
                    *loss += v;
                }
            }
        });
        a.iter_mut().for_each(|x| *x = 0.0);
        let (mut offset, mut loss) = (0.0, 0.0);
        for (_, _, ca, o, l) in &self.chunks {
            for (x, y) in a.iter_mut().zip(ca) {
                *x += y;
            }
            offset += o;
            loss += l;
        }
        Separation { offset, loss }
    }
}
