//! The code a cell's numbers depend on, by hash: the sources of each workspace crate and the
//! dependency graph between them, computed at build time (see `build.rs`), and `Cargo.lock`.
//!
//! A cell's code is read off the graph: the crate that decides numbers ([`NUMBERS_CRATE`],
//! all of its sources: specs, registry, protocol) and every workspace crate it reaches,
//! except the algorithm crates other than the cell's own (and what only they reach), plus
//! the cell's algorithm crate and everything it reaches, plus `Cargo.lock`. Which crates are
//! algorithm crates comes from the registry ([`ltr_harness::registry::crate_of`] over
//! [`ltr_harness::ALGORITHMS`]). So a change to LambdaMART recomputes LambdaMART's cells
//! only, a change to the reader or the metrics recomputes everything, and a change to this
//! crate, the reports or the CLI recomputes nothing (none of them is reached). The table is a
//! value, not a global, so tests can pass altered tables and see which keys move.

use std::collections::{BTreeMap, BTreeSet};

use ltr_harness::registry::crate_of;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{Result, RunnerError};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/code_hashes.rs"));
}

/// The crate whose code decides every cell's numbers: the spec model, the registry, the
/// protocol and model selection.
pub const NUMBERS_CRATE: &str = "ltr-harness";

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
    /// Workspace crates by name (`ltr-lambdamart`): this crate and every one it reaches.
    pub crates: BTreeMap<String, CrateCode>,
    /// The crates of the registered algorithms (from the registry).
    pub algorithm_crates: BTreeSet<String>,
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
            // Every registered id has a crate; an id without one is the registry's own bug
            // and shows as a missing crate when its cells are keyed.
            algorithm_crates: ltr_harness::ALGORITHMS.iter().filter_map(|a| crate_of(a.id).ok()).collect(),
            cargo_lock: generated::CARGO_LOCK.to_owned(),
        }
    }

    /// `krate` and every workspace crate it depends on, directly or not: name -> sources hash.
    pub fn closure(&self, krate: &str) -> Result<BTreeMap<&str, &str>> {
        self.reach(krate, &BTreeSet::new())
    }

    /// `krate` and every crate it reaches without going through one of `avoid`.
    fn reach(&self, krate: &str, avoid: &BTreeSet<&str>) -> Result<BTreeMap<&str, &str>> {
        let mut out = BTreeMap::new();
        let mut todo = vec![krate];
        while let Some(name) = todo.pop() {
            if out.contains_key(name) || avoid.contains(name) {
                continue;
            }
            let (key, code) = self.crates.get_key_value(name).ok_or_else(|| RunnerError::Code {
                reason: format!("no source hash for crate `{name}` (needed by `{krate}`)"),
            })?;
            out.insert(key.as_str(), code.sources.as_str());
            todo.extend(code.deps.iter().map(String::as_str));
        }
        Ok(out)
    }

    /// What a cell of an algorithm in crate `krate` depends on.
    pub fn cell_code(&self, krate: &str) -> Result<CellCode<'_>> {
        let others: BTreeSet<&str> =
            self.algorithm_crates.iter().map(String::as_str).filter(|c| *c != krate).collect();
        let mut crates = self.reach(NUMBERS_CRATE, &others)?;
        crates.extend(self.closure(krate)?);
        Ok(CellCode { crates, cargo_lock: &self.cargo_lock })
    }
}

/// The code part of a cell key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellCode<'a> {
    /// Every crate the cell's code goes through ([`CodeHashes::cell_code`]): name -> sources
    /// hash.
    pub crates: BTreeMap<&'a str, &'a str>,
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
    fn the_builtin_table_covers_every_registered_algorithm_and_the_numbers_crate() {
        let code = CodeHashes::builtin();
        assert_eq!(code.algorithm_crates.len(), {
            let mut c: Vec<String> =
                ltr_harness::ALGORITHMS.iter().map(|a| crate_of(a.id).unwrap()).collect();
            c.sort();
            c.dedup();
            c.len()
        });
        for krate in &code.algorithm_crates {
            let cell = code.cell_code(krate).unwrap();
            for c in [krate.as_str(), NUMBERS_CRATE, "ltr-core", "ltr-data", "ltr-metrics"] {
                assert!(cell.crates.contains_key(c), "{krate}: {c}");
            }
            // No other algorithm's crate.
            for other in code.algorithm_crates.iter().filter(|o| *o != krate) {
                assert!(
                    !cell.crates.contains_key(other.as_str())
                        || code.closure(krate).unwrap().contains_key(other.as_str()),
                    "{krate}: {other}"
                );
            }
            assert!(!cell.crates.contains_key("ltr-runner"), "{krate}");
        }
        let cell = code.cell_code("ltr-lambdamart").unwrap();
        assert!(cell.crates.contains_key("ltr-trees"), "{:?}", cell.crates);
        assert!(!code.cell_code("ltr-pointwise").unwrap().crates.contains_key("ltr-trees"));
        assert!(code.cargo_lock.len() == 64 && code.crates.values().all(|c| c.sources.len() == 64));
        assert!(code.closure("ltr-nope").is_err());
    }
}
