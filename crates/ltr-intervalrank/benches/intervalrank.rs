//! IntervalRank, 100 rounds at the default settings on MQ2008 Fold1 train (binning
//! included, no validation), on the global rayon pool; and one round of interval solves
//! (gradients) alone.
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `shared/datasets` beside the project); prints
//! a note and does nothing without it.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_intervalrank::{IntervalObjective, IntervalRankParams};
use ltr_trees::Objective;

fn bench_intervalrank(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; intervalrank bench skipped");
        return;
    };
    let manifest = Manifest::builtin("letor4").expect("manifest");
    let fold = load_fold(&root, &manifest, "MQ2008", None, 1).expect("fold");
    let train = fold.train;
    let learner = IntervalRankParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("intervalrank");
    g.sample_size(10);
    g.bench_function("fit_100_rounds_mq2008_fold1_train", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(42)).map(|m| m.ensemble.trees.len()))
    });
    let scores: Vec<f64> = (0..train.n_docs()).map(|i| ((i * 7919) % 101) as f64 / 100.0).collect();
    let (mut grad, mut hess) = (vec![0f32; train.n_docs()], vec![0f32; train.n_docs()]);
    g.bench_function("cold_interval_solves_mq2008_fold1_train", |b| {
        b.iter(|| {
            let mut obj = IntervalObjective::new(train.labels(), train.query_offsets(), 1.0, 1.0);
            obj.gradients(&scores, &mut grad, &mut hess)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_intervalrank);
criterion_main!(benches);
