//! The query-weighted loop on MQ2008 Fold1 train with the 46 single features as candidates
//! (AdaRank's weak rankers), E = MAP and NDCG@10 under letor4, 50 rounds, no validation.
//!
//! The data is the MQ2008 copy compiled into `ltr-data` (no files, no mirror needed).
//!
//! Below the loop, the two pieces every query-level rule runs on at scale, on a random
//! 1,000-query x ~120-document x 136-feature set (MSLR-WEB10K's query length and width):
//! ranking a query by packed keys against the evaluation's index sort, and reading every
//! candidate's scores uncached query by query (one pass over the rows) against one strided
//! pass per candidate.

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ltr_boosting::{BoostConfig, CandidateScores, FeatureSource, WeakSource, boost, rank_order_keyed};
use ltr_metrics::{Convention, EvalConfig, Metric};

fn bench_loop(c: &mut Criterion) {
    let train = ltr_data::embedded::load_fold("letor4", "MQ2008", 1).expect("embedded MQ2008").train;
    let mut g = c.benchmark_group("query_boost");
    g.sample_size(10);
    for metric in [Metric::Map, Metric::Ndcg(10)] {
        let cfg = BoostConfig {
            max_rounds: 50,
            require_improvement: false,
            ..BoostConfig::new("bench", metric, EvalConfig::official(Convention::Letor4))
        };
        g.bench_function(format!("mq2008_fold1_single_features_50_rounds_{metric}"), |b| {
            b.iter(|| {
                let mut src = FeatureSource::new(train.n_features(), false);
                boost(&mut src, &train, None, &cfg).unwrap().trace.len()
            })
        });
    }
    g.finish();
}

fn bench_pieces(c: &mut Criterion) {
    let data = ltr_testkit::random_dataset(1, 1_000, 136, 60..180, 0.3, 5);
    let source = FeatureSource::new(136, false);
    let uncached = CandidateScores::default();
    let all: Vec<usize> = (0..source.n_candidates()).collect();
    let mut g = c.benchmark_group("query_pieces");
    g.sample_size(10);
    let scores: Vec<f64> = data.rows().map(|r| f64::from(r[3]) + 0.5 * f64::from(r[7])).collect();
    g.bench_function("rank_all_queries_index_sort", |b| {
        let mut order = Vec::new();
        b.iter(|| {
            data.queries()
                .map(|q| {
                    ltr_core::rank_order(&scores[q.range()], &mut order);
                    order[0]
                })
                .sum::<usize>()
        })
    });
    g.bench_function("rank_all_queries_packed_keys", |b| {
        let (mut keys, mut order) = (Vec::new(), Vec::new());
        b.iter(|| {
            data.queries()
                .map(|q| {
                    rank_order_keyed(&scores[q.range()], &mut keys, &mut order);
                    order[0]
                })
                .sum::<usize>()
        })
    });
    g.bench_function("uncached_scores_pass_per_candidate", |b| {
        b.iter(|| {
            all.iter()
                .map(|&c| (0..data.n_docs()).map(|i| uncached.get(&source, &data, c, i)).sum::<f64>())
                .sum::<f64>()
        })
    });
    g.bench_function("uncached_scores_block_per_query", |b| {
        let mut block = Vec::new();
        b.iter(|| {
            data.queries()
                .map(|q| {
                    uncached.block(&source, &data, &all, q.range(), &mut block);
                    block.iter().sum::<f64>()
                })
                .sum::<f64>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_loop, bench_pieces);
criterion_main!(benches);
