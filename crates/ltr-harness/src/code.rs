//! The code a cell's numbers depend on, by hash: the sources of each workspace crate, computed
//! at build time (see `build.rs`), and `Cargo.lock`.
//!
//! A cell is keyed by the sources of its algorithm's crate and every workspace crate that one
//! depends on, plus the crates every cell's numbers go through whatever the algorithm (the
//! reader and formats, the metrics, the core types, and the harness's protocol and registry),
//! plus `Cargo.lock`. So a change to LambdaMART recomputes LambdaMART's cells only, and a
//! change to the reader or the metrics recomputes everything. The table is a value, not a
//! global, so tests can pass altered tables and see which keys move.

use std::collections::BTreeMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{HarnessError, Result};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/code_hashes.rs"));
}

/// The crates on every cell's evaluation path (each with its own dependencies).
pub const EVALUATION_CRATES: [&str; 3] = ["ltr-core", "ltr-data", "ltr-metrics"];

/// One workspace crate: the sha256 of its sources and its direct workspace dependencies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrateCode {
    /// sha256 over its `Cargo.toml`, `build.rs` and `src/**`.
    pub sources: String,
    /// Direct `ltr-*` dependencies (normal ones).
    pub deps: Vec<String>,
}

/// The code hashes of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeHashes {
    /// Workspace crates by name (`ltr-lambdamart`).
    pub crates: BTreeMap<String, CrateCode>,
    /// The harness's own files on the evaluation path (`src/protocol.rs`) and their sha256.
    pub harness_files: BTreeMap<String, String>,
    /// sha256 of `Cargo.lock`.
    pub cargo_lock: String,
}

impl CodeHashes {
    /// The hashes of the sources this binary was built from.
    pub fn builtin() -> Self {
        Self {
            crates: generated::CRATES
                .iter()
                .map(|(name, sources, deps)| {
                    let code = CrateCode {
                        sources: (*sources).to_owned(),
                        deps: deps.iter().map(|d| (*d).to_owned()).collect(),
                    };
                    ((*name).to_owned(), code)
                })
                .collect(),
            harness_files: generated::HARNESS_FILES
                .iter()
                .map(|(f, h)| ((*f).to_owned(), (*h).to_owned()))
                .collect(),
            cargo_lock: generated::CARGO_LOCK.to_owned(),
        }
    }

    /// `krate` and every workspace crate it depends on, directly or not: name -> sources hash.
    pub fn closure(&self, krate: &str) -> Result<BTreeMap<&str, &str>> {
        let mut out = BTreeMap::new();
        let mut todo = vec![krate];
        while let Some(name) = todo.pop() {
            if out.contains_key(name) {
                continue;
            }
            let (key, code) = self.crates.get_key_value(name).ok_or_else(|| HarnessError::Code {
                reason: format!("no source hash for crate `{name}` (needed by `{krate}`)"),
            })?;
            out.insert(key.as_str(), code.sources.as_str());
            todo.extend(code.deps.iter().map(String::as_str));
        }
        Ok(out)
    }

    /// What a cell of an algorithm in crate `krate` depends on.
    pub fn cell_code(&self, krate: &str) -> Result<CellCode<'_>> {
        let mut evaluation = BTreeMap::new();
        for c in EVALUATION_CRATES {
            evaluation.extend(self.closure(c)?);
        }
        Ok(CellCode {
            algorithm: self.closure(krate)?,
            evaluation,
            harness: self.harness_files.iter().map(|(f, h)| (f.as_str(), h.as_str())).collect(),
            cargo_lock: &self.cargo_lock,
        })
    }
}

/// The code part of a cell key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellCode<'a> {
    /// The algorithm's crate and its workspace dependencies: name -> sources hash.
    pub algorithm: BTreeMap<&'a str, &'a str>,
    /// [`EVALUATION_CRATES`] and their dependencies.
    pub evaluation: BTreeMap<&'a str, &'a str>,
    /// The harness's files on the evaluation path.
    pub harness: BTreeMap<&'a str, &'a str>,
    /// `Cargo.lock`.
    pub cargo_lock: &'a str,
}

/// Lowercase hex sha256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_builtin_table_covers_every_registered_algorithm_and_the_evaluation_path() {
        let code = CodeHashes::builtin();
        for id in crate::registry::ALGORITHMS.iter().map(|a| a.id) {
            let krate = crate::registry::crate_of(id).unwrap();
            let cell = code.cell_code(&krate).unwrap();
            assert!(
                cell.algorithm.contains_key(krate.as_str()) && cell.algorithm.contains_key("ltr-core"),
                "{id}"
            );
        }
        let cell = code.cell_code("ltr-lambdamart").unwrap();
        assert!(cell.algorithm.contains_key("ltr-trees"), "{:?}", cell.algorithm);
        for c in EVALUATION_CRATES {
            assert!(cell.evaluation.contains_key(c));
        }
        assert_eq!(code.harness_files.len(), 2);
        assert!(code.cargo_lock.len() == 64 && code.crates.values().all(|c| c.sources.len() == 64));
        assert!(code.closure("ltr-nope").is_err());
    }
}
