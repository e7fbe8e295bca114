//! Getting verified LETOR files into `ltr`'s local data cache, and resolving datasets to
//! them. The format itself (reader, manifests, folds, the embedded pieces) is `ltr-data`;
//! this crate holds everything that touches the network, archives or the cache.
//!
//! * [`options`]: [`FetchOptions`] and [`Mirror`], built by the caller (the CLI reads the
//!   environment; nothing here does).
//! * [`cache`]: where files live locally and which of them are verified;
//!   [`DataCache::verify_all`] hashes the whole cache again (`ltr verify --data`).
//! * [`fetcher`]: the plan per file: cache, then mirror, then embedded data, then the official
//!   archive.
//! * `http`, `mirror`, `archive` (private): download with `Range` resume (an unreachable
//!   host fails at once, a stalled or broken transfer is retried), the mirror and the
//!   official-archive sources; unpacking is `ltr-extract`'s.
//! * [`embedded`]: installing the data compiled into `ltr` (also a helper for tests).
//! * [`resolve()`]: dataset names -> [`ltr_data::resolved::DatasetStatus`] for the harness.
//! * [`local`]: a user's own dataset given by path (any layout, or one file split into
//!   folds) -> [`ltr_data::resolved::DatasetInput`].
//!
//! Libraries log; they never print. Progress is reported through [`Progress`].

mod archive;
pub mod cache;
mod cached;
pub mod embedded;
mod error;
pub mod fetcher;
mod holdout;
mod http;
pub mod local;
pub mod lock;
mod mirror;
pub mod options;
mod plan;
mod resolve;

pub use cache::{DataCache, FileStatus};
pub use error::FetchError;
pub use fetcher::{FetchReport, Fetcher, Variants};
pub use ltr_extract::{NoProgress, Progress};
pub use options::{FetchOptions, Mirror};
pub use resolve::{Source, resolve};
