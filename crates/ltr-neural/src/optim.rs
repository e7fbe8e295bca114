//! The optimisers: SGD with momentum, and Adam.

use serde::{Deserialize, Serialize};

/// Which update rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Adam (Kingma & Ba, ICLR 2015), `beta1 = 0.9`, `beta2 = 0.999`, `epsilon = 1e-8`.
    Adam,
    /// Stochastic gradient descent with (heavy-ball) momentum: `v <- mu v + g`,
    /// `w <- w - eta v`.
    Sgd,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

/// The optimiser state for a parameter vector.
#[derive(Debug, Clone)]
pub struct Optimizer {
    kind: OptimizerKind,
    learning_rate: f64,
    momentum: f64,
    /// Adam's first moment, or SGD's velocity.
    m: Vec<f64>,
    /// Adam's second moment.
    v: Vec<f64>,
    /// `beta1^t`, `beta2^t`.
    beta_pow: (f64, f64),
}

impl Optimizer {
    /// A fresh state for `n` parameters.
    pub fn new(kind: OptimizerKind, learning_rate: f64, momentum: f64, n: usize) -> Self {
        let v = if kind == OptimizerKind::Adam { vec![0.0; n] } else { Vec::new() };
        Self { kind, learning_rate, momentum, m: vec![0.0; n], v, beta_pow: (1.0, 1.0) }
    }

    /// One descent step along `grad`.
    pub fn step(&mut self, params: &mut [f64], grad: &[f64]) {
        let lr = self.learning_rate;
        match self.kind {
            OptimizerKind::Sgd => {
                let mu = self.momentum;
                for ((p, m), &g) in params.iter_mut().zip(&mut self.m).zip(grad) {
                    *m = mu * *m + g;
                    *p -= lr * *m;
                }
            }
            OptimizerKind::Adam => {
                self.beta_pow.0 *= BETA1;
                self.beta_pow.1 *= BETA2;
                let (c1, c2) = (1.0 / (1.0 - self.beta_pow.0), 1.0 / (1.0 - self.beta_pow.1));
                for (((p, m), v), &g) in params.iter_mut().zip(&mut self.m).zip(&mut self.v).zip(grad) {
                    *m = BETA1 * *m + (1.0 - BETA1) * g;
                    *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                    *p -= lr * (*m * c1) / ((*v * c2).sqrt() + EPSILON);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgd_momentum_by_hand() {
        let mut o = Optimizer::new(OptimizerKind::Sgd, 0.1, 0.5, 1);
        let mut p = [1.0];
        o.step(&mut p, &[2.0]); // v = 2, p = 1 - 0.2
        assert!((p[0] - 0.8).abs() < 1e-15);
        o.step(&mut p, &[2.0]); // v = 1 + 2 = 3, p = 0.8 - 0.3
        assert!((p[0] - 0.5).abs() < 1e-15);
    }

    #[test]
    fn adam_first_step_moves_by_the_learning_rate() {
        // Bias correction makes the first step lr * g / (|g| + eps) ~ lr * sign(g).
        let mut o = Optimizer::new(OptimizerKind::Adam, 0.01, 0.0, 2);
        let mut p = [0.0, 0.0];
        o.step(&mut p, &[3.0, -1e-3]);
        assert!((p[0] + 0.01).abs() < 1e-9 && (p[1] - 0.01).abs() < 1e-6, "{p:?}");
    }
}
