//! The dataset catalogue of `ltr`: which datasets exist and what their files are (the
//! manifests), how files rotate into folds, the data compiled into the binary, a user's own
//! data, and datasets resolved to verified local files. Reading one file is `ltr-format`'s
//! job; getting files (network, archives, the cache) is `ltr-fetch`'s.
//!
//! * [`manifest`]: `datasets/*.toml`, compiled in: addresses, layouts, hashes, embedded pieces.
//! * [`rotation`]: the splits of a fold and the LETOR rotation of subsets into folds.
//! * [`folds`]: loading a fold from a folder; the subsets behind rotated fold files.
//! * [`embedded`]: the OHSUMED and MQ2008 subsets compiled in, and folds rebuilt from them.
//! * [`resolved`]: datasets resolved to verified local files, as the harness consumes them.
//! * [`local`]: a user's own data: layout detection and one-pass file summaries.
//! * [`split`]: one file split into query-disjoint subsets and rotated into folds.
//! * [`normalize`]: feature normalisation (per-query min-max, z-scores), fitted on a
//!   training split and applied to any split.
//!
//! Its errors are `ltr_format::DataError` (one enum for the data layer).

pub mod embedded;
pub mod folds;
pub mod local;
pub mod manifest;
pub mod normalize;
pub mod resolved;
pub mod rotation;
pub mod split;

pub use manifest::Manifest;
pub use rotation::Split;
