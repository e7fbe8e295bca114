//! RankNet at RankLib's default budget (100 epochs, one hidden layer of 10 units), at this
//! crate's other defaults, on MQ2008 Fold1 train: standardisation included, no validation.
//! Also LambdaRank at the same budget. Runs on the global rayon pool (`RAYON_NUM_THREADS`,
//! default: all cores).

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Learner, Params, Rng};
use ltr_neural::NetworkParams;
use ltr_ranknet::{LambdaRankParams, RankNetParams};

fn bench_ranknet(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let train = fold.train;
    eprintln!("rayon threads: {}", rayon::current_num_threads());
    let network = NetworkParams { epochs: 100, hidden: 10, layers: 1, ..Default::default() };
    let ranknet = RankNetParams { network, ..Default::default() }.validate().expect("valid");
    let lambdarank = LambdaRankParams { network, ..Default::default() }.validate().expect("valid");
    let mut g = c.benchmark_group("ranknet");
    g.sample_size(10);
    g.bench_function("ranknet_fit_100_epochs_10_hidden_mq2008_fold1_train", |b| {
        b.iter(|| ranknet.fit(&train, None, &mut Rng::new(42)).map(|m| m.epoch))
    });
    g.bench_function("lambdarank_fit_100_epochs_10_hidden_mq2008_fold1_train", |b| {
        b.iter(|| lambdarank.fit(&train, None, &mut Rng::new(42)).map(|m| m.epoch))
    });
    g.finish();
}

criterion_group!(benches, bench_ranknet);
criterion_main!(benches);
