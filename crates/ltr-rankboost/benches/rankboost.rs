//! RankBoost on MQ2008 Fold1 train (default parameters): one boosting round (potentials
//! plus the O(n) threshold search over all 46 features), and the one-off set-up (sorting
//! every feature, placing the cuts, binning the documents).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ltr_core::Params;
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_rankboost::{RankBoostParams, Trainer};

fn bench_round(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; rankboost bench skipped");
        return;
    };
    let fold = load_fold(&root, &Manifest::builtin("letor4").unwrap(), "MQ2008", None, 1).unwrap();
    let train = fold.train;
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
    let all = RankBoostParams { thresholds: 0, ..Default::default() }.validate().unwrap();
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
