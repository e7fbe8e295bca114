//! The result store's guarantees through the `ltr` binary: damaged cells are found and
//! recomputed, `ltr verify` checks a whole store, and a report over missing cells fails
//! naming them (or, with `--allow-partial`, says so at the top and in every affected cell).

use std::path::PathBuf;

use crate::harness::{Env, ok};

/// Two cheap algorithms on two folds of OHSUMED.
const SPEC: &str = r#"
name = "small"
collection = "letor3"
datasets = ["OHSUMED"]
folds = [1, 2]
seed = 7

[[algorithms]]
id = "regression"
grid = { lambda = [0.001, 1.0] }

[[algorithms]]
id = "rankboost"
params = { rounds = 20 }
"#;

/// The store's cell keys, from its `run.json`, in run order (dataset, algorithm, fold).
fn cells(env: &Env, results: &str) -> Vec<String> {
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path(results).join("small/run.json")).unwrap()).unwrap();
    run["cells"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_owned()).collect()
}

fn cell_file(env: &Env, results: &str, key: &str, ext: &str) -> PathBuf {
    env.path(results).join(format!("small/cells/{key}.{ext}"))
}

#[test]
fn ltr_verify_checks_a_whole_store_and_names_each_bad_cell() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    ok(&env.ltr(&["run", spec.to_str().unwrap(), "--results", "results"], Some(2)), "run");
    let store = env.path("results").join("small");
    let store_s = store.to_str().unwrap();
    let out = ok(&env.ltr(&["verify", store_s], None), "verify of a sound store");
    assert!(out.contains("4 cells") && out.contains("4 sound") && out.contains("4 re-evaluated"), "{out}");
    // The folder holding several stores works too.
    let base = env.path("results");
    ok(&env.ltr(&["verify", base.to_str().unwrap()], None), "verify of the results folder");

    // rankboost fold 1 (third cell): a deleted record; regression fold 2: an edited score.
    let keys = cells(&env, "results");
    std::fs::remove_file(cell_file(&env, "results", &keys[2], "json")).unwrap();
    let scores = cell_file(&env, "results", &keys[1], "scores");
    let text = std::fs::read_to_string(&scores).unwrap();
    std::fs::write(&scores, text.replacen('1', "2", 1)).unwrap();
    let out = env.ltr(&["verify", store_s], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "a damaged store passed: {stdout}");
    let bad: Vec<&str> = stdout.lines().filter(|l| l.starts_with("BAD ")).collect();
    assert_eq!(bad.len(), 2, "{stdout}");
    assert!(
        bad.iter()
            .any(|l| l.contains(&keys[2]) && l.contains("OHSUMED fold 1 rankboost") && l.contains("missing")),
        "{stdout}"
    );
    assert!(
        bad.iter().any(|l| l.contains("OHSUMED fold 2 regression") && l.contains("scores file changed")),
        "{stdout}"
    );
}

#[test]
fn run_recomputes_a_damaged_cell_and_says_so() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    let spec = spec.to_str().unwrap();
    ok(&env.ltr(&["run", spec], Some(2)), "run");
    let keys = cells(&env, "results");
    let model = cell_file(&env, "results", &keys[3], "model.json");
    let len = std::fs::metadata(&model).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&model).unwrap().set_len(len / 2).unwrap();
    let out = env.ltr(&["run", spec], Some(2));
    let stdout = ok(&out, "rerun");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("4 cells (1 computed now, 3 from the store)"), "{stdout}");
    assert!(
        stderr.lines().any(|l| l.contains("OHSUMED fold 2 rankboost") && l.contains("damaged")),
        "{stderr}"
    );
    ok(&env.ltr(&["verify", env.path("results").to_str().unwrap()], None), "verify after the rerun");
}

#[test]
fn a_report_over_missing_cells_fails_naming_each_unless_allow_partial() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    let spec = spec.to_str().unwrap();
    ok(&env.ltr(&["run", spec], Some(2)), "run");
    ok(&env.ltr(&["report", spec, "--out", "full"], None), "report");
    let keys = cells(&env, "results");

    // regression fold 2 gone: the report fails, naming it, and writes nothing.
    std::fs::remove_file(cell_file(&env, "results", &keys[1], "json")).unwrap();
    let out = env.ltr(&["report", spec, "--out", "partial"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a report over a missing cell passed");
    assert!(err.contains("OHSUMED fold 2 regression") && err.contains("--allow-partial"), "{err}");
    assert!(!env.path("partial").join("small.json").exists());

    // --allow-partial: a banner at the top, `1/2 folds` in every affected cell.
    ok(&env.ltr(&["report", spec, "--out", "partial", "--allow-partial"], None), "partial report");
    let md = std::fs::read_to_string(env.path("partial").join("small.md")).unwrap();
    let head: String = md.lines().take(6).collect::<Vec<_>>().join("\n");
    assert!(head.contains("Partial report") && head.contains("OHSUMED fold 2 regression"), "{head}");
    let row = md.lines().find(|l| l.starts_with("| regression ")).unwrap();
    assert_eq!(row.matches("(1/2 folds)").count(), 8, "{row}");
    let row = md.lines().find(|l| l.starts_with("| rankboost ")).unwrap();
    assert!(!row.contains("folds)"), "{row}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("partial").join("small.json")).unwrap()).unwrap();
    let mean =
        |algo: &str| json["means"].as_array().unwrap().iter().find(|m| m["algorithm"] == algo).cloned();
    assert_eq!(mean("regression").unwrap()["folds"], 1);
    assert_eq!(mean("rankboost").unwrap()["folds"], 2);
    let missing = json["missing"].as_array().unwrap();
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert_eq!(
        (&missing[0]["dataset"], &missing[0]["fold"], &missing[0]["algorithm"]),
        (&"OHSUMED".into(), &2.into(), &"regression".into())
    );
    let csv = std::fs::read_to_string(env.path("partial").join("small.csv")).unwrap();
    let folds_col = csv.lines().next().unwrap().split(',').position(|c| c == "folds").unwrap();
    let regression = csv.lines().find(|l| l.starts_with("OHSUMED,regression,")).unwrap();
    assert_eq!(regression.split(',').nth(folds_col), Some("1"), "{csv}");

    // Every record gone: every cell is named, the dataset is not called unavailable.
    for k in &keys {
        let _ = std::fs::remove_file(cell_file(&env, "results", k, "json"));
    }
    let out = env.ltr(&["report", spec, "--out", "none"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    for cell in ["fold 1 regression", "fold 2 regression", "fold 1 rankboost", "fold 2 rankboost"] {
        assert!(err.contains(&format!("OHSUMED {cell}")), "{cell}: {err}");
    }
    assert!(!err.contains("unavailable"), "{err}");

    // After `ltr run` the report is the full one again, byte for byte.
    ok(&env.ltr(&["run", spec], Some(2)), "run again");
    ok(&env.ltr(&["report", spec, "--out", "again"], None), "report again");
    for ext in ["json", "csv"] {
        let a = std::fs::read(env.path("full").join(format!("small.{ext}"))).unwrap();
        let b = std::fs::read(env.path("again").join(format!("small.{ext}"))).unwrap();
        assert!(a == b, "small.{ext} differs after recomputing");
    }
}

#[test]
fn datasets_unavailable_or_left_out_are_not_missing_cells() {
    let env = Env::new();
    let body = SPEC.replace(r#"datasets = ["OHSUMED"]"#, r#"datasets = ["OHSUMED", "TD2003"]"#);
    let spec = env.spec("small", &body);
    let spec = spec.to_str().unwrap();
    // TD2003 is not in the data cache and fetching is off: recorded unavailable.
    ok(&env.ltr(&["run", spec, "--no-fetch"], Some(2)), "run");
    ok(&env.ltr(&["report", spec, "--out", "a"], None), "report with an unavailable dataset");
    let md = std::fs::read_to_string(env.path("a").join("small.md")).unwrap();
    assert!(md.contains("Dataset TD2003") && md.contains("**unavailable**"), "{md}");
    // Left out with --datasets: named as not run, not as missing cells.
    ok(&env.ltr(&["run", spec, "--datasets", "OHSUMED"], Some(2)), "restricted run");
    ok(&env.ltr(&["report", spec, "--out", "b"], None), "report after a restricted run");
    let md = std::fs::read_to_string(env.path("b").join("small.md")).unwrap();
    let line = md.lines().find(|l| l.contains("Dataset TD2003")).unwrap_or_else(|| panic!("{md}"));
    assert!(line.contains("not run"), "{line}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("b").join("small.json")).unwrap()).unwrap();
    assert!(json.get("missing").is_none(), "{json}");
    assert!(
        json["datasets"].as_array().unwrap().iter().any(|d| d["name"] == "TD2003" && d["status"] == "notrun")
    );
}

/// Every model file of a store holding every registered algorithm is read by `ltr explain`
/// (a table, or one line where importance is not defined) and by `ltr predict`, whose scores
/// are the cell's saved scores byte for byte; `ltr cells` lists each cell with its files.
#[test]
fn every_model_in_a_store_of_all_algorithms_works_with_explain_and_predict() {
    let env = Env::bare();
    crate::common::toy_fold(&env.path("toy"));
    let mut spec =
        "name = \"all\"\nseed = 1\nfolds = [1]\n\n[[datasets]]\nname = \"toy\"\npath = \"toy\"\n".to_owned();
    for a in ltr_harness::ALGORITHMS {
        spec += &format!("\n[[algorithms]]\nid = \"{}\"\n", a.id);
    }
    let spec = env.spec("all", &spec);
    ok(&env.ltr(&["run", spec.to_str().unwrap()], Some(2)), "run");
    let listed = ok(&env.ltr(&["cells", "results", "--format", "json"], None), "cells");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let registered: Vec<&str> = ltr_harness::ALGORITHMS.iter().map(|a| a.id).collect();
    assert_eq!(ids, registered, "one cell per algorithm, in spec order");
    for r in &rows {
        let id = r["id"].as_str().unwrap();
        let model = env.path(r["model"].as_str().unwrap());
        assert_eq!((r["dataset"].as_str(), r["fold"].as_u64()), (Some("toy"), Some(1)), "{r}");
        assert!(r["validation"].is_f64() && r["test"].is_f64() && r["params"].is_object(), "{r}");
        assert!(model.ends_with(format!("{}.model.json", r["key"].as_str().unwrap())), "{r}");
        let explained = ok(&env.ltr(&["explain", model.to_str().unwrap()], None), id);
        if explained.contains("not defined") {
            assert_eq!(explained.lines().count(), 1, "{id}: {explained}");
        }
        let scores = env.path(&format!("{id}.scores"));
        let args = ["predict", "--model", model.to_str().unwrap(), "--data", "toy/test.txt", "--scores"];
        ok(&env.ltr(&[&args[..], &[scores.to_str().unwrap()]].concat(), None), id);
        let saved = std::fs::read(env.path(r["scores"].as_str().unwrap())).unwrap();
        assert!(std::fs::read(&scores).unwrap() == saved, "{id}: predict scores the test file otherwise");
    }
    // Filters, and the table a terminal gets.
    let one =
        ok(&env.ltr(&["cells", "results/all", "--algorithm", "lambdamart", "--fold", "1"], None), "cells");
    assert_eq!(one.lines().count(), 2, "{one}");
    assert!(one.contains("lambdamart") && one.contains(".model.json") && one.contains(".scores"), "{one}");
    let none = env.ltr(&["cells", "results", "--dataset", "other"], None);
    assert!(none.status.success() && String::from_utf8_lossy(&none.stderr).contains("no cell"));
}
