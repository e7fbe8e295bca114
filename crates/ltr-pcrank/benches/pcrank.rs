//! PCRank on MQ2008 Fold1 train: the closed-form query models of every training query, the
//! closeness variant's subgradient solve, and a full fit (default parameters, no
//! validation split).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_pcrank::PcRankParams;

fn bench_pcrank(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; pcrank bench skipped");
        return;
    };
    let fold = load_fold(&root, &Manifest::builtin("letor4").unwrap(), "MQ2008", None, 1).unwrap();
    let train = fold.train;
    let mut g = c.benchmark_group("pcrank");
    g.sample_size(10);
    let plain = PcRankParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_closed_forms", |b| {
        b.iter(|| train.queries().filter_map(|q| plain.query_model(&q)).count())
    });
    let closeness = PcRankParams { closeness: 0.1, ..Default::default() }.validate().unwrap();
    g.bench_function("mq2008_fold1_closeness_solves_50_steps", |b| {
        b.iter(|| train.queries().filter_map(|q| closeness.query_model(&q)).count())
    });
    g.bench_function("mq2008_fold1_fit", |b| {
        b.iter(|| plain.fit(&train, None, &mut Rng::new(1)).unwrap().len())
    });
    g.finish();
}

criterion_group!(benches, bench_pcrank);
criterion_main!(benches);
