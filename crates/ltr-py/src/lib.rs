//! The extension module `ltr._ltr` of the Python package `ltr`: a thin binding over the
//! crates the `ltr` command line is built from, so that a number from Python and the same
//! number from the command line are the same bits.
//!
//! * fitting: the registry's parameter parsing and validation ([`AlgoConfig::from_settings`],
//!   as `ltr train --set`) and the one-fit path of `ltr train` ([`SingleFit`]);
//! * models: the model file of `ltr train` / `ltr predict` ([`ModelFile`]);
//! * evaluation: `ltr-metrics` under the official conventions, as `ltr eval`;
//! * significance: [`compare_systems`], as `ltr compare`;
//! * data: the LETOR reader (`ltr-format`), the folds compiled into `ltr-data`, and other
//!   datasets through the command line's resolver and data cache (`ltr-fetch`).
//!
//! The Python package (`python/ltr/`) turns arrays of any layout into the few this module
//! takes (C-contiguous `float32` features, `int64` grades and query ids) and holds the
//! docstrings users see with `help()`. No panic crosses into Python: every call into the
//! crates runs under `guarded` (a panic becomes a `RuntimeError`), and long fits release the
//! GIL.

// PyO3's macros expand `#[pyfunction]`, `#[pyclass]` and `#[pymodule]` into public items of
// their own (method tables, type objects) that cannot carry doc comments; every item written
// here is documented.
#![allow(missing_docs)]

use std::collections::HashSet;
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use ltr_core::{Convention, Dataset, Grade};
use ltr_data::manifest::{BUILTIN, Manifest};
use ltr_data::normalize::Normalization;
use ltr_data::resolved::DatasetStatus;
use ltr_data::rotation::Split;
use ltr_format::{DataError, ReadOptions, read_file};
use ltr_frames::significance::{MAX_PERMUTATIONS, MAX_SYSTEMS, SignificanceConfig, compare_systems};
use ltr_harness::catalogue::catalogue;
use ltr_harness::protocol::{SingleFit, fold_files, point_seed_of, read_split_under};
use ltr_harness::registry::{MAX_MODEL_BYTES, default_validation_metric, param_table};
use ltr_harness::{ALGORITHMS, AlgoConfig, HarnessError, ModelFile};
use ltr_metrics::{ConventionParts, EvalConfig, Metric, evaluate};
use ltr_stats::PairedTest;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// A `ValueError` with `message`.
fn value_error(message: impl Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// The Python exception of a harness error: a parameter error names the key and, from the
/// parameter table, its valid range.
fn harness_error(e: HarnessError) -> PyErr {
    match e {
        HarnessError::Param { algorithm, key, reason } => {
            let range = param_table(&algorithm)
                .ok()
                .and_then(|rows| rows.iter().find(|r| r.key == key))
                .map_or_else(String::new, |r| format!(" (valid: {})", r.range));
            value_error(format!("{algorithm}: parameter `{key}`: {reason}{range}"))
        }
        HarnessError::Data(e) => data_error(e),
        other => value_error(other),
    }
}

/// The Python exception of a data error: `OSError` for a file that cannot be read,
/// `ValueError` for contents that are wrong.
fn data_error(e: DataError) -> PyErr {
    match e {
        DataError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => value_error(other),
    }
}

/// Runs `f`, turning a panic into a `RuntimeError`: a bug in a crate below must not abort the
/// interpreter.
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(PyRuntimeError::new_err(format!("internal error in ltr (please report it): {what}")))
    })
}

/// Query ids, one per document: integers (a numpy `int64` array) or strings.
#[derive(FromPyObject)]
enum Qids<'py> {
    /// Integer ids.
    Ints(PyReadonlyArray1<'py, i64>),
    /// Any other ids, as strings.
    Strs(Vec<String>),
}

/// Per-query offsets and ids of documents whose query ids are `qid`: each run of equal ids is
/// one query, and an id may not come back after another query (the reader's rule for files).
fn group(qid: &Qids<'_>, n_docs: usize, what: &str) -> PyResult<(Vec<usize>, Vec<String>)> {
    fn runs<T: Eq + std::hash::Hash + Clone + Display>(
        ids: &[T],
        what: &str,
    ) -> PyResult<(Vec<usize>, Vec<String>)> {
        let mut offsets = vec![0];
        let mut names = Vec::new();
        let mut seen: HashSet<T> = HashSet::new();
        for (i, id) in ids.iter().enumerate() {
            if i > 0 && ids[i - 1] == *id {
                continue;
            }
            if !seen.insert(id.clone()) {
                return Err(value_error(format!(
                    "{what}: query {id} comes back at row {i} after other queries; the documents of a \
                     query must be contiguous (sort the rows by query, keeping their order within one)"
                )));
            }
            if i > 0 {
                offsets.push(i);
            }
            names.push(id.to_string());
        }
        offsets.push(ids.len());
        if ids.is_empty() {
            offsets.truncate(1);
        }
        Ok((offsets, names))
    }
    let (offsets, names) = match qid {
        Qids::Ints(a) => runs(a.as_slice().map_err(value_error)?, what)?,
        Qids::Strs(s) => runs(s, what)?,
    };
    let len = *offsets.last().unwrap_or(&0);
    if len != n_docs {
        return Err(value_error(format!("{what}: {len} query ids for {n_docs} documents")));
    }
    Ok((offsets, names))
}

/// Relevance grades from `int64` values, each checked to be a grade 0..=255.
fn grades(y: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<Grade>> {
    y.as_slice()
        .map_err(value_error)?
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            Grade::try_from(v).map_err(|_| {
                value_error(format!("{what}: y[{i}] = {v}: relevance grades are integers from 0 to 255"))
            })
        })
        .collect()
}

/// A data set from arrays: `x` (documents x features, C-contiguous `float32`), grades `y`,
/// query ids `qid`, optional document ids.
fn dataset(
    x: &PyReadonlyArray2<'_, f32>,
    y: &PyReadonlyArray1<'_, i64>,
    qid: &Qids<'_>,
    docids: Option<Vec<String>>,
    what: &str,
) -> PyResult<Dataset> {
    let [n_docs, n_features] = x.shape() else { return Err(value_error(format!("{what}: X must be 2-D"))) };
    let (n_docs, n_features) = (*n_docs, *n_features);
    if n_docs == 0 {
        return Err(value_error(format!("{what}: no documents")));
    }
    if n_features == 0 || n_features > ltr_core::MAX_FEATURES {
        return Err(value_error(format!(
            "{what}: X has {n_features} features; ltr takes 1 to {}",
            ltr_core::MAX_FEATURES
        )));
    }
    if y.len() != n_docs {
        return Err(value_error(format!("{what}: y has {} values for {n_docs} rows of X", y.len())));
    }
    let features = x.as_slice().map_err(value_error)?;
    if let Some(i) = features.iter().position(|v| !v.is_finite()) {
        return Err(value_error(format!(
            "{what}: X[{}, {}] = {} is not a finite number",
            i / n_features,
            i % n_features,
            features[i]
        )));
    }
    let labels = grades(y, what)?;
    let (offsets, qids) = group(qid, n_docs, what)?;
    Dataset::from_parts(n_features, features.to_vec(), labels, offsets, qids, docids).map_err(value_error)
}

/// Grades, query offsets, query ids and document ids of documents without features.
type Judged = (Vec<Grade>, Vec<usize>, Vec<String>, Option<Vec<String>>);

/// Documents without features (for evaluation): grades, query ids and document ids.
fn judged(
    n_docs: usize,
    y: &PyReadonlyArray1<'_, i64>,
    qid: &Qids<'_>,
    docids: Option<Vec<String>>,
) -> PyResult<Judged> {
    if y.len() != n_docs {
        return Err(value_error(format!("y has {} values for {n_docs} scores", y.len())));
    }
    if let Some(d) = &docids
        && d.len() != n_docs
    {
        return Err(value_error(format!("docids has {} values for {n_docs} scores", d.len())));
    }
    let labels = grades(y, "evaluation")?;
    let (offsets, qids) = group(qid, n_docs, "evaluation")?;
    Ok((labels, offsets, qids, docids))
}

/// A convention by name (`letor3`, `letor4`, `mslr`, `standard`).
fn convention(name: &str) -> PyResult<Convention> {
    name.parse().map_err(|e: String| value_error(format!("convention `{name}`: {e}")))
}

/// A metric by name (`ndcg@10`, `map`, ...).
fn metric(name: &str) -> PyResult<Metric> {
    name.parse().map_err(|e| value_error(format!("metric `{name}`: {e}")))
}

/// Scores as a C-contiguous `float64` slice, one per document, all finite.
fn scores<'a>(s: &'a PyReadonlyArray1<'_, f64>, what: &str) -> PyResult<&'a [f64]> {
    let s = s.as_slice().map_err(value_error)?;
    if let Some(i) = s.iter().position(|v| !v.is_finite()) {
        return Err(value_error(format!("{what}: score {i} is {}, not a finite number", s[i])));
    }
    Ok(s)
}

/// A fitted model in the format of `ltr train`'s model files.
#[pyclass(module = "ltr._ltr", name = "Model", frozen)]
struct Model {
    file: ModelFile,
}

#[pymethods]
impl Model {
    /// Reads a model file's text (`ltr train --model`'s format), checking it.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        guarded(|| Ok(Self { file: ModelFile::from_json(text.as_bytes()).map_err(harness_error)? }))
    }

    /// Reads a model file written by `ltr train` or by `save`.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        let text = ltr_core::fs::read_bounded(&path, MAX_MODEL_BYTES)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        guarded(|| {
            let file = ModelFile::from_json(&text).map_err(|e| {
                value_error(format!("{} is not a usable ltr model file: {e}", path.display()))
            })?;
            Ok(Self { file })
        })
    }

    /// The model file's text (one line of JSON).
    fn to_json(&self) -> PyResult<String> {
        self.file.to_json().map_err(harness_error)
    }

    /// Writes the model file atomically (`ltr predict --model` reads it).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let text = self.to_json()?;
        ltr_core::write_atomic(&path, text.as_bytes())
            .map_err(|e| PyOSError::new_err(format!("writing {}: {e}", path.display())))
    }

    /// Scores of the rows of `x` (C-contiguous `float32`, the model's width), through the
    /// model's feature normalisation; `qid` groups them into queries (needed by per-query
    /// normalisation; one query for all rows without it).
    #[pyo3(signature = (x, qid=None))]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f32>,
        qid: Option<Qids<'py>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let n_docs = x.shape()[0];
        let width = x.shape()[1];
        if width != self.file.n_features {
            return Err(value_error(format!(
                "X has {width} features, but the model has {}",
                self.file.n_features
            )));
        }
        let qid = match qid {
            Some(q) => q,
            None if self.file.normalizer.method() == Normalization::QueryMinmax => {
                return Err(value_error("the model normalises features within each query: pass qid"));
            }
            None => Qids::Ints(PyArray1::<i64>::zeros(py, n_docs, false).readonly()),
        };
        let y = PyArray1::<i64>::zeros(py, n_docs, false).readonly();
        let data = dataset(&x, &y, &qid, None, "predict")?;
        let file = &self.file;
        let out = py.detach(|| {
            guarded(|| {
                let data = file.prepare(data).map_err(harness_error)?;
                file.model.score_vec(&data).map_err(value_error)
            })
        })?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// The algorithm id.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.file.config.id()
    }

    /// Every parameter, as JSON (`{"trees": 300, ...}`).
    #[getter]
    fn params(&self) -> String {
        self.file.config.params_json().to_string()
    }

    /// The seed the model was fitted with.
    #[getter]
    fn seed(&self) -> u64 {
        self.file.seed
    }

    /// The feature count of its training data.
    #[getter]
    fn n_features(&self) -> usize {
        self.file.n_features
    }
}

/// The parameters of `algorithm` from `key=value` settings over its defaults, checked as
/// `ltr train --set` checks them; every parameter as JSON.
#[pyfunction]
fn check_params(algorithm: &str, settings: Vec<String>) -> PyResult<String> {
    guarded(|| {
        let config = AlgoConfig::from_settings(algorithm, &settings).map_err(harness_error)?;
        Ok(config.params_json().to_string())
    })
}

/// The registry's algorithms and parameters as JSON (`ltr algorithms --format json`).
#[pyfunction]
fn algorithms() -> PyResult<String> {
    guarded(|| {
        let list = catalogue(ALGORITHMS).map_err(harness_error)?;
        serde_json::to_string(&list).map_err(value_error)
    })
}

/// Training data: features, grades, query ids.
type Arrays<'py> = (PyReadonlyArray2<'py, f32>, PyReadonlyArray1<'py, i64>, Qids<'py>);

/// Fits `algorithm` with `settings` as `ltr train` does: `vali` for early stopping and
/// selection by `metric` (default: the algorithm's), the data under `convention`, features
/// normalised by `normalize`, every random decision from `seed`. The GIL is released while it
/// fits.
#[pyfunction]
#[pyo3(signature = (algorithm, settings, train, vali=None, seed=42, metric=None, convention=None, normalize="none", split_seed=None))]
#[allow(clippy::too_many_arguments)]
fn fit(
    py: Python<'_>,
    algorithm: &str,
    settings: Vec<String>,
    train: Arrays<'_>,
    vali: Option<Arrays<'_>>,
    seed: u64,
    metric: Option<&str>,
    convention: Option<&str>,
    normalize: &str,
    split_seed: Option<u64>,
) -> PyResult<Model> {
    let config = guarded(|| AlgoConfig::from_settings(algorithm, &settings).map_err(harness_error))?;
    let conv = convention.map(self::convention).transpose()?;
    let metric = match metric {
        Some(m) => self::metric(m)?,
        None => default_validation_metric(algorithm),
    };
    let normalize: Normalization =
        normalize.parse().map_err(|e: String| value_error(format!("normalize `{normalize}`: {e}")))?;
    let train_data = dataset(&train.0, &train.1, &train.2, None, "training data")?.with_convention(conv);
    let vali_data = match &vali {
        Some((x, y, q)) => {
            let v = dataset(x, y, q, None, "eval_set")?;
            if v.n_features() != train_data.n_features() {
                return Err(value_error(format!(
                    "eval_set: X has {} features, the training data {}",
                    v.n_features(),
                    train_data.n_features()
                )));
            }
            Some(v.with_convention(conv))
        }
        None => None,
    };
    drop((train, vali));
    let file = py.detach(move || {
        guarded(|| {
            let single = SingleFit::new(
                train_data,
                vali_data,
                normalize,
                split_seed,
                metric,
                &ConventionParts::default(),
            )
            .map_err(harness_error)?;
            let model = single.fit(&config, seed).map_err(value_error)?;
            Ok(single.into_model_file(&config, seed, model))
        })
    })?;
    Ok(Model { file })
}

/// A LETOR file's features as read: (rows x features `float32`, width), grades, per-query
/// offsets, query ids, document ids (`None` without `#docid` comments).
type Read<'py> =
    (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<u8>>, Vec<usize>, Vec<String>, Option<Vec<String>>);

/// The arrays of a data set.
fn arrays<'py>(py: Python<'py>, d: &Dataset) -> PyResult<Read<'py>> {
    let x = PyArray1::from_slice(py, d.features()).reshape([d.n_docs(), d.n_features()])?;
    let y = PyArray1::from_slice(py, d.labels());
    Ok((x, y, d.query_offsets().to_vec(), d.query_ids().to_vec(), d.doc_ids().map(<[String]>::to_vec)))
}

/// Reads a LETOR file (plain or gzip) with the reader of `ltr eval` and `ltr train`; its
/// width is the highest feature index unless `n_features` is given.
#[pyfunction]
#[pyo3(signature = (path, n_features=None))]
fn read_letor(py: Python<'_>, path: PathBuf, n_features: Option<usize>) -> PyResult<Read<'_>> {
    if let Some(n) = n_features
        && (n == 0 || n > ltr_core::MAX_FEATURES)
    {
        return Err(value_error(format!("n_features = {n}: must be from 1 to {}", ltr_core::MAX_FEATURES)));
    }
    let opts = ReadOptions { n_features, ..Default::default() };
    let data = py.detach(|| guarded(|| read_file(&path, &opts).map_err(data_error)))?.dataset;
    arrays(py, &data)
}

/// Per-metric, per-query values and the means, of `evaluate`.
type Evaluated<'py> = (Vec<String>, Vec<bool>, Vec<Bound<'py, PyArray1<f64>>>, Vec<f64>);

/// Evaluates `scores` as `ltr eval` does, under `convention`'s official settings: per metric
/// the value of every query (file order) and the mean; also the query ids and whether each
/// query counts in the means.
#[pyfunction]
#[pyo3(signature = (scores, y, qid, metrics, convention, docids=None))]
fn evaluate_scores<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, i64>,
    qid: Qids<'py>,
    metrics: Vec<String>,
    convention: &str,
    docids: Option<Vec<String>>,
) -> PyResult<Evaluated<'py>> {
    let s = self::scores(&scores, "scores")?;
    let metrics = metrics.iter().map(|m| metric(m)).collect::<PyResult<Vec<_>>>()?;
    let cfg = EvalConfig::official(self::convention(convention)?);
    let cfg = metrics.iter().fold(cfg, |c, m| m.config(&c));
    let (labels, offsets, qids, docids) = judged(s.len(), &y, &qid, docids)?;
    let eval =
        guarded(|| evaluate(&qids, &labels, &offsets, docids.as_deref(), s, &cfg).map_err(value_error))?;
    let columns = metrics
        .iter()
        .map(|m| {
            let v: Vec<f64> = eval.per_query.iter().map(|q| m.of_query(q).unwrap_or(f64::NAN)).collect();
            PyArray1::from_vec(py, v)
        })
        .collect();
    let means = metrics.iter().map(|m| m.of_summary(&eval.summary).unwrap_or(f64::NAN)).collect();
    let counted = eval.per_query.iter().map(|q| q.counted).collect();
    Ok((eval.per_query.into_iter().map(|q| q.qid).collect(), counted, columns, means))
}

/// Compares systems' scores as `ltr compare` does (same tests, seeds and JSON, without the
/// file names): `test` is `t` or `randomization`, `baseline` indexes `names`, `all_pairs`
/// adds the randomised Tukey HSD test.
#[pyfunction]
#[pyo3(signature = (names, systems, y, qid, baseline, test, all_pairs, permutations, seed, convention, docids=None))]
#[allow(clippy::too_many_arguments)]
fn compare_scores(
    py: Python<'_>,
    names: Vec<String>,
    systems: Vec<PyReadonlyArray1<'_, f64>>,
    y: PyReadonlyArray1<'_, i64>,
    qid: Qids<'_>,
    baseline: usize,
    test: &str,
    all_pairs: bool,
    permutations: usize,
    seed: u64,
    convention: &str,
    docids: Option<Vec<String>>,
) -> PyResult<String> {
    if names.is_empty() || names.len() != systems.len() {
        return Err(value_error("give at least one system's scores"));
    }
    if names.len() > MAX_SYSTEMS {
        return Err(value_error(format!("at most {MAX_SYSTEMS} systems")));
    }
    if permutations == 0 || permutations > MAX_PERMUTATIONS {
        return Err(value_error(format!(
            "permutations = {permutations}: must be from 1 to {MAX_PERMUTATIONS}"
        )));
    }
    if baseline >= names.len() {
        return Err(value_error("the baseline is not one of the systems"));
    }
    let test = match test {
        "t" => PairedTest::T,
        "randomization" => PairedTest::Randomization,
        other => return Err(value_error(format!("test `{other}`: must be `t` or `randomization`"))),
    };
    let conv = self::convention(convention)?;
    let cfg = EvalConfig::official(conv);
    let n_docs = systems[0].len();
    let (labels, offsets, qids, docids) = judged(n_docs, &y, &qid, docids)?;
    let mut evals = Vec::with_capacity(systems.len());
    for (name, s) in names.iter().zip(&systems) {
        let s = scores(s, name)?;
        if s.len() != n_docs {
            return Err(value_error(format!("{name}: {} scores, the first system has {n_docs}", s.len())));
        }
        evals.push(guarded(|| {
            evaluate(&qids, &labels, &offsets, docids.as_deref(), s, &cfg)
                .map_err(|e| value_error(format!("{name}: {e}")))
        })?);
    }
    let sig = SignificanceConfig {
        test,
        all_pairs,
        baseline: Some(names[baseline].clone()),
        permutations,
        seed,
        alpha: ltr_stats::ALPHA,
    };
    py.detach(move || {
        guarded(|| {
            let compared = compare_systems(names, &evals, baseline, &Metric::REPORT, sig);
            let mut doc = compared.to_json();
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("convention".into(), serde_json::json!(conv));
            }
            serde_json::to_string(&doc).map_err(value_error)
        })
    })
}

/// The collection's manifest and entry of a dataset compiled into `ltr-data` or listed in a
/// built-in manifest, by name.
fn find_dataset(name: &str) -> PyResult<(Manifest, String)> {
    for (collection, _) in BUILTIN {
        let manifest = Manifest::builtin(collection).map_err(data_error)?;
        if let Some(entry) = manifest.datasets.iter().find(|d| d.name.eq_ignore_ascii_case(name)) {
            let found = entry.name.clone();
            return Ok((manifest, found));
        }
    }
    let known: Vec<String> = BUILTIN
        .iter()
        .filter_map(|(c, _)| Manifest::builtin(c).ok())
        .flat_map(|m| m.datasets.into_iter().map(|d| d.name))
        .collect();
    Err(value_error(format!("no dataset `{name}` (known: {})", known.join(", "))))
}

/// The data cache and mirror of the command line's defaults: `LTR_DATA_DIR` (else the
/// per-user cache folder) and `LTR_MIRROR`.
fn fetcher() -> PyResult<ltr_fetch::Fetcher> {
    let var = |name| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let dir = var("LTR_DATA_DIR").map_or_else(ltr_fetch::options::default_data_dir, PathBuf::from);
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    let mut opts = ltr_fetch::FetchOptions::new(dir);
    if let Some(m) = var("LTR_MIRROR") {
        opts.mirror = Some(m.parse().map_err(|e| value_error(format!("LTR_MIRROR {m}: {e}")))?);
    }
    Ok(ltr_fetch::Fetcher::new(opts, std::sync::Arc::new(ltr_fetch::NoProgress)))
}

/// One fold of a dataset as `ltr` reads it: its collection, its convention, and the arrays of
/// train, vali and test. A dataset compiled into `ltr-data` is rebuilt in memory from its
/// pieces; any other is resolved as `ltr run` resolves it (the data cache, fetching what is
/// missing from the mirror or the official addresses) and read as the protocol reads it.
#[pyfunction]
fn load_dataset<'py>(py: Python<'py>, name: &str, fold: u32) -> PyResult<(String, String, Vec<Read<'py>>)> {
    let (manifest, name) = find_dataset(name)?;
    let entry = manifest.dataset(&name).map_err(data_error)?;
    let embedded = !entry.default_variant().pieces.is_empty();
    let splits = if embedded {
        let f = py.detach(|| {
            guarded(|| ltr_data::embedded::load_fold(&manifest.collection, &name, fold).map_err(data_error))
        })?;
        [f.train, f.vali, f.test]
    } else {
        let fetcher = fetcher()?;
        py.detach(|| {
            guarded(|| {
                let status = ltr_fetch::resolve(
                    &manifest,
                    std::slice::from_ref(&name),
                    &[fold],
                    ltr_fetch::Source::Fetch(&fetcher),
                );
                let dataset = match status.into_iter().next() {
                    Some(DatasetStatus::Available(d)) => d,
                    Some(DatasetStatus::Unavailable { reason, .. }) => {
                        return Err(value_error(format!("{name} is unavailable: {reason}")));
                    }
                    None => return Err(value_error(format!("{name}: not resolved"))),
                };
                let files = fold_files(&dataset, fold).map_err(harness_error)?;
                let read = |f| read_split_under(&dataset, f, dataset.convention).map_err(harness_error);
                Ok([read(&files.train)?, read(&files.vali)?, read(&files.test)?])
            })
        })?
    };
    let convention = splits[0].convention().map(|c| c.to_string()).unwrap_or_default();
    let arrays = splits.iter().map(|d| arrays(py, d)).collect::<PyResult<_>>()?;
    Ok((manifest.collection.clone(), convention, arrays))
}

/// The seed a run with master seed `master` gives the grid point `algorithm` with `settings`
/// on fold `fold` of `name` ([`ltr_harness::protocol::point_seed`]), from the manifest's
/// hashes of the fold's files.
#[pyfunction]
fn point_seed(master: u64, name: &str, fold: u32, algorithm: &str, settings: Vec<String>) -> PyResult<u64> {
    let (manifest, name) = find_dataset(name)?;
    let entry = manifest.dataset(&name).map_err(data_error)?;
    let variant = entry.default_variant();
    if fold == 0 || fold > variant.folds {
        return Err(value_error(format!("{name} has folds 1 to {}, not {fold}", variant.folds)));
    }
    let sha = |split| {
        let file = variant.fold_file(fold, split);
        variant.sha256_of(&file).map(str::to_owned).ok_or_else(|| value_error(format!("no hash of {file}")))
    };
    let (train, vali, test) = (sha(Split::Train)?, sha(Split::Vali)?, sha(Split::Test)?);
    let config = AlgoConfig::from_settings(algorithm, &settings).map_err(harness_error)?;
    point_seed_of(master, [&train, &vali, &test], algorithm, &config).map_err(harness_error)
}

/// The extension module.
#[pymodule]
fn _ltr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(check_params, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(read_letor, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_scores, m)?)?;
    m.add_function(wrap_pyfunction!(compare_scores, m)?)?;
    m.add_function(wrap_pyfunction!(load_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(point_seed, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
