//! The listwise neural rankers on the network crate `ltr-neural`:
//!
//! * `listnet` (Z. Cao, T. Qin, T.-Y. Liu, M.-F. Tsai, H. Li, "Learning to Rank: From
//!   Pairwise Approach to Listwise Approach", ICML 2007): the cross-entropy between the top-one
//!   probabilities of the scores, `softmax(s)`, and of the labels, `softmax(phi(y))`,
//!   `phi(y) = 2^y - 1` by default. A linear model by default, as in the LETOR baseline.
//! * `listmle` (F. Xia, T.-Y. Liu, J. Wang, W. Zhang, H. Li, "Listwise Approach to Learning
//!   to Rank: Theory and Algorithm", ICML 2008): the negative log-likelihood of a
//!   ground-truth permutation under the Plackett-Luce model of the scores,
//!   `sum_i [log sum_{k >= i} exp(s_pi(k)) - s_pi(i)]`, the permutation sorting documents by
//!   decreasing grade with ties broken by a fresh seeded shuffle every epoch.
//!
//! Queries whose documents all share one grade have no ranking to learn and take no part in
//! training (for ListNet their target is uniform, for ListMLE every permutation is a
//! ground truth). See the README for every default.
#![cfg_attr(test, allow(clippy::unwrap_used))]

use ltr_core::{AlgorithmInfo, Dataset, Family, Grade, LossType, ParamInfo, Params, QueryView, Result, Rng};
use ltr_neural::{NetworkDefaults, NetworkParams, QueryObjective, settings};
use serde::{Deserialize, Serialize};

/// Metadata of ListNet.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 22.8 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`. A hidden layer costs more, which is not modelled.
pub const INFO_LISTNET: AlgorithmInfo = AlgorithmInfo {
    id: "listnet",
    name: "ListNet",
    family: Family::Ann,
    year: 2007,
    loss: LossType::Listwise,
    optimizer: "gradient descent (Adam)",
    reference: "Z. Cao, T. Qin, T.-Y. Liu, M.-F. Tsai, H. Li. Learning to Rank: From Pairwise Approach \
                to Listwise Approach. ICML 2007, 129-136.",
    summary: "linear or MLP scorer on the shared, deterministic network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(22.8, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// Metadata of ListMLE.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 27.7 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, two
/// fits at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `epochs`. A hidden layer costs more, which is not modelled.
pub const INFO_LISTMLE: AlgorithmInfo = AlgorithmInfo {
    id: "listmle",
    name: "ListMLE",
    family: Family::Ann,
    year: 2008,
    loss: LossType::Listwise,
    optimizer: "gradient descent (Adam)",
    reference: "F. Xia, T.-Y. Liu, J. Wang, W. Zhang, H. Li. Listwise Approach to Learning to Rank: \
                Theory and Algorithm. ICML 2008, 1192-1199.",
    summary: "linear or MLP scorer on the shared, deterministic network crate",
    validation_metric: "ndcg@10",
    feature_scale: ltr_core::FeatureScale::STANDARDISED,
    small_settings: &["epochs=3"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(27.7, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("epochs", 100.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// ListNet's map from grades to the scores whose softmax is the target distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelTransform {
    /// `2^y - 1`, the NDCG gain.
    Gain,
    /// `y` itself.
    Grade,
}

impl LabelTransform {
    fn apply(self, y: Grade) -> f64 {
        match self {
            Self::Gain => f64::from(y).exp2() - 1.0,
            Self::Grade => f64::from(y),
        }
    }
}

/// ListNet's label transform key.
const LABEL_TRANSFORM: ParamInfo = ParamInfo::choice(
    "label_transform",
    &["gain", "grade"],
    "target scores from grades: 2^y - 1 (gain) or y (grade)",
);

/// The defaults of ListNet's and ListMLE's network keys: a linear model, as in the LETOR
/// baseline (`tanh` units when `hidden > 0`), trained with Adam at step 1e-3, one query per
/// update; see the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListNetDefaults;

impl NetworkDefaults for ListNetDefaults {
    const NETWORK: NetworkParams<Self> = NetworkParams::BASE;
}

/// Hyperparameters of ListNet (`listnet`): `label_transform` and the network keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListNetParams {
    /// Target scores from the grades: `gain` (`2^y - 1`, default) or `grade` (`y`).
    pub label_transform: LabelTransform,
    /// The network and training keys (defaults: [`ListNetDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<ListNetDefaults>,
}

impl Default for ListNetParams {
    fn default() -> Self {
        Self { label_transform: LabelTransform::Gain, network: NetworkParams::default() }
    }
}

/// Hyperparameters of ListMLE (`listmle`): the network keys of [`ListNetParams`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListMleParams {
    /// The network and training keys (defaults: [`ListNetDefaults`]).
    #[serde(flatten)]
    pub network: NetworkParams<ListNetDefaults>,
}

impl Params for ListNetParams {
    type Checked = ListNet;

    const TABLE: &'static [ParamInfo] = ltr_core::param_table!(&[LABEL_TRANSFORM], settings::TABLE);

    fn validate(&self) -> Result<ListNet> {
        self.network.validate()?;
        Ok(ListNet { transform: self.label_transform, settings: self.network })
    }
}

impl Params for ListMleParams {
    type Checked = ListMle;

    const TABLE: &'static [ParamInfo] = settings::TABLE;

    fn validate(&self) -> Result<ListMle> {
        self.network.validate()?;
        Ok(ListMle { settings: self.network })
    }
}

/// Validated ListNet settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ListNet {
    transform: LabelTransform,
    settings: NetworkParams<ListNetDefaults>,
}

ltr_neural::network_learner!(ListNet, INFO_LISTNET, |this, train| ListNetObjective::new(
    train,
    this.transform
));

/// Validated ListMLE settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ListMle {
    settings: NetworkParams<ListNetDefaults>,
}

ltr_neural::network_learner!(ListMle, INFO_LISTMLE, |_this, train| ListMleObjective::new(train));

/// The largest value of a slice (`-inf` for an empty one).
fn max_of(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// ListNet's top-one cross-entropy `C = -sum_i P_y(i) log P_s(i)` with
/// `P_s = softmax(s)` and `P_y = softmax(phi(y))`; `dC/ds_i = P_s(i) - P_y(i)`.
#[derive(Debug, Clone)]
pub struct ListNetObjective {
    /// `P_y` of every document within its query.
    target: Vec<f64>,
}

impl ListNetObjective {
    /// The objective on `data`'s queries.
    pub fn new(data: &Dataset, transform: LabelTransform) -> Self {
        let mut target = Vec::with_capacity(data.n_docs());
        for q in data.queries() {
            let t: Vec<f64> = q.labels.iter().map(|&y| transform.apply(y)).collect();
            let m = max_of(&t);
            let start = target.len();
            target.extend(t.iter().map(|v| (v - m).exp()));
            let z: f64 = target[start..].iter().sum();
            target[start..].iter_mut().for_each(|p| *p /= z);
        }
        Self { target }
    }
}

impl QueryObjective for ListNetObjective {
    type Scratch = ();

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], _: &mut ()) {
        let m = max_of(scores);
        let mut z = 0.0;
        for (g, &s) in grad.iter_mut().zip(scores) {
            *g = (s - m).exp();
            z += *g;
        }
        for (g, &p) in grad.iter_mut().zip(&self.target[q.range()]) {
            *g = *g / z - p;
        }
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], _: &mut ()) -> f64 {
        // -sum_i P_y(i) (s_i - lse(s)) = lse(s) - sum_i P_y(i) s_i, as sum_i P_y(i) = 1.
        let m = max_of(scores);
        let lse = m + scores.iter().map(|&s| (s - m).exp()).sum::<f64>().ln();
        let target = &self.target[q.range()];
        target.iter().zip(scores).map(|(&p, &s)| -p * (s - lse)).sum()
    }
}

/// `log(exp(a) + exp(b))` without overflow.
#[inline]
fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// ListMLE's Plackett-Luce negative log-likelihood of the epoch's ground-truth
/// permutation `pi`: `C = sum_i [log Z_i - s_pi(i)]`, `Z_i = sum_{k >= i} exp(s_pi(k))`;
/// `dC/ds_pi(i) = -1 + exp(s_pi(i)) sum_{m <= i} 1 / Z_m`. Both sums run in log space (one
/// pass from the bottom for `log Z`, one from the top for the prefix), so no score range can
/// overflow or divide by zero: linear time per query.
#[derive(Debug, Clone)]
pub struct ListMleObjective {
    /// Per document position of the data set, the query-local index of the document at that
    /// place of its query's permutation.
    perm: Vec<u32>,
    labels: Vec<Grade>,
    offsets: Vec<usize>,
}

impl ListMleObjective {
    /// The objective on `data`, with ties kept in document order until the first epoch
    /// shuffles them.
    pub fn new(data: &Dataset) -> Self {
        let mut o = Self {
            perm: vec![0; data.n_docs()],
            labels: data.labels().to_vec(),
            offsets: data.query_offsets().to_vec(),
        };
        o.order(None);
        o
    }

    /// Every query's permutation: by decreasing grade, ties in a random order when `rng` is
    /// given (a shuffle, then a stable sort), else in document order.
    fn order(&mut self, mut rng: Option<&mut Rng>) {
        for w in self.offsets.windows(2) {
            let labels = &self.labels[w[0]..w[1]];
            let p = &mut self.perm[w[0]..w[1]];
            for (i, v) in p.iter_mut().enumerate() {
                *v = i as u32;
            }
            if let Some(r) = rng.as_deref_mut() {
                r.shuffle(p);
            }
            p.sort_by(|&a, &b| labels[b as usize].cmp(&labels[a as usize]));
        }
    }

    /// The permutation of query `q` (query-local indices, best first).
    pub fn permutation(&self, q: usize) -> &[u32] {
        &self.perm[self.offsets[q]..self.offsets[q + 1]]
    }

    /// `log Z_i` for every position into `lz`; returns the cost.
    fn log_partitions(&self, q: QueryView<'_>, scores: &[f64], lz: &mut Vec<f64>) -> f64 {
        let perm = self.permutation(q.index);
        let n = perm.len();
        lz.clear();
        lz.resize(n, 0.0);
        let mut acc = f64::NEG_INFINITY;
        let mut cost = 0.0;
        for i in (0..n).rev() {
            let s = scores[perm[i] as usize];
            acc = if i + 1 == n { s } else { log_add_exp(acc, s) };
            lz[i] = acc;
            cost += acc - s;
        }
        cost
    }
}

impl QueryObjective for ListMleObjective {
    type Scratch = Vec<f64>;

    fn begin_epoch(&mut self, rng: &mut Rng) {
        self.order(Some(rng));
    }

    fn gradient(&self, q: QueryView<'_>, scores: &[f64], grad: &mut [f64], lz: &mut Vec<f64>) {
        self.log_partitions(q, scores, lz);
        let perm = self.permutation(q.index);
        // log sum_{m <= i} exp(-log Z_m), accumulated from the top.
        let mut lp = f64::NEG_INFINITY;
        for (i, &d) in perm.iter().enumerate() {
            lp = if i == 0 { -lz[0] } else { log_add_exp(lp, -lz[i]) };
            let d = d as usize;
            grad[d] = -1.0 + (scores[d] + lp).exp();
        }
    }

    fn cost(&self, q: QueryView<'_>, scores: &[f64], lz: &mut Vec<f64>) -> f64 {
        self.log_partitions(q, scores, lz)
    }
}

#[cfg(test)]
mod tests;
