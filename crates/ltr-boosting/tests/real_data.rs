//! The loop on the real LETOR folds (skipped without the dataset mirror), through a minimal
//! learner over the single features (AdaRank-MAP's weak rankers, built here so that this
//! crate is checked on real data on its own): 5-fold means printed, sanity thresholds.

use ltr_boosting::{BoostConfig, Ensemble, FeatureRanker, FeatureSource, boost};
use ltr_core::{Dataset, Learner, Params, Result, Rng, Validation};
use ltr_metrics::{Convention, EvalConfig, Metric};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct LoopParams {
    ndcg: bool,
}

#[derive(Debug)]
struct LoopLearner(Metric);

impl Params for LoopParams {
    type Checked = LoopLearner;
    fn validate(&self) -> Result<LoopLearner> {
        Ok(LoopLearner(if self.ndcg { Metric::Ndcg(10) } else { Metric::Map }))
    }
}

impl Learner for LoopLearner {
    type Model = Ensemble<FeatureRanker>;
    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<Ensemble<FeatureRanker>> {
        let cfg = BoostConfig::new("loop-test", self.0, EvalConfig::official(Convention::Letor3));
        let mut source = FeatureSource::new(train.n_features(), false);
        Ok(boost(&mut source, train, valid, &cfg)?.model)
    }
}

#[test]
fn loop_on_ohsumed_and_mq2008() {
    let grid = [LoopParams { ndcg: false }, LoopParams { ndcg: true }];
    for (collection, dataset) in [("letor3", "OHSUMED"), ("letor4", "MQ2008")] {
        let Some(cv) = ltr_testkit::cross_validate(collection, dataset, &grid, 42) else { return };
        eprintln!("query-weighted loop, single features, {dataset}: {cv}");
        assert!(cv.map > 0.42, "{dataset}: MAP {:.4}", cv.map);
    }
}
