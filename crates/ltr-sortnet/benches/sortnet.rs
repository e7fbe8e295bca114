//! SortNet at its defaults on MQ2008 Fold1 train: the incremental procedure without a
//! validation split (every round runs). Runs on the global rayon pool (`RAYON_NUM_THREADS`,
//! default: all cores).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_sortnet::SortNetParams;

fn bench_sortnet(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let train = fold.train;
    eprintln!("rayon threads: {}", rayon::current_num_threads());
    let learner = SortNetParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("sortnet");
    g.sample_size(10);
    g.bench_function("sortnet_fit_defaults_mq2008_fold1_train", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(42)).map(|m| m.round))
    });
    g.finish();
}

criterion_group!(benches, bench_sortnet);
criterion_main!(benches);
