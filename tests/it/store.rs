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
    let Some(env) = Env::new() else { return };
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
    assert!(bad.iter().any(|l| l.contains(&keys[2]) && l.contains("missing")), "{stdout}");
    assert!(
        bad.iter().any(|l| l.contains("OHSUMED fold 2 regression") && l.contains("scores file changed")),
        "{stdout}"
    );
}

#[test]
fn run_recomputes_a_damaged_cell_and_says_so() {
    let Some(env) = Env::new() else { return };
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
