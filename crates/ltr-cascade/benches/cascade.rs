//! A cascade fit on MQ2008 Fold1 train (default parameters: gamma 0.1, rank pruning up to
//! 0.5 in five steps; no validation split, so the loop runs until a guard stops it).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_cascade::CascadeParams;
use ltr_core::{Learner, Params, Rng};

fn bench_fit(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let mut g = c.benchmark_group("cascade");
    g.sample_size(10);
    let learner = CascadeParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit", |b| {
        b.iter(|| learner.fit(&fold.train, None, &mut Rng::new(1)).unwrap().stages.len())
    });
    let model = learner.fit(&fold.train, None, &mut Rng::new(1)).unwrap();
    g.bench_function("mq2008_fold1_score_test", |b| b.iter(|| model.cost(&fold.test).unwrap().mean));
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
