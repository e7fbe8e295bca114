//! The `datasets` list of a spec: names of the collection's datasets, or tables giving a
//! user's own data by path ([`PathDataset`]), with their options.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ltr_data::normalize::Normalization;
use ltr_format::{LabelRounding, LineFormat};
use ltr_metrics::Convention;
use serde::Serialize;

/// A dataset given by path: a user's own LETOR data (see `ExperimentSpec::paths`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathDataset {
    /// Name in reports.
    pub name: String,
    /// The folder (fold folders or the three split files) or the single file, resolved
    /// against the spec file's folder.
    pub path: PathBuf,
    /// Convention its numbers are reported with (`None`: the suite's default, or the spec's
    /// `convention`).
    pub convention: Option<Convention>,
    /// Declared feature count, for sparse data whose files differ in their highest index.
    pub features: Option<usize>,
    /// Value token read as 0 (`NULL`).
    pub missing_token: Option<String>,
    /// Seed of the split of a single file (default: the spec's seed).
    pub split_seed: Option<u64>,
    /// How the files write labels and query ids (`qid_in_comment`, `fractional_labels`).
    #[serde(skip_serializing_if = "LineFormat::is_letor")]
    pub format: LineFormat,
    /// With no convention given (here or by the spec), choose it from the grades found:
    /// `mslr` when they go above 2, else `letor3` (`ltr run --data`). Otherwise such a
    /// dataset is reported under `letor3`, the suite's default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub guess_convention: bool,
}

/// The keys a `[[datasets]]` table may have.
const DATASET_KEYS: [&str; 9] = [
    "name",
    "path",
    "convention",
    "features",
    "missing_token",
    "split_seed",
    "qid_in_comment",
    "fractional_labels",
    "normalize",
];

/// The keys of [`DATASET_KEYS`] a dataset of the collection (a table without `path`) may set.
const COLLECTION_DATASET_KEYS: [&str; 2] = ["name", "normalize"];

/// What `datasets` lists: every name in order, the datasets given by path, and the
/// normalisation of those that set one.
pub(super) type ParsedDatasets = (Vec<String>, Vec<PathDataset>, BTreeMap<String, Normalization>);

/// `datasets`: names of the collection's datasets, or tables (a `path` makes it a user's
/// own dataset).
pub(super) fn parse_datasets(
    values: &[toml::Value],
    base: &Path,
) -> std::result::Result<ParsedDatasets, String> {
    let mut names: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    let mut normalize = BTreeMap::new();
    for (i, v) in values.iter().enumerate() {
        let at = format!("datasets[{i}]");
        let name = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Table(t) => {
                if let Some(k) = t.keys().find(|k| !DATASET_KEYS.contains(&k.as_str())) {
                    return Err(format!(
                        "{at}: unknown key `{k}` (expected one of {})",
                        DATASET_KEYS.join(", ")
                    ));
                }
                let text = |k: &str| -> std::result::Result<Option<String>, String> {
                    match t.get(k) {
                        None => Ok(None),
                        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                        Some(other) => Err(format!("{at}: `{k}` must be a string, not {}", other.type_str())),
                    }
                };
                let int = |k: &str, max: u64| -> std::result::Result<Option<u64>, String> {
                    match t.get(k) {
                        None => Ok(None),
                        Some(toml::Value::Integer(n)) if *n >= 1 && (*n as u64) <= max => Ok(Some(*n as u64)),
                        Some(other) => {
                            Err(format!("{at}: `{k}` must be an integer in 1..={max}, not {other}"))
                        }
                    }
                };
                let name = text("name")?.ok_or_else(|| format!("{at}: a dataset table needs `name`"))?;
                let convention = text("convention")?
                    .map(|c| c.parse::<Convention>().map_err(|e| format!("{at}: convention: {e}")))
                    .transpose()?;
                let features =
                    int("features", ltr_format::options::MAX_UNDECLARED_FEATURES as u64)?.map(|n| n as usize);
                let split_seed = match t.get("split_seed") {
                    None => None,
                    Some(toml::Value::Integer(n)) => {
                        Some(seed_value("split_seed", *n).map_err(|e| format!("{at}: {e}"))?)
                    }
                    Some(other) => return Err(format!("{at}: `split_seed` must be an integer, not {other}")),
                };
                let missing_token = text("missing_token")?;
                if let Some(n) = text("normalize")? {
                    let n = n.parse::<Normalization>().map_err(|e| format!("{at}: normalize: {e}"))?;
                    if !n.is_none() {
                        normalize.insert(name.clone(), n);
                    }
                }
                let qid_in_comment = match t.get("qid_in_comment") {
                    None => false,
                    Some(toml::Value::Boolean(b)) => *b,
                    Some(other) => {
                        return Err(format!("{at}: `qid_in_comment` must be true or false, not {other}"));
                    }
                };
                let fractional_labels = text("fractional_labels")?
                    .map(|r| r.parse::<LabelRounding>().map_err(|e| format!("{at}: fractional_labels: {e}")))
                    .transpose()?;
                match text("path")? {
                    Some(p) => paths.push(PathDataset {
                        name: name.clone(),
                        path: base.join(p),
                        convention,
                        features,
                        missing_token,
                        split_seed,
                        format: LineFormat { qid_in_comment, fractional_labels },
                        guess_convention: false,
                    }),
                    None => {
                        if let Some(k) = t.keys().find(|k| !COLLECTION_DATASET_KEYS.contains(&k.as_str())) {
                            return Err(format!(
                                "{at} ({name}): `{k}` applies to datasets given by `path` only; the collection's manifest describes `{name}`"
                            ));
                        }
                    }
                }
                name
            }
            other => {
                return Err(format!("{at}: expected a dataset name or a table, not {}", other.type_str()));
            }
        };
        if name.trim().is_empty() {
            return Err(format!("{at}: empty dataset name"));
        }
        if names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            return Err(format!("{at}: dataset `{name}` listed twice"));
        }
        names.push(name);
    }
    Ok((names, paths, normalize))
}

/// A seed read from TOML (whose integers are signed) as the `u64` every run takes: a
/// negative one is refused, never wrapped to a huge seed that would run quietly.
pub(super) fn seed_value(key: &str, n: i64) -> std::result::Result<u64, String> {
    u64::try_from(n).map_err(|_| format!("`{key}` must be an integer in 0..={}, not {n}", i64::MAX))
}
