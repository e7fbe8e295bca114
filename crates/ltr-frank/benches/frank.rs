//! FRank on MQ2008 Fold1 train (default parameters): a whole fit at the default 200 rounds
//! without validation (one pass over every training pair per round for the candidates'
//! sums, the exact loss of each candidate tried).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_frank::FRankParams;

fn bench_frank(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let learner = FRankParams::default().validate().unwrap();
    let mut g = c.benchmark_group("frank");
    g.sample_size(10);
    g.bench_function("mq2008_fold1_fit_200_rounds", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(0)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_frank);
criterion_main!(benches);
