//! The real-data test of every algorithm id, one module each, through the cross-validation
//! protocol exactly as the reports run it ([`ltr_harness::protocol`] with the algorithm's entry
//! of `experiments/letor3.toml` / `letor4.toml`: grid, validation metric, seed).
//!
//! Each runs fold 1 of OHSUMED (LETOR 3.0) and of MQ2008 (LETOR 4.0), data installed from the
//! embedded pieces, and requires the committed reports' fold-1 record to hold exactly these
//! numbers (selected grid point, its validation value, every test metric, to 1e-12): the tests
//! check what the reports publish, and a change in numbers cannot pass without regenerating
//! the reports. The other folds are reproduced by CI through the binary (`.ci/run`), which
//! checks them against the same reports. Floors on the reported 5-fold means, and checks of
//! what a report does not show (sparsity, cost per query, ensemble size, thread-count
//! invariance), sit in the algorithm's module.

use std::sync::OnceLock;

use ltr_core::{Dataset, Rng};
use ltr_data::resolved::DatasetInput;
use ltr_harness::protocol::{self, CellOutcome, Splits};
use ltr_harness::{ALGORITHMS, AlgoConfig, AlgorithmEntry, AnyModel, ExperimentSpec};
use ltr_metrics::Metric;
use serde_json::Value;

use crate::common::{installed, root};

/// Declares the module of each algorithm id and the list of ids tested.
macro_rules! algorithms {
    ($($module:ident => $id:literal,)*) => {
        $(mod $module;)*
        /// Every algorithm id with a module here.
        const TESTED: &[&str] = &[$($id),*];
    };
}

algorithms! {
    regression => "regression",
    prank => "prank",
    ranksvm => "ranksvm",
    crr => "crr",
    pcrank => "pcrank",
    rankboost => "rankboost",
    adarank_map => "adarank-map",
    adarank_ndcg => "adarank-ndcg",
    lambdamart => "lambdamart",
    intervalrank => "intervalrank",
    ranknet => "ranknet",
    lambdarank => "lambdarank",
    listnet => "listnet",
    listmle => "listmle",
    ranksvm_ensemble => "ranksvm-ensemble",
    ir_svm => "ir-svm",
    ranklr => "ranklr",
    fenchelrank => "fenchelrank",
    rankcosine => "rankcosine",
    cascade => "cascade",
    mcrank => "mcrank",
    gbrank => "gbrank",
    qbrank => "qbrank",
    rankrls => "rankrls",
    slr => "slr",
    rankgp => "rankgp",
    svm_map => "svm-map",
    permurank => "permurank",
    mpboost => "mpboost",
    rankrefine => "rankrefine",
    ssrankboost => "ssrankboost",
    frank => "frank",
    ndcgboost => "ndcgboost",
    softrank => "softrank",
    bayesrank => "bayesrank",
    boltzrank => "boltzrank",
    sortnet => "sortnet",
    best_feature => "best-feature",
}

/// How far a committed report's number may be from the protocol's.
const TOLERANCE: f64 = 1e-12;

/// A collection and its dataset with embedded data.
#[derive(Debug, Clone, Copy)]
pub struct Collection {
    /// Collection (and built-in spec and report) name.
    pub name: &'static str,
    /// The dataset.
    pub dataset: &'static str,
}

/// LETOR 3.0's OHSUMED (QueryLevelNorm).
pub const LETOR3: Collection = Collection { name: "letor3", dataset: "OHSUMED" };
/// LETOR 4.0's MQ2008.
pub const LETOR4: Collection = Collection { name: "letor4", dataset: "MQ2008" };

/// What every test of a collection shares: the built-in spec, the installed data, fold 1 read
/// as the runner reads it, and the committed report.
#[derive(Debug)]
struct Setup {
    spec: ExperimentSpec,
    data: &'static DatasetInput,
    fold1: Splits,
    report: Value,
}

impl Collection {
    fn report_file(self) -> String {
        format!("reports/{}.json", self.name)
    }

    fn setup(self) -> &'static Setup {
        static LETOR3_SETUP: OnceLock<Setup> = OnceLock::new();
        static LETOR4_SETUP: OnceLock<Setup> = OnceLock::new();
        let cell = match self.name {
            "letor3" => &LETOR3_SETUP,
            "letor4" => &LETOR4_SETUP,
            other => panic!("no collection {other}"),
        };
        cell.get_or_init(|| {
            let spec = ExperimentSpec::builtin(self.name).unwrap();
            assert!(spec.datasets.iter().any(|d| d == self.dataset), "{} not in the spec", self.dataset);
            assert!(spec.folds.contains(&1), "fold 1 not in the spec");
            let data = installed(self.name, self.dataset);
            let fold1 = protocol::read_fold(&spec, data, 1).unwrap();
            let file = self.report_file();
            let report: Value = serde_json::from_slice(&std::fs::read(root().join(&file)).unwrap()).unwrap();
            assert_eq!(
                report["seed"].as_u64(),
                Some(spec.seed),
                "{file}: made with another seed than the spec"
            );
            Setup { spec, data, fold1, report }
        })
    }

    /// The spec's entry of `label`.
    pub fn entry(self, label: &str) -> &'static AlgorithmEntry {
        let entry = self.setup().spec.algorithm(label).unwrap();
        assert_eq!(entry.label, label, "experiments/{}.toml has no entry labelled `{label}`", self.name);
        entry
    }

    /// Fold 1's splits, as the protocol reads them.
    pub fn fold1(self) -> &'static Splits {
        &self.setup().fold1
    }

    /// The reported 5-fold mean of `metric` for `label`.
    pub fn reported_mean(self, label: &str, metric: Metric) -> f64 {
        let file = self.report_file();
        let means = self.setup().report["means"].as_array().unwrap();
        let row = means
            .iter()
            .find(|m| m["dataset"] == self.dataset && m["algorithm"] == label)
            .unwrap_or_else(|| panic!("{file} has no mean of {label} on {}", self.dataset));
        assert_eq!(
            row["folds"].as_u64(),
            Some(5),
            "{file}: {label} on {} is not a 5-fold mean",
            self.dataset
        );
        row["metrics"][metric.to_string()]
            .as_f64()
            .unwrap_or_else(|| panic!("{file}: no {metric} of {label}"))
    }

    /// Asserts the reported 5-fold mean of `metric` for `label` is at least `floor`.
    pub fn assert_floor(self, label: &str, metric: Metric, floor: f64) {
        let got = self.reported_mean(label, metric);
        assert!(
            got >= floor,
            "{}: {label} {metric} on {} is {got:.4} < {floor}",
            self.report_file(),
            self.dataset
        );
    }

    /// Asserts that `label` reaches the published LETOR baseline of the report (NDCG@10 and
    /// MAP no more than 0.01 below it).
    pub fn assert_published_baseline(self, label: &str) {
        let file = self.report_file();
        let published = self.setup().report["published"].as_array().unwrap();
        let row = published
            .iter()
            .find(|p| {
                p["dataset"] == self.dataset
                    && p["source"] == "letor"
                    && p["ids"].as_array().is_some_and(|ids| ids.iter().any(|i| i == label))
            })
            .unwrap_or_else(|| panic!("{file} has no published LETOR row of {label} on {}", self.dataset));
        for metric in [Metric::Ndcg(10), Metric::Map] {
            let baseline = row["metrics"][metric.to_string()].as_f64().unwrap();
            self.assert_floor(label, metric, baseline - 0.01);
        }
    }

    /// Runs `entry` through the protocol on every fold of the spec (for settings the reports do
    /// not run, such as a fixed parameter or another loss): each fold's cell and splits.
    pub fn all_folds(self, entry: &AlgorithmEntry) -> Vec<(CellOutcome, Splits)> {
        let s = self.setup();
        let run = |k: u32| {
            let splits = protocol::read_fold(&s.spec, s.data, k).unwrap();
            let cell = protocol::run_on_splits(&s.spec, s.data, k, entry, &splits).unwrap();
            (cell, splits)
        };
        s.spec.folds.iter().map(|&k| run(k)).collect()
    }

    /// The spec's entry of `label` with another grid: each point is `key=value` settings on
    /// top of the algorithm's defaults (the spec's fixed parameters are not carried over).
    pub fn custom_entry<P: AsRef<[S]>, S: AsRef<str>>(self, label: &str, points: &[P]) -> AlgorithmEntry {
        let base = self.entry(label);
        let grid = points
            .iter()
            .map(|settings| {
                let settings: Vec<String> = settings.as_ref().iter().map(|s| s.as_ref().to_owned()).collect();
                AlgoConfig::from_settings(&base.id, &settings).unwrap()
            })
            .collect();
        AlgorithmEntry { grid, ..base.clone() }
    }
}

/// Fits `id` with `settings` (on top of its defaults) on fold 1's train split with no
/// validation split, in a pool of 1 and of 2 threads: the two models must be the same (same
/// JSON), and the model read back from that JSON must score the test split bit for bit alike.
pub fn assert_thread_count_invariant(c: Collection, id: &str, settings: &[&str]) {
    let settings: Vec<String> = settings.iter().map(|s| (*s).to_owned()).collect();
    let config = AlgoConfig::from_settings(id, &settings).unwrap();
    let splits = c.fold1();
    let fit = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| config.fit(&splits.train, None, &mut Rng::new(7)).unwrap())
    };
    let one = fit(1);
    let json = serde_json::to_string(&one).unwrap();
    assert!(serde_json::to_string(&fit(2)).unwrap() == json, "{id}: the thread count changed the model");
    let back: AnyModel = serde_json::from_str(&json).unwrap();
    let (a, b) = (one.score_vec(&splits.test).unwrap(), back.score_vec(&splits.test).unwrap());
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "{id}: JSON round trip");
}

/// On no dataset are `label`'s test rankings, as the protocol selects its models, those of
/// `other` or of one single feature on every query of all the spec's folds: the algorithm is
/// not a wrapper of either. Folds are read in order until each candidate has differed on one
/// (usually fold 1 settles all of them).
pub fn assert_not_a_wrapper(c: Collection, label: &str, other: &str) {
    let s = c.setup();
    // The comparator (`None`) and each feature (`Some(k)`) that ranked every test query of
    // every fold so far as `label` did.
    let mut alike: Vec<Option<usize>> =
        std::iter::once(None).chain((0..s.fold1.test.n_features()).map(Some)).collect();
    for &k in &s.spec.folds {
        if alike.is_empty() {
            return;
        }
        let read;
        let splits = if k == 1 {
            &s.fold1
        } else {
            read = protocol::read_fold(&s.spec, s.data, k).unwrap();
            &read
        };
        let run = |l: &str| {
            protocol::run_on_splits(&s.spec, s.data, k, c.entry(l), splits)
                .unwrap_or_else(|e| panic!("{l} on {} fold {k}: {e}", c.dataset))
                .test_scores
        };
        let test = &splits.test;
        let ours = run(label);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut same = |y: &[f64]| {
            test.queries().all(|q| {
                ltr_core::rank_order(&ours[q.range()], &mut a);
                ltr_core::rank_order(&y[q.range()], &mut b);
                a == b
            })
        };
        alike.retain(|who| match who {
            None => same(&run(other)),
            Some(j) => same(&test.rows().map(|r| f64::from(r[*j])).collect::<Vec<f64>>()),
        });
    }
    let names: Vec<String> =
        alike.iter().map(|w| w.map_or_else(|| other.to_owned(), |j| format!("feature {}", j + 1))).collect();
    assert!(
        alike.is_empty(),
        "{label} ranks every test query of every fold of {} like {}",
        c.dataset,
        names.join(", ")
    );
}

/// Runs fold 1 of `label` on the collection's dataset through the protocol, checks it against
/// the committed report and that the selected model scores the same after a JSON round trip,
/// and returns the cell.
pub fn fold_one(c: Collection, label: &str) -> CellOutcome {
    let s = c.setup();
    let entry = c.entry(label);
    let cell = protocol::run_on_splits(&s.spec, s.data, 1, entry, &s.fold1)
        .unwrap_or_else(|e| panic!("{label} on {} fold 1: {e}", c.dataset));
    check_against_report(c, entry, &cell);
    check_json_round_trip(label, &cell, &s.fold1.test);
    cell
}

/// Whether a number of the report (JSON `null` for NaN) is the protocol's.
fn same(reported: &Value, ours: f64) -> bool {
    match reported.as_f64() {
        Some(r) => (r - ours).abs() <= TOLERANCE,
        None => reported.is_null() && ours.is_nan(),
    }
}

fn check_against_report(c: Collection, entry: &AlgorithmEntry, cell: &CellOutcome) {
    let file = c.report_file();
    let label = entry.label.as_str();
    let report = &c.setup().report;
    let regenerate = format!("regenerate it (`ltr reproduce {}`)", c.name);

    let algo = report["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["label"] == label)
        .unwrap_or_else(|| panic!("{file} has no algorithm `{label}`: {regenerate}"));
    assert_eq!(
        algo["validation_metric"],
        entry.validation_metric.to_string(),
        "{file}: {label}: {regenerate}"
    );
    let grid: Vec<Value> = entry.grid.iter().map(AlgoConfig::params_json).collect();
    assert_eq!(
        algo["grid"],
        Value::Array(grid),
        "{file}: the grid of {label} is not the spec's: {regenerate}"
    );

    let record = report["folds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["dataset"] == c.dataset && f["algorithm"] == label && f["fold"] == 1)
        .unwrap_or_else(|| panic!("{file} has no fold 1 of {label} on {}: {regenerate}", c.dataset));
    let at = format!("{file}: {label} on {} fold 1", c.dataset);
    assert_eq!(
        record["chosen_params"],
        entry.grid[cell.chosen].params_json(),
        "{at}: another grid point was selected (validation values {:?}): {regenerate}",
        cell.vali
    );
    let vali = cell.vali[cell.chosen];
    assert!(
        same(&record["validation"], vali),
        "{at}: validation {} reported, {vali} now: {regenerate}",
        record["validation"]
    );
    for metric in Metric::REPORT {
        let ours = metric.of_summary(&cell.evaluation.summary).unwrap();
        let reported = &record["metrics"][metric.to_string()];
        assert!(same(reported, ours), "{at}: test {metric} {reported} reported, {ours} now: {regenerate}");
    }
}

/// The selected model, written as JSON and read back, is the same model: same JSON, and
/// bit-identical test scores.
fn check_json_round_trip(label: &str, cell: &CellOutcome, test: &Dataset) {
    let json = serde_json::to_string(&cell.model).unwrap();
    let back: AnyModel = serde_json::from_str(&json).unwrap();
    assert_eq!(back.id(), cell.model.id());
    assert!(serde_json::to_string(&back).unwrap() == json, "{label}: the model's JSON does not round-trip");
    let scores = back.score_vec(test).unwrap();
    assert_eq!(scores.len(), cell.test_scores.len());
    assert!(
        scores.iter().zip(&cell.test_scores).all(|(a, b)| a.to_bits() == b.to_bits()),
        "{label}: the model read back from JSON scores differently"
    );
}

/// Every registered algorithm has a module here and an entry in both built-in specs, and the
/// reports hold every entry of the specs (a missing algorithm fails its module's tests too).
#[test]
fn every_algorithm_is_tested_and_reported() {
    let registered: Vec<&str> = ALGORITHMS.iter().map(|a| a.id).collect();
    let mut tested = TESTED.to_vec();
    tested.sort_unstable();
    let mut sorted = registered.clone();
    sorted.sort_unstable();
    assert_eq!(
        tested, sorted,
        "a registered algorithm has no module in tests/it/algorithms (or the reverse)"
    );
    for c in [LETOR3, LETOR4] {
        let s = c.setup();
        // An id may run in several entries (fixed parameters told apart by their labels).
        let mut ids: Vec<&str> = s.spec.algorithms.iter().map(|a| a.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids, sorted, "experiments/{}.toml does not run every algorithm", c.name);
        let reported: Vec<&str> =
            s.report["algorithms"].as_array().unwrap().iter().map(|a| a["label"].as_str().unwrap()).collect();
        let labels: Vec<&str> = s.spec.algorithms.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(reported, labels, "{}: not the spec's algorithms", c.report_file());
        let folds = s.report["folds"].as_array().unwrap();
        for label in labels {
            for k in &s.spec.folds {
                assert!(
                    folds
                        .iter()
                        .any(|f| f["dataset"] == c.dataset && f["algorithm"] == label && f["fold"] == *k),
                    "{}: no fold {k} of {label} on {}",
                    c.report_file(),
                    c.dataset
                );
            }
        }
    }
}
