//! The run digest: one sha256 over the test scores of every cell of a report, and one per
//! dataset. Scores are written at full precision, so two runs share a digest exactly when
//! every model scored every test document the same: the claim "the same numbers at any
//! thread count" is then one comparison (`ltr check --tolerance 0`, `ltr verify --report`).

use std::collections::BTreeMap;

use ltr_runner::store::CellRecord;
use serde::{Deserialize, Serialize};

/// The digests of a report's cells.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunDigest {
    /// sha256 over every cell, in report order.
    pub all: String,
    /// Number of cells it covers.
    pub cells: usize,
    /// Dataset -> sha256 over its cells, in report order.
    pub datasets: BTreeMap<String, String>,
}

/// The line a cell contributes: where it sits (dataset, algorithm label, fold) and the sha256
/// of its scores file, so that two cells swapping their scores change the digest too.
fn line(cell: &CellRecord) -> String {
    format!("{}\t{}\t{}\t{}", cell.dataset, cell.label, cell.fold, cell.scores_sha256)
}

/// The digest of `cells`, taken in the order given (the report's: dataset, algorithm, fold).
pub fn run_digest<'a>(cells: impl IntoIterator<Item = &'a CellRecord>) -> RunDigest {
    let mut all = Vec::new();
    let mut by_dataset: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for cell in cells {
        let l = line(cell);
        by_dataset.entry(cell.dataset.clone()).or_default().push(l.clone());
        all.push(l);
    }
    RunDigest {
        all: combined_hash(all.iter()),
        cells: all.len(),
        datasets: by_dataset.into_iter().map(|(d, lines)| (d, combined_hash(lines.iter()))).collect(),
    }
}

/// sha256 over strings, each followed by a newline.
pub fn combined_hash<'a>(items: impl Iterator<Item = &'a String>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for x in items {
        h.update(x.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Where two digests disagree, per dataset present in both (`dataset: expected X, got Y`).
pub fn differences(expected: &RunDigest, got: &RunDigest) -> Vec<String> {
    expected
        .datasets
        .iter()
        .filter_map(|(d, e)| {
            let g = got.datasets.get(d)?;
            (g != e).then(|| format!("{d}: run digest {g}, expected {e}"))
        })
        .collect()
}
