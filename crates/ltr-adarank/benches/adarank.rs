//! AdaRank-MAP and AdaRank-NDCG fits on MQ2008 Fold1 train (default parameters, no
//! validation split, so the loop runs until a guard stops it or 500 rounds).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_adarank::{AdaRankMapParams, AdaRankNdcgParams};
use ltr_core::{Learner, Params, Rng};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;

fn bench_fit(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; adarank bench skipped");
        return;
    };
    let fold = load_fold(&root, &Manifest::builtin("letor4").unwrap(), "MQ2008", None, 1).unwrap();
    let train = fold.train;
    let mut g = c.benchmark_group("adarank");
    g.sample_size(10);
    let map = AdaRankMapParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_map", |b| {
        b.iter(|| map.fit(&train, None, &mut Rng::new(1)).unwrap().rounds.len())
    });
    let ndcg = AdaRankNdcgParams::default().validate().unwrap();
    g.bench_function("mq2008_fold1_fit_ndcg10", |b| {
        b.iter(|| ndcg.fit(&train, None, &mut Rng::new(1)).unwrap().rounds.len())
    });
    g.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
