//! Test support for the unit tests of the algorithm crates (a dev-dependency only): small
//! hand-written datasets. Real-data tests live in the root package (`tests/it/algorithms/`),
//! where they run the harness's cross-validation protocol exactly as the reports do.

use std::ops::Range;

use ltr_core::{Dataset, DatasetBuilder, Rng};

/// A dataset of `d` features from `(labels, rows)` per query, query ids `"0"`, `"1"`, ...
///
/// # Panics
/// If a row does not have `d` finite values (a mistake in the test).
pub fn dataset<R: AsRef<[f32]>>(d: usize, queries: &[(&[u8], &[R])]) -> Dataset {
    let mut b = DatasetBuilder::new(d);
    for (q, (labels, rows)) in queries.iter().enumerate() {
        assert_eq!(labels.len(), rows.len(), "query {q}: one label per row");
        b.start_query(&q.to_string());
        for (&l, r) in labels.iter().zip(rows.iter()) {
            b.push_doc(l, r.as_ref(), None).expect("valid test row");
        }
    }
    b.finish().expect("valid test dataset")
}

/// A random dataset of `d` features for determinism and property tests: `queries` queries
/// with a document count drawn from `docs`, grades 0 to 2 drawn uniformly, and feature `j` of
/// a document of grade `y` uniform in `[0, 1)` plus `signal * y * (j % period)` (so some
/// features carry the grade). The same arguments give the same dataset.
///
/// # Panics
/// If `docs` is empty or `period` is 0 (a mistake in the test).
pub fn random_dataset(
    seed: u64,
    queries: usize,
    d: usize,
    docs: Range<usize>,
    signal: f64,
    period: usize,
) -> Dataset {
    random_graded_dataset(seed, queries, d, docs, 3, signal, period)
}

/// [`random_dataset`] with grades 0 to `grades - 1` instead of 0 to 2.
///
/// # Panics
/// If `docs` is empty, `grades` is 0 or above 256, or `period` is 0 (a mistake in the test).
pub fn random_graded_dataset(
    seed: u64,
    queries: usize,
    d: usize,
    docs: Range<usize>,
    grades: usize,
    signal: f64,
    period: usize,
) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut b = DatasetBuilder::new(d);
    for q in 0..queries {
        b.start_query(&q.to_string());
        let n = docs.start + rng.index(docs.len());
        for _ in 0..n {
            let label = u8::try_from(rng.index(grades)).expect("at most 256 grades");
            let row: Vec<f32> = (0..d)
                .map(|j| (rng.uniform() + signal * f64::from(label) * (j % period) as f64) as f32)
                .collect();
            b.push_doc(label, &row, None).expect("valid test row");
        }
    }
    b.finish().expect("valid test dataset")
}

/// A small nonlinear ranking task for the network learners' tests: `queries` queries of
/// `per_query` documents with 3 features uniform in `[0, 1)` and grade
/// `min(2, floor(2 x0 + x1^2 + 0.3 u))` (`u` uniform noise), so a hidden layer helps. The same
/// arguments give the same dataset.
///
/// # Panics
/// Never for valid sizes (a mistake in the test otherwise).
pub fn nonlinear_toy(queries: usize, per_query: usize, seed: u64) -> Dataset {
    let mut b = DatasetBuilder::new(3);
    let mut r = Rng::new(seed);
    for q in 0..queries {
        b.start_query(&q.to_string());
        for _ in 0..per_query {
            let x = [r.uniform() as f32, r.uniform() as f32, r.uniform() as f32];
            let y = (2.0 * x[0] + x[1] * x[1] + 0.3 * r.uniform() as f32) as u8;
            b.push_doc(y.min(2), &x, None).expect("valid test row");
        }
    }
    b.finish().expect("valid test dataset")
}
