//! Fitting time of ridge regression and PRank on MQ2008 Fold1 train (one core).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params, Rng};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_pointwise::{PrankParams, RegressionParams};

fn train() -> Option<Dataset> {
    let root = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR")))?;
    let manifest = Manifest::builtin("letor4").ok()?;
    load_fold(&root, &manifest, "MQ2008", None, 1).ok().map(|f| f.train)
}

fn bench_pointwise(c: &mut Criterion) {
    let Some(train) = train() else {
        eprintln!("note: no dataset mirror; pointwise bench skipped");
        return;
    };
    let mut g = c.benchmark_group("pointwise");
    let ridge = RegressionParams::default().validate().expect("valid");
    g.bench_function("regression_mq2008_fold1", |b| {
        b.iter(|| ridge.fit(std::hint::black_box(&train), None, &mut Rng::new(0)).map(|m| m.bias))
    });
    let prank = PrankParams { epochs: 10, ..Default::default() }.validate().expect("valid");
    g.bench_function("prank_10_epochs_mq2008_fold1", |b| {
        b.iter(|| prank.fit(std::hint::black_box(&train), None, &mut Rng::new(0)).map(|m| m.epochs))
    });
    g.finish();
}

criterion_group!(benches, bench_pointwise);
criterion_main!(benches);
