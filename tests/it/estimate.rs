//! `ltr estimate SPEC`: the predicted time of the shipped MSLR and LETOR 4.0 specs, checked
//! against totals computed by hand from the algorithms' INFO costs, from the manifests alone
//! (nothing fetched or read).

use std::path::Path;
use std::process::{Command, Output};

use ltr_harness::registry::info;

use crate::common::root;

/// `ltr estimate ARGS` from the project root, with an empty data cache of its own under `dir`.
fn estimate(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ltr"))
        .arg("estimate")
        .args(args)
        .current_dir(root())
        .env_remove("LTR_MIRROR")
        .env("LTR_DATA_DIR", dir.join("cache"))
        .env("CI", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "ltr estimate {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn json(dir: &Path, spec: &str) -> serde_json::Value {
    serde_json::from_slice(&estimate(dir, &[spec, "--format", "json"]).stdout).unwrap()
}

/// One fit of `id` at its defaults on `rows` x `features`, from its INFO cost, by the formula
/// written out: seconds x (rows / measured rows)^exponent x (features / measured features).
fn fit(id: &str, rows: f64, features: f64) -> f64 {
    let c = info(id).unwrap().cost.unwrap();
    c.fit_seconds * (rows / c.train_rows as f64).powf(c.row_exponent) * features / f64::from(c.features)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Each dataset's shape from the manifest, every algorithm of the spec priced or named as
/// without a measurement, and the totals equal to a hand sum over the spec's entries: grid
/// points x budget factor (`trees = 500` of a default 100 is 5) x one fit, times 5 folds, plus
/// reading every document of a fold at the measured speed.
#[test]
fn the_mslr_spec_is_priced_from_its_manifest_and_the_info_costs() {
    let dir = tempfile::tempdir().unwrap();
    let e = json(dir.path(), "experiments/mslr.toml");
    assert_eq!(e["spec"], "mslr");
    assert_eq!(e["jobs"], 1);
    let names: Vec<&str> =
        e["datasets"].as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["MSLR-WEB10K", "MSLR-WEB30K"]);
    // 1,200,192 and 3,771,125 documents in 5 folds, 3 of 5 parts training.
    let rows = [720_114.0, 2_262_675.0];
    let documents = [1_200_192.0, 3_771_125.0];
    // (id, grid points, budget factor): the spec's entries by hand.
    let entries: &[(&str, f64, f64)] = &[
        ("regression", 3.0, 1.0),
        ("prank", 1.0, 1.0),
        ("crr", 2.0, 2.0), // steps = 200,000 of 100,000
        ("rankboost", 1.0, 1.0),
        ("adarank-ndcg", 1.0, 1.0),
        ("rankcosine", 1.0, 1.0),
        ("cascade", 1.0, 1.0),
        // trees = 500 of 100; leaves 31 and 255: (1 + (255 / 31)^0.19) / 2 on average.
        ("lambdamart", 2.0, 5.0 * (1.0 + (255.0f64 / 31.0).powf(0.19)) / 2.0),
        ("mcrank", 1.0, 1.0), // trees = 100, the default
        ("ranknet", 1.0, 1.0),
        ("lambdarank", 1.0, 1.0),
        ("listnet", 2.0, 1.0),
        ("svm-map", 1.0, 1.0),
        ("permurank", 1.0, 1.0),
        ("rankrls", 1.0, 1.0),
        ("slr", 1.0, 1.0),
        ("rankgp", 1.0, 1.0),
        ("ndcgboost", 1.0, 1.0),
        ("rankrefine", 1.0, 1.0),
        ("ssrankboost", 1.0, 1.0),
        ("gbrank", 1.0, 1.0),
        ("qbrank", 1.0, 1.0),
        ("softrank", 1.0, 1.0),
        ("boltzrank", 1.0, 1.0),
        ("bayesrank", 1.0, 1.0),
        ("sortnet", 1.0, 1.0),
        ("mpboost", 1.0, 1.0),
    ];
    let mut fits = 0.0;
    let mut reading = 0.0;
    for (k, d) in e["datasets"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            (d["train_rows"].as_f64(), d["features"].as_u64(), d["folds"].as_u64()),
            (Some(rows[k]), Some(136), Some(5))
        );
        let ids: Vec<&str> =
            d["algorithms"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert_eq!(ids, entries.iter().map(|e| e.0).collect::<Vec<_>>());
        assert_eq!(d["no_measurement"], serde_json::json!(["best-feature"]));
        assert_eq!(d["left_out"], serde_json::json!([]));
        for (a, (id, points, factor)) in d["algorithms"].as_array().unwrap().iter().zip(entries) {
            let want = 5.0 * points * factor * fit(id, rows[k], 136.0);
            assert!(close(a["seconds"].as_f64().unwrap(), want), "{id}: {a} against {want}");
            assert_eq!(a["fits"].as_f64(), Some(5.0 * points), "{id}");
            fits += want;
        }
        reading += 5.0 * documents[k] / ltr_runner::estimate::PARSE_ROWS_PER_SECOND;
    }
    // One row by hand, to the digit: LambdaMART on MSLR-WEB10K is 5 folds x 5 (trees) x its
    // 58.9 s x 720,114 / 728,521 rows, at 31 leaves and at 255 (1.4924 times as much).
    let lm = &e["datasets"][0]["algorithms"][7];
    assert_eq!(info("lambdamart").unwrap().cost.unwrap().fit_seconds, 58.9);
    let want = 25.0 * (1.0 + 1.4924) * 58.9 * 720_114.0 / 728_521.0;
    assert!((lm["seconds"].as_f64().unwrap() / want - 1.0).abs() < 1e-4, "{lm} against {want}");
    assert!(close(e["fit_seconds"].as_f64().unwrap(), fits), "{} against {fits}", e["fit_seconds"]);
    assert!(close(e["read_seconds"].as_f64().unwrap(), reading));
    // One job: the fits one after the other, then reading.
    assert!(close(e["wall_seconds"].as_f64().unwrap(), fits + reading));
    assert_eq!(e["no_measurement"], serde_json::json!(["best-feature"]));
    assert_eq!(e["threads"], serde_json::json!([1, 2]));
    // Nothing was fetched or read: the data cache was not even made.
    assert!(!dir.path().join("cache").exists());

    // The table: a header per dataset, the columns, the totals and what is left out.
    let text = String::from_utf8(estimate(dir.path(), &["experiments/mslr.toml"]).stdout).unwrap();
    assert!(
        text.contains("MSLR-WEB10K: 720,114 training rows per fold x 136 features, 5 folds (manifest"),
        "{text}"
    );
    assert!(text.contains("MSLR-WEB30K: 2,262,675 training rows per fold x 136 features, 5 folds"), "{text}");
    for column in ["algorithm", "grid points", "fits", "s per fit", "threads", "total s"] {
        assert!(text.lines().any(|l| l.contains(column) && l.contains("grid points")), "{column}: {text}");
    }
    let total = ltr_harness::limits::thousands((fits + reading).round() as u64);
    assert!(text.contains(&format!("= {total} s\n")), "{total}: {text}");
    assert!(text.contains("wall time at --jobs 1: "), "{text}");
    assert!(text.contains("no measurement, so in no total: best-feature"), "{text}");
    assert!(
        text.contains("2 for adarank-ndcg, cascade, mcrank, mpboost, rankcosine, softrank, sortnet"),
        "{text}"
    );

    // Two jobs: no more than half, no less than the longest fits.
    let two: serde_json::Value = serde_json::from_slice(
        &estimate(dir.path(), &["experiments/mslr.toml", "--format", "json", "--jobs", "2"]).stdout,
    )
    .unwrap();
    let wall = two["wall_seconds"].as_f64().unwrap();
    assert!(wall < fits + reading && wall >= (fits / 2.0) + reading - 1e-6, "{wall}");
}

/// LETOR 4.0: every algorithm of the spec, grids of up to 18 points, budget keys set in
/// `params` (trees, rounds, population, steps), the limited algorithms within their limits
/// and priced at their own row exponents, and the two without a measurement named.
#[test]
fn the_letor4_spec_is_priced_from_its_manifest_and_the_info_costs() {
    let dir = tempfile::tempdir().unwrap();
    let e = json(dir.path(), "experiments/letor4.toml");
    // 69,623 and 15,211 documents in 5 folds, 46 features; MQ2008's subsets are read once.
    let rows = [41_772.0, 9_126.0];
    // (label, id, grid points, budget factor), by hand from the spec.
    let entries: &[(&str, &str, f64, f64)] = &[
        ("regression", "regression", 5.0, 1.0),
        ("prank", "prank", 2.0, 1.0),
        ("ranksvm", "ranksvm", 5.0, 1.0),
        ("crr", "crr", 18.0, 2.0), // steps = 200,000 of 100,000
        ("pcrank", "pcrank", 2.0, 1.0),
        ("rankboost", "rankboost", 2.0, 1.0),
        ("adarank-map", "adarank-map", 2.0, 1.0),
        ("adarank-ndcg", "adarank-ndcg", 2.0, 1.0),
        // trees = 300 of 100; half the points at 7 leaves, (7 / 31)^0.19 of 31's cost.
        ("lambdamart", "lambdamart", 8.0, 3.0 * (1.0 + (7.0f64 / 31.0).powf(0.19)) / 2.0),
        ("intervalrank", "intervalrank", 8.0, 1.0),
        ("ranknet", "ranknet", 8.0, 1.0),
        ("lambdarank", "lambdarank", 8.0, 1.0),
        ("listnet", "listnet", 2.0, 1.0),
        ("listmle", "listmle", 4.0, 1.0),
        ("ranksvm-ensemble", "ranksvm-ensemble", 3.0, 1.0),
        ("ir-svm", "ir-svm", 5.0, 1.0),
        ("ranklr", "ranklr", 5.0, 1.0),
        ("fenchelrank", "fenchelrank", 1.0, 1.0),
        ("rankcosine", "rankcosine", 2.0, 1.0),
        ("cascade", "cascade", 2.0, 1.0),
        ("mcrank", "mcrank", 2.0, 2.0), // trees = 200 of 100
        ("gbrank", "gbrank", 1.0, 2.0),
        ("qbrank", "qbrank", 1.0, 2.0),
        ("rankrls", "rankrls", 5.0, 1.0),
        ("slr", "slr", 5.0, 1.0),
        ("rankgp", "rankgp", 1.0, 4.0), // population = 200 of 50
        ("svm-map", "svm-map", 5.0, 1.0),
        ("permurank", "permurank", 5.0, 1.0),
        ("mpboost", "mpboost", 1.0, 1.0 / 3.0), // rounds = 100 of 300
        ("rankrefine", "rankrefine", 1.0, 1.0 / 3.0),
        ("ssrankboost", "ssrankboost", 1.0, 1.0 / 3.0),
        ("ssrankboost-supervised", "ssrankboost", 1.0, 1.0 / 3.0),
        ("ndcgboost", "ndcgboost", 1.0, 1.0),
        ("softrank", "softrank", 1.0, 1.0),
        ("bayesrank", "bayesrank", 2.0, 1.0),
        ("boltzrank", "boltzrank", 1.0, 1.0),
        ("sortnet", "sortnet", 1.0, 1.0),
    ];
    let mut fits = 0.0;
    for (k, d) in e["datasets"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            (d["train_rows"].as_f64(), d["features"].as_u64(), d["folds"].as_u64()),
            (Some(rows[k]), Some(46), Some(5))
        );
        let labels: Vec<&str> =
            d["algorithms"].as_array().unwrap().iter().map(|a| a["label"].as_str().unwrap()).collect();
        assert_eq!(labels, entries.iter().map(|e| e.0).collect::<Vec<_>>());
        assert_eq!(d["no_measurement"], serde_json::json!(["frank", "best-feature"]));
        for (a, (label, id, points, factor)) in d["algorithms"].as_array().unwrap().iter().zip(entries) {
            let want = 5.0 * points * factor * fit(id, rows[k], 46.0);
            assert!(close(a["seconds"].as_f64().unwrap(), want), "{label}: {a} against {want}");
            fits += want;
        }
    }
    // PCRank by hand: 2 points x 5 folds x 73.6 s x (41,772 / 149,860)^2.04 x 46 / 136.
    let pc = &e["datasets"][0]["algorithms"][4];
    let want = 10.0 * 73.6 * (41_772.0f64 / 149_860.0).powf(2.04) * 46.0 / 136.0;
    assert!(close(pc["seconds"].as_f64().unwrap(), want), "{pc} against {want}");
    assert!(close(e["fit_seconds"].as_f64().unwrap(), fits), "{} against {fits}", e["fit_seconds"]);
    // MQ2007 reads its 69,623 documents per fold, MQ2008 its 15,211 once (the rotation).
    let reading = (5.0 * 69_623.0 + 15_211.0) / ltr_runner::estimate::PARSE_ROWS_PER_SECOND * 46.0 / 136.0;
    assert!(close(e["read_seconds"].as_f64().unwrap(), reading));
    assert_eq!(e["no_measurement"], serde_json::json!(["frank", "best-feature"]));
    let text = String::from_utf8(estimate(dir.path(), &["experiments/letor4.toml"]).stdout).unwrap();
    assert!(text.contains("MQ2008: 9,126 training rows per fold x 46 features, 5 folds"), "{text}");
    assert!(text.contains("reading (15,211 rows once)"), "{text}");
    assert!(text.contains("ssrankboost-supervised (ssrankboost)"), "{text}");
    assert!(text.contains("no measurement, so in no total: frank, best-feature"), "{text}");
}

/// Above a scale limit an algorithm is left out and named, as `ltr run` refuses it; asking
/// for too many jobs or a missing spec is one clear error.
#[test]
fn limits_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("big.toml");
    std::fs::write(
        &spec,
        "name = \"big\"\ncollection = \"mslr\"\ndatasets = [\"MSLR-WEB10K\"]\nfolds = [1]\nseed = 1\n\
         [[algorithms]]\nid = \"pcrank\"\n[[algorithms]]\nid = \"regression\"\n",
    )
    .unwrap();
    let spec = spec.to_str().unwrap();
    let e: serde_json::Value =
        serde_json::from_slice(&estimate(dir.path(), &[spec, "--format", "json"]).stdout).unwrap();
    let d = &e["datasets"][0];
    assert_eq!((d["folds"].as_u64(), &d["left_out"]), (Some(1), &serde_json::json!(["pcrank"])));
    assert!(d["left_out_line"].as_str().unwrap().contains("pcrank (limit 150,000)"), "{d}");
    let text = String::from_utf8(estimate(dir.path(), &[spec]).stdout).unwrap();
    assert!(
        text.contains("left out: about 720,114 training rows per fold, above the scale limit of pcrank"),
        "{text}"
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ltr"))
            .arg("estimate")
            .args(args)
            .current_dir(root())
            .output()
            .unwrap()
    };
    let out = run(&["experiments/mslr.toml", "--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["no/such/spec.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: no/such/spec.toml: no such file"));
}
