//! Scale-out through the binary: `ltr plan` cuts OHSUMED x {regression, ranksvm} into tasks,
//! `ltr run-cell` runs them into two stores, `ltr collect` merges them, and the report equals
//! a single `ltr run`'s byte for byte; a task whose data is not the plan's refuses to run; the
//! Kubernetes Job is pinned and parses as YAML.

use ltr_harness::spec::{BUILTIN, ExperimentSpec};
use ltr_runner::plan::{Plan, PlanSpec};
use ltr_runner::runner::DatasetStatus;
use ltr_runner::scripts::{Engines, k8s_job};
use serde_json::Value;

use crate::common::{installed, root};
use crate::harness::{Env, ok};

const SELECT: [&str; 4] = ["--datasets", "OHSUMED", "--algorithms", "regression,ranksvm"];

fn spec_path() -> String {
    root().join("experiments/letor3.toml").to_str().unwrap().to_owned()
}

/// `ltr plan` of the selection into `P`, 3 cells per task (10 cells: 4 tasks).
fn plan(env: &Env) {
    let spec = spec_path();
    let mut args = vec!["plan", spec.as_str(), "--out", "P", "--cells-per-task", "3"];
    args.extend(SELECT);
    let out = ok(&env.ltr(&args, None), "plan");
    assert!(out.contains("10 cells in 4 tasks of at most 3"), "{out}");
}

fn run_task(env: &Env, task: usize, results: &str) -> std::process::Output {
    env.ltr(&["run-cell", "--plan", "P", "--task", &task.to_string(), "--results", results], None)
}

fn report(env: &Env, results: &str, out: &str) -> (Vec<u8>, Vec<u8>) {
    let spec = spec_path();
    let mut args = vec!["report", spec.as_str(), "--results", results, "--out", out];
    args.extend(SELECT);
    ok(&env.ltr(&args, None), "report");
    let read = |ext: &str| std::fs::read(env.path(out).join(format!("letor3.{ext}"))).unwrap();
    (read("json"), read("csv"))
}

#[test]
fn tasks_run_in_two_stores_then_collected_report_exactly_as_a_single_run() {
    let env = Env::new();
    plan(&env);
    for task in 0..4 {
        let out = ok(&run_task(&env, task, if task % 2 == 0 { "A" } else { "B" }), "run-cell");
        assert!(out.contains(&format!("task {task} of 4")), "{out}");
    }
    // Resubmitted, a task finds its cells and computes nothing.
    let again = ok(&run_task(&env, 2, "A"), "run-cell again");
    assert!(again.contains("(0 computed now, 3 already in the store)"), "{again}");

    // Store A alone lacks the odd tasks' cells: named by index, with the array to resubmit.
    let partial = env.ltr(&["collect", "--plan", "P", "--into", "M", "A"], None);
    assert!(!partial.status.success());
    let err = String::from_utf8_lossy(&partial.stderr);
    assert!(err.contains("missing 4 cells: 3-5,9") && err.contains("sbatch --array=1,3 "), "{err}");
    ok(&env.ltr(&["collect", "--plan", "P", "--into", "M", "A", "B"], None), "collect");

    let spec = spec_path();
    let mut args = vec!["run", spec.as_str(), "--results", "S"];
    args.extend(SELECT);
    ok(&env.ltr(&args, None), "run");
    let (json, csv) = report(&env, "S", "single");
    let (merged_json, merged_csv) = report(&env, "M", "merged");
    assert!(json == merged_json, "the collected report's JSON differs from the single run's");
    assert!(csv == merged_csv, "the collected report's CSV differs from the single run's");
    // Every cell of the merged store checks out against its data.
    ok(&env.ltr(&["verify", env.path("M/letor3").to_str().unwrap()], None), "verify");
}

#[test]
fn a_task_whose_data_does_not_match_the_plan_refuses_and_leaves_no_result() {
    let env = Env::new();
    plan(&env);
    let cells = env.path("P/cells.jsonl");
    let text = std::fs::read_to_string(&cells).unwrap();
    let mut first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["files"][0]["sha256"] = Value::String("0".repeat(64));
    let rest: Vec<&str> = text.lines().skip(1).collect();
    std::fs::write(&cells, format!("{first}\n{}\n", rest.join("\n"))).unwrap();
    let out = run_task(&env, 0, "R");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("task 0: cell 0 (OHSUMED fold 1 regression)") && err.contains("refusing"), "{err}");
    let cells_dir = env.path("R/letor3/cells");
    let left = std::fs::read_dir(&cells_dir).map(Iterator::count).unwrap_or(0);
    assert_eq!(left, 0, "a refused task left files in {}", cells_dir.display());
    // The other tasks are unaffected.
    ok(&run_task(&env, 1, "R"), "run-cell 1");
}

/// A strict reader of the YAML subset `k8s-job.yaml` is written in (block mappings and
/// sequences, plain, double-quoted and integer scalars, comments): anything else panics.
fn yaml(text: &str) -> Value {
    let mut lines: Vec<(usize, String)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            assert!(!l.contains('\t'), "a tab: {l:?}");
            (l.len() - l.trim_start().len(), l.trim().to_owned())
        })
        .collect();
    let mut i = 0;
    let v = block(&mut lines, &mut i, 0);
    assert_eq!(i, lines.len(), "unread from line {:?}", lines.get(i));
    v
}

fn scalar(s: &str) -> Value {
    if s.starts_with('"') {
        serde_json::from_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    } else if let Ok(n) = s.parse::<u64>() {
        Value::from(n)
    } else {
        assert!(!s.starts_with(['{', '[', '&', '*', '!', '|', '>', '\'']), "unsupported scalar {s}");
        Value::String(s.to_owned())
    }
}

fn block(lines: &mut [(usize, String)], i: &mut usize, indent: usize) -> Value {
    if lines[*i].1.starts_with("- ") {
        let mut items = Vec::new();
        while *i < lines.len() && lines[*i].0 == indent && lines[*i].1.starts_with("- ") {
            let item = lines[*i].1[2..].to_owned();
            if item.contains(": ") || item.ends_with(':') {
                lines[*i] = (indent + 2, item);
                items.push(block(lines, i, indent + 2));
            } else {
                items.push(scalar(&item));
                *i += 1;
            }
        }
        return Value::Array(items);
    }
    let mut map = serde_json::Map::new();
    while *i < lines.len() && lines[*i].0 == indent {
        let line = lines[*i].1.clone();
        let (key, value) = line.split_once(':').unwrap_or_else(|| panic!("not a mapping entry: {line}"));
        assert!(!map.contains_key(key), "duplicate key {key}");
        *i += 1;
        let value = value.trim();
        let v = if value.is_empty() {
            let child = lines.get(*i).map_or(0, |l| l.0);
            assert!(child > indent, "{key}: no value");
            block(lines, i, child)
        } else {
            scalar(value)
        };
        map.insert(key.to_owned(), v);
    }
    assert!(*i == lines.len() || lines[*i].0 < indent, "bad indentation at {:?}", lines[*i]);
    Value::Object(map)
}

#[test]
fn the_kubernetes_job_is_pinned_and_is_an_indexed_job_running_the_tasks() {
    let mut spec = ExperimentSpec::builtin("letor3").unwrap();
    spec.restrict_datasets(&["OHSUMED".into()]).unwrap();
    spec.restrict_algorithms(&["regression".into(), "ranksvm".into()]).unwrap();
    let data = [DatasetStatus::Available(installed("letor3", "OHSUMED").clone())];
    let text = BUILTIN.iter().find(|(n, _)| *n == "letor3").unwrap().1;
    let select = (["OHSUMED".to_owned()], ["regression".to_owned(), "ranksvm".to_owned()]);
    let ps = PlanSpec { spec: &spec, text, datasets: &select.0, algorithms: &select.1, manifest: None };
    let plan = Plan::new(&ps, &data, &ltr_runner::CodeHashes::builtin(), 3).unwrap();
    let engines = Engines {
        plan_dir: "/shared/ltr/plan".into(),
        results: "/shared/ltr/results".into(),
        data_dir: None,
        program: "/usr/local/bin/ltr".into(),
        parallel: 2,
        cpus_per_task: 2,
        time_limit_minutes: 30,
        image: "registry.example/ltr:0.1".into(),
    };
    let text = k8s_job(&plan, &engines);
    let golden = root().join("tests/fixtures/cluster/k8s-job.yaml");
    assert_eq!(
        text,
        std::fs::read_to_string(&golden).unwrap(),
        "k8s-job.yaml differs from {}",
        golden.display()
    );

    let job = yaml(&text);
    assert_eq!((job["apiVersion"].as_str(), job["kind"].as_str()), (Some("batch/v1"), Some("Job")));
    let s = &job["spec"];
    assert_eq!(s["completionMode"], "Indexed");
    assert_eq!((s["completions"].as_u64(), s["parallelism"].as_u64()), (Some(4), Some(2)));
    assert!(s["backoffLimitPerIndex"].as_u64().is_some());
    let pod = &s["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    let c = &pod["containers"][0];
    let command: Vec<&str> = c["command"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(command.last().unwrap().contains("run-cell --plan /ltr/plan --task \"$JOB_COMPLETION_INDEX\""));
    let mounts: Vec<&str> =
        c["volumeMounts"].as_array().unwrap().iter().map(|m| m["mountPath"].as_str().unwrap()).collect();
    assert_eq!(mounts, ["/ltr/plan", "/ltr/results", "/ltr/data"]);
    let volumes: Vec<&str> =
        pod["volumes"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(volumes, ["plan", "results", "data"]);
}

/// Slurm's reading of the words of one `#SBATCH` line (sbatch's `_get_argument`): words end
/// at unquoted whitespace, single or double quotes group, a backslash takes the next
/// character as it is, an unquoted `#` starts a comment.
fn sbatch_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return words;
        }
        let (mut word, mut quote, mut escaped) = (String::new(), None, false);
        while let Some(&c) = chars.peek() {
            if quote.is_none() && c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                _ if escaped => {
                    word.push(c);
                    escaped = false;
                }
                '\\' => escaped = true,
                _ if Some(c) == quote => quote = None,
                _ if quote.is_some() => word.push(c),
                '"' | '\'' => quote = Some(c),
                '#' => {
                    words.push(word);
                    return words;
                }
                _ => word.push(c),
            }
        }
        assert!(quote.is_none(), "Slurm refuses an unmatched quote: {line}");
        words.push(word);
    }
}

/// A space, quotes and a `$` in every path (plan folder, result store, data cache, the `ltr`
/// executable): the `#SBATCH` lines read, as Slurm reads them, to the plan's log paths and
/// the script's body runs a task under bash; `parallel.sh` runs every task with GNU parallel
/// (where it is installed; else its command line is checked); the Kubernetes Job names no
/// host path at all. The tasks' cells then collect into a complete store.
#[test]
fn the_engine_files_work_with_a_space_in_every_path() {
    let env = Env::bare();
    let odd = |name: &str| env.path(&format!("{name} 'q' \"dq\" $HOME"));
    let (data, plan_dir, results, bin) = (odd("da ta"), odd("pl an"), odd("res ults"), odd("b in"));
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join("l tr");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ltr"), &program).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    ok(&env.ltr(&["fetch", "letor3", "--datasets", "OHSUMED", "--data-dir", &s(&data)], None), "fetch");
    let spec = spec_path();
    let plan = [
        "plan",
        &spec,
        "--datasets",
        "OHSUMED",
        "--algorithms",
        "regression",
        "--cells-per-task",
        "3",
        "--out",
        &s(&plan_dir),
        "--results",
        &s(&results),
        "--data-dir",
        &s(&data),
        "--program",
        &s(&program),
    ];
    let out = ok(&env.ltr(&plan, None), "plan");
    assert!(out.contains("5 cells in 2 tasks"), "{out}");
    // The engines run without the caller's environment: the files say where everything is.
    let engine = |script: &str| {
        let mut c = std::process::Command::new("bash");
        c.arg(plan_dir.join(script)).current_dir(env.path(""));
        for var in ["LTR_DATA_DIR", "LTR_RESULTS_DIR", "LTR_BIN", "LTR_JOBS", "LTR_MIRROR"] {
            c.env_remove(var);
        }
        c
    };

    let sbatch = std::fs::read_to_string(plan_dir.join("slurm.sbatch")).unwrap();
    let options: Vec<String> =
        sbatch.lines().filter_map(|l| l.strip_prefix("#SBATCH")).flat_map(sbatch_words).collect();
    let log = format!("{}/logs/slurm-%A_%a.out", s(&plan_dir));
    for flag in ["--output", "--error"] {
        assert!(options.contains(&format!("{flag}={log}")), "{flag} in {options:?}");
    }
    ok(&engine("slurm.sbatch").env("SLURM_ARRAY_TASK_ID", "0").output().unwrap(), "slurm.sbatch task 0");

    let parallel_installed =
        std::process::Command::new("parallel").arg("--version").output().is_ok_and(|o| o.status.success());
    if parallel_installed {
        ok(&engine("parallel.sh").output().unwrap(), "parallel.sh");
    } else {
        let script = std::fs::read_to_string(plan_dir.join("parallel.sh")).unwrap();
        assert!(
            script.contains(" --quote "),
            "GNU parallel must not split the command line again:\n{script}"
        );
        ok(&engine("slurm.sbatch").env("SLURM_ARRAY_TASK_ID", "1").output().unwrap(), "slurm.sbatch task 1");
    }

    let yaml_text = std::fs::read_to_string(plan_dir.join("k8s-job.yaml")).unwrap();
    let job = yaml(&yaml_text);
    assert!(!yaml_text.contains(&s(&env.path(""))), "a host path in k8s-job.yaml:\n{yaml_text}");
    assert_eq!(job["spec"]["completions"].as_u64(), Some(2));

    let merged = s(&env.path("M"));
    let out =
        ok(&env.ltr(&["collect", "--plan", &s(&plan_dir), "--into", &merged, &s(&results)], None), "collect");
    assert!(out.contains("5 of 5 cells"), "{out}");
}
