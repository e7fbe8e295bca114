//! The Boltzmann distribution over the permutations of one query's documents and its
//! Metropolis sampler.
//!
//! The energy of a ranking `pi` (position `r = 1..m` holds document `pi(r)`) given scores `s`
//! is BoltzRank's
//!
//! ```text
//! E[pi | s] = 2 / (m (m - 1)) sum_{u < v} g(v - u) (s_pi(v) - s_pi(u)),   g(x) = alpha x
//! ```
//!
//! positive when lower-placed documents outscore higher-placed ones. With the linear `g` it
//! collapses to one coefficient per position: the document at position `r` contributes
//! `kappa(r) s`, `kappa(r) = alpha (2 r - m - 1) / (m - 1)` (its `r - 1` pairs as the lower
//! document add `sum_{u < r} (r - u)`, its `m - r` pairs as the upper one subtract
//! `sum_{v > r} (v - r)`; the difference is `m (2 r - m - 1) / 2`). So the energy is linear in
//! the scores, `dE/ds_j = kappa(r_j)`, and `P(pi | s) = exp(-E[pi | s]) / Z` puts the most
//! mass on the ranking by decreasing score.

use ltr_core::Rng;

/// `kappa[r]` for the 0-based positions `r = 0..m` of a list of `m >= 2` documents (written
/// into `out`): `alpha (2 r - m + 1) / (m - 1)`, the 1-based `alpha (2 r - m - 1) / (m - 1)`.
/// One document has the coefficient 0 (there is no pair).
pub fn position_coefficients(m: usize, alpha: f64, out: &mut Vec<f64>) {
    out.clear();
    if m < 2 {
        out.resize(m, 0.0);
        return;
    }
    let scale = alpha / (m - 1) as f64;
    out.extend((0..m).map(|r| scale * (2.0 * r as f64 - m as f64 + 1.0)));
}

/// `E[pi | s]` from the coefficients: `sum_r kappa[r] s[pi[r]]`.
pub fn energy(perm: &[u32], scores: &[f64], kappa: &[f64]) -> f64 {
    perm.iter().zip(kappa).map(|(&d, &k)| k * scores[d as usize]).sum()
}

/// How long the chain runs, in sweeps of `m` proposals for a list of `m` documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sweeps {
    /// Sweeps before the first sample.
    pub burn_in: usize,
    /// Sweeps between two samples.
    pub thin: usize,
}

impl Sweeps {
    /// Training's first draws of a query: 10 sweeps of burn-in from the most probable ranking,
    /// then one sweep between samples.
    pub const FIRST: Self = Self { burn_in: 10, thin: 1 };
    /// Training's later draws: the chain goes on from where the previous epoch left it.
    pub const NEXT: Self = Self { burn_in: 1, thin: 1 };
}

/// The most probable ranking of `scores`: decreasing score, ties in an order drawn from
/// `rng` (a shuffle, then a stable sort).
pub fn mode(scores: &[f64], rng: &mut Rng) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..scores.len() as u32).collect();
    rng.shuffle(&mut perm);
    perm.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
    perm
}

/// Draws of two independent uniform indices in `0..m` (`0 < m < 2^32`) from one 64-bit draw:
/// each half by Lemire's multiply-and-reject on 32 bits, a half that falls in the rejected zone
/// drawn again. Exact, and one ChaCha output per proposal instead of two.
#[derive(Debug, Clone, Copy)]
struct TwoIndices {
    m: usize,
    /// `2^32 mod m`, the rejected zone (a division, so computed once per chain, not per step).
    threshold: u64,
}

impl TwoIndices {
    fn new(m: usize) -> Self {
        Self { m, threshold: (1u64 << 32) % (m as u64).max(1) }
    }

    #[inline(always)]
    fn draw(self, rng: &mut Rng) -> (usize, usize) {
        let n = self.m as u64;
        let pick = |r: u64| {
            let x = (r & 0xffff_ffff) * n;
            ((x & 0xffff_ffff) >= self.threshold).then_some((x >> 32) as usize)
        };
        let r = rng.next_u64();
        let u = match pick(r) {
            Some(u) => u,
            None => rng.index(self.m),
        };
        let v = match pick(r >> 32) {
            Some(v) => v,
            None => rng.index(self.m),
        };
        (u, v)
    }
}

/// One Metropolis step of [`sample`].
#[inline(always)]
fn step(perm: &mut [u32], scores: &[f64], kappa: &[f64], indices: TwoIndices, rng: &mut Rng) {
    let (u, v) = indices.draw(rng);
    if u == v {
        return;
    }
    let de = (kappa[v] - kappa[u]) * (scores[perm[u] as usize] - scores[perm[v] as usize]);
    if de <= 0.0 || rng.uniform() < (-de).exp() {
        perm.swap(u, v);
    }
}

/// Runs the Metropolis chain from the ranking `perm` (the documents at positions `0..m`):
/// `sweeps.burn_in * m` steps, then `n` samples `sweeps.thin * m` steps apart (the first
/// right after the burn-in), each appended to `out` (`m` entries). Every step draws two
/// positions `u`, `v` independently and uniformly and proposes to swap their documents (no
/// move when `u == v`, which makes the chain aperiodic), accepted with probability
/// `min(1, exp(-dE))`, `dE = (kappa[v] - kappa[u]) (s_a - s_b)` for document `a` at `u` and
/// `b` at `v`. Transpositions connect every permutation and the proposal is symmetric, so the
/// chain's stationary distribution is `P(pi | s) ~ exp(-sum_r kappa[r] s[pi[r]])`. `perm` is
/// left at the chain's last state.
pub fn sample(
    perm: &mut [u32],
    scores: &[f64],
    kappa: &[f64],
    n: usize,
    sweeps: Sweeps,
    rng: &mut Rng,
    out: &mut Vec<u32>,
) {
    let m = perm.len();
    let indices = TwoIndices::new(m);
    for _ in 0..sweeps.burn_in * m {
        step(perm, scores, kappa, indices, rng);
    }
    for k in 0..n {
        if k > 0 {
            for _ in 0..sweeps.thin * m {
                step(perm, scores, kappa, indices, rng);
            }
        }
        out.extend_from_slice(perm);
    }
}
