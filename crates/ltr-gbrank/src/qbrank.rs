//! QBRank's loss and the quadratic upper bound each round's tree minimises.

use ltr_core::{Grade, Result};
use ltr_trees::Objective;

use crate::pairs::PairIndex;

/// QBRank (Zheng, Zha, Zhang, Chapelle, Chen, Sun, NIPS 2007) as a tree objective: the loss
///
/// ```text
/// R(h) = c sum_{(x, y): y_x > y_y} 1/2 max(0, h(y) - h(x) + tau)^2 + r sum_l 1/2 (h(x_l) - y_l)^2
/// c = w N / P,   r = 1 - w
/// ```
///
/// over the `P` preference pairs and the `N` graded documents (`w` the share of the pairs;
/// `c` makes the pair part weigh as many documents as the grade part). Each round minimises
/// the quadratic upper bound `R(h) + grad R . g + 1/2 sum_l W_l g_l^2` of `R(h + g)` over the
/// trees: `W_l = r + 2 c n_l` (`n_l` the pairs of document `l`) bounds the Hessian
/// everywhere, because the squared hinge has second derivative at most 1 and each pair's
/// `(e_x - e_y)(e_x - e_y)^T` is at most `2 (e_x e_x^T + e_y e_y^T)`. The tree is therefore the
/// weighted least-squares fit of `-grad_l R / W_l` with weights `W_l` (the hessians passed to
/// the learner), and with a step `s <= 1` every round lowers `R`.
#[derive(Debug, Clone)]
pub struct QbRankObjective<'a> {
    pairs: &'a PairIndex,
    labels: &'a [Grade],
    tau: f64,
    pair_coef: f64,
    point_coef: f64,
    bound: Vec<f32>,
    grad: Vec<f64>,
}

impl<'a> QbRankObjective<'a> {
    /// The objective for documents with `labels` and their `pairs`, margin `tau`, pair share
    /// `w` in `[0, 1]` (with no pair the pair part is empty whatever `w`).
    pub fn new(pairs: &'a PairIndex, labels: &'a [Grade], tau: f64, w: f64) -> Self {
        let n = labels.len();
        let pair_coef = if pairs.n_pairs() == 0 { 0.0 } else { w * n as f64 / pairs.n_pairs() as f64 };
        let point_coef = 1.0 - w;
        let bound =
            (0..n).map(|l| (point_coef + 2.0 * pair_coef * f64::from(pairs.pairs_of(l))) as f32).collect();
        Self { pairs, labels, tau, pair_coef, point_coef, bound, grad: vec![0.0; n] }
    }

    /// `R(h)` at scores `h`.
    pub fn loss(&self, h: &[f64]) -> f64 {
        let mut pairs = 0.0;
        self.pairs.for_each_pair(|x, y| {
            let m = (h[y] - h[x] + self.tau).max(0.0);
            pairs += 0.5 * m * m;
        });
        let points: f64 = h.iter().zip(self.labels).map(|(&s, &y)| 0.5 * (s - f64::from(y)).powi(2)).sum();
        self.pair_coef * pairs + self.point_coef * points
    }

    /// The gradient of `R` at `h` into `grad`.
    pub fn gradient(&self, h: &[f64], grad: &mut [f64]) {
        for ((g, &s), &y) in grad.iter_mut().zip(h).zip(self.labels) {
            *g = self.point_coef * (s - f64::from(y));
        }
        self.pairs.for_each_pair(|x, y| {
            let m = h[y] - h[x] + self.tau;
            if m > 0.0 {
                grad[x] -= self.pair_coef * m;
                grad[y] += self.pair_coef * m;
            }
        });
    }

    /// The diagonal bound `W_l` of the Hessian, per document.
    pub fn hessian_bound(&self) -> &[f32] {
        &self.bound
    }
}

impl Objective for QbRankObjective<'_> {
    fn gradients(&mut self, scores: &[f64], gradients: &mut [f32], hessians: &mut [f32]) -> Result<()> {
        let mut grad = std::mem::take(&mut self.grad);
        self.gradient(scores, &mut grad);
        for (g, &v) in gradients.iter_mut().zip(&grad) {
            *g = v as f32;
        }
        hessians.copy_from_slice(&self.bound);
        self.grad = grad;
        Ok(())
    }
}
