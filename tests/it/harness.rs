//! The harness end to end through the `ltr` binary: determinism at any thread count,
//! resumption after SIGKILL, reruns from the store, saved scores re-checked with `ltr eval`,
//! `ltr check`, spec errors, runs with no cell, the registry listing and the single-model
//! commands.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A private data cache, result store and report folder; no mirror.
pub(crate) struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// With OHSUMED installed by `ltr fetch` from the data compiled into `ltr`.
    pub(crate) fn new() -> Self {
        let env = Self::bare();
        let out = env.ltr(&["fetch", "letor3", "--datasets", "OHSUMED"], None);
        assert!(out.status.success(), "fetch: {}", String::from_utf8_lossy(&out.stderr));
        env
    }

    /// Private folders and no data: for commands that must not need any.
    pub(crate) fn bare() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    pub(crate) fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    pub(crate) fn command(&self, args: &[&str], threads: Option<usize>) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ltr"));
        c.args(args)
            .current_dir(self.dir.path())
            .env("LTR_DATA_DIR", self.path("data"))
            // An empty LTR_MIRROR means no mirror.
            .env("LTR_MIRROR", "")
            .env("LTR_RESULTS_DIR", self.path("results"))
            .env("CI", "1")
            .env_remove("LTR_REPORTS_DIR")
            .env_remove("RUST_LOG");
        if let Some(n) = threads {
            c.env("RAYON_NUM_THREADS", n.to_string());
        }
        c
    }

    pub(crate) fn ltr(&self, args: &[&str], threads: Option<usize>) -> Output {
        self.command(args, threads).output().unwrap()
    }

    /// Writes a spec file and returns its path.
    pub(crate) fn spec(&self, name: &str, body: &str) -> PathBuf {
        let p = self.path(&format!("{name}.toml"));
        std::fs::write(&p, body).unwrap();
        p
    }
}

/// Small but exercising: deterministic, seeded (crr) and internally parallel (lambdamart)
/// learners, two grid points each, two folds.
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
id = "crr"
params = { steps = 20000 }
grid = { alpha = [0.2, 0.8] }

[[algorithms]]
id = "lambdamart"
validation_metric = "ndcg@10"
params = { trees = 30 }
grid = { leaves = [7, 15] }
"#;

pub(crate) fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run_and_report(env: &Env, spec: &Path, results: &str, out: &str, threads: usize) -> Vec<u8> {
    let spec = spec.to_str().unwrap();
    ok(&env.ltr(&["run", spec, "--results", results], Some(threads)), "run");
    ok(&env.ltr(&["report", spec, "--results", results, "--out", out], Some(threads)), "report");
    std::fs::read(env.path(out).join("small.json")).unwrap()
}

#[test]
fn results_are_byte_identical_across_runs_and_thread_counts() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    let one = run_and_report(&env, &spec, "r1", "o1", 1);
    let two = run_and_report(&env, &spec, "r2", "o2", 2);
    let again = run_and_report(&env, &spec, "r3", "o3", 2);
    assert!(one == two, "RAYON_NUM_THREADS=1 and =2 differ");
    assert!(two == again, "two runs with the same seed differ");
    let csv1 = std::fs::read(env.path("o1").join("small.csv")).unwrap();
    let csv2 = std::fs::read(env.path("o2").join("small.csv")).unwrap();
    assert_eq!(csv1, csv2);
    // Another seed changes the seeded learner's numbers.
    let other = env.spec("small", &SPEC.replace("seed = 7", "seed = 8"));
    let moved = run_and_report(&env, &other, "r4", "o4", 2);
    assert!(moved != one, "the seed has no effect");
}

#[test]
fn saved_test_scores_reproduce_the_reported_numbers_with_ltr_eval() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    run_and_report(&env, &spec, "results", "out", 2);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("out").join("small.json")).unwrap()).unwrap();
    let folds = report["folds"].as_array().unwrap();
    assert_eq!(folds.len(), 2 * 3);
    for f in folds {
        let key = f["cell"].as_str().unwrap();
        let cell: serde_json::Value = serde_json::from_slice(
            &std::fs::read(env.path("results").join(format!("small/cells/{key}.json"))).unwrap(),
        )
        .unwrap();
        let test_file = env.path("data").join(cell["test_file"].as_str().unwrap());
        let scores = env.path("results").join(format!("small/cells/{key}.scores"));
        let out = env.ltr(
            &[
                "eval",
                test_file.to_str().unwrap(),
                scores.to_str().unwrap(),
                "--convention",
                "letor3",
                "--format",
                "json",
            ],
            None,
        );
        let eval: serde_json::Value = serde_json::from_str(&ok(&out, "eval")).unwrap();
        let s = &eval["summary"];
        let expect = |name: &str| f["metrics"][name].as_f64().unwrap();
        assert_eq!(s["map"].as_f64().unwrap(), expect("map"), "{key} map");
        for (i, k) in [(0, "ndcg@1"), (2, "ndcg@3"), (4, "ndcg@5"), (9, "ndcg@10")] {
            assert_eq!(s["ndcg"][i].as_f64().unwrap(), expect(k), "{key} {k}");
        }
        for (i, k) in [(0, "p@1"), (2, "p@3"), (9, "p@10")] {
            assert_eq!(s["precision"][i].as_f64().unwrap(), expect(k), "{key} {k}");
        }
        // The record's own summary is the same object.
        assert_eq!(cell["test"], eval["summary"]);
    }
}

#[test]
fn a_killed_run_resumes_without_recomputing_and_ends_identical() {
    let env = Env::new();
    // Slower cells, so that the kill lands mid-run.
    let body = SPEC.replace("folds = [1, 2]", "folds = [1, 2, 3, 4, 5]").replace("trees = 30", "trees = 120");
    let spec = env.spec("small", &body);
    let spec_s = spec.to_str().unwrap();
    let reference = run_and_report(&env, &spec, "uninterrupted", "o-ref", 2);

    let cells = env.path("killed").join("small").join("cells");
    let mut child = env
        .command(&["run", spec_s, "--results", "killed"], Some(2))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let finished_cells = || {
        std::fs::read_dir(&cells)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| {
                        let n = e.file_name().to_string_lossy().into_owned();
                        n.ends_with(".json") && !n.ends_with(".model.json") && !n.ends_with(".timing.json")
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    while finished_cells() < 2 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done_before = finished_cells();
    assert!(done_before >= 2, "no cell finished before the kill");
    assert!(done_before < 15, "the run finished before it could be killed; make the cells slower");

    let out = ok(&env.ltr(&["run", spec_s, "--results", "killed"], Some(2)), "resumed run");
    let from_store: usize = out
        .split(" from the store")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected summary: {out}"));
    assert_eq!(from_store, done_before, "{out}");
    ok(&env.ltr(&["report", spec_s, "--results", "killed", "--out", "o-killed"], Some(2)), "report");
    let resumed = std::fs::read(env.path("o-killed").join("small.json")).unwrap();
    assert!(resumed == reference, "a resumed run's report differs from an uninterrupted run's");
    // Nothing half-written is left behind.
    for e in std::fs::read_dir(&cells).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!n.ends_with(".tmp"), "leftover {n}");
    }
}

#[test]
fn a_rerun_takes_every_cell_from_the_store_and_succeeds() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    let spec = spec.to_str().unwrap();
    let first = ok(&env.ltr(&["run", spec], Some(2)), "run");
    assert!(first.contains("6 cells (6 computed now, 0 from the store), 0 failed"), "{first}");
    let again = ok(&env.ltr(&["run", spec], Some(2)), "rerun");
    assert!(again.contains("6 cells (0 computed now, 6 from the store), 0 failed"), "{again}");
    // Restricting to one algorithm still reuses its cells.
    let one = ok(&env.ltr(&["run", spec, "--algorithms", "crr"], Some(2)), "restricted rerun");
    assert!(one.contains("2 cells (0 computed now, 2 from the store)"), "{one}");
}

/// A label can be anything the CSV carries (a comma, quotes, `|`, a backslash, markdown
/// emphasis, a line break): every markdown table of the report keeps its columns, and each
/// row shows the label as written.
#[test]
fn markdown_tables_keep_their_columns_whatever_the_labels() {
    let env = Env::new();
    let label = "reg,1 |\"z\" *x* a\\|b\nc";
    let body = r#"
name = "labels"
collection = "letor3"
datasets = ["OHSUMED"]
folds = [1, 2]
seed = 1

[[algorithms]]
id = "regression"
label = "plain"

[[algorithms]]
id = "regression"
label = LABEL
grid = { lambda = [0.1, 10.0] }
"#;
    let spec = env.spec("labels", &body.replace("LABEL", &serde_json::to_string(label).unwrap()));
    let spec = spec.to_str().unwrap();
    ok(&env.ltr(&["run", spec, "--results", "r"], Some(2)), "run");
    ok(&env.ltr(&["report", spec, "--results", "r", "--out", "o"], Some(2)), "report");
    let md = std::fs::read_to_string(env.path("o/labels.md")).unwrap();
    let tables = crate::common::markdown_tables(&md);
    let shown: Vec<String> =
        tables.iter().flatten().flatten().map(|c| crate::common::markdown_text(c)).collect();
    // Results, selected hyperparameters, per-fold metrics (two folds), against the baseline.
    let rows = shown.iter().filter(|c| *c == label).count();
    assert!(rows >= 5, "the label is shown as written in {rows} cells:\n{md}");
    let csv = std::fs::read_to_string(env.path("o/labels.csv")).unwrap();
    assert!(csv.contains(&format!("\"{}\"", label.replace('"', "\"\""))), "{csv}");
}

#[test]
fn a_run_where_no_cell_can_run_fails_with_one_line_saying_why() {
    let env = Env::bare();
    let unknown = env.spec("unknown", &SPEC.replace(r#"datasets = ["OHSUMED"]"#, r#"datasets = ["NOPE"]"#));
    // The data cache is empty and fetching is off: OHSUMED cannot be had either.
    let missing = env.spec("missing", SPEC);
    for (spec, needles) in [
        (&unknown, vec!["no cell could run", "NOPE", "no dataset `NOPE`"]),
        (&missing, vec!["no cell could run", "OHSUMED", "not in the data cache"]),
    ] {
        let out = env.ltr(&["run", spec.to_str().unwrap(), "--no-fetch"], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{} passed: {err}", spec.display());
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{err}");
        for n in needles {
            assert!(errors[0].contains(n), "`{n}` not in {err}");
        }
        assert!(!err.contains("the others go on") && !err.contains("caused by"), "{err}");
    }
}

#[test]
fn algorithms_lists_every_parameter_with_its_default_and_train_help_lists_the_ids() {
    let env = Env::bare();
    let list = ok(&env.ltr(&["algorithms"], None), "algorithms");
    // A block per algorithm: the id first on an unindented line, then indented parameter rows
    // (key, then the default from `Params::default()`).
    let ids: Vec<&str> = list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(ids.len() >= 10 && ids.contains(&"lambdamart") && ids.contains(&"adarank-ndcg"), "{list}");
    let trees =
        list.lines().find(|l| l.trim_start().starts_with("trees ")).unwrap_or_else(|| panic!("{list}"));
    assert_eq!(trees.split_whitespace().nth(1), Some("100"), "{trees}");
    assert!(list.lines().any(|l| l.trim_start().starts_with("lambda ") && l.contains("0.001")), "{list}");
    let help = ok(&env.ltr(&["train", "--help"], None), "train --help");
    for id in ids {
        assert!(help.contains(id), "{id} not in train --help:\n{help}");
    }
}

#[test]
fn check_passes_on_the_run_and_fails_when_a_number_moves() {
    let env = Env::new();
    let spec = env.spec("small", SPEC);
    run_and_report(&env, &spec, "results", "out", 2);
    let report = env.path("out").join("small.json");
    let baseline = env.path("baseline.json");
    let (r, b) = (report.to_str().unwrap(), baseline.to_str().unwrap());
    ok(&env.ltr(&["check", "--baseline", b, "--results", r, "--write"], None), "write baseline");
    ok(&env.ltr(&["check", "--baseline", b, "--results", r], None), "check");

    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
    let map = v["means"][0]["metrics"]["map"].as_f64().unwrap();
    v["means"][0]["metrics"]["map"] = serde_json::json!(map + 0.01);
    std::fs::write(&baseline, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let out = env.ltr(&["check", "--baseline", b, "--results", r], None);
    assert!(!out.status.success(), "a moved number passed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("map") && err.contains("OHSUMED") && err.contains("-0.0100"), "{err}");
    // Within tolerance passes.
    let out = env.ltr(&["check", "--baseline", b, "--results", r, "--tolerance", "0.02"], None);
    assert!(out.status.success());
    // A tolerance that would let everything through is refused.
    for bad in ["NaN", "-0.1", "inf"] {
        let out = env.ltr(&["check", "--baseline", b, "--results", r, "--tolerance", bad], None);
        assert!(!out.status.success(), "--tolerance {bad} accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--tolerance"), "{bad}");
    }
    // A baseline row missing from the run fails.
    v["means"][0]["metrics"]["map"] = serde_json::json!(map);
    v["means"][0]["algorithm"] = serde_json::json!("ranknet");
    std::fs::write(&baseline, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let out = env.ltr(&["check", "--baseline", b, "--results", r], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("OHSUMED/ranknet"));
}

#[test]
fn spec_errors_name_the_file_and_the_key() {
    let env = Env::bare();
    let cases = [
        (
            "unknown-algo",
            SPEC.replace("id = \"crr\"", "id = \"no-such-ranker\""),
            vec!["unknown-algo.toml", "no-such-ranker"],
        ),
        (
            "bad-value",
            SPEC.replace("lambda = [0.001, 1.0]", "lambda = [\"x\", 1.0]"),
            vec!["bad-value.toml", "lambda"],
        ),
        ("bad-key", SPEC.replace("lambda = [0.001, 1.0]", "lamda = [0.001]"), vec!["bad-key.toml", "lamda"]),
        (
            "bad-domain",
            SPEC.replace("lambda = [0.001, 1.0]", "lambda = [-1.0]"),
            vec!["bad-domain.toml", "lambda"],
        ),
        ("bad-metric", SPEC.replace("ndcg@10", "ndcg@x"), vec!["bad-metric.toml", "ndcg@x"]),
        ("bad-toml", "name = ".to_string(), vec!["bad-toml.toml"]),
    ];
    for (name, body, needles) in cases {
        let spec = env.spec(name, &body);
        let out = env.ltr(&["run", spec.to_str().unwrap()], None);
        assert!(!out.status.success(), "{name} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        for n in needles {
            assert!(err.contains(n), "{name}: `{n}` not in {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn train_predict_eval_on_one_fold() {
    let env = Env::new();
    let fold = env.path("data").join("letor3/OHSUMED/QueryLevelNorm/Fold1");
    let (train, vali, test) = (fold.join("train.txt"), fold.join("vali.txt"), fold.join("test.txt"));
    let model = env.path("model.json");
    let scores = env.path("scores.txt");
    let out = env.ltr(
        &[
            "train",
            "lambdamart",
            "--train",
            train.to_str().unwrap(),
            "--vali",
            vali.to_str().unwrap(),
            "--set",
            "trees=20",
            "--set",
            "leaves=7",
            "--model",
            model.to_str().unwrap(),
        ],
        None,
    );
    ok(&out, "train");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("parsed") && log.contains("trained lambdamart in"), "{log}");
    let predict = |dest: &Path| {
        ok(
            &env.ltr(
                &[
                    "predict",
                    "--model",
                    model.to_str().unwrap(),
                    "--data",
                    test.to_str().unwrap(),
                    "--scores",
                    dest.to_str().unwrap(),
                ],
                None,
            ),
            "predict",
        )
    };
    predict(&scores);
    let lines = std::fs::read_to_string(&scores).unwrap().lines().count();
    let docs = std::fs::read_to_string(&test).unwrap().lines().count();
    assert_eq!(lines, docs);
    ok(&env.ltr(&["eval", test.to_str().unwrap(), scores.to_str().unwrap()], None), "eval");

    // Parameters are checked by name before any data is read.
    let out = env
        .ltr(&["train", "lambdamart", "--train", "nope.txt", "--set", "leafs=7", "--model", "m.json"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("leafs"), "{err}");
    let out = env.ltr(&["train", "no-such-ranker", "--train", "nope.txt", "--model", "m.json"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("unknown algorithm `no-such-ranker`"), "{err}");
}
