//! RankLR training time on MQ2008 Fold1 train, both objectives, at `c = 1` (the default). The
//! data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_ranklr::{Pairs, RankLrParams};

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_ranklr(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("ranklr");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (pairs, name) in [(Pairs::All, "all_pairs"), (Pairs::Approximate, "approximate")] {
        let lr = RankLrParams { pairs, ..Default::default() }.validate().expect("valid");
        let (_, s) = lr.fit_with_stats(&train).expect("fit");
        eprintln!(
            "ranklr {name}: {} pairs, {} Newton iterations, F = {:.8e}",
            s.pairs, s.iterations, s.objective
        );
        g.bench_function(format!("{name}_mq2008_fold1_c1"), |b| {
            b.iter(|| lr.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_ranklr);
criterion_main!(benches);
