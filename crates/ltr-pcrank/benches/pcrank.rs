//! PCRank on MQ2008 Fold1 train: the closed-form query models of every training query, the
//! closeness variant's subgradient solve, and a full fit (default parameters, no
//! validation split).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_pcrank::PcRankParams;

fn bench_pcrank(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("pcrank");
    g.sample_size(10);
    let plain = PcRankParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_closed_forms", |b| {
        b.iter(|| train.queries().filter_map(|q| plain.query_model(&q)).count())
    });
    let closeness = PcRankParams { closeness: 0.1, ..Default::default() }.validate().unwrap();
    g.bench_function("mq2008_fold1_closeness_solves_50_steps", |b| {
        b.iter(|| train.queries().filter_map(|q| closeness.query_model(&q)).count())
    });
    g.bench_function("mq2008_fold1_fit", |b| {
        b.iter(|| plain.fit(&train, None, &mut Rng::new(1)).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, bench_pcrank);
criterion_main!(benches);
