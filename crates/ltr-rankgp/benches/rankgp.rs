//! RankGP training time on MQ2008 Fold1 train at the defaults, without validation (every
//! generation bred and evaluated), at the thread count of the machine. The data is the MQ2008
//! copy compiled into `ltr-data`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params, Rng};
use ltr_rankgp::RankGpParams;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_rankgp(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("rankgp");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let gp = RankGpParams::default().validate().expect("valid");
    let m = gp.fit(&train, None, &mut Rng::new(1)).expect("fit");
    eprintln!("rankgp: {} nodes: {}", m.tree.len(), m.expression());
    g.bench_function("defaults_mq2008_fold1", |b| {
        b.iter(|| gp.fit(std::hint::black_box(&train), None, &mut Rng::new(1)).map(|m| m.tree.len()))
    });
    g.finish();
}

criterion_group!(benches, bench_rankgp);
criterion_main!(benches);
