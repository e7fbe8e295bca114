//! A spec's `seeds`: the selected model of every cell fitted again with further seeds, the
//! spread over seeds set beside the one over folds in the report and in `ltr sensitivity`.

use std::path::Path;
use std::process::Output;

use crate::user_datasets::ltr_with_cache as ltr;

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two folds of MQ2008, three seeds: ListNet draws its start and its query order from its
/// seed, RankSVM nothing.
const SPEC: &str = r#"
name = "seeded"
collection = "letor4"
datasets = ["MQ2008"]
folds = [1, 2]
seed = 11
seeds = 3

[[algorithms]]
id = "listnet"
params = { epochs = 4, early_stopping = 0, learning_rate = 0.01 }
grid = { hidden = [0, 4] }

[[algorithms]]
id = "ranksvm"
grid = { c = [0.1, 1.0] }
"#;

/// Runs the spec in `dir` on `threads` threads; returns the report's JSON and markdown.
fn run(dir: &Path, cache: &Path, threads: &str) -> (serde_json::Value, String) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("seeded.toml"), SPEC).unwrap();
    ok(&ltr(dir, cache, &["--threads", threads, "run", "seeded.toml"]));
    let json = std::fs::read_to_string(dir.join("reports/seeded.json")).unwrap();
    let md = std::fs::read_to_string(dir.join("reports/seeded.md")).unwrap();
    (serde_json::from_str(&json).unwrap(), md)
}

/// The cell records of the store's last run, in its order.
fn records(dir: &Path) -> Vec<serde_json::Value> {
    let store = dir.join("results/seeded");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store.join("run.json")).unwrap()).unwrap();
    run["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let path = store.join("cells").join(format!("{}.json", k.as_str().unwrap()));
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        })
        .collect()
}

/// Mean and sample standard deviation, by the textbook.
fn mean_std(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = if x.len() > 1 { x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

fn metric(summary: &serde_json::Value, name: &str) -> f64 {
    match name {
        "ndcg@10" => summary["ndcg"][9].as_f64().unwrap(),
        _ => summary["map"].as_f64().unwrap(),
    }
}

#[test]
fn three_seeds_refit_listnet_twice_leave_ranksvm_alone_and_report_the_spread() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (one, md) = run(&dir.path().join("t1"), &cache, "1");
    let cells = records(&dir.path().join("t1"));
    assert_eq!(cells.len(), 4);
    for c in &cells {
        let runs = &c["seed_runs"];
        assert_eq!(runs["seeds"], 3, "{c}");
        match c["label"].as_str().unwrap() {
            "listnet" => {
                assert_eq!(runs["randomised"], true);
                let further = runs["runs"].as_array().unwrap();
                assert_eq!(further.len(), 2);
                assert!(further.iter().all(|r| r["test"]["map"].is_f64()), "{runs}");
                assert_ne!(further[0]["seed"], further[1]["seed"]);
                assert_ne!(further[0]["test"], c["test"], "another seed, another model");
            }
            _ => {
                assert_eq!(runs["randomised"], false);
                assert!(runs.get("runs").is_none(), "a deterministic algorithm is not refitted: {runs}");
            }
        }
    }

    // The section's numbers, by hand from the records.
    let rows = one["seed_sensitivity"].as_array().unwrap_or_else(|| panic!("{one}"));
    assert_eq!(rows.len(), 2);
    for row in rows {
        let label = row["algorithm"].as_str().unwrap();
        let mine: Vec<&serde_json::Value> = cells.iter().filter(|c| c["label"] == label).collect();
        assert_eq!(row["deterministic"], label == "ranksvm");
        assert_eq!((row["seeds"].as_u64(), row["folds"].as_u64()), (Some(3), Some(2)));
        for (m, name) in row["metrics"].as_array().unwrap().iter().zip(["ndcg@10", "map"]) {
            assert_eq!(m["metric"], name);
            let firsts: Vec<f64> = mine.iter().map(|c| metric(&c["test"], name)).collect();
            let (mean, std_folds) = mean_std(&firsts);
            let per_fold: Vec<f64> = mine
                .iter()
                .map(|c| {
                    let mut v = vec![metric(&c["test"], name)];
                    for r in c["seed_runs"]["runs"].as_array().map_or(&[][..], Vec::as_slice) {
                        v.push(metric(&r["test"], name));
                    }
                    mean_std(&v).1
                })
                .collect();
            let std_seeds = per_fold.iter().sum::<f64>() / per_fold.len() as f64;
            let close = |key: &str, want: f64| {
                let got = m[key].as_f64().unwrap();
                assert!((got - want).abs() < 1e-12, "{label} {name} {key}: {got} vs {want}");
            };
            close("mean", mean);
            close("std_folds", std_folds);
            close("std_seeds", std_seeds);
            close("ratio", std_seeds / std_folds);
            if label == "ranksvm" {
                assert_eq!(m["std_seeds"], 0.0);
            } else {
                assert!(std_seeds > 0.0, "{row}");
            }
        }
    }
    let section = md.split("## Seed sensitivity").nth(1).unwrap_or_else(|| panic!("{md}"));
    let ranksvm = section.lines().find(|l| l.contains("| ranksvm ")).unwrap_or_else(|| panic!("{section}"));
    assert!(ranksvm.contains("| deterministic |"), "{section}");
    assert!(section.contains("then the mean of those over the folds"), "{section}");

    // The same numbers on two threads.
    let (two, _) = run(&dir.path().join("t2"), &cache, "2");
    assert_eq!(one["seed_sensitivity"], two["seed_sensitivity"]);
    assert_eq!(one["digest"], two["digest"]);
    // The same binary wrote both: every record, seals included, is the same.
    assert_eq!(cells, records(&dir.path().join("t2")));

    let out = ok(&ltr(&dir.path().join("t1"), &cache, &["sensitivity", "results/seeded"]));
    assert!(out.contains("## Seed sensitivity") && out.contains("deterministic"), "{out}");
    let out =
        ok(&ltr(&dir.path().join("t1"), &cache, &["sensitivity", "results/seeded", "--format", "json"]));
    let cli: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(cli["seed_sensitivity"], one["seed_sensitivity"]);
}
