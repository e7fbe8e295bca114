//! MPBoost on MQ2008 Fold1 train (default parameters, linear DDF): one boosting round
//! (factors and potentials, the edges and the separated-pair sweep of all 46 features), and a
//! whole fit at the default 300 rounds without validation.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_mpboost::MpBoostParams;

fn bench_mpboost(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let learner = MpBoostParams::default().validate().unwrap();
    let mut g = c.benchmark_group("mpboost");
    g.sample_size(10);
    // A booster a few rounds in, so the weights are not uniform.
    let mut warm = learner.booster(&train).unwrap();
    for _ in 0..10 {
        warm.step();
    }
    g.bench_function("mq2008_fold1_one_round", |b| {
        b.iter_batched(|| warm.clone(), |mut t| t.step().map(|r| r.alpha), BatchSize::LargeInput)
    });
    g.bench_function("mq2008_fold1_fit_300_rounds", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(0)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_mpboost);
criterion_main!(benches);
