//! The scoring network: a linear model or a fully connected network with hidden layers,
//! forward and backward passes written by hand on plain slices.
//!
//! Layer `l` maps `sizes[l]` inputs to `sizes[l + 1]` outputs, `a'_o = act(W_l[o] . a + b_o)`;
//! the activation follows every layer but the last, whose single output is the score. All
//! parameters live in one flat vector (what the optimisers update): per layer, the weights
//! output-major (`w[o * n_in + i]`: a unit's input weights are contiguous, so the forward
//! pass is one register-accumulated dot product per unit and the backward pass one `axpy`
//! per unit), then the `n_out` biases.

use ltr_core::Rng;
use serde::{Deserialize, Serialize};

/// The hidden units' nonlinearity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// `tanh(z)`; Xavier (Glorot) uniform initialisation.
    Tanh,
    /// `max(0, z)`; He normal initialisation.
    Relu,
}

impl Activation {
    /// The activation of a pre-activation `z`, as the forward pass computes it (for
    /// algorithms that evaluate a layer in a factorised form and must match it bit for bit).
    #[inline]
    pub fn apply(self, z: f64) -> f64 {
        match self {
            Self::Tanh => tanh(z),
            Self::Relu => z.max(0.0),
        }
    }

    /// The derivative at the pre-activation, from the activation's output `a`.
    #[inline]
    fn derivative(self, a: f64) -> f64 {
        match self {
            Self::Tanh => 1.0 - a * a,
            Self::Relu => {
                if a > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// `tanh(z) = sign(z) (1 - 2 / (exp(2|z|) + 1))`: one `exp`, several times faster than
/// the C library's `tanh`, which dominated training time. Its absolute error is a few ulps
/// of 1 (relative accuracy is lost only for `|z|` near 0, where it does not matter for
/// scores); the backward pass uses `1 - a^2` from the same value.
#[inline]
fn tanh(z: f64) -> f64 {
    let t = 1.0 - 2.0 / ((2.0 * z.abs()).exp() + 1.0);
    t.copysign(z)
}

/// A scoring network `f: R^d -> R`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// Layer widths: inputs, the hidden layers, then 1 (the score).
    pub sizes: Vec<usize>,
    /// The hidden units' nonlinearity (unused by a linear model).
    pub activation: Activation,
    /// All parameters: per layer, `sizes[l] x sizes[l + 1]` weights (input-major), then
    /// `sizes[l + 1]` biases.
    pub params: Vec<f64>,
}

/// Reusable buffers of the forward and backward passes (one per worker).
#[derive(Debug, Default, Clone)]
pub struct NetScratch {
    /// Outputs of each hidden layer, row-major `n x width`.
    acts: Vec<Vec<f64>>,
    delta: Vec<f64>,
    delta_prev: Vec<f64>,
}

/// Sum of `a[i] * b[i]` over four interleaved partial sums (a fixed order the compiler can
/// vectorise; plain iterator sums stay sequential without fast-math).
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `y += alpha * x`.
#[inline]
pub(crate) fn axpy(y: &mut [f64], alpha: f64, x: &[f64]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// `out[u] = dot(a, w[u])` for four weight rows at once: each sum in exactly [`dot`]'s
/// order (so the results equal four `dot` calls bit for bit), with every load of `a`
/// shared by the four rows.
#[inline]
fn dot4(a: &[f64], w: [&[f64]; 4]) -> [f64; 4] {
    let n = a.len();
    let mut acc = [[0.0f64; 4]; 4];
    let full = n / 4 * 4;
    let mut i = 0;
    while i < full {
        let x: &[f64; 4] = a[i..i + 4].try_into().unwrap_or(&[0.0; 4]);
        for (acc_u, wu) in acc.iter_mut().zip(&w) {
            let wc: &[f64; 4] = wu[i..i + 4].try_into().unwrap_or(&[0.0; 4]);
            for k in 0..4 {
                acc_u[k] += x[k] * wc[k];
            }
        }
        i += 4;
    }
    let mut out = [0.0; 4];
    for ((o, acc_u), wu) in out.iter_mut().zip(&acc).zip(&w) {
        let mut s = (acc_u[0] + acc_u[1]) + (acc_u[2] + acc_u[3]);
        for j in full..n {
            s += a[j] * wu[j];
        }
        *o = s;
    }
    out
}

/// Features per block of [`add_outer`].
const OUTER_BLOCK: usize = 8;

/// `g[o][i] += sum_r d[r][o] a[r][i]` for row-major `d` (`n x n_out`) and `a`
/// (`n x n_in`), `g` output-major: the gradient of a layer's weights over a whole query.
/// Blocks of eight features are summed over the rows in registers before touching `g`
/// (rows in order, each element's sum from 0), instead of a read-modify-write of `g` per
/// row.
fn add_outer(g: &mut [f64], d: &[f64], a: &[f64], n: usize, n_out: usize, n_in: usize) {
    for o in 0..n_out {
        let go = &mut g[o * n_in..(o + 1) * n_in];
        let mut base = 0;
        while base + OUTER_BLOCK <= n_in {
            let mut acc = [0.0f64; OUTER_BLOCK];
            for r in 0..n {
                let dv = d[r * n_out + o];
                let row: &[f64; OUTER_BLOCK] = a[r * n_in + base..r * n_in + base + OUTER_BLOCK]
                    .try_into()
                    .unwrap_or(&[0.0; OUTER_BLOCK]);
                for k in 0..OUTER_BLOCK {
                    acc[k] += dv * row[k];
                }
            }
            for (gk, ak) in go[base..base + OUTER_BLOCK].iter_mut().zip(acc) {
                *gk += ak;
            }
            base += OUTER_BLOCK;
        }
        if base < n_in {
            let len = n_in - base;
            let mut acc = [0.0f64; OUTER_BLOCK];
            for r in 0..n {
                let dv = d[r * n_out + o];
                for (k, &v) in a[r * n_in + base..r * n_in + n_in].iter().enumerate() {
                    acc[k] += dv * v;
                }
            }
            for (gk, ak) in go[base..].iter_mut().zip(&acc[..len]) {
                *gk += ak;
            }
        }
    }
}

impl Network {
    /// Number of parameters of a network with these layer widths.
    pub fn count_params(sizes: &[usize]) -> usize {
        sizes
            .windows(2)
            .fold(0usize, |acc, w| acc.saturating_add(w[0].saturating_add(1).saturating_mul(w[1])))
    }

    /// A freshly initialised network for `n_inputs` features: `hidden` widths (empty for a
    /// linear model), one output. Weights of layers followed by ReLU are He normal
    /// (`N(0, 2 / fan_in)`); the others Xavier uniform (`U(-a, a)`,
    /// `a = sqrt(6 / (fan_in + fan_out))`); biases 0. A linear model starts at 0: its losses
    /// are convex, random weights break no symmetry there, and a random start only adds
    /// seed-to-seed variance to the epoch chosen on vali.
    pub fn init(n_inputs: usize, hidden: &[usize], activation: Activation, rng: &mut Rng) -> Self {
        if hidden.is_empty() {
            return Self { sizes: vec![n_inputs, 1], activation, params: vec![0.0; n_inputs + 1] };
        }
        let mut sizes = Vec::with_capacity(hidden.len() + 2);
        sizes.push(n_inputs);
        sizes.extend_from_slice(hidden);
        sizes.push(1);
        let mut params = Vec::with_capacity(Self::count_params(&sizes));
        let last = sizes.len() - 2;
        for (l, w) in sizes.windows(2).enumerate() {
            let (fan_in, fan_out) = (w[0], w[1]);
            let relu = activation == Activation::Relu && l < last;
            if relu {
                let std = (2.0 / fan_in.max(1) as f64).sqrt();
                params.extend((0..fan_in * fan_out).map(|_| std * rng.normal()));
            } else {
                let a = (6.0 / (fan_in + fan_out) as f64).sqrt();
                params.extend((0..fan_in * fan_out).map(|_| a * (2.0 * rng.uniform() - 1.0)));
            }
            params.extend(std::iter::repeat_n(0.0, fan_out));
        }
        Self { sizes, activation, params }
    }

    /// Number of input features.
    pub fn n_inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Number of layers with weights (hidden layers + the output layer).
    fn n_layers(&self) -> usize {
        self.sizes.len() - 1
    }

    /// Offset of layer `l`'s weights in the flat parameter vector.
    fn offset(&self, l: usize) -> usize {
        Self::count_params(&self.sizes[..=l])
    }

    /// Whether the sizes and the parameter count agree (checked on deserialised models).
    pub fn is_consistent(&self) -> bool {
        self.sizes.len() >= 2
            && self.sizes.last() == Some(&1)
            && self.sizes[1..].iter().all(|&s| s > 0)
            && self.params.len() == Self::count_params(&self.sizes)
    }

    /// Scores `n` rows (`x`: row-major, `n x n_inputs`) into `out`, keeping the hidden
    /// activations in `scratch` for [`Network::backward`].
    pub fn forward(&self, x: &[f64], n: usize, scratch: &mut NetScratch, out: &mut [f64]) {
        let layers = self.n_layers();
        scratch.acts.resize_with(layers - 1, Vec::new);
        for l in 0..layers {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let off = self.offset(l);
            let w = &self.params[off..off + n_in * n_out];
            let b = &self.params[off + n_in * n_out..off + (n_in + 1) * n_out];
            let (done, rest) = scratch.acts.split_at_mut(l);
            let input: &[f64] = if l == 0 { x } else { &done[l - 1] };
            if l + 1 == layers {
                for (r, o) in out[..n].iter_mut().enumerate() {
                    *o = b[0] + dot(&input[r * n_in..(r + 1) * n_in], w);
                }
            } else {
                let act = &mut rest[0];
                act.clear();
                act.resize(n * n_out, 0.0);
                let rows: Vec<&[f64]> = w.chunks_exact(n_in.max(1)).collect();
                for (r, row) in act.chunks_exact_mut(n_out).enumerate() {
                    let a = &input[r * n_in..(r + 1) * n_in];
                    let mut u = 0;
                    while u + 4 <= n_out {
                        let z = dot4(a, [rows[u], rows[u + 1], rows[u + 2], rows[u + 3]]);
                        for k in 0..4 {
                            row[u + k] = b[u + k] + z[k];
                        }
                        u += 4;
                    }
                    for k in u..n_out {
                        row[k] = b[k] + dot(a, rows[k]);
                    }
                    for z in row.iter_mut() {
                        *z = self.activation.apply(*z);
                    }
                }
            }
        }
    }

    /// Adds to `grad` (the layout of `params`) the gradient of `sum_r dout[r] * f(x_r)`
    /// over the `n` rows last passed to [`Network::forward`] with this `scratch`: one
    /// backward pass per row; each weight's contributions are summed over the rows in order
    /// and then added to `grad`.
    pub fn backward(&self, x: &[f64], n: usize, scratch: &mut NetScratch, dout: &[f64], grad: &mut [f64]) {
        let layers = self.n_layers();
        let NetScratch { acts, delta, delta_prev } = scratch;
        delta.clear();
        delta.extend_from_slice(&dout[..n]);
        for l in (0..layers).rev() {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let off = self.offset(l);
            let w = &self.params[off..off + n_in * n_out];
            let input: &[f64] = if l == 0 { x } else { &acts[l - 1] };
            let (gw, gb) = grad[off..off + (n_in + 1) * n_out].split_at_mut(n_in * n_out);
            if l > 0 {
                delta_prev.clear();
                delta_prev.resize(n * n_in, 0.0);
            }
            add_outer(gw, delta, input, n, n_out, n_in);
            for r in 0..n {
                let d = &delta[r * n_out..(r + 1) * n_out];
                let a = &input[r * n_in..(r + 1) * n_in];
                for (g, &v) in gb.iter_mut().zip(d) {
                    *g += v;
                }
                if l > 0 {
                    // Through the weights, then the activation of the layer below.
                    let dp = &mut delta_prev[r * n_in..(r + 1) * n_in];
                    for (wo, &v) in w.chunks_exact(n_in).zip(d) {
                        axpy(dp, v, wo);
                    }
                    for (p, &ai) in dp.iter_mut().zip(a) {
                        *p *= self.activation.derivative(ai);
                    }
                }
            }
            if l > 0 {
                std::mem::swap(delta, delta_prev);
            }
        }
    }

    /// The score of one standardised row (allocates; for one-off use).
    pub fn score_one(&self, x: &[f64]) -> f64 {
        let mut out = [0.0];
        self.forward(x, 1, &mut NetScratch::default(), &mut out);
        out[0]
    }

    /// Whether every parameter is finite.
    pub fn is_finite(&self) -> bool {
        self.params.iter().all(|p| p.is_finite())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rows(n: usize, d: usize, rng: &mut Rng) -> Vec<f64> {
        (0..n * d).map(|_| 2.0 * rng.uniform() - 1.0).collect()
    }

    /// Central differences of `sum_r c_r f(x_r)` against backpropagation, every parameter.
    fn check_gradient(hidden: &[usize], act: Activation, seed: u64) -> f64 {
        let mut rng = Rng::new(seed);
        let (n, d) = (5, 4);
        let net = Network::init(d, hidden, act, &mut rng);
        let mut net = net;
        for p in &mut net.params {
            *p += 0.1 * rng.normal(); // non-zero biases too
        }
        let x = rows(n, d, &mut rng);
        let c: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let f = |net: &Network| {
            let mut out = vec![0.0; n];
            net.forward(&x, n, &mut NetScratch::default(), &mut out);
            out.iter().zip(&c).map(|(o, c)| o * c).sum::<f64>()
        };
        let mut s = NetScratch::default();
        let mut out = vec![0.0; n];
        net.forward(&x, n, &mut s, &mut out);
        if act == Activation::Relu {
            // The seed puts every active unit clearly above the kink (a perturbation of
            // 1e-6 crossing it would show as a large error below).
            assert!(s.acts.iter().flatten().all(|&a| a == 0.0 || a > 1e-3));
        }
        let mut grad = vec![0.0; net.params.len()];
        net.backward(&x, n, &mut s, &c, &mut grad);
        let mut worst = 0.0f64;
        for (k, &g) in grad.iter().enumerate() {
            let eps = 1e-6;
            let (mut up, mut dn) = (net.clone(), net.clone());
            up.params[k] += eps;
            dn.params[k] -= eps;
            let fd = (f(&up) - f(&dn)) / (2.0 * eps);
            let rel = (fd - g).abs() / fd.abs().max(g.abs()).max(1e-4);
            worst = worst.max(rel);
        }
        worst
    }

    #[test]
    fn backpropagation_matches_finite_differences() {
        for (hidden, act) in [
            (vec![], Activation::Tanh),
            (vec![3], Activation::Tanh),
            (vec![4, 3], Activation::Tanh),
            (vec![3], Activation::Relu),
            (vec![4, 3], Activation::Relu),
        ] {
            let worst = check_gradient(&hidden, act, 17);
            eprintln!("backpropagation {hidden:?} {act:?}: worst relative error {worst:.1e}");
            assert!(worst < 1e-6, "{hidden:?} {act:?}: relative error {worst:e}");
        }
    }

    #[test]
    fn fast_tanh_is_close_to_the_library_tanh() {
        for i in -4000..=4000 {
            let z = f64::from(i) * 0.005;
            assert!((tanh(z) - z.tanh()).abs() < 4e-16, "{z}");
        }
        assert_eq!(tanh(1e4), 1.0);
        assert_eq!(tanh(-1e4), -1.0);
        assert_eq!(tanh(0.0), 0.0);
    }

    #[test]
    fn linear_network_is_a_dot_product() {
        let net =
            Network { sizes: vec![3, 1], activation: Activation::Tanh, params: vec![1.0, -2.0, 0.5, 0.25] };
        assert!(net.is_consistent());
        assert_eq!(net.score_one(&[1.0, 1.0, 2.0]), 1.0 - 2.0 + 1.0 + 0.25);
        let mut g = vec![0.0; 4];
        let mut s = NetScratch::default();
        let mut out = [0.0; 2];
        net.forward(&[1.0, 2.0, 3.0, 0.0, 1.0, 0.0], 2, &mut s, &mut out);
        net.backward(&[1.0, 2.0, 3.0, 0.0, 1.0, 0.0], 2, &mut s, &[1.0, -1.0], &mut g);
        assert_eq!(g, vec![1.0, 1.0, 3.0, 0.0]);
    }

    #[test]
    fn one_hidden_unit_by_hand() {
        // x = (1, 2); hidden: z = 0.5 x1 - 0.25 x2 + 0.1 = 0.1, a = tanh(0.1); out = 2 a - 1.
        let net = Network {
            sizes: vec![2, 1, 1],
            activation: Activation::Tanh,
            params: vec![0.5, -0.25, 0.1, 2.0, -1.0],
        };
        let a = 0.1f64.tanh();
        assert!((net.score_one(&[1.0, 2.0]) - (2.0 * a - 1.0)).abs() < 1e-15);
        let mut s = NetScratch::default();
        let mut out = [0.0];
        net.forward(&[1.0, 2.0], 1, &mut s, &mut out);
        let mut g = vec![0.0; 5];
        net.backward(&[1.0, 2.0], 1, &mut s, &[1.0], &mut g);
        let dz = 2.0 * (1.0 - a * a);
        let want = [dz, 2.0 * dz, dz, a, 1.0];
        for (x, y) in g.iter().zip(want) {
            assert!((x - y).abs() < 1e-15, "{g:?}");
        }
    }

    #[test]
    fn initialisation_is_seeded_and_scaled() {
        let a = Network::init(10, &[8], Activation::Tanh, &mut Rng::new(1));
        let b = Network::init(10, &[8], Activation::Tanh, &mut Rng::new(1));
        let c = Network::init(10, &[8], Activation::Tanh, &mut Rng::new(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.params.len(), 11 * 8 + 9);
        let bound = (6.0f64 / 18.0).sqrt();
        assert!(a.params[..80].iter().all(|w| w.abs() <= bound));
        assert!(a.params[80..88].iter().all(|&b| b == 0.0));
        let linear = Network::init(4, &[], Activation::Tanh, &mut Rng::new(1));
        assert_eq!(linear.params, vec![0.0; 5], "a linear model starts at 0");
        let r = Network::init(200, &[50], Activation::Relu, &mut Rng::new(3));
        let w = &r.params[..200 * 50];
        let var = w.iter().map(|v| v * v).sum::<f64>() / w.len() as f64;
        assert!((var - 2.0 / 200.0).abs() < 0.001, "He variance {var}");
    }
}
