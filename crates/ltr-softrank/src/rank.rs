//! SoftRank's smoothed ranks (Taylor et al., WSDM 2008): Gaussian scores, the
//! pairwise beat probabilities, the rank distributions by the paper's recursion, and
//! SoftNDCG with its exact gradient with respect to the mean scores.
//!
//! Document `j`'s score is `S_j ~ N(s_j, v)` (`v` the score variance, `s_j` the model's
//! output). Document `i` beats `j` with probability
//!
//! ```text
//! pi_ij = P(S_i - S_j > 0) = integral_0^inf N(x | s_i - s_j, 2v) dx = Phi((s_i - s_j) / sqrt(2v))
//! ```
//!
//! and `j`'s rank distribution (0-based ranks) is built by adding the other documents one at a
//! time, each pushing `j` one place down with its beat probability:
//!
//! ```text
//! p_j^(0) = (1, 0, 0, ...)
//! p_j^(t)(r) = p_j^(t-1)(r - 1) pi_ij + p_j^(t-1)(r) (1 - pi_ij)     (i the t-th other document)
//! ```
//!
//! This treats the beats of `j` by different documents as independent (they share `S_j`), the
//! paper's approximation: `p_j` is the distribution of a sum of independent Bernoulli
//! variables with means `pi_ij`. SoftNDCG is the expected NDCG under these distributions,
//!
//! ```text
//! G = 1 / G_max sum_j g_j sum_r D(r) p_j(r),   g_j = 2^y_j - 1,   D(r) = 1 / log2(2 + r)
//! ```
//!
//! with `D(r) = 0` from the truncation `k` on (`k = 0`: the whole list). Ranks at or beyond `k`
//! never influence ranks below it in the recursion, so with a truncation only the first `k`
//! entries of each distribution are computed: `O(k)` per step instead of `O(n)`.
//!
//! The gradient is exact: for each document `j` with a positive gain the recursion is run
//! forwards, keeping every intermediate distribution, then backwards (reverse-mode
//! differentiation of the same recursion), which gives `dG / dpi_ij` for every `i`; and
//! `dpi_ij / ds_i = -dpi_ij / ds_j = N(0 | s_i - s_j, 2v)`. Documents of gain 0 contribute
//! nothing to `G` (their distributions are not computed) but are still pushed down through the
//! other documents' beat probabilities; beats that are certain in double precision shift the
//! discounts instead of entering the recursion ([`SoftNdcg::soft_dcg`]). Per query this costs
//! `O(R n)` beat probabilities and `O(R n min(n, k))` steps of the recursion each way (`R`
//! documents of positive gain among `n`), and `O(n^2 + n min(n, k))` memory.

/// From this many standard deviations apart (`x = |s_i - s_j| / (2 sqrt v) >= 28`) a beat is
/// certain in double precision: `erfc(x)` is exactly 0 there (musl's, and the true value is
/// below the smallest subnormal), and so is `exp(-x^2)`.
const CERTAIN: f64 = 28.0;

/// `1 / (2 sqrt v)`: a score difference times this is `x`, the argument of `erfc` (infinite at
/// variance 0).
fn inverse_spread(variance: f64) -> f64 {
    if variance > 0.0 { 0.5 / variance.sqrt() } else { f64::INFINITY }
}

/// `(pi_ij, exp(-x^2))` at `d = s_i - s_j` (`x = |d| inverse`): `e = erfc(x) / 2` for the
/// trailing document and `1 - e` for the leading one, so `pi_ij + pi_ji = 1` exactly and each
/// pair needs one `erfc`; both exactly 0 or 1 and 0 from `x = 28` on, and `(1/2, 1)` at a tie.
#[inline]
fn beat(d: f64, inverse: f64) -> (f64, f64) {
    if d == 0.0 {
        return (0.5, 1.0);
    }
    let x = d.abs() * inverse;
    let (e, gauss) = if x < CERTAIN { (0.5 * libm::erfc(x), (-(x * x)).exp()) } else { (0.0, 0.0) };
    (if d > 0.0 { 1.0 - e } else { e }, gauss)
}

/// `pi_ij`: the probability that a Gaussian score of mean `si` exceeds an independent one of
/// mean `sj`, both of variance `variance`, `Phi((s_i - s_j) / sqrt(2v))`. At variance 0 (the hard
/// limit) it is 1, 0 or 1/2 (a tie).
pub fn beat_probability(si: f64, sj: f64, variance: f64) -> f64 {
    beat(si - sj, inverse_spread(variance)).0
}

/// One step of the recursion: the distribution `next` after adding a document that beats this
/// one with probability `pi` to the distribution `prev`, whose entries `0..=top` may be non-zero
/// (`next` gets entries `0..=min(top + 1, next.len() - 1)`; mass pushed past the end is cut).
#[inline]
fn add_document(prev: &[f64], top: usize, pi: f64, next: &mut [f64]) {
    let keep = 1.0 - pi;
    let (prev, head) = (&prev[..=top], &mut next[..=top]);
    head[0] = prev[0] * keep;
    for (n, w) in head[1..].iter_mut().zip(prev.windows(2)) {
        *n = w[1] * keep + w[0] * pi;
    }
    if top + 1 < next.len() {
        next[top + 1] = prev[top] * pi;
    }
}

/// The rank distribution of document `j` among documents with mean scores `scores`, by the
/// paper's recursion (the other documents added in index order): `p[r]` for the 0-based ranks
/// `r < p.len()` (ranks beyond are cut off; `p.len() >= scores.len()` gives the whole
/// distribution, zero past the list).
pub fn rank_distribution(scores: &[f64], j: usize, variance: f64, p: &mut [f64]) {
    p.fill(0.0);
    if p.is_empty() {
        return;
    }
    p[0] = 1.0;
    let mut prev = p.to_vec();
    let mut top = 0;
    for (i, &si) in scores.iter().enumerate() {
        if i != j {
            add_document(&prev, top, beat_probability(si, scores[j], variance), p);
            top = (top + 1).min(p.len() - 1);
            prev.copy_from_slice(p);
        }
    }
}

/// SoftNDCG of one query with a fixed truncation and score variance.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftNdcg {
    variance: f64,
    /// `D(r) = 1 / log2(2 + r)` for the 0-based ranks `r < k` (the whole list: as long as the
    /// longest query).
    discount: Vec<f64>,
}

/// Reusable buffers of [`SoftNdcg::soft_dcg`].
#[derive(Debug, Default, Clone)]
pub struct SoftScratch {
    /// `beat[j * n + i] = pi_ij` for `i > j`, the pairs with a document of positive gain
    /// (row `j`; `pi_ij` for `i < j` is `1 - beat[i * n + j]`).
    beat: Vec<f64>,
    /// `N(0 | s_i - s_j, 2v)` of the same pairs, at the same places.
    density: Vec<f64>,
    /// The documents of positive gain.
    relevant: Vec<usize>,
    /// One document's recursion buffers (the serial path).
    doc: DocScratch,
    /// Per task of the parallel path: its documents' results, in document order.
    parts: Vec<Part>,
}

/// The buffers of one document's recursion.
#[derive(Debug, Default, Clone)]
struct DocScratch {
    /// Every intermediate rank distribution of the current document, row `t` after `t` others
    /// (`k` entries each, of which the first `min(t, k - 1) + 1` are in use).
    history: Vec<f64>,
    /// The adjoint of the distribution, one entry longer (a zero past the truncation).
    adjoint: Vec<f64>,
    /// The documents of uncertain beat of the current document: index, `pi_ij`, density.
    others: Vec<(usize, f64, f64)>,
}

/// What a task of the parallel path computed for its documents, applied afterwards in
/// document order: per document `j`, its soft DCG term, `dG/ds_j` and how many of `grads` are
/// its (a document whose places are all taken by certain beaters has no entry).
#[derive(Debug, Default, Clone)]
struct Part {
    docs: Vec<(usize, f64, f64, usize)>,
    /// `(i, dG/ds_i)` in the order the serial path adds them.
    grads: Vec<(usize, f64)>,
    doc: DocScratch,
}

/// Below this many steps of the recursion (`R n min(n, k)`) a query's gradient is computed
/// on one thread: spreading a few microseconds of work costs more than it saves.
const PAR_MIN_STEPS: usize = 32 * 1024;

/// Below this many pairs a query's beat probabilities are computed on one thread.
const PAR_MIN_PAIRS: usize = 2048;

/// Documents of positive gain per task of the parallel path.
const DOCS_PER_TASK: usize = 16;

impl SoftNdcg {
    /// SoftNDCG@`truncation` (0: the whole list) for queries of at most `longest` documents
    /// and Gaussian scores of variance `variance` (`>= 0`).
    pub fn new(variance: f64, truncation: usize, longest: usize) -> Self {
        let k = if truncation == 0 { longest } else { truncation.min(longest) };
        Self { variance, discount: (0..k).map(|r| 1.0 / (2.0 + r as f64).log2()).collect() }
    }

    /// The beat probabilities and their densities of every pair with a document of positive
    /// gain, one `erfc` and one `exp` per pair at most: the pairs `(j, i > j)` row by row
    /// (rows in parallel for a large query: each entry is computed alone, so the values do not
    /// depend on the split), `pi_ij` at `[j n + i]`. Row `j`'s entries left of the diagonal are
    /// read from the column instead (`pi_ij = 1 - pi_ji`, the density symmetric) by
    /// [`SoftNdcg::document`], inside its parallel tasks.
    fn pairs(&self, gains: &[f64], scores: &[f64], s: &mut SoftScratch) {
        // Every entry read later (rows of documents of positive gain) is written here: no
        // clearing.
        let n = scores.len();
        if s.beat.len() < n * n {
            s.beat.resize(n * n, 0.0);
            s.density.resize(n * n, 0.0);
        }
        let inverse = inverse_spread(self.variance);
        let norm =
            if self.variance > 0.0 { 1.0 / (4.0 * std::f64::consts::PI * self.variance).sqrt() } else { 0.0 };
        let upper = |j: usize, row_beat: &mut [f64], row_density: &mut [f64]| {
            let relevant = gains[j] > 0.0;
            for i in j + 1..n {
                if !relevant && gains[i] <= 0.0 {
                    continue;
                }
                // pi_ij, and dpi_ij / ds_i = N(0 | d, 2v) = exp(-x^2) / sqrt(4 pi v).
                let (pi, gauss) = beat(scores[i] - scores[j], inverse);
                row_beat[i] = pi;
                row_density[i] = gauss * norm;
            }
        };
        let (beat, density) = (&mut s.beat[..n * n], &mut s.density[..n * n]);
        if n * n / 2 >= PAR_MIN_PAIRS && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            beat.par_chunks_mut(n)
                .zip(density.par_chunks_mut(n))
                .enumerate()
                .with_min_len(16)
                .for_each(|(j, (b, d))| upper(j, b, d));
        } else {
            for (j, (b, d)) in beat.chunks_mut(n).zip(density.chunks_mut(n)).enumerate() {
                upper(j, b, d);
            }
        }
    }

    /// The soft DCG `sum_j g_j sum_r D(r) p_j(r)` of a query with gains `gains` and mean scores
    /// `scores` (at most the `longest` of [`SoftNdcg::new`]); with `GRAD`, its gradient with
    /// respect to the scores is written into `grad` (one entry per document).
    ///
    /// A document `i` whose beat of `j` is certain (`pi_ij` exactly 0 or 1 with density 0)
    /// makes an exact identity or an exact shift by one place of `j`'s distribution, with no
    /// gradient: such documents are left out of the recursion and the `c` certain beaters of
    /// `j` shift its discounts instead (`D(r + c)`; nothing left when `c >= k`). The result is
    /// the recursion over every document, at a cost that falls as training separates the
    /// scores.
    ///
    /// With `GRAD`, a query of enough work runs its documents' recursions in parallel, each
    /// task keeping its terms and gradient entries, added afterwards in document order: the
    /// same additions in the same order as one thread, so the same bits at any thread count.
    pub fn soft_dcg<const GRAD: bool>(
        &self,
        gains: &[f64],
        scores: &[f64],
        grad: &mut [f64],
        s: &mut SoftScratch,
    ) -> f64 {
        let n = scores.len();
        let k = self.discount.len().min(n);
        if GRAD {
            grad[..n].fill(0.0);
        }
        if k == 0 {
            return 0.0;
        }
        self.pairs(gains, scores, s);
        s.relevant.clear();
        s.relevant.extend((0..n).filter(|&j| gains[j] > 0.0));
        let (beat, density) = (&s.beat[..n * n], &s.density[..n * n]);
        let mut total = 0.0;
        if !GRAD || s.relevant.len() * n * k < PAR_MIN_STEPS || rayon::current_num_threads() == 1 {
            for &j in &s.relevant {
                let term = self.document::<GRAD>(j, gains, beat, density, k, &mut s.doc, |i, g| grad[i] += g);
                if let Some((value, dj)) = term {
                    total += value;
                    if GRAD {
                        grad[j] += dj;
                    }
                }
            }
            return total;
        }
        // The documents' recursions are independent: each task keeps its documents' terms and
        // gradient entries, which are then added in document order, the additions (and their
        // order) of the serial path, so the result does not depend on the split or the threads.
        use rayon::prelude::*;
        let tasks = s.relevant.len().div_ceil(DOCS_PER_TASK);
        if s.parts.len() < tasks {
            s.parts.resize_with(tasks, Part::default);
        }
        s.parts[..tasks].par_iter_mut().zip(s.relevant.par_chunks(DOCS_PER_TASK)).for_each(|(part, docs)| {
            part.docs.clear();
            part.grads.clear();
            for &j in docs {
                let before = part.grads.len();
                let grads = &mut part.grads;
                let term = self
                    .document::<true>(j, gains, beat, density, k, &mut part.doc, |i, g| grads.push((i, g)));
                if let Some((value, dj)) = term {
                    part.docs.push((j, value, dj, part.grads.len() - before));
                }
            }
        });
        for part in &s.parts[..tasks] {
            let mut at = 0;
            for &(j, value, dj, count) in &part.docs {
                total += value;
                for &(i, g) in &part.grads[at..at + count] {
                    grad[i] += g;
                }
                at += count;
                grad[j] += dj;
            }
        }
        total
    }

    /// Document `j`'s term `g_j sum_r D(r) p_j(r)` of the soft DCG and, with `GRAD`, its part
    /// of the gradient: `emit(i, dG/dpi_ij dpi_ij/ds_i)` for each document `i` of uncertain beat
    /// (last added first) and `dG/ds_j` returned with the term. `None` when the certain
    /// beaters of `j` fill every place that counts.
    ///
    /// Certain beats shift the discounts instead of entering the recursion, as
    /// [`SoftNdcg::soft_dcg`] describes.
    #[allow(clippy::too_many_arguments)]
    fn document<const GRAD: bool>(
        &self,
        j: usize,
        gains: &[f64],
        beat: &[f64],
        density: &[f64],
        k: usize,
        s: &mut DocScratch,
        mut emit: impl FnMut(usize, f64),
    ) -> Option<(f64, f64)> {
        let n = gains.len();
        // The documents whose beat of j is uncertain, with their pi_ij and densities, in
        // index order; and the number of certain beaters. Before j they are in j's column of
        // the rows of the documents before it, as `pi_ji = 1 - pi_ij`.
        let before = (0..j).map(|i| (i, 1.0 - beat[i * n + j], density[i * n + j]));
        let after = (j + 1..n).map(|i| (i, beat[j * n + i], density[j * n + i]));
        s.others.clear();
        let mut ahead = 0;
        for (i, pi, d) in before.chain(after) {
            if d == 0.0 && (pi == 0.0 || pi == 1.0) {
                ahead += usize::from(pi == 1.0);
            } else {
                s.others.push((i, pi, d));
            }
        }
        if ahead >= k {
            return None;
        }
        // The places that can still count, and their discounts.
        let kk = k - ahead;
        let discount = &self.discount[ahead..k];
        let rows = if GRAD { s.others.len() + 1 } else { 2 };
        if s.history.len() < rows * kk {
            s.history.resize(rows * kk, 0.0);
        }
        // Forward: row t of the history is the distribution after t uncertain documents
        // (kk entries, of which 0..=min(t, kk - 1) can be non-zero). Without the gradient
        // two rows alternate.
        s.history[0] = 1.0;
        let mut t = 0;
        for &(_, pi, _) in &s.others {
            let (from, to) = if GRAD { (t, t + 1) } else { (t % 2, (t + 1) % 2) };
            let (head, tail) = s.history.split_at_mut(from.max(to) * kk);
            let (prev, next) = if from < to {
                (&head[from * kk..], &mut tail[..kk])
            } else {
                (&tail[..kk], &mut head[to * kk..])
            };
            add_document(prev, t.min(kk - 1), pi, &mut next[..kk]);
            t += 1;
        }
        let last = if GRAD { t } else { t % 2 };
        let p = &s.history[last * kk..last * kk + t.min(kk - 1) + 1];
        let value = gains[j] * p.iter().zip(discount).map(|(p, d)| p * d).sum::<f64>();
        if !GRAD {
            return Some((value, 0.0));
        }
        // Backward: the adjoint of the final distribution is g_j D(r); each step back gives
        // dG/dpi_ij = sum_r prev(r) (a(r + 1) - a(r)) and the adjoint of its input
        // a(r) <- a(r) (1 - pi) + a(r + 1) pi, with a(kk) = 0 (mass pushed past the
        // truncation counts nothing).
        s.adjoint.clear();
        s.adjoint.extend(discount.iter().map(|d| gains[j] * d));
        s.adjoint.push(0.0);
        let mut dj = 0.0;
        for &(i, pi, density) in s.others.iter().rev() {
            t -= 1;
            let len = t.min(kk - 1) + 1;
            let prev = &s.history[t * kk..t * kk + len];
            let a = &mut s.adjoint[..=len];
            let mut dpi = 0.0;
            for r in 0..len {
                let (ar, next) = (a[r], a[r + 1]);
                dpi += prev[r] * (next - ar);
                a[r] = ar * (1.0 - pi) + next * pi;
            }
            let g = dpi * density;
            emit(i, g);
            dj -= g;
        }
        Some((value, dj))
    }
}
