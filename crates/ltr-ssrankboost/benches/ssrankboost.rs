//! SSRankBoost on MQ2008 Fold1 train (default parameters: half of each query's grades
//! hidden, one neighbour): the automatic labels (hiding and nearest labelled neighbours), and
//! a whole fit at the default 300 rounds without validation.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_ssrankboost::{SsRankBoostParams, Unlabeled};

fn bench_ssrankboost(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("ssrankboost");
    g.sample_size(10);
    let used = SsRankBoostParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_partition", |b| {
        b.iter(|| used.partition(&train, 1).pseudo_labelled_fraction())
    });
    for (mode, name) in [(Unlabeled::Used, "used"), (Unlabeled::Dropped, "dropped")] {
        let l = SsRankBoostParams { unlabeled: mode, ..Default::default() }.validate().unwrap();
        g.bench_function(format!("mq2008_fold1_fit_300_rounds_{name}"), |b| {
            b.iter(|| l.fit(&train, None, &mut Rng::new(0)).unwrap().ensemble.rounds.len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_ssrankboost);
criterion_main!(benches);
