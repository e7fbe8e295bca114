//! The per-query frame of a report's cells and everything computed from it: the fold means
//! and their aggregation (polars), the significance tests, the strata of wins by query
//! difficulty, the summary across datasets and the convention sensitivity, with the run
//! digest and the small markdown pieces their tables share.
//!
//! It takes plain data (cell records, stored test scores, a significance configuration),
//! never a whole report input: `ltr-report` builds the report from these parts and
//! re-exports the modules under their old paths (`ltr_report::aggregate`, ...).

pub mod aggregate;
pub mod digest;
pub mod markdown;
pub mod per_query;
pub mod seeds;
pub mod sensitivity;
pub mod significance;
pub mod strata;
pub mod summary;
#[doc(hidden)]
pub mod testutil;
mod values;

use std::path::{Path, PathBuf};

pub use values::MetricValues;

/// Errors of the frames and the analyses on them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A missing or unreadable input (a test file, an output directory).
    #[error("{}: {reason}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A polars failure.
    #[error("aggregation: {0}")]
    Polars(String),
    /// The runner or the result store.
    #[error(transparent)]
    Runner(#[from] ltr_runner::RunnerError),
}

impl FrameError {
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> Self {
        Self::Input { path: path.to_owned(), reason: e.to_string() }
    }
}

impl From<polars::prelude::PolarsError> for FrameError {
    fn from(e: polars::prelude::PolarsError) -> Self {
        Self::Polars(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_metrics::{Convention, EvalConfig, Metric};
    use ltr_runner::store::CellRecord;

    use crate::aggregate::{self, FoldRow, METRICS};
    use crate::testutil::cell;

    /// A cell of `n` queries with random grades and scores, qids shuffled (so the script's
    /// numeric order is not the file order) and evaluated under `cfg`.
    fn random_cell(label: &str, fold: u32, n: usize, cfg: &EvalConfig, seed: u64) -> CellRecord {
        let mut rng = ltr_core::Rng::new(seed);
        let mut ids: Vec<usize> = (1..=n).map(|i| i * 7).collect();
        rng.shuffle(&mut ids);
        let qids: Vec<String> = ids.iter().map(usize::to_string).collect();
        let (mut labels, mut offsets, mut scores) = (Vec::new(), vec![0], Vec::new());
        for q in 0..n {
            let docs = 3 + rng.index(20);
            for _ in 0..docs {
                // Every fifth query has no relevant document.
                labels.push(if q % 5 == 0 { 0 } else { rng.index(3) as u8 });
                scores.push(rng.uniform());
            }
            offsets.push(labels.len());
        }
        let eval = ltr_metrics::evaluate(&qids, &labels, &offsets, None, &scores, cfg).unwrap();
        let mut c = cell(label, fold, &[0.9, 0.1, 0.5, 0.2, 0.3]);
        c.eval = *cfg;
        c.test = eval.summary;
        c.per_query = eval.per_query;
        c
    }

    #[test]
    fn fold_means_from_the_query_frame_equal_the_evaluations_bit_for_bit() {
        // More queries than polars' pairwise-sum block, under a convention that counts every
        // query and one that skips those without relevant documents.
        let skip = EvalConfig::standard(ltr_metrics::NoRelevant::Skip);
        let letor = EvalConfig::official(Convention::Letor3);
        let cells = [
            random_cell("a", 1, 300, &letor, 1),
            random_cell("a", 2, 157, &letor, 2),
            random_cell("b", 1, 300, &skip, 3),
            random_cell("b", 2, 21, &skip, 4),
        ];
        assert!(cells[2].test.n_counted < cells[2].test.n_queries);
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let frame = aggregate::query_frame(&refs).unwrap();
        let rows = aggregate::fold_rows(&frame).unwrap();
        assert_eq!(rows.len(), cells.len());
        for (r, c) in rows.iter().zip(&cells) {
            let want = FoldRow::of(c);
            assert_eq!((&r.dataset, &r.algorithm, r.fold), (&want.dataset, &want.algorithm, want.fold));
            assert_eq!(
                r.metrics.map(f64::to_bits),
                want.metrics.map(f64::to_bits),
                "{} fold {}",
                c.label,
                c.fold
            );
        }
    }

    #[test]
    fn query_and_cell_frames_hold_every_query_and_every_cell() {
        let cells = [cell("a", 1, &[0.9, 0.1, 0.5, 0.2, 0.3]), cell("a", 2, &[0.1, 0.9, 0.5, 0.3, 0.2])];
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let q = aggregate::query_frame(&refs).unwrap();
        assert_eq!(q.shape(), (4, 6 + aggregate::FRAME_METRICS.len()));
        assert_eq!(q.column("query").unwrap().str().unwrap().get(1), Some("q2"));
        // The per-query means are the fold's means (no document ids to collapse here).
        let means = aggregate::fold_means(&q, &[Metric::Map]).unwrap();
        for (row, c) in means.iter().zip(&cells) {
            assert!((row.3[0] - c.test.map).abs() < 1e-15);
        }
        let rows: Vec<FoldRow> = cells.iter().map(FoldRow::of).collect();
        let f = aggregate::cell_frame(&rows).unwrap();
        assert_eq!(f.shape(), (2, 3 + METRICS.len()));
        assert_eq!(
            f.column("ndcg@10").unwrap().f64().unwrap().get(0),
            Metric::Ndcg(10).of_summary(&cells[0].test)
        );
    }
}
