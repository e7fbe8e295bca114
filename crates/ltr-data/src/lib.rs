//! The LETOR format layer of `ltr`: reading files, dataset manifests, folds, score files and
//! the data compiled into the binary. No network, no archives: getting files is `ltr-fetch`'s
//! job.
//!
//! * [`reader`]: a fast, strict parser for `label qid:Q i:v ... #docid = D` files, plain or
//!   gzip.
//! * [`manifest`]: `datasets/*.toml`, compiled in: addresses, layouts, hashes, embedded pieces.
//! * [`folds`]: the LETOR rotation of subsets into folds; loading a fold from a folder.
//! * [`embedded`]: the OHSUMED and MQ2008 subsets compiled in, and folds rebuilt from them.
//! * [`resolved`]: datasets resolved to verified local files, as the harness consumes them.
//! * [`local`]: a user's own data: layout detection and one-pass file summaries.
//! * [`normalize`]: feature normalisation (per-query min-max, z-scores), fitted on a
//!   training split and applied to any split.
//! * [`split`]: one file split into query-disjoint subsets and rotated into folds.
//! * [`scores`]: one-score-per-line files (and RankLib's layout).

pub mod embedded;
mod error;
pub mod folds;
pub mod local;
pub mod manifest;
pub mod normalize;
pub mod reader;
pub mod resolved;
pub mod scores;
pub mod split;
pub mod trec;

pub use error::{DataError, DenseLimit, ParseErrorKind};
pub use manifest::{Manifest, Split};
pub use reader::{LabelRounding, LineFormat, Loaded, ReadOptions, read_file};
