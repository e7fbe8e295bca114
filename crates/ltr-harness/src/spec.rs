//! Experiment specs (`experiments/*.toml`): which datasets, folds and algorithms, each with a
//! small hyperparameter grid, the master seed, the selection metric and the convention.
//!
//! ```toml
//! name = "letor3"            # results/<name>/, reports/<name>.md
//! collection = "letor3"      # datasets/<collection>.toml
//! datasets = ["OHSUMED", "TD2003"]
//! folds = [1, 2, 3, 4, 5]
//! seed = 42
//! validation_metric = "map"  # model selection on vali (LETOR protocol); default map; also
//!                            # ndcg@K, p@K, mrr, mean-ndcg, err@K, dcg@K, recall@K
//! # convention = "letor3"    # default: each dataset's convention from the manifest
//! # eval = { gain = "linear", ties = "expected" } # parts that depart from the convention
//! #                          # (also max_grade: ERR's gmax, default the convention's)
//! # baseline = "ranksvm"     # the label the report tests the others against; default: the first
//! # significance = "t"       # "t" (default), "randomization" or "tukey" (all pairs)
//!
//! [[algorithms]]
//! id = "ranksvm"
//! params = { max_iter = 100 } # fixed values (optional)
//! grid = { c = [0.01, 0.1, 1.0] } # every combination is fitted (optional)
//! # label = "ranksvm-small"  # to run one id twice with different fixed params
//! # validation_metric = "ndcg@10"
//! ```
//!
//! Datasets may also be given by path (a user's own data; `collection` is then optional):
//!
//! ```toml
//! [[datasets]]
//! name = "OHSUMED-L2"
//! path = "data/letor2/OHSUMED/Data"   # relative to the spec file
//! convention = "letor3"                # optional
//! normalize = "query-minmax"            # optional: none (default), query-minmax, zscore, log1p-zscore
//! ```
//!
//! `normalize` may also be set for a dataset of the collection (`[[datasets]]` with `name`
//! and `normalize` only).
//!
//! Every key is documented in `experiments/README.md`.
//!
//! Parameters are checked against each algorithm's typed parameter struct when the spec is
//! loaded: an unknown key or a value of the wrong type or outside its documented range is an
//! error naming the file, the algorithm and the key. So is a `name` that is not one plain
//! folder name ([`check_name`]), a fold or dataset listed twice, and a spec whose grids ask
//! for more model fits than [`SpecLimits::max_cells`] (counted before any grid is expanded).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ltr_data::Manifest;
use ltr_data::normalize::Normalization;
use ltr_format::LineFormat;
use ltr_metrics::{Convention, ConventionParts, Metric};
use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};
use crate::registry::{AlgoConfig, default_validation_metric};

mod datasets;
pub use datasets::PathDataset;
use datasets::{parse_datasets, seed_value};

/// The largest spec file read (16 MiB; grids are lists of values, so a spec of any size of
/// run is a few kilobytes).
pub const MAX_SPEC_BYTES: u64 = 16 << 20;

/// Spec files shipped in `experiments/`, compiled in.
pub const BUILTIN: [(&str, &str); 6] = [
    ("letor3", include_str!("../../../experiments/letor3.toml")),
    ("letor4", include_str!("../../../experiments/letor4.toml")),
    ("mslr", include_str!("../../../experiments/mslr.toml")),
    ("yahoo", include_str!("../../../experiments/yahoo.toml")),
    ("istella", include_str!("../../../experiments/istella.toml")),
    ("yandex", include_str!("../../../experiments/yandex.toml")),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: String,
    #[serde(default)]
    collection: Option<String>,
    datasets: Vec<toml::Value>,
    #[serde(default)]
    published: Option<PathBuf>,
    #[serde(default = "default_folds")]
    folds: Vec<u32>,
    // Signed, as TOML writes integers, so that a negative seed is refused by name below
    // rather than by serde's multi-line message.
    seed: i64,
    // Signed for the same reason: a bad count is refused by name below.
    #[serde(default)]
    seeds: Option<i64>,
    #[serde(default)]
    validation_metric: Option<String>,
    #[serde(default)]
    convention: Option<Convention>,
    #[serde(default)]
    eval: ConventionParts,
    #[serde(default)]
    baseline: Option<String>,
    #[serde(default)]
    significance: SignificanceTest,
    #[serde(default = "yes")]
    scale_limits: bool,
    #[serde(default)]
    algorithms: Vec<RawAlgorithm>,
}

fn yes() -> bool {
    true
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The most seeds per selected model a spec may ask for (`seeds`).
pub const MAX_SEEDS: u32 = 100;

/// The spec key `seeds`: 1 when absent, else a count in `1..=MAX_SEEDS`.
fn seeds_value(raw: Option<i64>) -> std::result::Result<u32, String> {
    match raw {
        None => Ok(1),
        Some(n) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_SEEDS).contains(n))
            .ok_or_else(|| format!("`seeds` must be between 1 and {MAX_SEEDS}, not {n}")),
    }
}

/// How a report tests the differences between algorithms (`significance` in a spec).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignificanceTest {
    /// Paired two-sided Student t-test against the baseline, Holm-corrected.
    #[default]
    T,
    /// Paired Fisher randomisation test against the baseline, Holm-corrected.
    Randomization,
    /// Randomised Tukey HSD over all pairs of algorithms.
    Tukey,
}

fn default_folds() -> Vec<u32> {
    vec![1, 2, 3, 4, 5]
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAlgorithm {
    id: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    params: toml::Table,
    #[serde(default)]
    grid: BTreeMap<String, Vec<toml::Value>>,
    #[serde(default)]
    validation_metric: Option<String>,
}

/// A checked experiment spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExperimentSpec {
    /// Where it came from (file path or `builtin:<name>`).
    pub source: String,
    /// Name of the run and of the report.
    pub name: String,
    /// The collection (manifest) the datasets belong to; empty when every dataset is given
    /// by path.
    pub collection: String,
    /// Datasets, in report order.
    pub datasets: Vec<String>,
    /// The datasets of [`ExperimentSpec::datasets`] given by path, not by the collection.
    pub paths: Vec<PathDataset>,
    /// A published-numbers file (the format of `reports/published/`) to show beside ours.
    pub published: Option<PathBuf>,
    /// Folds.
    pub folds: Vec<u32>,
    /// Master seed.
    pub seed: u64,
    /// Seeds per selected model (spec key `seeds`, [`MAX_SEEDS`] at most, default 1): above
    /// 1, the protocol fits each cell's selected grid point again with `seeds - 1` further
    /// seeds derived from the point's own, when its algorithm draws from its seed
    /// ([`crate::protocol::SeedRuns`]).
    #[serde(skip_serializing_if = "is_one")]
    pub seeds: u32,
    /// Convention override (else each dataset's own).
    pub convention: Option<Convention>,
    /// Parts of the convention set one by one (gain, discount, past-end rules, no-relevant
    /// policy, relevance threshold, tie rule), over whichever convention applies. Numbers
    /// computed with any part set are named by [`ltr_metrics::EvalConfig::label`].
    pub eval: ConventionParts,
    /// The algorithms, in report order.
    pub algorithms: Vec<AlgorithmEntry>,
    /// The label of the algorithm the report tests the others against (`None`: the first).
    pub baseline: Option<String>,
    /// The report's significance test.
    pub significance: SignificanceTest,
    /// Whether the algorithms' scale limits apply ([`crate::limits`]; spec key
    /// `scale_limits`, default `true`).
    pub scale_limits: bool,
    /// Dataset name -> its feature normalisation (the `normalize` key of a `[[datasets]]`
    /// table); a dataset not named here is read as it is ([`ExperimentSpec::normalization`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub normalize: BTreeMap<String, Normalization>,
}

/// One algorithm of a spec with its expanded grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmEntry {
    /// The algorithm id.
    pub id: String,
    /// Unique label within the spec (defaults to the id).
    pub label: String,
    /// Selection metric on vali.
    pub validation_metric: Metric,
    /// Every grid point, typed, in a fixed order (grid keys sorted, last key fastest).
    pub grid: Vec<AlgoConfig>,
}

/// The most model fits a spec may ask for unless raised ([`SpecLimits::max_cells`]).
pub const DEFAULT_MAX_CELLS: u64 = 100_000;

/// The most grid points a spec may expand to, summed over its algorithm entries, whatever
/// [`SpecLimits::max_cells`] allows. Every point is kept in memory as a typed configuration
/// and written into each cell record of its entry (about 0.3 KB of JSON), so this bounds a
/// cell record to about 30 MB; loading a spec of 100,000 LambdaMART points takes about a
/// second and 90 MB. Counted before anything is expanded.
pub const MAX_GRID_POINTS: u64 = 100_000;

/// Bounds checked when a spec is loaded, before anything is allocated for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecLimits {
    /// The most model fits (grid points, summed over the algorithm entries, times datasets
    /// times folds) a spec may ask for. Grids are counted before they are expanded, so a
    /// spec over the limit costs nothing.
    pub max_cells: u64,
}

impl Default for SpecLimits {
    fn default() -> Self {
        Self { max_cells: DEFAULT_MAX_CELLS }
    }
}

impl ExperimentSpec {
    /// A built-in spec by name.
    pub fn builtin(name: &str) -> Result<Self> {
        Self::builtin_with(name, &SpecLimits::default())
    }

    /// A built-in spec by name, under `limits`.
    pub fn builtin_with(name: &str, limits: &SpecLimits) -> Result<Self> {
        let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| HarnessError::Spec {
            file: PathBuf::from(name),
            reason: format!(
                "no such built-in spec (known: {})",
                BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        })?;
        Self::parse_with(text, Path::new(&format!("experiments/{n}.toml")), limits)
    }

    /// Loads a spec file.
    pub fn load(path: &Path) -> Result<Self> {
        Self::load_with(path, &SpecLimits::default())
    }

    /// Loads a spec file under `limits`, and checks the files it names ([`Self::check_paths`]).
    pub fn load_with(path: &Path, limits: &SpecLimits) -> Result<Self> {
        let text = ltr_core::fs::read_bounded_to_string(path, MAX_SPEC_BYTES)
            .map_err(|e| HarnessError::Spec { file: path.to_owned(), reason: e.to_string() })?;
        let spec = Self::parse_with(&text, path, limits)?;
        spec.check_paths()?;
        Ok(spec)
    }

    /// Checks every path the spec names (resolved against the spec file's folder when it was
    /// parsed): `published` must be a regular file, and each dataset's `path` a file or a
    /// folder. Fails with one line naming the key and the path, before anything runs.
    pub fn check_paths(&self) -> Result<()> {
        let bad = |key: &str, path: &Path, why: String| HarnessError::Spec {
            file: PathBuf::from(&self.source),
            reason: format!("{key} = {:?}: {why}", path.display().to_string()),
        };
        let gone = |e: std::io::Error, what: &str| {
            if e.kind() == std::io::ErrorKind::NotFound { format!("no such {what}") } else { e.to_string() }
        };
        if let Some(p) = &self.published {
            ltr_core::fs::open_regular(p).map_err(|e| bad("`published`", p, gone(e, "file")))?;
        }
        for d in &self.paths {
            let key = format!("`path` of dataset `{}`", d.name);
            let meta =
                std::fs::metadata(&d.path).map_err(|e| bad(&key, &d.path, gone(e, "file or folder")))?;
            if !meta.is_file() && !meta.is_dir() {
                return Err(bad(&key, &d.path, "neither a file nor a folder".into()));
            }
        }
        Ok(())
    }

    /// Parses and checks spec text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        Self::parse_with(text, path, &SpecLimits::default())
    }

    /// Parses and checks spec text under `limits`; `path` names it in errors.
    pub fn parse_with(text: &str, path: &Path, limits: &SpecLimits) -> Result<Self> {
        let bad = |reason: String| HarnessError::Spec { file: path.to_owned(), reason };
        let raw: RawSpec = toml::from_str(text).map_err(|e| bad(e.to_string().trim().replace('\n', " ")))?;
        let default_metric = match &raw.validation_metric {
            Some(m) => parse_metric(m).map_err(|e| bad(format!("validation_metric: {e}")))?,
            None => Metric::Map,
        };
        check_name(&raw.name).map_err(|e| bad(format!("name {:?}: {e}", raw.name)))?;
        let seed = seed_value("seed", raw.seed).map_err(&bad)?;
        let seeds = seeds_value(raw.seeds).map_err(&bad)?;
        ltr_metrics::EvalConfig::official(Convention::Standard)
            .with_parts(&raw.eval)
            .validate()
            .map_err(|e| bad(format!("eval: {e}")))?;
        if raw.datasets.is_empty() {
            return Err(bad("`datasets` is empty".into()));
        }
        let base = path.parent().unwrap_or(Path::new(""));
        let (datasets, paths, normalize) = parse_datasets(&raw.datasets, base).map_err(&bad)?;
        let collection = match raw.collection.clone() {
            Some(c) => c,
            None if paths.len() == datasets.len() => String::new(),
            None => {
                return Err(bad(
                    "`collection` is required unless every dataset is given with a `path`".into()
                ));
            }
        };
        if raw.folds.is_empty() || raw.folds.contains(&0) {
            return Err(bad("`folds` must list fold numbers starting at 1".into()));
        }
        // A name listed twice would run the same cells twice, concurrently, into one record.
        for (i, f) in raw.folds.iter().enumerate() {
            if raw.folds[..i].contains(f) {
                return Err(bad(format!("`folds`: fold {f} is listed twice")));
            }
        }
        // Datasets listed twice are refused by `parse_datasets`.
        check_size(&raw, limits).map_err(bad)?;
        let mut labels = std::collections::BTreeSet::new();
        let mut algorithms = Vec::new();
        for (i, a) in raw.algorithms.into_iter().enumerate() {
            let label = a.label.clone().unwrap_or_else(|| a.id.clone());
            let at = format!("algorithms[{i}] ({label})");
            if !labels.insert(label.clone()) {
                return Err(bad(format!(
                    "{at}: label `{label}` used twice (set `label` to tell them apart)"
                )));
            }
            let validation_metric = match &a.validation_metric {
                Some(m) => parse_metric(m).map_err(|e| bad(format!("{at}: validation_metric: {e}")))?,
                None if raw.validation_metric.is_some() => default_metric,
                None => default_validation_metric(&a.id),
            };
            let grid = expand_grid(&a).map_err(|e| bad(format!("{at}: {e}")))?;
            algorithms.push(AlgorithmEntry { id: a.id, label, validation_metric, grid });
        }
        if algorithms.is_empty() {
            return Err(bad("no `[[algorithms]]`".into()));
        }
        if let Some(b) = &raw.baseline
            && !algorithms.iter().any(|a| &a.label == b)
        {
            return Err(bad(format!(
                "baseline `{b}` is not an algorithm label of the spec (it has: {})",
                algorithms.iter().map(|a| a.label.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(Self {
            source: path.display().to_string(),
            name: raw.name,
            collection,
            datasets,
            paths,
            published: raw.published.map(|p| base.join(p)),
            folds: raw.folds,
            seed,
            seeds,
            convention: raw.convention,
            eval: raw.eval,
            algorithms,
            baseline: raw.baseline,
            significance: raw.significance,
            scale_limits: raw.scale_limits,
            normalize,
        })
    }

    /// The feature normalisation of a dataset (by name, case-insensitively; `none` unless
    /// the spec sets one).
    pub fn normalization(&self, dataset: &str) -> Normalization {
        self.normalize
            .iter()
            .find(|(d, _)| d.eq_ignore_ascii_case(dataset))
            .map_or(Normalization::None, |(_, n)| *n)
    }

    /// Sets the feature normalisation of a dataset of the spec (`--normalize`).
    pub fn set_normalization(&mut self, dataset: &str, method: Normalization) {
        self.normalize.retain(|d, _| !d.eq_ignore_ascii_case(dataset));
        if !method.is_none() {
            self.normalize.insert(dataset.to_owned(), method);
        }
    }

    /// The entry with this label (or, failing that, the first with this algorithm id).
    pub fn algorithm(&self, label: &str) -> Result<&AlgorithmEntry> {
        self.algorithms
            .iter()
            .find(|a| a.label == label)
            .or_else(|| self.algorithms.iter().find(|a| a.id == label))
            .ok_or_else(|| HarnessError::Spec {
                file: PathBuf::from(&self.source),
                reason: format!(
                    "algorithm `{label}` is not in the spec (it has: {})",
                    self.algorithms.iter().map(|a| a.label.as_str()).collect::<Vec<_>>().join(", ")
                ),
            })
    }

    /// Checks that `dataset` has every fold of the spec (`has`: the folds it has); a fold it
    /// lacks is a spec error naming the file, the fold and the dataset's folds.
    pub fn check_folds(&self, dataset: &str, has: &[u32]) -> Result<()> {
        let lacking: Vec<String> =
            self.folds.iter().filter(|f| !has.contains(f)).map(u32::to_string).collect();
        if lacking.is_empty() {
            return Ok(());
        }
        let mut has = has.to_vec();
        has.sort_unstable();
        Err(HarnessError::Spec {
            file: PathBuf::from(&self.source),
            reason: format!(
                "`folds`: {dataset} has no fold {} (it has {})",
                lacking.join(", "),
                if has.is_empty() {
                    "none".to_owned()
                } else {
                    has.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                }
            ),
        })
    }

    /// Keeps only the named datasets (case-insensitive), in spec order.
    pub fn restrict_datasets(&mut self, names: &[String]) -> Result<()> {
        for n in names {
            if !self.datasets.iter().any(|d| d.eq_ignore_ascii_case(n)) {
                return Err(HarnessError::Spec {
                    file: PathBuf::from(&self.source),
                    reason: format!(
                        "dataset `{n}` is not in the spec (it has: {})",
                        self.datasets.join(", ")
                    ),
                });
            }
        }
        self.datasets.retain(|d| names.iter().any(|n| d.eq_ignore_ascii_case(n)));
        self.paths.retain(|p| names.iter().any(|n| p.name.eq_ignore_ascii_case(n)));
        Ok(())
    }

    /// Keeps only the named algorithm labels or ids.
    pub fn restrict_algorithms(&mut self, names: &[String]) -> Result<()> {
        for n in names {
            if !self.algorithms.iter().any(|a| a.label == *n || a.id == *n) {
                return Err(HarnessError::Spec {
                    file: PathBuf::from(&self.source),
                    reason: format!(
                        "algorithm `{n}` is not in the spec (it has: {})",
                        self.algorithms.iter().map(|a| a.label.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                });
            }
        }
        self.algorithms.retain(|a| names.iter().any(|n| a.label == *n || a.id == *n));
        if let Some(b) = &self.baseline
            && !self.algorithms.iter().any(|a| &a.label == b)
        {
            log::info!("baseline `{b}` is not among the algorithms run: the report tests against the first");
            self.baseline = None;
        }
        Ok(())
    }
}

impl ExperimentSpec {
    /// The spec of `ltr run --data PATH`: one dataset given by path, with the algorithms (and
    /// their grids) of `defaults` and its selection metrics, every fold, `seed`, and the
    /// dataset options of `opts` (those a spec's dataset table and keys give).
    ///
    /// The dataset is named `opts.name`, else after the path ([`data_name`]: generic folder
    /// names such as `Data` and `Fold1` are skipped, and a name that is a built-in dataset's
    /// gets `-local`). The spec (so its result store and report) is named `<name>-<hash>`: the
    /// dataset's name made a file name and the first [`DATA_HASH_LEN`] hex digits of the
    /// sha256 of the resolved (absolute, symlinks followed) path, so inputs that share a name
    /// never share a report.
    ///
    /// # Errors
    /// A given name that is empty or is a built-in dataset's (the report would present the
    /// data as that dataset).
    pub fn for_data(path: &Path, seed: u64, defaults: &ExperimentSpec, opts: &DataOptions) -> Result<Self> {
        let refuse = |reason: String| HarnessError::Spec { file: path.to_owned(), reason };
        let name = match &opts.name {
            Some(given) => {
                let given = given.trim();
                if given.is_empty() {
                    return Err(refuse("--name: empty dataset name".into()));
                }
                if let Some(taken) = builtin_dataset(given) {
                    return Err(refuse(format!(
                        "--name {given}: {taken}; the report would present this data as that dataset \
                         (run the built-in one with `ltr run` and its spec), so name it otherwise"
                    )));
                }
                given.to_owned()
            }
            None => data_name(path),
        };
        let stem: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
            .collect();
        let mut stem = if stem.is_empty() || stem.starts_with('.') { format!("data{stem}") } else { stem };
        // The run (its store and report) is named by the input too, not by its name alone:
        // `exp1/mine.txt` and `exp2/mine.txt`, or `a b.txt` and `a_b.txt`, are other runs.
        let resolved = std::fs::canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .unwrap_or_else(|_| path.to_owned());
        let hash = ltr_format::reader::hex(&<sha2::Sha256 as sha2::Digest>::digest(
            resolved.as_os_str().as_encoded_bytes(),
        ));
        stem.truncate(MAX_NAME_LEN - DATA_HASH_LEN - 1);
        let run_name = format!("{stem}-{}", &hash[..DATA_HASH_LEN]);
        Ok(Self {
            source: path.display().to_string(),
            name: run_name,
            collection: String::new(),
            datasets: vec![name.clone()],
            paths: vec![PathDataset {
                name,
                path: path.to_owned(),
                convention: opts.convention,
                features: None,
                missing_token: None,
                split_seed: None,
                format: LineFormat::default(),
                guess_convention: true,
            }],
            published: opts.published.clone(),
            folds: (1..=ltr_data::manifest::MAX_FOLDS).collect(),
            seed,
            seeds: 1,
            convention: None,
            eval: defaults.eval,
            algorithms: defaults.algorithms.clone(),
            baseline: defaults.baseline.clone(),
            significance: defaults.significance,
            scale_limits: defaults.scale_limits,
            normalize: BTreeMap::new(),
        })
    }

    /// The dataset of this name given by path, if it is one.
    pub fn path_dataset(&self, name: &str) -> Option<&PathDataset> {
        self.paths.iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }
}

/// The longest spec name accepted (it names a folder and report files).
pub const MAX_NAME_LEN: usize = 100;

/// Hex digits of the path hash in the name of a `--data` run ([`ExperimentSpec::for_data`]).
pub const DATA_HASH_LEN: usize = 8;

/// What `ltr run --data` takes beside the path: the options a spec gives a dataset of its own
/// ([`ExperimentSpec::for_data`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataOptions {
    /// The dataset's name in reports (default: from the path, [`data_name`]).
    pub name: Option<String>,
    /// The convention its numbers are reported with (default: chosen from its grades when the
    /// run starts, and said so).
    pub convention: Option<Convention>,
    /// Published numbers to show beside ours, in the format of `reports/published/letor.toml`
    /// (rows match on `dataset`).
    pub published: Option<PathBuf>,
}

/// Whether a file or folder name says nothing of the data (`Data`, `data`, `Fold1`, any case):
/// a dataset is not named after it.
pub fn is_generic_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "data" || lower.starts_with("fold")
}

/// The name of a dataset given by `path` with no name of its own: the file's stem (without
/// `.gz` and `.txt`) or the folder's name, walking up past generic names ([`is_generic_name`]:
/// `OHSUMED/Data/Fold1` is `OHSUMED`; `data` when every name is generic); a name that is a
/// built-in dataset's (a folder `OHSUMED` that is not the built-in release) gets `-local`,
/// with a warning.
pub fn data_name(path: &Path) -> String {
    // The path as given, then resolved (`.`, `..`, a generic folder given from inside it).
    let names = |p: &Path| -> Vec<String> {
        let mut names: Vec<String> = p
            .components()
            .rev()
            .filter_map(|c| match c {
                std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if let Some(first) = names.first_mut() {
            let stem = first.strip_suffix(".gz").unwrap_or(first);
            *first = stem.strip_suffix(".txt").unwrap_or(stem).to_owned();
        }
        names
    };
    let resolved = std::fs::canonicalize(path).map(|p| names(&p)).unwrap_or_default();
    let name = names(path)
        .into_iter()
        .chain(resolved)
        .find(|n| !n.trim().is_empty() && !is_generic_name(n))
        .unwrap_or_else(|| "data".into());
    match builtin_dataset(&name) {
        Some(taken) => {
            let renamed = format!("{name}-local");
            log::warn!("{}: named `{renamed}`: {taken} (--name to choose a name)", path.display());
            renamed
        }
        None => name,
    }
}

/// When `name` is a dataset of a built-in manifest (any case): which one, in words.
fn builtin_dataset(name: &str) -> Option<String> {
    ltr_data::manifest::BUILTIN.iter().find_map(|(collection, _)| {
        let m = Manifest::builtin(collection).ok()?;
        let d = m.dataset(name).ok()?;
        Some(format!("`{}` is the built-in {} dataset", d.name, m.title))
    })
}

/// Checks a spec name: it becomes the folder `<results>/<name>` and the files
/// `<out>/<name>.md|json|csv`, so it must be one plain path component: ASCII letters,
/// digits, `.`, `_` and `-`, not starting with a dot, at most [`MAX_NAME_LEN`] bytes.
///
/// # Errors
/// Why the name is refused, in a few words.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!("is longer than {MAX_NAME_LEN} bytes"));
    }
    if name.starts_with('.') {
        return Err("starts with a dot".into());
    }
    match name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        Some(c) => Err(format!("holds {c:?}; use letters, digits, `.`, `_` and `-` only")),
        None => Ok(()),
    }
}

fn parse_metric(s: &str) -> std::result::Result<Metric, String> {
    s.parse::<Metric>().map_err(|e| e.to_string())
}

/// The grid points of an algorithm entry, counted without expanding its grid. u128 with
/// saturation: 12 keys of 10 values is 10^12, far from overflowing; a grid with hundreds of
/// keys saturates and is refused all the same.
fn grid_points(a: &RawAlgorithm) -> u128 {
    a.grid.values().fold(1u128, |n, v| n.saturating_mul(v.len().max(1) as u128))
}

/// Counts the grid points and the model fits a spec asks for, without expanding any grid,
/// and refuses a spec over [`MAX_GRID_POINTS`] or over the fit limit, naming the largest grid.
fn check_size(raw: &RawSpec, limits: &SpecLimits) -> std::result::Result<(), String> {
    let Some((i, largest)) = raw.algorithms.iter().enumerate().max_by_key(|(_, a)| grid_points(a)) else {
        return Ok(());
    };
    let largest_grid = format!(
        "the largest grid is algorithms[{i}] ({}) with {} points",
        largest.label.as_deref().unwrap_or(&largest.id),
        grid_points(largest)
    );
    let points = raw.algorithms.iter().fold(0u128, |n, a| n.saturating_add(grid_points(a)));
    if points > u128::from(MAX_GRID_POINTS) {
        return Err(format!(
            "the spec's grids have {points} points in all, more than the {MAX_GRID_POINTS} a spec \
             may expand to whatever `--max-cells` allows (every point is kept in memory and in each \
             of its cell records: split the grid over several specs); {largest_grid}"
        ));
    }
    let per_point = (raw.datasets.len() as u128).saturating_mul(raw.folds.len() as u128);
    // Each entry's selected point is fitted `seeds - 1` more times per cell.
    let seeds = raw.seeds.and_then(|n| u128::try_from(n).ok()).unwrap_or(1).max(1);
    let refits = (raw.algorithms.len() as u128).saturating_mul(seeds - 1);
    let total = points.saturating_add(refits).saturating_mul(per_point);
    if total <= u128::from(limits.max_cells) {
        return Ok(());
    }
    Err(format!(
        "the spec asks for {total} model fits (grid points{} x {} datasets x {} folds), more than the \
         limit of {} (`--max-cells` raises it); {largest_grid}",
        if refits > 0 { format!(" and {refits} refits with further `seeds`") } else { String::new() },
        raw.datasets.len(),
        raw.folds.len(),
        limits.max_cells,
    ))
}

/// The cartesian product of the grid over the fixed params (grid keys sorted, last key
/// fastest); each point typed and validated. Points are built one at a time from their index,
/// so only the typed configurations are held (their number is bounded by [`check_size`]).
fn expand_grid(a: &RawAlgorithm) -> std::result::Result<Vec<AlgoConfig>, String> {
    for (k, values) in &a.grid {
        if values.is_empty() {
            return Err(format!("grid key `{k}` has no values"));
        }
        if a.params.contains_key(k) {
            return Err(format!("`{k}` is both fixed in `params` and varied in `grid`"));
        }
    }
    let n = usize::try_from(grid_points(a)).map_err(|_| "the grid has too many points".to_owned())?;
    let mut points = Vec::with_capacity(n);
    for index in 0..n {
        let mut table = a.params.clone();
        let mut rest = index;
        for (k, values) in a.grid.iter().rev() {
            table.insert(k.clone(), values[rest % values.len()].clone());
            rest /= values.len();
        }
        let cfg = AlgoConfig::from_table(&a.id, table).map_err(|e| e.to_string())?;
        cfg.validate().map_err(|e| e.to_string())?;
        points.push(cfg);
    }
    Ok(points)
}

#[cfg(test)]
mod tests;
