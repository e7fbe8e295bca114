//! LambdaMART, 100 trees at the default settings (31 leaves, learning rate 0.1, LightGBM's
//! lambdarank defaults), on MQ2008 Fold1 train: binning included, no validation. Runs on
//! the global rayon pool (`RAYON_NUM_THREADS`, default: all cores). Also times one round
//! of gradients alone.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_lambdamart::{LambdaMartParams, LambdaObjective};
use ltr_trees::Objective;

fn bench_lambdamart(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    eprintln!("rayon threads: {}", rayon::current_num_threads());
    let learner = LambdaMartParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("lambdamart");
    g.sample_size(10);
    g.bench_function("fit_100_trees_mq2008_fold1_train", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(42)).map(|m| m.ensemble.trees.len()))
    });
    let scores: Vec<f64> = (0..train.n_docs()).map(|i| ((i * 7919) % 101) as f64 / 100.0).collect();
    let (mut grad, mut hess) = (vec![0f32; train.n_docs()], vec![0f32; train.n_docs()]);
    let mut obj = LambdaObjective::new(train.labels(), train.query_offsets(), 1.0, 0);
    g.bench_function("gradients_mq2008_fold1_train", |b| {
        b.iter(|| obj.gradients(&scores, &mut grad, &mut hess))
    });
    g.finish();
}

criterion_group!(benches, bench_lambdamart);
criterion_main!(benches);
