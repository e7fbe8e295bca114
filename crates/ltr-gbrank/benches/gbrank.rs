//! GBRank and QBRank fits on MQ2008 Fold1 train at the default settings (100 trees, no
//! validation split), binning included.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_gbrank::{GbRankParams, QbRankParams};

fn bench_fit(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("gbrank");
    g.sample_size(10);
    let gbrank = GbRankParams::default().validate().unwrap();
    g.bench_function("gbrank_mq2008_fold1_fit_100_trees", |b| {
        b.iter(|| gbrank.fit(&train, None, &mut Rng::new(1)).unwrap().trees.len())
    });
    let qbrank = QbRankParams::default().validate().unwrap();
    g.bench_function("qbrank_mq2008_fold1_fit_100_trees", |b| {
        b.iter(|| qbrank.fit(&train, None, &mut Rng::new(1)).unwrap().trees.len())
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
