//! The tree learner on MQ2008 Fold1 train: binning, and 100 trees of least-squares boosting
//! on the grades (31 leaves, LightGBM's defaults), at the global rayon pool's thread count.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::Rng;
use ltr_trees::{BinnedData, BoostConfig, SquaredError, boost};

fn bench_trees(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("trees");
    g.sample_size(10);
    g.bench_function("binning_mq2008_fold1_train", |b| {
        b.iter(|| BinnedData::new(&train, 255, 3).map(|d| d.n_rows()))
    });
    let cfg = BoostConfig::default();
    g.bench_function("l2_100_trees_mq2008_fold1_train", |b| {
        b.iter(|| {
            let mut obj = SquaredError { labels: train.labels() };
            boost(&train, None, &mut obj, &cfg, &mut Rng::new(1)).map(|m| m.ensemble.trees.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench_trees);
criterion_main!(benches);
