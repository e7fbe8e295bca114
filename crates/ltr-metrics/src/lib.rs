//! Ranking metrics under explicit, named conventions.
//!
//! Published LTR numbers disagree mostly because evaluation scripts disagree. Every number
//! this crate produces is tied to a [`Convention`]:
//!
//! | | `letor3` | `letor4` | `mslr` | `standard` |
//! |---|---|---|---|---|
//! | gain | 2^l - 1 | 2^l - 1 | 2^l - 1 | 2^l - 1 |
//! | discount at rank r | 1 for r <= 2, else 1/log2(r) | same | same | 1/log2(r + 1) |
//! | NDCG@k and DCG@k, k > n | 0 | 0 | 0 | NDCG@n, DCG@n |
//! | P@k, k > n | 0 | relevant/k | relevant/k | relevant/k |
//! | recall@k, k > n | 0 | 1 | 1 | 1 |
//! | relevant (P, recall, MAP, MRR) | l >= 1 | l >= 1 | l >= 2 | l >= 1 (configurable) |
//! | ERR's gmax, stop probability (2^l - 1) / 2^gmax | 2 | 2 | 4 | the data's highest grade |
//! | query with no relevant document | 0, counted | 0, counted | 0, counted | configurable: 0, 1 or skipped |
//! | ties | file order | file order | file order | file order |
//!
//! Ties can instead be ordered pessimistically (relevant documents last) or every metric
//! taken as its exact expectation over the orders of the tied documents ([`Ties`]), under any
//! convention; file order is the default and the only rule of the official scripts.
//!
//! `letor3`, `letor4` and `mslr` reproduce the official evaluation scripts
//! (`Eval-Score-3.0.pl`, `Eval-Score-4.0.pl` and its MSLR variant) exactly, including the
//! order of floating-point operations. Means are taken over queries, per file; the harness
//! then averages folds.
//!
//! Labels are integer grades ([`ltr_core::Grade`]), and every gain, threshold and ERR stop
//! probability above is of the grade. A release with real-valued labels (Yandex's Internet
//! Mathematics 2009: means of assessors' grades such as 0.5 or 2.16049) is read under a
//! declared rule that makes each label a grade (`fractional_labels = "round"` or `"floor"` in
//! `ltr-data`), so its gain is, say, 2^round(l) - 1, never 2^l - 1 of the real value.
//!
//! Under the official conventions a query "has no relevant document" when its ideal DCG is
//! 0 (NDCG) or when no document reaches the relevance threshold (P, MAP, MRR), exactly as in
//! the scripts. Under `standard`, the no-relevant policy applies to queries with no document
//! at or above the threshold.

mod config;
mod criterion;
mod eval;
pub mod lambda;
mod metric;
pub mod official;
mod parts;
mod ties;

pub use config::{EvalConfig, MAX_K, exponential_gain};
pub use ltr_core::Convention;
pub use parts::{ConventionParts, DiscountRule, GainRule, NdcgPastEnd, NoRelevant, PrecisionPastEnd, Ties};

/// The convention of everything that names none (`ltr eval`, `ltr train`, user datasets,
/// learners evaluating during training): the LETOR 3.0 script's.
pub const DEFAULT_CONVENTION: Convention = Convention::Letor3;
pub use criterion::Criterion;
pub use eval::{
    Evaluation, QueryMetrics, Summary, evaluate, evaluate_dataset, evaluate_query, rank_order, script_order,
};
pub use metric::{Metric, MetricScratch};

/// Errors of this crate.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A score that is NaN: rankings are undefined.
    #[error("score of document {doc} (query {qid}, position {position} in the query) is NaN")]
    NanScore {
        /// Query id.
        qid: String,
        /// Document index in the data set.
        doc: usize,
        /// Position within the query (0-based, file order).
        position: usize,
    },
    /// Scores and labels of different lengths.
    #[error("{scores} scores for {docs} documents")]
    Length {
        /// Number of scores given.
        scores: usize,
        /// Number of documents.
        docs: usize,
    },
    /// A metric name that does not parse.
    #[error("unknown metric `{0}` (expected map, mrr, mean-ndcg, ndcg@K, p@K, err@K, dcg@K or recall@K)")]
    UnknownMetric(String),
    /// A cut-off above [`MAX_K`].
    #[error("{what}: cut-off {k} is above the largest supported, {max}")]
    Cutoff {
        /// The metric or setting that carries it (`ndcg@5000`, `max_k`).
        what: String,
        /// The cut-off given.
        k: usize,
        /// [`MAX_K`].
        max: usize,
    },
    /// An inconsistent evaluation config.
    #[error("invalid evaluation config: {0}")]
    Config(&'static str),
}

/// Result alias for [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
