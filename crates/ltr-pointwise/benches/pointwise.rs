//! Fitting time of ridge regression and PRank on MQ2008 Fold1 train (one core).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params, Rng};
use ltr_pointwise::{PrankParams, RegressionParams};

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_pointwise(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("pointwise");
    let ridge = RegressionParams::default().validate().expect("valid");
    g.bench_function("regression_mq2008_fold1", |b| {
        b.iter(|| ridge.fit(std::hint::black_box(&train), None, &mut Rng::new(0)).map(|m| m.bias))
    });
    let prank = PrankParams { epochs: 10, ..Default::default() }.validate().expect("valid");
    g.bench_function("prank_10_epochs_mq2008_fold1", |b| {
        b.iter(|| prank.fit(std::hint::black_box(&train), None, &mut Rng::new(0)).map(|m| m.epochs))
    });
    g.finish();
}

criterion_group!(benches, bench_pointwise);
criterion_main!(benches);
