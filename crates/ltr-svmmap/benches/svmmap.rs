//! SVM-MAP training time on MQ2008 Fold1 train at `c = 1` (the default) and `c = 100`. The
//! data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_svmmap::SvmMapParams;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_svmmap(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("svmmap");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for cc in [1.0, 100.0] {
        let svm = SvmMapParams { c: cc, ..Default::default() }.validate().expect("valid");
        let (_, s) = svm.fit_with_stats(&train).expect("fit");
        eprintln!(
            "svm-map c={cc}: {} constrained queries, {} iterations, {} planes, F = {:.8e}",
            s.constrained_queries, s.iterations, s.planes, s.objective
        );
        g.bench_function(format!("mq2008_fold1_c{cc}"), |b| {
            b.iter(|| svm.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_svmmap);
criterion_main!(benches);
