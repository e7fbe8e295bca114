//! The data layer of `ltr`: reading LETOR files, dataset manifests, and getting verified
//! files into the local data cache (from a mirror or the official addresses).
//!
//! * [`reader`]: a fast, strict parser for `label qid:Q i:v ... #docid = D` files, plain or
//!   gzip.
//! * [`manifest`]: `datasets/*.toml`, compiled in: addresses, layouts, hashes.
//! * [`cache`]: where files live locally and which of them are verified.
//! * [`fetch`]: HTTP(S) download with resume, retries and verification, mirrors.
//! * [`extract`]: safe unpacking of `.zip`, `.rar`, `.gz` and `.tar.gz` archives.
//!
//! Libraries log; they never print. Progress is reported through [`fetch::Progress`].

pub mod cache;
mod error;
pub mod extract;
pub mod fetch;
pub mod folds;
pub mod manifest;
pub mod reader;
pub mod resolved;
pub mod scores;

pub use cache::{DataCache, FileStatus};
pub use error::{DataError, ParseErrorKind};
pub use fetch::{FetchOptions, FetchReport, Fetcher, Mirror, NoProgress, Progress};
pub use manifest::{Manifest, Split};
pub use reader::{Loaded, ReadOptions, read_file};
