//! The query-weighted loop on MQ2008 Fold1 train with the 46 single features as candidates
//! (AdaRank's weak rankers), E = MAP and NDCG@10 under letor4, 50 rounds, no validation.
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_boosting::{BoostConfig, FeatureSource, boost};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_metrics::{Convention, EvalConfig, Metric};

fn bench_loop(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; boosting bench skipped");
        return;
    };
    let fold = load_fold(&root, &Manifest::builtin("letor4").unwrap(), "MQ2008", None, 1).unwrap();
    let train = fold.train;
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
