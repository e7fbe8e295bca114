//! The file formats of `ltr`: turning the bytes of a LETOR / SVMlight file or a score file
//! into an `ltr_core::Dataset` or scores, strictly. Which files a dataset has, where they
//! come from and how they rotate into folds is `ltr-data`'s job (the catalogue); getting
//! them is `ltr-fetch`'s.
//!
//! * [`reader`]: a fast, strict two-pass parser for `label qid:Q i:v ... #docid = D` files,
//!   plain or gzip.
//! * [`options`]: how a file is read ([`ReadOptions`], [`LineFormat`]) and the reader's
//!   limits.
//! * [`tokens`]: the pieces of a line (grades, indices, values, ids).
//! * [`scores`]: one-score-per-line files (and RankLib's layout).
//! * [`trec`]: TREC run and qrels files, written from LETOR data and scores and read back.
//! * [`DataError`]: the errors of the data layer, shared with `ltr-data`.

mod error;
pub mod options;
pub mod reader;
pub mod scores;
pub mod tokens;
pub mod trec;

pub use error::{DataError, DenseLimit, ParseErrorKind};
pub use options::{LabelRounding, LineFormat, ReadOptions};
pub use reader::{Loaded, read_file};
