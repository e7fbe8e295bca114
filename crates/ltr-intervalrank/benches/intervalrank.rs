//! IntervalRank, 100 rounds at the default settings on MQ2008 Fold1 train (binning
//! included, no validation), on the global rayon pool; and one round of interval solves
//! (gradients) alone.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_intervalrank::{IntervalObjective, IntervalRankParams};
use ltr_trees::Objective;

fn bench_intervalrank(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let learner = IntervalRankParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("intervalrank");
    g.sample_size(10);
    g.bench_function("fit_100_rounds_mq2008_fold1_train", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(42)).map(|m| m.ensemble.trees.len()))
    });
    let scores: Vec<f64> = (0..train.n_docs()).map(|i| ((i * 7919) % 101) as f64 / 100.0).collect();
    let (mut grad, mut hess) = (vec![0f32; train.n_docs()], vec![0f32; train.n_docs()]);
    g.bench_function("cold_interval_solves_mq2008_fold1_train", |b| {
        b.iter(|| {
            let mut obj = IntervalObjective::new(train.labels(), train.query_offsets(), 1.0, 1.0);
            obj.gradients(&scores, &mut grad, &mut hess)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_intervalrank);
criterion_main!(benches);
