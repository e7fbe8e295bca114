//! RankBoost on MQ2008 Fold1 train (default parameters): one boosting round (potentials
//! plus the O(n) threshold search over all 46 features), and the one-off set-up (sorting
//! every feature, placing the cuts, binning the documents).
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).

#![allow(clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ltr_boosting::PairLoopParams;
use ltr_core::Params;
use ltr_rankboost::{RankBoostParams, Trainer};

fn bench_round(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let learner = RankBoostParams::default().validate().unwrap();
    let mut g = c.benchmark_group("rankboost");
    g.bench_function("mq2008_fold1_setup", |b| {
        b.iter(|| Trainer::new(&learner, &train).unwrap().cuts(0).len())
    });
    // A trainer a few rounds in, so the potentials are not uniform.
    let mut warm = Trainer::new(&learner, &train).unwrap();
    for _ in 0..10 {
        warm.step();
    }
    g.bench_function("mq2008_fold1_one_round", |b| {
        b.iter_batched(|| warm.clone(), |mut t| t.step().map(|r| r.alpha), BatchSize::LargeInput)
    });
    let all = RankBoostParams { pair_loop: PairLoopParams { thresholds: 0, ..Default::default() } }
        .validate()
        .unwrap();
    let mut warm_all = Trainer::new(&all, &train).unwrap();
    for _ in 0..10 {
        warm_all.step();
    }
    g.bench_function("mq2008_fold1_one_round_every_value_a_cut", |b| {
        b.iter_batched(|| warm_all.clone(), |mut t| t.step().map(|r| r.alpha), BatchSize::LargeInput)
    });
    g.finish();
}

criterion_group!(benches, bench_round);
criterion_main!(benches);
