//! The query-weighted loop on MQ2008 Fold1 train with the 46 single features as candidates
//! (AdaRank's weak rankers), E = MAP and NDCG@10 under letor4, 50 rounds, no validation.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_boosting::{BoostConfig, FeatureSource, boost};
use ltr_metrics::{Convention, EvalConfig, Metric};

fn bench_loop(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("query_boost");
    g.sample_size(10);
    for metric in [Metric::Map, Metric::Ndcg(10)] {
        let cfg = BoostConfig {
            max_rounds: 50,
            require_improvement: false,
            ..BoostConfig::new("bench", metric, EvalConfig::official(Convention::Letor4))
        };
        g.bench_function(format!("mq2008_fold1_single_features_50_rounds_{metric}"), |b| {
            b.iter(|| {
                let mut src = FeatureSource::new(train.n_features(), false);
                boost(&mut src, &train, None, &cfg).unwrap().trace.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_loop);
criterion_main!(benches);
