//! Published reference numbers (`reports/published/letor.toml`), kept with their source.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{MetricValues, ReportError};

/// The shipped reference file, compiled in.
pub const BUILTIN: &str = include_str!("../../../reports/published/letor.toml");

/// The largest reference-numbers file read (64 MiB, far above the shipped one's few
/// kilobytes).
pub const MAX_PUBLISHED_BYTES: u64 = 64 << 20;

/// A source of published numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Full citation.
    pub citation: String,
}

/// One published row: an algorithm's 5-fold means on a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRow {
    /// Collection id (`letor3`).
    pub collection: String,
    /// Dataset.
    pub dataset: String,
    /// Algorithm as named in the source.
    pub algorithm: String,
    /// Our algorithm ids that correspond to it (empty: not implemented here).
    pub ids: Vec<String>,
    /// Key into `sources`.
    pub source: String,
    /// Metric -> value (written `ndcg@10 = 0.41`).
    pub metrics: MetricValues,
    /// Caveat shown with the row.
    #[serde(default)]
    pub note: Option<String>,
}

/// The whole reference file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// Sources by key.
    pub sources: BTreeMap<String, Source>,
    /// Rows.
    pub results: Vec<PublishedRow>,
}

impl Published {
    /// The shipped numbers.
    pub fn builtin() -> Result<Self, ReportError> {
        Self::parse(BUILTIN, Path::new("reports/published/letor.toml"))
    }

    /// Loads a reference file.
    pub fn load(path: &Path) -> Result<Self, ReportError> {
        let text = ltr_core::fs::read_bounded_to_string(path, MAX_PUBLISHED_BYTES)
            .map_err(|e| ReportError::io(path, e))?;
        Self::parse(&text, path)
    }

    fn parse(text: &str, path: &Path) -> Result<Self, ReportError> {
        let p: Published = toml::from_str(text)
            .map_err(|e| ReportError::Input { path: path.to_owned(), reason: e.to_string() })?;
        for r in &p.results {
            if !p.sources.contains_key(&r.source) {
                return Err(ReportError::Input {
                    path: path.to_owned(),
                    reason: format!("{} on {}: unknown source `{}`", r.algorithm, r.dataset, r.source),
                });
            }
        }
        Ok(p)
    }

    /// Rows of a collection and dataset.
    pub fn rows<'a>(
        &'a self,
        collection: &'a str,
        dataset: &'a str,
    ) -> impl Iterator<Item = &'a PublishedRow> + 'a {
        self.results.iter().filter(move |r| r.collection == collection && r.dataset == dataset)
    }
}
