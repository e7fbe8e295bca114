//! FenchelRank training time on MQ2008 Fold1 with the survey's settings: radii 2^0..2^8 on
//! the warm-started path, at most 1,000 iterations each, tolerance 0.001, the radius selected on
//! vali by MAP (letor4); and with `patience = 2`, the experiments' setting. The data is the
//! MQ2008 copy compiled into `ltr-data`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Params, Validation};
use ltr_fenchelrank::FenchelRankParams;
use ltr_metrics::{Criterion as Measure, EvalConfig, Metric};

fn bench_fenchelrank(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let measure = Measure::new(Metric::Map, EvalConfig::of(&fold.vali));
    let valid = Validation { data: &fold.vali, measure: &measure };
    let fr = FenchelRankParams::default().validate().expect("valid");
    let (m, path) = fr.fit_with_path(&fold.train, Some(&valid)).expect("fit");
    for p in &path {
        eprintln!(
            "r {:>5}: {:>4} iterations, gap {:.2e}, F {:.5}, {} non-zero, vali MAP {:.4}",
            p.radius,
            p.iterations,
            p.gap,
            p.loss,
            p.model.nonzeros(),
            p.value.unwrap_or(f64::NAN)
        );
    }
    eprintln!("chosen r {}: sparsity ratio {:.3}", m.radius, m.sparsity_ratio());
    let mut g = c.benchmark_group("fenchelrank");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("path_r1_to_r256_mq2008_fold1", |b| {
        b.iter(|| fr.fit_with_path(std::hint::black_box(&fold.train), Some(&valid)).map(|(m, _)| m.radius))
    });
    // The experiments' setting: the path stops two radii after the best.
    let fr2 = FenchelRankParams { patience: 2, ..Default::default() }.validate().expect("valid");
    let (m2, path2) = fr2.fit_with_path(&fold.train, Some(&valid)).expect("fit");
    eprintln!("patience 2: {} radii, chosen r {}", path2.len(), m2.radius);
    g.bench_function("path_patience2_mq2008_fold1", |b| {
        b.iter(|| fr2.fit_with_path(std::hint::black_box(&fold.train), Some(&valid)).map(|(m, _)| m.radius))
    });
    g.finish();
}

criterion_group!(benches, bench_fenchelrank);
criterion_main!(benches);
