//! RankSVM training time on MQ2008 Fold1 train at a fixed `c`, each fast solver next to the
//! all-pairs reference solver for the same objective (one fit per iteration, pair
//! materialisation included for the all-pairs solvers):
//!
//! * plain hinge (default): the 1-slack cutting plane at `svm_rank`'s default `epsilon = 0.001`
//!   vs dual coordinate descent over all pairs stopped at the same guarantee (duality gap
//!   `<= c * epsilon * P / Q`);
//! * squared hinge: truncated Newton with sorted pair sums vs all-pairs Newton.
//!
//! `svm_rank_learn` itself cannot be built here (no network). The data is the MQ2008 copy
//! compiled into `ltr-data` (no files, no mirror needed).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_core::{Dataset, Params};
use ltr_ranksvm::{RankSvmLoss, RankSvmParams};
use reference::AllPairs;

/// The all-pairs solvers live beside the crate's unit tests, which use them too; the library
/// does not ship them, so the bench compiles the file itself.
#[path = "../src/reference.rs"]
#[allow(dead_code, reason = "the unit tests use the parts the bench does not")]
mod reference;

const C: f64 = 0.1;
const C_LARGE: f64 = 10.0;

fn train() -> Dataset {
    ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train
}

fn bench_ranksvm(c: &mut Criterion) {
    let train = train();
    let q = train.n_queries() as f64;
    let mut g = c.benchmark_group("ranksvm");
    g.sample_size(10).measurement_time(Duration::from_secs(10));

    for cc in [C, C_LARGE] {
        let hinge = RankSvmParams { c: cc, ..Default::default() }.validate().expect("valid");
        let (_, st) = hinge.fit_with_stats(&train).expect("fit");
        let gap = cc * 0.001 * st.pairs as f64 / q;
        let all = AllPairs::new(&train, cc);
        let r = all.solve_hinge(0.0, gap, 100_000);
        eprintln!(
            "hinge c={cc}: {} pairs; cutting plane: {} iterations, {} planes, f = {:.8e}; \
             all-pairs DCD: {} epochs, f = {:.8e}, gap {:.2e} (target {gap:.2e})",
            st.pairs, st.iterations, st.planes, st.objective, r.epochs, r.objective, r.gap
        );
        g.bench_function(format!("hinge_cutting_plane_mq2008_fold1_c{cc}"), |b| {
            b.iter(|| hinge.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
        });
        g.bench_function(format!("hinge_all_pairs_dcd_mq2008_fold1_c{cc}"), |b| {
            b.iter(|| {
                AllPairs::new(std::hint::black_box(&train), cc).solve_hinge(0.0, gap, 100_000).objective
            })
        });
    }

    let svm = RankSvmParams { loss: RankSvmLoss::SquaredHinge, c: C, ..Default::default() }
        .validate()
        .expect("valid");
    let (_, stats) = svm.fit_with_stats(&train).expect("fit");
    let all = AllPairs::new(&train, C);
    let (_, f_ref) = all.solve(50, 1e-8);
    eprintln!(
        "squared hinge c={C}: {} pairs, {} Newton iterations, f = {:.8e} (all-pairs solver: {f_ref:.8e})",
        stats.pairs, stats.iterations, stats.objective
    );
    g.bench_function("squared_hinge_truncated_newton_mq2008_fold1_c0.1", |b| {
        b.iter(|| svm.fit_with_stats(std::hint::black_box(&train)).map(|(_, s)| s.objective))
    });
    g.bench_function("squared_hinge_all_pairs_newton_mq2008_fold1_c0.1", |b| {
        b.iter(|| AllPairs::new(std::hint::black_box(&train), C).solve(50, 1e-8).1)
    });
    g.finish();
}

criterion_group!(benches, bench_ranksvm);
criterion_main!(benches);
