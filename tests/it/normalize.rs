//! Feature normalisation end to end, on the 25-feature cut of OHSUMED QueryLevelNorm
//! ([`letor2_folder`]): de-normalised query by query with power-of-two scales and integer
//! offsets, per-query min-max gives back the very same features, so every metric of a run is
//! that of the undistorted cut; a run warns about the distorted data, naming the algorithms
//! that depend on feature scales; and a model fitted under each normalisation scores raw data
//! in `ltr predict` exactly as the run scored it.

use std::path::{Path, PathBuf};

use ltr_data::normalize::Normalizer;
use ltr_format::{ReadOptions, read_file};

use crate::common::letor2_folder;
use crate::user_datasets::{data_report, ltr, ok};

/// A 64-bit FNV-1a hash of a query id and a feature index: the distortion's choices.
fn choice(qid: &str, feature: usize, salt: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ salt;
    for b in qid.bytes().chain(feature.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `x * 2^k + c` for every value `x` of one feature of one query: `k` in -4..=12, by feature
/// (so that the features' ranges differ by up to 2^16) and by query, and the integer offset
/// `c` in -7 * 2^k..=0 by query, halved towards 0 until every shifted value is exact in f32
/// (with `c = 0` it always is). Then per-query min-max undoes the map bit for bit.
fn distort(values: &[f32], qid: &str, feature: usize) -> Vec<f32> {
    let k = 2 * (feature % 8) as i32 - 4 + (choice(qid, feature, 1) % 3) as i32;
    let scale = 2f64.powi(k);
    let mut offset = -((choice(qid, feature, 2) % 8) as f64 * scale).floor() as i64;
    loop {
        let out: Vec<f64> = values.iter().map(|&x| f64::from(x) * scale + offset as f64).collect();
        if out.iter().all(|&v| f64::from(v as f32) == v) {
            return out.into_iter().map(|v| v as f32).collect();
        }
        offset /= 2;
    }
}

/// A copy of the fixture's folder at `<dir>/distorted`, every query's features distorted
/// ([`distort`]); grades, query ids and docids as they were.
fn distorted_folder(dir: &Path) -> (PathBuf, PathBuf) {
    let plain = letor2_folder(dir);
    let out = dir.join("distorted");
    for k in 1..=5 {
        for name in ["trainingset", "validationset", "testset"] {
            let rel = format!("Fold{k}/{name}.txt");
            let text = std::fs::read_to_string(plain.join(&rel)).unwrap();
            let data = read_file(&plain.join(&rel), &ReadOptions::default()).unwrap().dataset;
            let mut rows: Vec<Vec<f32>> = Vec::new();
            for q in data.queries() {
                let columns: Vec<Vec<f32>> = (0..data.n_features())
                    .map(|f| distort(&q.range().map(|i| data.row(i)[f]).collect::<Vec<_>>(), q.qid, f))
                    .collect();
                rows.extend((0..q.len()).map(|j| columns.iter().map(|c| c[j]).collect::<Vec<f32>>()));
            }
            let mut written = String::new();
            for (line, row) in text.lines().zip(&rows) {
                let mut tokens = line.split_whitespace();
                let (grade, qid) = (tokens.next().unwrap(), tokens.next().unwrap());
                let comment = line.split_once('#').map_or("", |c| c.1);
                let features: Vec<String> =
                    row.iter().enumerate().map(|(f, v)| format!("{}:{v}", f + 1)).collect();
                written += &format!("{grade} {qid} {} #{comment}\r\n", features.join(" "));
            }
            std::fs::create_dir_all(out.join(format!("Fold{k}"))).unwrap();
            std::fs::write(out.join(&rel), written).unwrap();
        }
    }
    (plain, out)
}

/// The `means` and the per-fold `metrics` of a report, in report order.
fn metrics(report: &Path) -> Vec<(String, f64)> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    let mut out = Vec::new();
    for (part, rows) in [("mean", &doc["means"]), ("fold", &doc["folds"])] {
        for row in rows.as_array().unwrap() {
            for (metric, v) in row["metrics"].as_object().unwrap() {
                let at = format!("{part} {} fold {} {metric}", row["algorithm"], row["fold"]);
                out.push((at, v.as_f64().unwrap()));
            }
        }
    }
    out
}

#[test]
fn query_minmax_of_a_per_query_distortion_gives_the_metrics_of_the_undistorted_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (_, distorted) = distorted_folder(dir.path());
    // The distortion is undone bit for bit, file by file.
    for rel in ["Fold1/trainingset.txt", "Fold3/testset.txt"] {
        let read = |root: &Path| read_file(&root.join(rel), &ReadOptions::default()).unwrap().dataset;
        let (plain, raw) = (read(&dir.path().join("OHSUMED-L2")), read(&distorted));
        assert_ne!(plain.features(), raw.features(), "{rel}: the copy is distorted");
        // Most queries' features are shifted, not only scaled: their minimum is not 0.
        let (mut shifted, mut all) = (0, 0);
        for q in raw.queries() {
            for f in 0..raw.n_features() {
                all += 1;
                shifted += usize::from(q.range().map(|i| raw.row(i)[f]).fold(f32::INFINITY, f32::min) < 0.0);
            }
        }
        assert!(shifted * 2 > all, "{rel}: {shifted} of {all} query features shifted");
        let undone = Normalizer::QueryMinmax.apply(&raw).unwrap();
        assert!(
            plain.features().iter().zip(undone.features()).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{rel}"
        );
    }

    let algorithms = ["--algorithms", "regression,ranksvm"];
    let plain = ok(&ltr(
        dir.path(),
        &[&["run", "--data", "OHSUMED-L2", "--results", "r0", "--out", "r0"], &algorithms[..]].concat(),
    ));
    assert!(!plain.contains("unnormalised"), "QueryLevelNorm data draws no warning: {plain}");
    let raw = ok(&ltr(
        dir.path(),
        &[&["run", "--data", "distorted", "--results", "r1", "--out", "r1"], &algorithms[..]].concat(),
    ));
    let warnings: Vec<&str> = raw.lines().filter(|l| l.contains("unnormalised")).collect();
    assert_eq!(warnings.len(), 1, "one warning line: {raw}");
    assert!(warnings[0].contains("WARN") && warnings[0].contains("distorted fold 1"), "{}", warnings[0]);
    // Ridge regression standardises its features; RankSVM does not.
    assert!(warnings[0].contains("ranksvm depends on feature scales"), "{}", warnings[0]);
    assert!(!warnings[0].contains("regression"), "{}", warnings[0]);
    let normalised = ok(&ltr(
        dir.path(),
        &[
            &["run", "--data", "distorted", "--normalize", "query-minmax", "--results", "r2", "--out", "r2"],
            &algorithms[..],
        ]
        .concat(),
    ));
    assert!(!normalised.contains("unnormalised"), "{normalised}");

    let want = metrics(&report(dir.path(), "r0", "OHSUMED-L2", "json"));
    let got = metrics(&report(dir.path(), "r2", "distorted", "json"));
    assert_eq!(want.len(), got.len());
    assert_eq!(want.len(), 2 * 6 * 8, "2 algorithms x (1 mean + 5 folds) x 8 metrics");
    for ((at, a), (at2, b)) in want.iter().zip(&got) {
        assert_eq!(at, at2);
        assert!((a - b).abs() <= 1e-12, "{at}: {a} undistorted, {b} distorted then normalised");
    }
    // Unnormalised, the distortion moves RankSVM's numbers.
    let moved = metrics(&report(dir.path(), "r1", "distorted", "json"));
    assert!(want.iter().zip(&moved).any(|((at, a), (_, b))| at.contains("ranksvm") && a != b));
    // The report names the normalisation; the undistorted run's does not.
    let md = std::fs::read_to_string(report(dir.path(), "r2", "distorted", "md")).unwrap();
    assert!(md.contains("features normalised: `query-minmax`"), "{md}");
    let json = std::fs::read_to_string(report(dir.path(), "r2", "distorted", "json")).unwrap();
    assert!(json.contains("\"normalize\": \"query-minmax\""), "{json}");
    assert!(
        !std::fs::read_to_string(report(dir.path(), "r0", "OHSUMED-L2", "md"))
            .unwrap()
            .contains("normalised")
    );
}

/// The report file (`ext`) of the `--data` run of `stem` written into `<dir>/<out>`.
fn report(dir: &Path, out: &str, stem: &str, ext: &str) -> PathBuf {
    data_report(&dir.join(out), stem).with_extension(ext)
}

#[test]
fn a_model_fitted_under_each_normalisation_scores_raw_data_in_predict_as_the_run_did() {
    let dir = tempfile::tempdir().unwrap();
    distorted_folder(dir.path());
    for (method, algorithm) in
        [("query-minmax", "ranksvm"), ("zscore", "ranksvm"), ("log1p-zscore", "regression")]
    {
        let results = format!("res-{method}");
        ok(&ltr(
            dir.path(),
            &[
                "run",
                "--data",
                "distorted",
                "--normalize",
                method,
                "--algorithms",
                algorithm,
                "--results",
                &results,
                "--out",
                &results,
            ],
        ));
        let name = report(dir.path(), &results, "distorted", "md");
        let store = dir.path().join(&results).join(name.file_stem().unwrap());
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(store.join("run.json")).unwrap()).unwrap();
        let key = run["cells"][2].as_str().unwrap();
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(store.join(format!("cells/{key}.json"))).unwrap()).unwrap();
        assert_eq!(record["normalizer"]["method"], method, "the record keeps the fitted normalisation");
        assert_eq!(record["fold"], 3);
        // The store's model file is the one `ltr predict` reads, normalisation included.
        let model = store.join(format!("cells/{key}.model.json"));
        let scores = dir.path().join(format!("{method}.scores"));
        let test = dir.path().join("distorted/Fold3/testset.txt");
        let (model_arg, test_arg, scores_arg) =
            (model.to_str().unwrap(), test.to_str().unwrap(), scores.to_str().unwrap());
        let out = ok(&ltr(
            dir.path(),
            &["predict", "--model", model_arg, "--data", test_arg, "--scores", scores_arg],
        ));
        assert!(out.contains("normalised as in training"), "{out}");
        assert_eq!(
            std::fs::read_to_string(&scores).unwrap(),
            std::fs::read_to_string(store.join(format!("cells/{key}.scores"))).unwrap(),
            "{method}: predict on the raw test file gives the run's scores"
        );
        let explained = ok(&ltr(dir.path(), &["explain", model_arg]));
        assert!(
            explained.starts_with(&format!("features normalised before scoring: {method}")),
            "{explained}"
        );
        // The saved scores and model re-evaluate against the raw test files.
        let verified = ok(&ltr(dir.path(), &["verify", store.to_str().unwrap()]));
        assert!(!verified.contains("damaged"), "{verified}");
    }
}

#[test]
fn train_fits_the_normalisation_on_the_training_file_and_predict_applies_it() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, distorted) = distorted_folder(dir.path());
    let path = |p: PathBuf| p.to_str().unwrap().to_owned();
    let train = |root: &Path, model: &str, extra: &[&str]| {
        let (t, v) = (path(root.join("Fold1/trainingset.txt")), path(root.join("Fold1/validationset.txt")));
        ok(&ltr(
            dir.path(),
            &[&["train", "ranksvm", "--train", &t, "--vali", &v, "--model", model], extra].concat(),
        ))
    };
    let predict = |root: &Path, model: &str, out: &str| {
        let test = path(root.join("Fold1/testset.txt"));
        ok(&ltr(dir.path(), &["predict", "--model", model, "--data", &test, "--scores", out]));
        std::fs::read_to_string(dir.path().join(out)).unwrap()
    };
    let warned = train(&distorted, "raw.json", &[]);
    assert!(warned.contains("unnormalised") && warned.contains("--normalize"), "{warned}");
    let quiet = train(&distorted, "norm.json", &["--normalize", "query-minmax"]);
    assert!(!quiet.contains("unnormalised"), "{quiet}");
    train(&plain, "plain.json", &[]);
    // The same features after normalisation: the same model, the same scores.
    assert_eq!(predict(&distorted, "norm.json", "a.scores"), predict(&plain, "plain.json", "b.scores"));
    assert_ne!(predict(&distorted, "raw.json", "c.scores"), predict(&plain, "plain.json", "d.scores"));
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("norm.json")).unwrap()).unwrap();
    assert_eq!(file["normalizer"], serde_json::json!({"method": "query-minmax"}));
    let file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("plain.json")).unwrap()).unwrap();
    assert!(file.get("normalizer").is_none(), "a model without normalisation is written as before");
    let e =
        ltr(dir.path(), &["train", "ranksvm", "--train", "x", "--model", "m.json", "--normalize", "minmax"]);
    assert_eq!(e.status.code(), Some(2));
}
