//! A RankCosine fit on MQ2008 Fold1 train (default parameters, no validation split, so the
//! loop runs its 200 rounds or until no feature lowers the loss).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_rankcosine::RankCosineParams;

fn bench_fit(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("rankcosine");
    g.sample_size(10);
    let learner = RankCosineParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(1)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
