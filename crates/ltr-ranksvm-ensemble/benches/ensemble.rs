//! RankSVM-ensemble training time on MQ2008 Fold1: base rankers on train, greedy rounds on
//! vali by MAP (letor4), as the harness runs it. The data is the MQ2008 copy compiled into
//! `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Params, Rng, Validation};
use ltr_metrics::{Criterion as Measure, EvalConfig, Metric};
use ltr_ranksvm_ensemble::EnsembleParams;

fn bench_ensemble(c: &mut Criterion) {
    let fold = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008");
    let measure = Measure::new(Metric::Map, EvalConfig::of(&fold.vali));
    let valid = Validation { data: &fold.vali, measure: &measure };
    let mut g = c.benchmark_group("ranksvm_ensemble");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    for cc in [0.01, 1.0] {
        let ens = EnsembleParams { c: cc, ..Default::default() }.validate().expect("valid");
        let (m, _) = ens.fit_with_trace(&fold.train, Some(&valid), &mut Rng::new(1)).expect("fit");
        eprintln!("ensemble c={cc}: {} of {} base rankers kept", m.members, m.base_rankers);
        g.bench_function(format!("ensemble_mq2008_fold1_c{cc}"), |b| {
            b.iter(|| {
                ens.fit_with_trace(std::hint::black_box(&fold.train), Some(&valid), &mut Rng::new(1))
                    .map(|(m, _)| m.members)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_ensemble);
criterion_main!(benches);
