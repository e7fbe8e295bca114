//! Ranking refinement on MQ2008 Fold1 train (default parameters): choosing the base ranker
//! (every feature's pair accuracy), and a whole fit at the default 300 rounds without
//! validation.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_boosting::{PairSet, PairWeighting};
use ltr_core::{Learner, Params, Rng};
use ltr_rankrefine::{RankRefineParams, best_feature};

fn bench_rankrefine(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("rankrefine");
    g.sample_size(10);
    let pairs = PairSet::from_grades(&train, PairWeighting::Pairs);
    g.bench_function("mq2008_fold1_best_feature", |b| b.iter(|| best_feature(&train, &pairs).feature));
    let l = RankRefineParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_300_rounds", |b| {
        b.iter(|| l.fit(&train, None, &mut Rng::new(0)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_rankrefine);
criterion_main!(benches);
