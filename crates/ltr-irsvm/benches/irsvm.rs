//! IR-SVM training time on MQ2008 Fold1 train (the paper's weights: NDCG@1 costs and query
//! normalisation), next to RankSVM at the same `c`. The data is the MQ2008 copy compiled into
//! `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_irsvm::IrSvmParams;
use ltr_ranksvm::RankSvmParams;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_irsvm(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("irsvm");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for cc in [0.1, 1.0] {
        let ir = IrSvmParams { c: cc, ..Default::default() }.validate().expect("valid");
        let (_, s) = ir.fit_with_stats(&train).expect("fit");
        eprintln!("ir-svm c={cc}: {} pairs, {} iterations, {} planes", s.pairs, s.iterations, s.planes);
        g.bench_function(format!("irsvm_mq2008_fold1_c{cc}"), |b| {
            b.iter(|| ir.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
        let svm = RankSvmParams { c: cc, ..Default::default() }.validate().expect("valid");
        g.bench_function(format!("ranksvm_mq2008_fold1_c{cc}"), |b| {
            b.iter(|| svm.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_irsvm);
criterion_main!(benches);
