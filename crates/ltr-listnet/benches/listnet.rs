//! ListNet and ListMLE at their defaults (linear models, 100 epochs) on MQ2008 Fold1 train:
//! standardisation included, no validation. Runs on the global rayon pool
//! (`RAYON_NUM_THREADS`, default: all cores).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `shared/datasets` beside the project); prints
//! a note and does nothing without it.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;
use ltr_listnet::{ListMleParams, ListNetParams};

fn bench_listnet(c: &mut Criterion) {
    let Some(root) = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("note: no dataset mirror; listnet bench skipped");
        return;
    };
    let manifest = Manifest::builtin("letor4").expect("manifest");
    let fold = load_fold(&root, &manifest, "MQ2008", None, 1).expect("fold");
    let train = fold.train;
    eprintln!("rayon threads: {}", rayon::current_num_threads());
    let listnet = ListNetParams::default().validate().expect("defaults");
    let listmle = ListMleParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("listnet");
    g.sample_size(10);
    g.bench_function("listnet_fit_defaults_mq2008_fold1_train", |b| {
        b.iter(|| listnet.fit(&train, None, &mut Rng::new(42)).map(|m| m.epoch))
    });
    g.bench_function("listmle_fit_defaults_mq2008_fold1_train", |b| {
        b.iter(|| listmle.fit(&train, None, &mut Rng::new(42)).map(|m| m.epoch))
    });
    g.finish();
}

criterion_group!(benches, bench_listnet);
criterion_main!(benches);
