//! NDCGBoost on MQ2008 Fold1 train (default parameters): a whole fit at the default 200 rounds
//! without validation (every loop query's expected ranks and potentials per round, the candidates' edges,
//! the bound's weight and the relaxed objective of each candidate tried).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_ndcgboost::NdcgBoostParams;

fn bench_ndcgboost(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let learner = NdcgBoostParams::default().validate().unwrap();
    let mut g = c.benchmark_group("ndcgboost");
    g.sample_size(10);
    g.bench_function("mq2008_fold1_fit_200_rounds", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(0)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_ndcgboost);
criterion_main!(benches);
