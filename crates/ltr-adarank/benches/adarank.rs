//! AdaRank-MAP and AdaRank-NDCG fits on MQ2008 Fold1 train (default parameters, no
//! validation split, so the loop runs until a guard stops it or 500 rounds).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_adarank::{AdaRankMapParams, AdaRankNdcgParams};
use ltr_core::{Learner, Params, Rng};

fn bench_fit(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("adarank");
    g.sample_size(10);
    let map = AdaRankMapParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_map", |b| {
        b.iter(|| map.fit(&train, None, &mut Rng::new(1)).unwrap().rounds.len())
    });
    let ndcg = AdaRankNdcgParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_ndcg10", |b| {
        b.iter(|| ndcg.fit(&train, None, &mut Rng::new(1)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
