//! SLR training time on MQ2008 Fold1 train at the default `lambda`: both stages on a fresh copy
//! of the data (nothing from the cache), and the second stage alone (first stage cached). The
//! data is the MQ2008 copy compiled into `ltr-data`.

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params};
use ltr_slr::SlrParams;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_slr(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("slr");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let slr = SlrParams::default().validate().expect("valid");
    let (_, s) = slr.fit_with_stats(&train.clone()).expect("fit");
    eprintln!(
        "slr: {} first-stage models, second stage {} Newton iterations, F = {:.8e}",
        s.first.features.len(),
        s.iterations,
        s.objective
    );
    g.bench_function("both_stages_mq2008_fold1", |b| {
        b.iter_batched(
            || train.clone(),
            |data| slr.fit_with_stats(&data).map(|(_, s)| s.objective),
            BatchSize::LargeInput,
        )
    });
    slr.prepare(&train).expect("first stage");
    g.bench_function("second_stage_mq2008_fold1", |b| {
        b.iter(|| slr.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
    });
    g.finish();
}

criterion_group!(benches, bench_slr);
criterion_main!(benches);
