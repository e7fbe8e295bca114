//! Test support for algorithm crates (a dev-dependency only; the harness is the real runner).
//!
//! * [`folds`]: the real LETOR folds from the mirror (`$LTR_MIRROR` or `../shared/datasets`),
//!   or `None` with a note when there is no mirror.
//! * [`cross_validate`]: the LETOR protocol in miniature: for every fold, fit each grid
//!   point on train (with the validation split and MAP under the dataset's convention as the
//!   selection measure), keep the best on vali, evaluate it on test; average over folds.
//! * [`dataset`]: a small hand-written dataset for unit tests.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ltr_core::{Dataset, DatasetBuilder, Learner, Params, Ranker, Rng, Validation, derive_seed};
use ltr_data::folds::{Fold, load_fold};
use ltr_data::manifest::Manifest;
use ltr_metrics::{Convention, Criterion, EvalConfig, Metric, Summary, evaluate_dataset};

/// A dataset of `d` features from `(labels, rows)` per query, query ids `"0"`, `"1"`, ...
///
/// # Panics
/// If a row does not have `d` finite values (a mistake in the test).
pub fn dataset<R: AsRef<[f32]>>(d: usize, queries: &[(&[u8], &[R])]) -> Dataset {
    let mut b = DatasetBuilder::new(d);
    for (q, (labels, rows)) in queries.iter().enumerate() {
        assert_eq!(labels.len(), rows.len(), "query {q}: one label per row");
        b.start_query(&q.to_string());
        for (&l, r) in labels.iter().zip(rows.iter()) {
            b.push_doc(l, r.as_ref(), None).expect("valid test row");
        }
    }
    b.finish().expect("valid test dataset")
}

/// Finds a dataset mirror: `$LTR_MIRROR` when it is a folder, else the first
/// `shared/datasets` holding a `SHA256SUMS` found beside `start` or one of its ancestors.
pub fn find_mirror(start: &Path) -> Option<PathBuf> {
    if let Some(m) = std::env::var_os("LTR_MIRROR").map(PathBuf::from).filter(|p| p.is_dir()) {
        return Some(m);
    }
    start.ancestors().map(|a| a.join("shared").join("datasets")).find(|p| p.join("SHA256SUMS").is_file())
}

/// The dataset mirror, if there is one.
pub fn mirror() -> Option<PathBuf> {
    let m = find_mirror(Path::new(env!("CARGO_MANIFEST_DIR")));
    if m.is_none() {
        eprintln!("note: no dataset mirror found; real-data test skipped");
    }
    m
}

/// All folds of a dataset's default variant (`("letor3", "OHSUMED")`, `("letor4", "MQ2008")`).
///
/// # Panics
/// If the mirror exists but the files cannot be read (a test failure).
pub fn folds(collection: &str, dataset: &str) -> Option<(Vec<Fold>, Convention)> {
    let root = mirror()?;
    let manifest = Manifest::builtin(collection).expect("built-in manifest");
    let entry = manifest.dataset(dataset).expect("dataset in manifest");
    let n = entry.default_variant().folds;
    let folds =
        (1..=n).map(|k| load_fold(&root, &manifest, dataset, None, k).expect("fold readable")).collect();
    Some((folds, manifest.convention_of(entry)))
}

/// One fold's outcome.
#[derive(Debug, Clone)]
pub struct FoldResult {
    /// Fold number.
    pub fold: u32,
    /// Index of the selected grid point.
    pub chosen: usize,
    /// Validation MAP of the selected point.
    pub vali_map: f64,
    /// Test metrics of the selected point.
    pub test: Summary,
    /// Seconds spent fitting the selected point.
    pub fit_seconds: f64,
}

/// Means over folds.
#[derive(Debug, Clone)]
pub struct CvResult {
    /// Per fold.
    pub folds: Vec<FoldResult>,
    /// Mean test NDCG@1, @3, @5, @10.
    pub ndcg: [f64; 4],
    /// Mean test MAP.
    pub map: f64,
    /// Mean fitting time of the selected points, seconds.
    pub fit_seconds: f64,
}

impl std::fmt::Display for CvResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "NDCG@1 {:.4} @3 {:.4} @5 {:.4} @10 {:.4} MAP {:.4} (fit {:.3} s/fold; chosen {:?})",
            self.ndcg[0],
            self.ndcg[1],
            self.ndcg[2],
            self.ndcg[3],
            self.map,
            self.fit_seconds,
            self.folds.iter().map(|r| r.chosen).collect::<Vec<_>>()
        )
    }
}

/// Runs the protocol over `grid` on a dataset; `None` without a mirror. Logs to stderr.
///
/// # Panics
/// On any fitting or evaluation error (a test failure).
pub fn cross_validate<P: Params>(collection: &str, dataset: &str, grid: &[P], seed: u64) -> Option<CvResult> {
    let (folds, convention) = folds(collection, dataset)?;
    let cfg = EvalConfig::official(convention);
    let criterion = Criterion::new(Metric::Map, cfg);
    let mut results = Vec::new();
    for fold in &folds {
        let valid = Validation { data: &fold.vali, measure: &criterion };
        let mut best: Option<(f64, usize, P::Checked, f64)> = None;
        for (i, params) in grid.iter().enumerate() {
            let learner = params.validate().expect("valid params");
            let mut rng = Rng::new(derive_seed(seed, &[dataset, &fold.fold.to_string(), &i.to_string()]));
            let t = Instant::now();
            let model = learner.fit(&fold.train, Some(&valid), &mut rng).expect("fit");
            let secs = t.elapsed().as_secs_f64();
            let v = valid.evaluate_model(&model).expect("validation");
            if best.as_ref().is_none_or(|b| v > b.0) {
                best = Some((v, i, learner, secs));
            }
        }
        let (vali_map, chosen, learner, _) = best.expect("non-empty grid");
        let mut rng = Rng::new(derive_seed(seed, &[dataset, &fold.fold.to_string(), &chosen.to_string()]));
        let t = Instant::now();
        let model = learner.fit(&fold.train, Some(&valid), &mut rng).expect("fit");
        let fit_seconds = t.elapsed().as_secs_f64();
        let scores = model.score_vec(&fold.test).expect("score");
        let test = evaluate_dataset(&fold.test, &scores, &cfg).expect("evaluate").summary;
        results.push(FoldResult { fold: fold.fold, chosen, vali_map, test, fit_seconds });
    }
    let n = results.len() as f64;
    let mean = |f: &dyn Fn(&FoldResult) -> f64| results.iter().map(f).sum::<f64>() / n;
    let out = CvResult {
        ndcg: [
            mean(&|r| r.test.ndcg[0]),
            mean(&|r| r.test.ndcg[2]),
            mean(&|r| r.test.ndcg[4]),
            mean(&|r| r.test.ndcg[9]),
        ],
        map: mean(&|r| r.test.map),
        fit_seconds: mean(&|r| r.fit_seconds),
        folds: results,
    };
    eprintln!("{collection}/{dataset} ({convention}): {out}");
    Some(out)
}
