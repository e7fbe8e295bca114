//! The tree learner on MQ2008 Fold1 train: binning, and 100 trees of least-squares boosting
//! on the grades (31 leaves, LightGBM's defaults), at the global rayon pool's thread count.
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `shared/datasets` beside the project); prints
//! a note and does nothing without it.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::Rng;
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_trees::{BinnedData, BoostConfig, SquaredError, boost};

fn bench_trees(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; trees bench skipped");
        return;
    };
    let manifest = Manifest::builtin("letor4").expect("manifest");
    let fold = load_fold(&root, &manifest, "MQ2008", None, 1).expect("fold");
    let train = fold.train;
    let mut g = c.benchmark_group("trees");
    g.sample_size(10);
    g.bench_function("binning_mq2008_fold1_train", |b| {
        b.iter(|| BinnedData::new(&train, 255, 3).map(|d| d.n_rows()))
    });
    let cfg = BoostConfig::default();
    g.bench_function("l2_100_trees_mq2008_fold1_train", |b| {
        b.iter(|| {
            let mut obj = SquaredError { labels: train.labels() };
            boost(&train, None, &mut obj, &cfg, &mut Rng::new(1)).map(|m| m.ensemble.trees.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench_trees);
criterion_main!(benches);
