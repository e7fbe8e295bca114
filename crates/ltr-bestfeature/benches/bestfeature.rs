//! The best single feature on MQ2008 Fold1: every feature and sign measured by MAP on the
//! validation split (the harness's selection), and on the training split (no validation).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_bestfeature::BestFeatureParams;
use ltr_core::{Learner, Params, Rng, Validation};
use ltr_metrics::{Criterion as Measure, EvalConfig, Metric};

fn bench_fit(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let map = Measure::new(Metric::Map, EvalConfig::of(&fold.vali));
    let valid = Validation { data: &fold.vali, measure: &map };
    let learner = BestFeatureParams::default().validate().unwrap();
    let mut g = c.benchmark_group("best-feature");
    g.sample_size(10);
    g.bench_function("mq2008_fold1_fit_on_vali", |b| {
        b.iter(|| learner.fit(&fold.train, Some(&valid), &mut Rng::new(1)).unwrap().feature)
    });
    g.bench_function("mq2008_fold1_fit_on_train", |b| {
        b.iter(|| learner.fit(&fold.train, None, &mut Rng::new(1)).unwrap().feature)
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
