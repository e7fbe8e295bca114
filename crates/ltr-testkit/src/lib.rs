//! Test support for the unit tests of the algorithm crates (a dev-dependency only): small
//! hand-written datasets. Real-data tests live in the root package (`tests/it/algorithms/`),
//! where they run the harness's cross-validation protocol exactly as the reports do.

use ltr_core::{Dataset, DatasetBuilder};

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
