//! RankRLS training time on MQ2008 Fold1 train at the default `lambda`, both graphs: the
//! system accumulated from the data (a fresh copy each time, so nothing comes from the cache)
//! and the solve. The data is the MQ2008 copy compiled into `ltr-data`.

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_rankrls::{Graph, RankRlsParams};

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_rankrls(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("rankrls");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    for pairs in [Graph::Graded, Graph::All] {
        let rls = RankRlsParams { pairs, ..Default::default() }.validate().expect("valid");
        let (_, s) = rls.fit_with_stats(&train.clone()).expect("fit");
        eprintln!("rankrls {pairs:?}: {} pairs, F = {:.8e}", s.pairs, s.objective);
        g.bench_function(format!("{pairs:?}_mq2008_fold1").to_lowercase(), |b| {
            b.iter_batched(
                || train.clone(),
                |data| rls.fit_with_stats(&data).map(|(_, s)| s.objective),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench_rankrls);
criterion_main!(benches);
