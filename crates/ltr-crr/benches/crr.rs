//! One million CRR SGD steps on MQ2008 Fold1 train (one core; the target is < 1 s).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ltr_core::{Dataset, Learner, Params, Rng};
use ltr_crr::{CrrLoss, CrrParams};
use ltr_data::folds::{find_mirror, load_fold};
use ltr_data::manifest::Manifest;

fn train() -> Option<Dataset> {
    let root = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR")))?;
    let manifest = Manifest::builtin("letor4").ok()?;
    load_fold(&root, &manifest, "MQ2008", None, 1).ok().map(|f| f.train)
}

fn bench_crr(c: &mut Criterion) {
    let Some(train) = train() else {
        eprintln!("note: no dataset mirror; crr bench skipped");
        return;
    };
    let steps = 1_000_000;
    let mut g = c.benchmark_group("crr");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(steps as u64));
    for loss in [CrrLoss::Linear, CrrLoss::Logistic] {
        let learner =
            CrrParams { steps, checkpoints: 1, loss, ..Default::default() }.validate().expect("valid");
        let name =
            format!("1m_steps_{}_mq2008_fold1", if loss == CrrLoss::Linear { "linear" } else { "logistic" });
        g.bench_function(name, |b| {
            b.iter(|| {
                learner.fit(std::hint::black_box(&train), None, &mut Rng::new(42)).map(|m| m.linear.bias)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_crr);
criterion_main!(benches);
