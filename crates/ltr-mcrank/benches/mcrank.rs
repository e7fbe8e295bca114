//! A McRank fit on MQ2008 Fold1 train at the default settings (100 rounds of one tree per
//! grade: 3 grades, 300 trees; no validation split), binning included.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_mcrank::McRankParams;

fn bench_fit(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("mcrank");
    g.sample_size(10);
    let learner = McRankParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_100_rounds", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(1)).unwrap().ensembles.len())
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
