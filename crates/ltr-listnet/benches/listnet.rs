//! ListNet and ListMLE at their defaults (linear models, 100 epochs) on MQ2008 Fold1 train:
//! standardisation included, no validation. Runs on the global rayon pool
//! (`RAYON_NUM_THREADS`, default: all cores).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_listnet::{ListMleParams, ListNetParams};

fn bench_listnet(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
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
