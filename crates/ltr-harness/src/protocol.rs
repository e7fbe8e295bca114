//! The cross-validation protocol of one cell (a dataset fold and an algorithm entry), as the
//! reports publish it: fit every grid point on train with its own derived seed, select on
//! vali with the entry's metric by the one selection rule ([`ltr_core::select_best`]: higher
//! wins, earliest on ties, NaN never beats a number), score test with the chosen model and
//! evaluate it under the dataset's evaluation config. The test split takes part in no
//! decision.
//!
//! The runner calls this for every cell; tests call it to check exactly what the reports
//! publish:
//!
//! ```no_run
//! use ltr_harness::{ExperimentSpec, protocol};
//!
//! /// Fold 1 of LambdaMART exactly as `reports/letor3.json` has it.
//! fn fold_one(data: &ltr_data::resolved::DatasetInput) -> ltr_harness::Result<f64> {
//!     let spec = ExperimentSpec::builtin("letor3")?;
//!     let entry = spec.algorithm("lambdamart")?;
//!     let cell = protocol::run_fold(&spec, data, 1, entry)?;
//!     Ok(cell.evaluation.summary.map)
//! }
//! ```
//!
//! Every number of a cell is determined here and in the registry: the store keys cells by the
//! hash of these two files (with the algorithm, reader and metric crates), so keep anything
//! that cannot change a number elsewhere.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use ltr_core::{BestCheckpoint, Checkpoint, Dataset, Rng, Validation, derive_seed};
use ltr_data::folds::{locate, rotation_subsets, shared_query_ids};
use ltr_data::normalize::{Normalization, Normalizer};
use ltr_data::resolved::{DataFile, DatasetInput, FoldFiles};
use ltr_data::rotation::rotation;
use ltr_format::ReadOptions;
use ltr_format::reader::read_file_as_hashed;
use ltr_metrics::{
    Convention, ConventionParts, Criterion, EvalConfig, Evaluation, Metric, Summary, evaluate_dataset,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};
use crate::registry::{AlgoConfig, AnyModel, ModelFile};
use crate::spec::{AlgorithmEntry, ExperimentSpec};

/// The three splits of a fold, each carrying the convention it is evaluated under, so
/// learners that evaluate during training use the same definitions as the evaluation, and
/// normalised as the spec asks for the dataset ([`ExperimentSpec::normalization`]).
/// Validation and test are shared: folds built from parsed subsets ([`Subsets`]) hold the
/// same subset as one fold's test split and another's validation split (unless normalised).
#[derive(Debug)]
pub struct Splits {
    /// Training split, carrying the fold's [`training_split_seed`].
    pub train: Dataset,
    /// Validation split.
    pub vali: Arc<Dataset>,
    /// Test split.
    pub test: Arc<Dataset>,
    /// The normalisation applied to all three, fitted on the training split as read.
    pub normalizer: Normalizer,
}

impl Splits {
    /// Splits as read, normalised by `method`: the normaliser is fitted on the training
    /// split alone, then applied to all three; the training split then carries `split_seed`.
    fn normalized(
        method: Normalization,
        train: Dataset,
        vali: Arc<Dataset>,
        test: Arc<Dataset>,
        split_seed: u64,
    ) -> Result<Self> {
        if method.is_none() {
            let train = train.with_split_seed(Some(split_seed));
            return Ok(Self { train, vali, test, normalizer: Normalizer::None });
        }
        let normalizer = method.fit(&train)?;
        Ok(Self {
            train: normalizer.apply(&train)?.with_split_seed(Some(split_seed)),
            vali: Arc::new(normalizer.apply(&vali)?),
            test: Arc::new(normalizer.apply(&test)?),
            normalizer,
        })
    }
}

/// Everything the protocol determined for one cell.
#[derive(Debug, Clone)]
pub struct CellOutcome {
    /// How test metrics were computed.
    pub eval: EvalConfig,
    /// The selection criterion on vali.
    pub criterion: Criterion,
    /// The seed of each grid point, in grid order.
    pub seeds: Vec<u64>,
    /// The validation value of each grid point's model, in grid order (NaN for a point that
    /// was not trained).
    pub vali: Vec<f64>,
    /// Why each grid point could not be trained, in grid order (`None`: it trained).
    pub errors: Vec<Option<String>>,
    /// Index of the selected grid point.
    pub chosen: usize,
    /// The selected model.
    pub model: AnyModel,
    /// Its test scores, one per document in file order.
    pub test_scores: Vec<f64>,
    /// The feature normalisation the model was fitted and scored under ([`Splits`]).
    pub normalizer: Normalizer,
    /// Their evaluation (means and per query).
    pub evaluation: Evaluation,
    /// Seconds spent fitting each grid point (not deterministic; kept out of records).
    pub fit_seconds: Vec<f64>,
    /// What the selected model costs or looks like, for the algorithms whose point is a
    /// trade-off the metrics do not show ([`model_statistics`]).
    pub model_stats: BTreeMap<String, f64>,
    /// The selected point fitted again with further seeds (`None` when the spec asks for
    /// one seed).
    pub seed_runs: Option<SeedRuns>,
}

/// A cell's selected grid point fitted again with further seeds, when the spec asks for more
/// than one (`seeds`): what a change of seed alone does to its numbers. The cell's own model,
/// the one its tables show, stays the first seed's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedRuns {
    /// Seeds asked for, the cell's own included (the spec's `seeds`).
    pub seeds: u32,
    /// Whether the selected configuration draws from its seed
    /// ([`AlgoConfig::draws_from_seed`]). When it does not, nothing is refitted: every seed
    /// gives the cell's model, and the spread over seeds is exactly 0.
    pub randomised: bool,
    /// The further fits in seed order: `seeds - 1` when randomised, else none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<SeedRun>,
}

/// One further fit of a cell's selected grid point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    /// Its seed ([`further_seeds`]).
    pub seed: u64,
    /// The validation value of its model (absent when not a number, or not trained).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vali: Option<f64>,
    /// Its test means (absent when it could not be trained).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Summary>,
    /// Why it could not be trained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The `n - 1` further seeds of a grid point whose own seed is `seed` ([`point_seed`]):
/// derived from it alone, so they follow the data and the parameters as it does.
pub fn further_seeds(seed: u64, n: u32) -> Vec<u64> {
    (1..n).map(|i| derive_seed(seed, &["further seed", &i.to_string()])).collect()
}

/// Fits `config` again with the further seeds of `seed` ([`further_seeds`]), in parallel,
/// and evaluates each model on vali and test; nothing when `config` draws nothing from its
/// seed. A fit that fails is recorded with why; the others stand.
fn refit_with_seeds(
    config: &AlgoConfig,
    seed: u64,
    seeds: u32,
    splits: &Splits,
    valid: &Validation<'_>,
    eval: &EvalConfig,
) -> SeedRuns {
    let randomised = config.draws_from_seed();
    if !randomised {
        return SeedRuns { seeds, randomised, runs: Vec::new() };
    }
    // Seeds are derived before any parallel work; results are collected in seed order.
    let runs = further_seeds(seed, seeds)
        .into_par_iter()
        .map(|s| {
            let fitted = fit_point(config, &splits.train, Some(valid), s)
                .and_then(|model| {
                    let v = valid.evaluate(&model.score_vec(&splits.vali)?)?;
                    Ok((v, model.score_vec(&splits.test)?))
                })
                .map_err(|e| e.to_string())
                .and_then(|(v, scores)| {
                    let test = evaluate_dataset(&splits.test, &scores, eval).map_err(|e| e.to_string())?;
                    Ok((v, test.summary))
                });
            match fitted {
                Ok((v, test)) => {
                    SeedRun { seed: s, vali: v.is_finite().then_some(v), test: Some(test), error: None }
                }
                Err(e) => SeedRun { seed: s, vali: None, test: None, error: Some(e) },
            }
        })
        .collect();
    SeedRuns { seeds, randomised, runs }
}

/// The model statistic counting the distinct features a model reads ([`model_statistics`]).
pub const FEATURES_USED: &str = "features_used";
/// The model statistic counting the rounds, stages or trees a model kept ([`model_statistics`]).
pub const STAGES_KEPT: &str = "stages_kept";

/// Statistics of a fitted model on the test split, by name: FenchelRank's `sparsity`
/// (`1 - |w|_0 / d`), the cascade's `cost_per_query` (feature evaluations per query, unit
/// cost per feature and document, as LETOR has no feature costs) with `cost_relative` (that
/// cost over the same stages without pruning), and SSRankBoost's `hidden_fraction` (of the
/// training documents, grades hidden) with `pseudo_labelled_fraction` (given a grade by a
/// labelled neighbour). Besides, for every model that knows them ([`AnyModel::model_size`]),
/// `features_used` (distinct features it reads) and `stages_kept` (rounds, stages or trees).
pub fn model_statistics(model: &AnyModel, test: &Dataset) -> ltr_core::Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    let size = model.model_size();
    if let Some(n) = size.features {
        out.insert(FEATURES_USED.to_owned(), n as f64);
    }
    if let Some(n) = size.stages {
        out.insert(STAGES_KEPT.to_owned(), n as f64);
    }
    match model {
        AnyModel::FenchelRank(m) => {
            out.insert("sparsity".to_owned(), m.sparsity_ratio());
        }
        AnyModel::Cascade(m) => {
            let cost = m.cost(test)?;
            out.insert("cost_per_query".to_owned(), cost.mean);
            out.insert("cost_relative".to_owned(), cost.relative());
        }
        AnyModel::SsRankBoost(m) => {
            out.insert("hidden_fraction".to_owned(), m.hidden_fraction);
            out.insert("pseudo_labelled_fraction".to_owned(), m.pseudo_labelled_fraction);
        }
        _ => {}
    }
    Ok(out)
}

/// The evaluation config of a dataset under a spec: the spec's convention if it sets one,
/// else the dataset's, in its official form, with the parts the spec's `eval` table sets.
pub fn eval_config(spec: &ExperimentSpec, dataset: &DatasetInput) -> EvalConfig {
    EvalConfig::official(spec.convention.unwrap_or(dataset.convention)).with_parts(&spec.eval)
}

/// The selection criterion of an entry on a dataset.
pub fn criterion(spec: &ExperimentSpec, dataset: &DatasetInput, entry: &AlgorithmEntry) -> Criterion {
    Criterion::new(entry.validation_metric, eval_config(spec, dataset))
}

/// The seed of one grid point: derived from the content of the fold's three files (their
/// sha256, as the cell key records them) and the point's algorithm id and parameters, never
/// from a name or a label. Renaming a dataset or relabelling an algorithm in a spec changes
/// no number, a fold rebuilt from the embedded pieces seeds as the released file does, and
/// adding a grid point changes no other point's seed.
pub fn point_seed(
    master: u64,
    dataset: &DatasetInput,
    fold: u32,
    label: &str,
    config: &AlgoConfig,
) -> Result<u64> {
    let files = fold_files(dataset, fold)?;
    point_seed_of(master, [&files.train.sha256, &files.vali.sha256, &files.test.sha256], label, config)
}

/// [`point_seed`] from the sha256 of the fold's training, validation and test files, for
/// callers that know them without a resolved dataset (the manifest's hashes of the embedded
/// folds).
pub fn point_seed_of(master: u64, sha256: [&str; 3], label: &str, config: &AlgoConfig) -> Result<u64> {
    // The tagged JSON names the algorithm by its id: `{"algorithm":"ranknet","params":{..}}`.
    let params = serde_json::to_string(config).map_err(|e| HarnessError::Serialize {
        what: format!("{label} parameters (seed derivation)"),
        reason: e.to_string(),
    })?;
    let [train, vali, test] = sha256;
    Ok(derive_seed(master, &[train, vali, test, &params]))
}

/// The seed of a fold's training split ([`Dataset::split_seed`]): derived, as [`point_seed`]
/// is, from the master seed and the content of the fold's three files (their sha256), but from
/// no algorithm or parameter, so every grid point of every entry of a fold sees the same one.
/// Learners draw from it what must be the same across a cell's grid and the entries of a fold
/// (the grades SSRankBoost hides); no other learner reads it.
pub fn training_split_seed(master: u64, dataset: &DatasetInput, fold: u32) -> Result<u64> {
    let files = fold_files(dataset, fold)?;
    Ok(derive_seed(master, &[&files.train.sha256, &files.vali.sha256, &files.test.sha256, "training split"]))
}

/// The files of fold `fold` of a dataset.
pub fn fold_files(dataset: &DatasetInput, fold: u32) -> Result<&FoldFiles> {
    dataset.folds.iter().find(|f| f.fold == fold).ok_or_else(|| {
        HarnessError::Data(ltr_format::DataError::NotInManifest(format!(
            "{} has no fold {fold} (it has {})",
            dataset.name,
            dataset.folds.iter().map(|f| f.fold.to_string()).collect::<Vec<_>>().join(", ")
        )))
    })
}

/// Reads one file of a dataset as the protocol does: the dataset's width, missing-value token,
/// clipping and line format, carrying the spec's evaluation convention. The bytes parsed are hashed in the
/// same pass and must be the ones the file's recorded sha256 (part of every cell key) was
/// taken from: a file changed since its dataset was resolved is refused.
pub fn read_split(spec: &ExperimentSpec, dataset: &DatasetInput, f: &DataFile) -> Result<Dataset> {
    read_split_under(dataset, f, eval_config(spec, dataset).convention)
}

/// [`read_split`] carrying `convention` instead of a spec's.
pub fn read_split_under(dataset: &DatasetInput, f: &DataFile, convention: Convention) -> Result<Dataset> {
    let opts = read_options(dataset);
    let path = locate(&dataset.root, &f.rel).ok_or_else(|| ltr_format::DataError::Io {
        path: dataset.root.join(&f.rel),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "data file missing (plain or .gz; fetch the dataset first)",
        ),
    })?;
    Ok(read_file_as_hashed(&path, &opts, &f.sha256)?.dataset.with_convention(Some(convention)))
}

/// How the protocol reads every file of a dataset: its width, missing-value token, clipping
/// and line format.
pub fn read_options(dataset: &DatasetInput) -> ReadOptions {
    ReadOptions {
        n_features: Some(dataset.features),
        missing_token: dataset.missing_token.clone(),
        clip: dataset.clip,
        format: dataset.format,
        ..ReadOptions::default()
    }
}

/// Reads the three splits of a fold (in parallel), each carrying the spec's evaluation
/// convention, normalised as the spec asks for the dataset; the training split carries the
/// fold's [`training_split_seed`].
pub fn read_fold(spec: &ExperimentSpec, dataset: &DatasetInput, fold: u32) -> Result<Splits> {
    let files = fold_files(dataset, fold)?;
    let read = |f: &DataFile| read_split(spec, dataset, f);
    let (train, (vali, test)) =
        rayon::join(|| read(&files.train), || rayon::join(|| read(&files.vali), || read(&files.test)));
    let method = spec.normalization(&dataset.name);
    let seed = training_split_seed(spec.seed, dataset, fold)?;
    let splits = Splits::normalized(method, train?, Arc::new(vali?), Arc::new(test?), seed)?;
    warn_shared_queries(dataset, fold, &splits);
    Ok(splits)
}

/// Warns when a fold's test split shares query ids with its training or validation split
/// (naming the first few): its numbers then measure queries the model has seen.
fn warn_shared_queries(dataset: &DatasetInput, fold: u32, splits: &Splits) {
    const SHOWN: usize = 5;
    for (other, what, seen) in
        [(&splits.train, "training", "trained"), (splits.vali.as_ref(), "validation", "selected")]
    {
        let shared = shared_query_ids(&splits.test, other);
        if shared.is_empty() {
            continue;
        }
        let mut list = shared.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
        if shared.len() > SHOWN {
            list += &format!(" and {} more", shared.len() - SHOWN);
        }
        log::warn!(
            "{} fold {fold}: the test split shares {} query {} with the {what} split ({list}); its \
             numbers measure queries the model was {seen} on",
            dataset.name,
            shared.len(),
            if shared.len() == 1 { "id" } else { "ids" },
        );
    }
}

/// The subsets S1..Sn of a dataset whose folds are their LETOR rotation
/// ([`DatasetInput::rotation`]), each parsed once: every fold is then built from them instead
/// of parsing its three files (a five-fold run parses each subset once instead of five
/// times). Building a fold copies its training subsets into one training split; validation
/// and test are the subsets themselves.
#[derive(Debug)]
pub struct Subsets {
    parts: Vec<Arc<Dataset>>,
    /// The spec's normalisation of the dataset, applied to each fold built.
    normalization: Normalization,
    /// The spec's master seed, for the training splits' [`training_split_seed`].
    master_seed: u64,
}

impl Subsets {
    /// Reads the subsets of `dataset` (in parallel). `Ok(None)` when its folds are not known
    /// to be a rotation, or not all of them are in `dataset` (then [`read_fold`] it is).
    pub fn read(spec: &ExperimentSpec, dataset: &DatasetInput) -> Result<Option<Self>> {
        let Some(files) = dataset.rotation.and_then(|n| rotation_subsets(&dataset.folds, n)) else {
            return Ok(None);
        };
        let parts = files
            .par_iter()
            .map(|f| read_split(spec, dataset, f).map(Arc::new))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Self { parts, normalization: spec.normalization(&dataset.name), master_seed: spec.seed }))
    }

    /// The splits of fold `fold`, equal to what [`read_fold`] reads from its files.
    pub fn fold(&self, dataset: &DatasetInput, fold: u32) -> Result<Splits> {
        let n = u32::try_from(self.parts.len()).unwrap_or(u32::MAX);
        let r = rotation(fold, n).ok_or_else(|| {
            HarnessError::Data(ltr_format::DataError::NotInManifest(format!(
                "{} has folds 1..={n}, not {fold}",
                dataset.name
            )))
        })?;
        let train: Vec<&Dataset> = r.train.iter().map(|&i| self.parts[i].as_ref()).collect();
        // A query cut by a subset boundary would be one query in the training file and two
        // here; LETOR's subsets are query-disjoint, so this only guards against a wrong flag.
        for pair in train.windows(2) {
            let last = pair[0].query_ids().last();
            if last.is_some() && last == pair[1].query_ids().first() {
                return Err(ltr_core::Error::InvalidDataset {
                    reason: format!(
                        "{} fold {fold}: query {} spans two subsets, so the folds are not a \
                         rotation of query-disjoint subsets",
                        dataset.name,
                        last.map_or("", String::as_str)
                    ),
                }
                .into());
            }
        }
        Splits::normalized(
            self.normalization,
            Dataset::concat(&train)?,
            Arc::clone(&self.parts[r.vali]),
            Arc::clone(&self.parts[r.test]),
            training_split_seed(self.master_seed, dataset, fold)?,
        )
    }
}

/// Computes, before the grid's parallel fits, what its fits derive from the training split
/// alone and share ([`ltr_core::Learner::prepare`]: the tree learners' bins); returns the
/// seconds it took.
pub fn prepare(entry: &AlgorithmEntry, splits: &Splits) -> ltr_core::Result<f64> {
    let t = Instant::now();
    for config in &entry.grid {
        config.prepare(&splits.train)?;
    }
    Ok(t.elapsed().as_secs_f64())
}

/// Fits one grid point as the protocol does: `config` on `train`, every random decision drawn
/// from `seed` (the point's [`point_seed`]), `valid` for early stopping and round selection.
/// [`run_on_splits`] fits every point through it and `ltr train` its one, so that a fit with a
/// cell's data, parameters and seed gives the cell's model. A fit without [`prepare`] computes
/// what it would share itself, with the same result.
pub fn fit_point(
    config: &AlgoConfig,
    train: &Dataset,
    valid: Option<&Validation<'_>>,
    seed: u64,
) -> ltr_core::Result<AnyModel> {
    config.fit(train, valid, &mut Rng::new(seed))
}

/// One fit outside a run, as `ltr train` and the Python binding make it: the training and
/// validation data normalised as a fold is (the normaliser fitted on the training data alone),
/// the training data carrying its split seed, and the validation criterion on the training
/// data's convention. Both front ends fit through it, so that the same data, parameters and
/// seed give the same model file, byte for byte.
#[derive(Debug)]
pub struct SingleFit {
    /// Training data, normalised, with its split seed.
    pub train: Dataset,
    /// Validation data, normalised as the training data.
    pub vali: Option<Dataset>,
    /// The normalisation fitted on the training data (stored in the model file).
    pub normalizer: Normalizer,
    /// Early stopping and round selection on the validation data.
    pub criterion: Criterion,
}

impl SingleFit {
    /// Normalises `train` and `vali` by `normalize` (fitted on `train`), gives `train` the
    /// split seed, and sets the validation criterion: `metric` under `train`'s convention with
    /// `parts` departing from it.
    pub fn new(
        train: Dataset,
        vali: Option<Dataset>,
        normalize: Normalization,
        split_seed: Option<u64>,
        metric: Metric,
        parts: &ConventionParts,
    ) -> Result<Self> {
        let normalizer = normalize.fit(&train)?;
        let (train, vali) = if normalizer.is_none() {
            (train, vali)
        } else {
            (normalizer.apply(&train)?, vali.map(|v| normalizer.apply(&v)).transpose()?)
        };
        let train = train.with_split_seed(split_seed);
        let criterion = Criterion::new(metric, EvalConfig::of(&train).with_parts(parts));
        Ok(Self { train, vali, normalizer, criterion })
    }

    /// The validation the fit early-stops and selects on.
    pub fn validation(&self) -> Option<Validation<'_>> {
        self.vali.as_ref().map(|data| Validation { data, measure: &self.criterion })
    }

    /// Fits `config` with `seed` through [`fit_point`].
    pub fn fit(&self, config: &AlgoConfig, seed: u64) -> ltr_core::Result<AnyModel> {
        fit_point(config, &self.train, self.validation().as_ref(), seed)
    }

    /// The model file of a model this fit made with `config` and `seed`.
    pub fn into_model_file(self, config: &AlgoConfig, seed: u64, model: AnyModel) -> ModelFile {
        ModelFile {
            ltr_version: env!("CARGO_PKG_VERSION").to_owned(),
            config: config.clone(),
            seed,
            n_features: self.train.n_features(),
            model,
            normalizer: self.normalizer,
        }
    }
}

/// The protocol on one fold: reads its splits, then [`run_on_splits`].
pub fn run_fold(
    spec: &ExperimentSpec,
    dataset: &DatasetInput,
    fold: u32,
    entry: &AlgorithmEntry,
) -> Result<CellOutcome> {
    let splits = read_fold(spec, dataset, fold)?;
    run_on_splits(spec, dataset, fold, entry, &splits)
}

/// The protocol on splits already read by [`read_fold`] (the runner reads each fold once
/// for all its algorithms). Grid points are fitted in parallel, a batch at a time, and only
/// the best model so far is kept ([`BestCheckpoint`], the rule of [`ltr_core::select_best`]),
/// so a large grid holds one batch of models, not one per point; the outcome does not depend
/// on the thread count. A point that cannot be trained is recorded with why
/// ([`CellOutcome::errors`]) and selection goes on over the others; the cell fails only when
/// no point trained. With the spec's `seeds` above 1, the selected point is then fitted again
/// with its further seeds ([`SeedRuns`]); the cell's model stays the first seed's.
pub fn run_on_splits(
    spec: &ExperimentSpec,
    dataset: &DatasetInput,
    fold: u32,
    entry: &AlgorithmEntry,
    splits: &Splits,
) -> Result<CellOutcome> {
    let cell_err = |e: Box<dyn std::error::Error + Send + Sync>| HarnessError::Cell {
        dataset: dataset.name.clone(),
        fold,
        algorithm: entry.label.clone(),
        source: e,
    };
    let eval = eval_config(spec, dataset);
    let criterion = Criterion::new(entry.validation_metric, eval);
    // Seeds are derived before any parallel work.
    let seeds = entry
        .grid
        .iter()
        .map(|c| point_seed(spec.seed, dataset, fold, &entry.label, c))
        .collect::<Result<Vec<_>>>()?;
    // Shared work is counted in every point's fit time, as a fit alone would spend it.
    let prepared = prepare(entry, splits).map_err(|e| cell_err(Box::new(e)))?;
    let valid = Validation { data: &splits.vali, measure: &criterion };
    // Whoever runs the cell may listen to the fits' progress, one grid point at a time.
    let progress = ltr_core::progress::current();
    let points = entry.grid.len();
    let fit = |point: usize, config: &AlgoConfig, seed: u64| -> (ltr_core::Result<(f64, AnyModel)>, f64) {
        let t = Instant::now();
        let listener = progress.as_ref().map(|r| r.point(point, points));
        let one = || fit_point(config, &splits.train, Some(&valid), seed);
        let fitted = ltr_core::progress::fit(listener, one).and_then(|model| {
            let v = valid.evaluate(&model.score_vec(&splits.vali)?)?;
            Ok((v, model))
        });
        let secs = prepared + t.elapsed().as_secs_f64();
        match &fitted {
            Ok((v, _)) => log::debug!(
                "{} fold {fold} {} {}: vali {} = {v:.6} ({secs:.3} s)",
                dataset.name,
                entry.label,
                config.params_json(),
                criterion.metric,
            ),
            Err(e) => log::debug!(
                "{} fold {fold} {} {}: not trained: {e}",
                dataset.name,
                entry.label,
                config.params_json()
            ),
        }
        (fitted, secs)
    };

    let n = entry.grid.len();
    let mut vali = Vec::with_capacity(n);
    let mut errors = Vec::with_capacity(n);
    let mut fit_seconds = Vec::with_capacity(n);
    let mut best = BestCheckpoint::new();
    let batch = rayon::current_num_threads().saturating_mul(4).max(1);
    for (b, (configs, seeds)) in entry.grid.chunks(batch).zip(seeds.chunks(batch)).enumerate() {
        let fitted: Vec<_> = configs
            .par_iter()
            .zip(seeds)
            .enumerate()
            .map(|(i, (c, &seed))| fit(b * batch + i, c, seed))
            .collect();
        // In grid order, whatever the thread count.
        for (i, (outcome, secs)) in fitted.into_iter().enumerate() {
            fit_seconds.push(secs);
            match outcome {
                Ok((v, model)) => {
                    best.offer(b * batch + i, v, || model);
                    vali.push(v);
                    errors.push(None);
                }
                Err(e) => {
                    vali.push(f64::NAN);
                    errors.push(Some(e.to_string()));
                }
            }
        }
    }
    let Some(Checkpoint { step: chosen, state: model, .. }) = best.into_best() else {
        return Err(cell_err(untrained(entry, &errors).into()));
    };
    let test_scores = model.score_vec(&splits.test).map_err(|e| cell_err(Box::new(e)))?;
    let evaluation =
        evaluate_dataset(&splits.test, &test_scores, &eval).map_err(|e| cell_err(Box::new(e)))?;
    let model_stats = model_statistics(&model, &splits.test).map_err(|e| cell_err(Box::new(e)))?;
    let seed_runs = match (spec.seeds > 1, entry.grid.get(chosen), seeds.get(chosen)) {
        (true, Some(config), Some(&seed)) => {
            Some(refit_with_seeds(config, seed, spec.seeds, splits, &valid, &eval))
        }
        _ => None,
    };
    Ok(CellOutcome {
        eval,
        criterion,
        seeds,
        vali,
        errors,
        chosen,
        model,
        test_scores,
        normalizer: splits.normalizer.clone(),
        evaluation,
        fit_seconds,
        model_stats,
        seed_runs,
    })
}

/// The most grid points named for one reason in a message about points that did not train.
const NAMED_POINTS: usize = 5;

/// The grid points of `entry` whose `errors` are set, grouped by reason, as a user edits
/// them in a spec: `k = 10, k = 20: why; k = 30: why else` (only the keys the grid varies;
/// at most five named per reason). Empty when every point trained.
pub fn untrained_points(entry: &AlgorithmEntry, errors: &[Option<String>]) -> String {
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, e) in errors.iter().enumerate() {
        let Some(e) = e else { continue };
        match groups.iter_mut().find(|(reason, _)| *reason == e.as_str()) {
            Some((_, points)) => points.push(i),
            None => groups.push((e, vec![i])),
        }
    }
    if groups.is_empty() {
        return String::new();
    }
    let params: Vec<serde_json::Value> = entry.grid.iter().map(AlgoConfig::params_json).collect();
    let varied: Vec<&String> = match params.first().and_then(serde_json::Value::as_object) {
        Some(first) => first
            .keys()
            .filter(|k| params.iter().any(|p| p.get(k.as_str()) != first.get(k.as_str())))
            .collect(),
        None => Vec::new(),
    };
    let point = |i: usize| -> String {
        let pairs: Vec<String> = varied
            .iter()
            .map(|k| format!("{k} = {}", params[i].get(k.as_str()).unwrap_or(&serde_json::Value::Null)))
            .collect();
        match pairs.len() {
            0 => format!("point {}", i + 1),
            1 => pairs[0].clone(),
            _ => format!("{{ {} }}", pairs.join(", ")),
        }
    };
    groups
        .iter()
        .map(|(reason, points)| {
            let mut named: Vec<String> = points.iter().take(NAMED_POINTS).map(|&i| point(i)).collect();
            if points.len() > NAMED_POINTS {
                named.push(format!("{} more", points.len() - NAMED_POINTS));
            }
            format!("{}: {reason}", named.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a cell none of whose grid points trained fails, naming the points.
fn untrained(entry: &AlgorithmEntry, errors: &[Option<String>]) -> String {
    match errors {
        [] => "the grid has no point".to_owned(),
        [only] => format!("its only grid point could not be trained: {}", only.as_deref().unwrap_or("")),
        _ => format!(
            "none of its {} grid points could be trained ({})",
            errors.len(),
            untrained_points(entry, errors)
        ),
    }
}
