//! Structure-aware fuzzers of `ltr`'s parsers, run millions of times on the stable toolchain
//! (`just fuzz`). Test support only: no crate of the binary depends on this one.
//!
//! * [`data`]: the LETOR reader and the score-file parser (`ltr-data`).
//! * [`harness`]: model files of every algorithm and experiment specs (`ltr-harness`).

pub mod data;
mod driver;
pub mod harness;
