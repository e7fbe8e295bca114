//! BoltzRank at its defaults on MQ2008 Fold1 train: pairwise features and standardisation
//! included, no validation. Runs on the global rayon pool (`RAYON_NUM_THREADS`, default: all
//! cores).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_boltzrank::BoltzRankParams;
use ltr_core::{Learner, Params, Rng};

fn bench_boltzrank(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let train = fold.train;
    eprintln!("rayon threads: {}", rayon::current_num_threads());
    let learner = BoltzRankParams::default().validate().expect("defaults");
    let mut g = c.benchmark_group("boltzrank");
    g.sample_size(10);
    g.bench_function("boltzrank_fit_defaults_mq2008_fold1_train", |b| {
        b.iter(|| learner.fit(&train, None, &mut Rng::new(42)).map(|m| m.net.epoch))
    });
    g.finish();
}

criterion_group!(benches, bench_boltzrank);
criterion_main!(benches);
