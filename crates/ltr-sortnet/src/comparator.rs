//! The comparator network (the paper's CmpNN) and the ranking it induces.
//!
//! One network `g` reads a pair `[x, y]` (the two documents' features side by side, `2 d`
//! inputs). The comparator's two outputs are `N_>(x, y) = sigmoid(g(x, y))` ("`x` ranks
//! above `y`") and `N_<(x, y) = sigmoid(g(y, x))`: the same network on the swapped pair. The
//! hidden units of `g` on `(x, y)` and on `(y, x)` are the paper's dual neurons `h_i` and
//! `h'_i`: the weight from `x_k` to `h_i` is the weight from `y_k` to `h'_i` and the reverse,
//! with equal biases, and the weights into `N_<` are those into `N_>` with `h_i` and `h'_i`
//! exchanged, so `N_<(x, y) = N_>(y, x)` by construction. The preference
//!
//! ```text
//! P(x > y) = (1 + N_>(x, y) - N_<(x, y)) / 2
//! ```
//!
//! is then `1 - P(y > x)`: the difference `N_>(x, y) - N_<(x, y)` is computed by one
//! function from the two evaluations in swapped roles, so swapping the documents negates it
//! exactly.
//!
//! For a query of `m` documents every ordered pair is evaluated with the first layer
//! factorised: its pre-activation on `[x_i, x_j]` is `W_x x_i + W_y x_j + b`, so the two
//! products are computed once per document and each pair costs one addition per hidden unit
//! (the layers above run per pair). A document's score is its expected number of wins,
//! `sum_{j != i} P(x_i > x_j)`, accumulated in fixed point so that the sum is exact and does
//! not depend on the order of the documents.

use ltr_core::{Dataset, Error, Ranker, Result};
use ltr_neural::{NetScratch, Network, NeuralModel};
use serde::{Deserialize, Serialize};

/// `1 / (1 + exp(-z))`.
#[inline]
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// `P(x > y)` from `g(x, y)` and `g(y, x)`: `(1 + N_>(x, y) - N_<(x, y)) / 2`.
#[inline]
pub fn preference(g_xy: f64, g_yx: f64) -> f64 {
    preference_of(sigmoid(g_xy), sigmoid(g_yx))
}

/// `P(x > y)` from the two outputs `N_>(x, y) = sigmoid(g(x, y))` and
/// `N_<(x, y) = sigmoid(g(y, x))`.
#[inline]
pub fn preference_of(n_above: f64, n_below: f64) -> f64 {
    0.5 + 0.5 * (n_above - n_below)
}

/// Units of the fixed-point accumulation of preferences (each in `[0, 1]`).
const FIXED_POINT: f64 = (1u64 << 52) as f64;

/// The comparator: the network `g` over `[x, y]` with its standardisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparator {
    /// `g` and the standardisation of its `2 d` inputs.
    pub net: NeuralModel,
}

/// Reusable buffers of [`Comparator::pair_outputs`].
#[derive(Debug, Default)]
pub struct PairScratch {
    x1: Vec<f64>,
    x2: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    hidden: Vec<f64>,
    net: NetScratch,
}

impl Comparator {
    /// Features per document (half the network's inputs).
    pub fn n_features(&self) -> usize {
        self.net.n_features() / 2
    }

    /// Whether the network reads pairs of documents and its parts agree.
    pub fn is_consistent(&self) -> bool {
        self.net.is_consistent() && self.net.n_features().is_multiple_of(2)
    }

    /// `g(x_i, x_j)` for every ordered pair of the `m` rows of `rows` (row-major, `d` each)
    /// into `out[i * m + j]` (the diagonal too).
    pub fn pair_outputs(&self, rows: &[f32], m: usize, scratch: &mut PairScratch, out: &mut [f64]) {
        let d = self.n_features();
        let net = &self.net.network;
        let (mean, scale) = (&self.net.standardizer.mean, &self.net.standardizer.scale);
        let PairScratch { x1, x2, a, b, hidden, net: net_scratch } = scratch;
        // Each document standardised as the first and as the second of a pair.
        x1.clear();
        x2.clear();
        for row in rows.chunks_exact(d.max(1)).take(m) {
            for (k, &v) in row.iter().enumerate() {
                x1.push((f64::from(v) - mean[k]) * scale[k]);
                x2.push((f64::from(v) - mean[d + k]) * scale[d + k]);
            }
        }
        let width = net.sizes[1];
        let w = &net.params[..2 * d * width];
        // a[i][o] = W_x[o] . x_i, b[j][o] = W_y[o] . x_j (for a linear g, width 1 and the
        // output bias follows the weights).
        a.clear();
        b.clear();
        for i in 0..m {
            let (xi1, xi2) = (&x1[i * d..(i + 1) * d], &x2[i * d..(i + 1) * d]);
            for o in 0..width {
                let wo = &w[o * 2 * d..(o + 1) * 2 * d];
                a.push(dot(&wo[..d], xi1));
                b.push(dot(&wo[d..], xi2));
            }
        }
        let bias = &net.params[2 * d * width..2 * d * width + width];
        if net.sizes.len() == 2 {
            for i in 0..m {
                for j in 0..m {
                    out[i * m + j] = (a[i] + b[j]) + bias[0];
                }
            }
            return;
        }
        let tail = Network {
            sizes: net.sizes[1..].to_vec(),
            activation: net.activation,
            params: net.params[(2 * d + 1) * width..].to_vec(),
        };
        for i in 0..m {
            hidden.clear();
            let ai = &a[i * width..(i + 1) * width];
            for j in 0..m {
                let bj = &b[j * width..(j + 1) * width];
                hidden.extend(
                    ai.iter().zip(bj).zip(bias).map(|((&p, &q), &c)| net.activation.apply((p + q) + c)),
                );
            }
            tail.forward(hidden, m, net_scratch, &mut out[i * m..(i + 1) * m]);
        }
    }

    /// `P(x > y)` for two documents.
    pub fn prefer(&self, x: &[f32], y: &[f32]) -> f64 {
        let mut rows = x.to_vec();
        rows.extend_from_slice(y);
        let mut g = [0.0; 4];
        self.pair_outputs(&rows, 2, &mut PairScratch::default(), &mut g);
        preference(g[1], g[2])
    }

    /// [`Comparator::pair_outputs`] passed through the sigmoid: `N_>(x_i, x_j)` for every
    /// ordered pair into `out[i * m + j]`, each computed once (every preference reads two).
    pub fn pair_sigmoids(&self, rows: &[f32], m: usize, scratch: &mut PairScratch, out: &mut [f64]) {
        self.pair_outputs(rows, m, scratch, out);
        for v in &mut out[..m * m] {
            *v = sigmoid(*v);
        }
    }

    /// The expected number of wins of each of the `m` documents of `rows` against the others
    /// into `out`, from `N_>` of every ordered pair ([`Comparator::pair_sigmoids`]):
    /// `sum_{j != i} P(x_i > x_j)`, each term rounded to a multiple of `2^-52` and summed
    /// exactly.
    pub fn wins(n: &[f64], m: usize, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate().take(m) {
            let mut total: u128 = 0;
            for j in (0..m).filter(|&j| j != i) {
                let p = preference_of(n[i * m + j], n[j * m + i]);
                // A term is at most 2^52 and fits a u64, whose conversion is a machine
                // instruction; only the sum needs u128.
                total += u128::from((p * FIXED_POINT).round() as u64);
            }
            *o = total as f64 / FIXED_POINT;
        }
    }

    /// Scores every document of `data` by its expected wins within its query.
    pub fn score_queries(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        if !self.is_consistent() {
            return Err(Error::model("sortnet model: the comparator's parts do not fit together"));
        }
        let mut scratch = PairScratch::default();
        let mut g = Vec::new();
        for q in data.queries() {
            let m = q.len();
            g.clear();
            g.resize(m * m, 0.0);
            self.pair_sigmoids(q.features, m, &mut scratch, &mut g);
            Self::wins(&g, m, &mut out[q.range()]);
        }
        Ok(())
    }
}

/// `sum_i a[i] b[i]`.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
