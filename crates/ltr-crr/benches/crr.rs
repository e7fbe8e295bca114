//! One million CRR SGD steps on MQ2008 Fold1 train (one core; the target is < 1 s).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params, Rng};
use ltr_crr::{CrrLoss, CrrParams};

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_crr(c: &mut Criterion) {
    let train = train();
    let steps = 1_000_000;
    let mut g = c.benchmark_group("crr");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(steps as u64));
    for loss in [CrrLoss::Linear, CrrLoss::Logistic] {
        let learner =
            CrrParams { steps, checkpoints: 1, loss, ..Default::default() }.validate().expect("valid");
        let name =
            format!("1m_steps_{}_mq2008_fold1", if loss == CrrLoss::Linear { "linear" } else { "logistic" });
        g.bench_function(name, |b| {
            b.iter(|| {
                learner.fit(std::hint::black_box(&train), None, &mut Rng::new(42)).map(|m| m.linear.bias)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_crr);
criterion_main!(benches);
