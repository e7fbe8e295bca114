//! The tree learner on the real LETOR folds: least-squares boosting on the grades (a
//! pointwise GBRT) through the test kit (skipped without a dataset mirror).
#![allow(clippy::unwrap_used)]

use ltr_core::{Dataset, Learner, Params, Result, Rng, Validation};
use ltr_trees::{BoostConfig, Ensemble, SquaredError, TreeConfig, boost};
use serde::{Deserialize, Serialize};

/// Pointwise squared-error boosting, only for this test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct L2Params {
    rounds: usize,
    leaves: usize,
    learning_rate: f64,
}

impl Default for L2Params {
    fn default() -> Self {
        Self { rounds: 100, leaves: 31, learning_rate: 0.1 }
    }
}

#[derive(Debug)]
struct L2Learner(BoostConfig);

impl Params for L2Params {
    type Checked = L2Learner;
    fn validate(&self) -> Result<L2Learner> {
        let cfg = BoostConfig {
            rounds: self.rounds,
            early_stopping_rounds: 0,
            tree: TreeConfig {
                max_leaves: self.leaves,
                learning_rate: self.learning_rate,
                ..Default::default()
            },
        };
        cfg.validate()?;
        Ok(L2Learner(cfg))
    }
}

impl Learner for L2Learner {
    type Model = Ensemble;
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> Result<Ensemble> {
        Ok(boost(train, valid, &mut SquaredError { labels: train.labels() }, &self.0, rng)?.ensemble)
    }
}

#[test]
fn pointwise_gbrt_on_ohsumed_and_mq2008() {
    let grid = [L2Params::default()];
    if let Some(r) = ltr_testkit::cross_validate("letor3", "OHSUMED", &grid, 42) {
        eprintln!("ltr-trees L2 boosting, OHSUMED: {r}");
        assert!(r.ndcg[3] > 0.40, "{r}");
    }
    if let Some(r) = ltr_testkit::cross_validate("letor4", "MQ2008", &grid, 42) {
        eprintln!("ltr-trees L2 boosting, MQ2008: {r}");
        assert!(r.ndcg[3] > 0.21, "{r}");
    }
}
