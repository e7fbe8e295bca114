//! PermuRank training time on MQ2008 Fold1 train at the defaults (`metric = "map"`, `c = 1`),
//! at the grid's largest `c = 10000`, and with `metric = "ndcg@10"`. The data is the MQ2008
//! copy compiled into `ltr-data`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_metrics::Metric;
use ltr_permurank::PermuRankParams;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_permurank(c: &mut Criterion) {
    let train = train();
    let mut g = c.benchmark_group("permurank");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (metric, cc) in [(Metric::Map, 1.0), (Metric::Map, 10_000.0), (Metric::Ndcg(10), 1.0)] {
        let pr = PermuRankParams { metric, c: cc, ..Default::default() }.validate().expect("valid");
        let (_, s) = pr.fit_with_stats(&train).expect("fit");
        eprintln!(
            "permurank {metric} c={cc}: {} informative queries, {} rounds, {} cutting-plane iterations, \
             {} + {} permutations, F = {:.8e}",
            s.informative_queries, s.rounds, s.cp_iterations, s.perfect, s.imperfect, s.objective
        );
        g.bench_function(format!("mq2008_fold1_{metric}_c{cc}"), |b| {
            b.iter(|| pr.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_permurank);
criterion_main!(benches);
