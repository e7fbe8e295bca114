//! BoltzRank's per-query objective on sampled rankings: the expected NDCG under the
//! Boltzmann distribution of the model's scores, estimated from rankings drawn from that
//! distribution, and the divergence from the target distribution of the grades, estimated
//! from rankings drawn from the target.

use std::sync::{Mutex, PoisonError};

use ltr_core::{Dataset, Grade, QueryView, Rng};
use ltr_neural::QueryObjective;

use crate::sampler::{Sweeps, energy, mode, position_coefficients, sample};

/// The objective's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectiveSettings {
    /// `alpha` of the energy's `g(x) = alpha x`.
    pub alpha: f64,
    /// Weight of the divergence term.
    pub kl_weight: f64,
    /// Rankings drawn per query, epoch and distribution.
    pub samples: usize,
    /// `k` of the NDCG@k whose expectation is maximised; 0 = the whole list.
    pub ndcg_truncation: usize,
}

/// `C_q = -E_P[NDCG] + lambda KL(Q || P)` for one query, with `P(pi) ~ exp(-E[pi | s])` the
/// Boltzmann distribution of the scores and `Q(pi) ~ exp(-E[pi | y])` that of the grades.
///
/// Every epoch ([`QueryObjective::begin_epoch`]) draws `N` rankings `pi_k` from the model's
/// distribution at the scores the query had when it was last trained on (`s'`; all 0 before
/// its first gradient), and `N` rankings `rho_k` from `Q`, each by a Metropolis chain that
/// goes on from epoch to epoch. The estimates, with self-normalised importance weights for
/// the scores having moved since the draw,
///
/// ```text
/// E_P[NDCG] ~ sum_k w_k NDCG(pi_k),     w_k ~ exp(E[pi_k | s'] - E[pi_k | s])
/// KL(Q || P) ~ (1/N) sum_k (E[rho_k | s] - E[rho_k | y]) + log((1/N) sum_k exp(E[rho_k | y] - E[rho_k | s]))
/// ```
///
/// (`Z_s / Z_y = E_Q[exp(E_y - E_s)]`), are exact functions of `s` for fixed draws. With
/// `kappa_j(pi)` the coefficient of `s_j` in `E[pi | s]` and `u_k` the normalised
/// `exp(E[rho_k | y] - E[rho_k | s])`, their gradient is
/// `dC/ds_j = sum_k kappa_j(pi_k) w_k (NDCG_k - sum_l w_l NDCG_l) + lambda sum_k kappa_j(rho_k) (1/N - u_k)`.
#[derive(Debug)]
pub struct BoltzObjective {
    settings: ObjectiveSettings,
    labels: Vec<Grade>,
    /// The grades as scores, the target distribution's.
    targets: Vec<f64>,
    /// Each document's gain `2^y - 1`.
    doc_gain: Vec<f64>,
    /// `log2(r + 2)` for the 0-based positions of the longest query: the NDCG of every drawn
    /// ranking divides by these, so they are computed once, not per ranking.
    log2_rank: Vec<f64>,
    offsets: Vec<usize>,
    /// `1 / ideal DCG@k` per query (0 without a relevant document).
    inv_ideal: Vec<f64>,
    /// Rankings drawn from the model's distribution, with their NDCG.
    model: Draws,
    /// Rankings drawn from the grades' distribution.
    target: Draws,
    /// Whether the rankings were drawn (by `begin_epoch`).
    drawn: bool,
    /// The scores each document had at its query's last gradient (one writer per query).
    last_scores: Mutex<Vec<f64>>,
}

/// One epoch's rankings drawn from one distribution per query.
#[derive(Debug, Default)]
struct Draws {
    /// Query `q`'s `N` rankings of `m_q` documents from `N * offsets[q]`, each as the
    /// documents at positions `0..m_q`.
    perms: Vec<u32>,
    /// The energy of each ranking under the distribution it was drawn from (`N` per query,
    /// from `N * q`).
    energy: Vec<f64>,
    /// `NDCG@k` of each ranking (of the model's draws only: the estimates weigh the target's
    /// rankings by their energies alone).
    gain: Vec<f64>,
    /// Every query's chain state, carried from epoch to epoch (empty before the first draw).
    chains: Vec<u32>,
}

/// Per-worker buffers: position coefficients and per-sample weights.
#[derive(Debug, Default)]
pub struct Scratch {
    kappa: Vec<f64>,
    weight: Vec<f64>,
}

/// DCG of `gains` in their order, each divided by its entry of `log2_rank` (`log2(r + 2)` for
/// the 0-based position `r`, as many as the cut-off `k` allows).
fn dcg(gains: impl Iterator<Item = f64>, log2_rank: &[f64]) -> f64 {
    gains.zip(log2_rank).map(|(g, l)| g / l).sum()
}

/// The gain `2^y - 1` of grade `y`.
fn gain(y: Grade) -> f64 {
    f64::from(y).exp2() - 1.0
}

/// `log sum_k exp(v_k)` without overflow.
fn log_sum_exp(v: &[f64]) -> f64 {
    let high = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !high.is_finite() {
        return high;
    }
    high + v.iter().map(|x| (x - high).exp()).sum::<f64>().ln()
}

impl BoltzObjective {
    /// The objective on `data`'s queries. The rankings are drawn by
    /// [`QueryObjective::begin_epoch`]; before it, every query's cost and gradient are 0.
    pub fn new(data: &Dataset, settings: ObjectiveSettings) -> Self {
        let longest = data.queries().map(|q| q.len()).max().unwrap_or(0);
        let log2_rank: Vec<f64> = (0..longest).map(|r| ((r + 2) as f64).log2()).collect();
        let inv_ideal = data
            .queries()
            .map(|q| {
                let mut sorted = q.labels.to_vec();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let k = truncation(settings.ndcg_truncation, q.len()).min(q.len());
                let ideal = dcg(sorted.into_iter().map(gain), &log2_rank[..k]);
                if ideal > 0.0 { 1.0 / ideal } else { 0.0 }
            })
            .collect();
        Self {
            settings,
            labels: data.labels().to_vec(),
            targets: data.labels().iter().map(|&y| f64::from(y)).collect(),
            doc_gain: data.labels().iter().map(|&y| gain(y)).collect(),
            log2_rank,
            offsets: data.query_offsets().to_vec(),
            inv_ideal,
            model: Draws::default(),
            target: Draws::default(),
            drawn: false,
            last_scores: Mutex::new(vec![0.0; data.n_docs()]),
        }
    }

    /// Whether query `q` (its grades) takes part: two grades at least, hence a relevant
    /// document and a ranking to prefer.
    fn active(&self, q: usize) -> bool {
        let labels = &self.labels[self.offsets[q]..self.offsets[q + 1]];
        ltr_neural::has_two_grades(labels) && self.inv_ideal[q] > 0.0
    }

    /// The rankings of query `q` drawn for the current epoch from the model's distribution
    /// (`model = true`) or the grades' (`N` of `m_q` documents each, concatenated; empty
    /// before the first epoch).
    pub fn rankings(&self, q: usize, model: bool) -> &[u32] {
        if !self.drawn {
            return &[];
        }
        let n = self.settings.samples;
        let draws = if model { &self.model } else { &self.target };
        &draws.perms[n * self.offsets[q]..n * self.offsets[q + 1]]
    }

    /// Draws `N` rankings of every active query from `P(pi) ~ exp(-E[pi | scores])` into
    /// `draws` with their energies and, `with_gain`, their NDCG; inactive queries get the
    /// identity.
    fn draw(&self, draws: &mut Draws, scores: &[f64], with_gain: bool, rng: &mut Rng) {
        let n = self.settings.samples;
        let first = draws.chains.is_empty();
        if first {
            draws.chains = vec![0; self.labels.len()];
        }
        draws.perms.clear();
        draws.energy.clear();
        draws.gain.clear();
        let mut kappa = Vec::new();
        for (q, w) in self.offsets.windows(2).enumerate() {
            let (m, s) = (w[1] - w[0], &scores[w[0]..w[1]]);
            let start = draws.perms.len();
            if self.active(q) {
                let chain = &mut draws.chains[w[0]..w[1]];
                if first {
                    chain.copy_from_slice(&mode(s, rng));
                }
                position_coefficients(m, self.settings.alpha, &mut kappa);
                let sweeps = if first { Sweeps::FIRST } else { Sweeps::NEXT };
                sample(chain, s, &kappa, n, sweeps, rng, &mut draws.perms);
            } else {
                for _ in 0..n {
                    draws.perms.extend(0..m as u32);
                }
            }
            let ndcg = with_gain.then(|| self.ndcg_of(q));
            record(draws, start, m, s, self.settings, ndcg, &mut kappa);
        }
    }

    /// Query `q`'s documents' gains, the position divisors up to its cut-off, and its
    /// `1 / ideal DCG@k`: what the NDCG of one of its rankings needs.
    fn ndcg_of(&self, q: usize) -> Ndcg<'_> {
        let (from, to) = (self.offsets[q], self.offsets[q + 1]);
        let k = truncation(self.settings.ndcg_truncation, to - from).min(to - from);
        Ndcg {
            doc_gain: &self.doc_gain[from..to],
            log2_rank: &self.log2_rank[..k],
            inv_ideal: self.inv_ideal[q],
        }
    }

    /// Sets the rankings instead of drawing them (`N` per query and distribution, each the
    /// documents at positions `0..m_q`, queries in order; the model's drawn at
    /// `model_scores`), for tests.
    #[cfg(test)]
    pub(crate) fn set_rankings(&mut self, model: &[u32], target: &[u32], model_scores: &[f64]) {
        let n = self.settings.samples;
        assert_eq!((model.len(), target.len()), (n * self.labels.len(), n * self.labels.len()));
        let mut kappa = Vec::new();
        for (with_gain, perms, scores) in [(true, model, model_scores), (false, target, &self.targets[..])] {
            let mut draws = Draws { perms: perms.to_vec(), ..Draws::default() };
            for (q, w) in self.offsets.windows(2).enumerate() {
                let ndcg = with_gain.then(|| self.ndcg_of(q));
                record(
                    &mut draws,
                    n * w[0],
                    w[1] - w[0],
                    &scores[w[0]..w[1]],
                    self.settings,
                    ndcg,
                    &mut kappa,
                );
            }
            if with_gain {
                self.model = draws;
            } else {
                self.target = draws;
            }
        }
        self.drawn = true;
    }

    /// Fills `scratch.weight` with the normalised importance weights
    /// `exp(E_draw - E[pi | s])` of query `q`'s rankings from `draws` (and `scratch.kappa`
    /// with the position coefficients); returns the mean of `E[pi | s] - E_draw` and the log
    /// of the mean of `exp(E_draw - E[pi | s])`.
    fn weights(&self, draws: &Draws, q: QueryView<'_>, scores: &[f64], scratch: &mut Scratch) -> (f64, f64) {
        let (n, m) = (self.settings.samples, q.len());
        position_coefficients(m, self.settings.alpha, &mut scratch.kappa);
        let perms = &draws.perms[n * self.offsets[q.index]..n * self.offsets[q.index + 1]];
        let drawn_at = &draws.energy[n * q.index..n * (q.index + 1)];
        scratch.weight.clear();
        let mut mean_diff = 0.0;
        for (perm, &e_draw) in perms.chunks_exact(m).zip(drawn_at) {
            let diff = energy(perm, scores, &scratch.kappa) - e_draw;
            mean_diff += diff;
            scratch.weight.push(-diff);
        }
        let lse = log_sum_exp(&scratch.weight);
        for w in &mut scratch.weight {
            *w = (*w - lse).exp();
        }
        (mean_diff / n as f64, lse - (n as f64).ln())
    }

    /// The expected NDCG estimate of query `q` at `scores` (weights left in `scratch`).
    fn expected_gain(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut Scratch) -> f64 {
        let n = self.settings.samples;
        self.weights(&self.model, q, scores, scratch);
        let gains = &self.model.gain[n * q.index..n * (q.index + 1)];
        scratch.weight.iter().zip(gains).map(|(w, g)| w * g).sum()
    }
}

/// What the NDCG@k of a ranking of one query needs.
struct Ndcg<'a> {
    /// The documents' gains `2^y - 1`.
    doc_gain: &'a [f64],
    /// `log2(r + 2)` for the positions `r < k`.
    log2_rank: &'a [f64],
    /// `1 / ideal DCG@k`.
    inv_ideal: f64,
}

/// Appends the energy under `scores` of each of one query's `N` rankings of `m` documents
/// stored in `draws.perms` from `from` (`scores` the query's), and with `ndcg` their NDCG@k.
fn record(
    draws: &mut Draws,
    from: usize,
    m: usize,
    scores: &[f64],
    settings: ObjectiveSettings,
    ndcg: Option<Ndcg<'_>>,
    kappa: &mut Vec<f64>,
) {
    position_coefficients(m, settings.alpha, kappa);
    for perm in draws.perms[from..from + settings.samples * m].chunks_exact(m) {
        draws.energy.push(energy(perm, scores, kappa));
        if let Some(g) = &ndcg {
            draws.gain.push(dcg(perm.iter().map(|&d| g.doc_gain[d as usize]), g.log2_rank) * g.inv_ideal);
        }
    }
}

/// `k` of NDCG@k for a list of `m` (0: the whole list).
fn truncation(k: usize, m: usize) -> usize {
    if k == 0 { m } else { k }
}

impl QueryObjective for BoltzObjective {
    type Scratch = Scratch;

    fn is_active(&self, q: QueryView<'_>) -> bool {
        self.active(q.index)
    }

    /// Draws the epoch's rankings: from the model's distribution at each query's last
    /// scores, and from the grades' distribution (the grades as scores).
    fn begin_epoch(&mut self, rng: &mut Rng) {
        let last = std::mem::take(&mut *self.last_scores.lock().unwrap_or_else(PoisonError::into_inner));
        let (mut model, mut target) = (std::mem::take(&mut self.model), std::mem::take(&mut self.target));
        self.draw(&mut model, &last, true, rng);
        self.draw(&mut target, &self.targets, false, rng);
        (self.model, self.target) = (model, target);
        *self.last_scores.lock().unwrap_or_else(PoisonError::into_inner) = last;
        self.drawn = true;
    }

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], scratch: &mut Scratch) {
        self.last_scores.lock().unwrap_or_else(PoisonError::into_inner)[q.range()].copy_from_slice(scores);
        grad.fill(0.0);
        if !self.drawn {
            return;
        }
        let (n, m) = (self.settings.samples, q.len());
        let expected = self.expected_gain(q, scores, scratch);
        let gains = &self.model.gain[n * q.index..n * (q.index + 1)];
        for ((perm, &w), &g) in self.rankings(q.index, true).chunks_exact(m).zip(&scratch.weight).zip(gains) {
            let omega = w * (g - expected);
            for (&d, &k) in perm.iter().zip(&scratch.kappa) {
                grad[d as usize] += omega * k;
            }
        }
        let lambda = self.settings.kl_weight;
        if lambda > 0.0 {
            self.weights(&self.target, q, scores, scratch);
            for (perm, &u) in self.rankings(q.index, false).chunks_exact(m).zip(&scratch.weight) {
                let omega = lambda * (1.0 / n as f64 - u);
                for (&d, &k) in perm.iter().zip(&scratch.kappa) {
                    grad[d as usize] += omega * k;
                }
            }
        }
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], scratch: &mut Scratch) -> f64 {
        if !self.drawn {
            return 0.0;
        }
        let expected = self.expected_gain(q, scores, scratch);
        let lambda = self.settings.kl_weight;
        if lambda > 0.0 {
            let (mean_diff, log_mean) = self.weights(&self.target, q, scores, scratch);
            -expected + lambda * (mean_diff + log_mean)
        } else {
            -expected
        }
    }
}
