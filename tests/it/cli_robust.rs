//! The `ltr` binary under hostile conditions: a closed stdout, failing writes, absurd sizes
//! in flags and model files, models applied to data of another width. Every case must end
//! with a clear message (or, for a closed stdout, quietly), never a panic or an abort.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn ltr() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ltr"));
    c.env_remove("LTR_MIRROR")
        .env_remove("LTR_DATA_DIR")
        .env_remove("LTR_RESULTS_DIR")
        .env_remove("LTR_REPORTS_DIR")
        .env("CI", "1");
    c
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd` with its stdout a pipe whose reading end is already closed (`ltr ... | head -0`
/// with `head` gone before the first write).
fn with_closed_stdout(cmd: &mut Command) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// `cmd` with a closed stdout ends with status 0 and nothing about it on stderr.
fn ends_quietly(what: &str, cmd: &mut Command) {
    let out = with_closed_stdout(cmd);
    assert_no_crash(what, &out);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{what}: {err}");
    assert!(!err.contains("Broken pipe") && !err.contains("error"), "{what}: {err}");
}

/// No panic, no abort (a signal), no Rust runtime message.
fn assert_no_crash(what: &str, out: &Output) {
    let err = stderr(out);
    assert!(out.status.code().is_some(), "{what}: killed by a signal: {err}");
    assert_ne!(out.status.code(), Some(101), "{what}: panicked: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{what}: {err}");
}

/// A small LETOR file: `queries` queries of 6 documents over 3 features (grades 0..=2).
fn small_letor(path: &Path, queries: usize, features: usize) {
    let mut text = String::new();
    for q in 0..queries {
        for d in 0..6 {
            let grade = (q + d) % 3;
            text += &format!("{grade} qid:{}", q + 1);
            for f in 0..features {
                let v = ((q * 7 + d * 3 + f * 5) % 11) as f64 / 10.0 + grade as f64 * 0.05 * (f + 1) as f64;
                text += &format!(" {}:{v:.3}", f + 1);
            }
            text += &format!(" #docid = D{q}-{d}\n");
        }
    }
    std::fs::write(path, text).unwrap();
}

/// A folder with `train.txt` (3 features) and a trained regression model `m.json`.
fn trained(dir: &Path) -> (PathBuf, PathBuf) {
    let data = dir.join("train.txt");
    small_letor(&data, 5, 3);
    let model = dir.join("m.json");
    train_regression(&data, &model);
    (data, model)
}

/// Trains regression on `data` into `model`, asserting success.
fn train_regression(data: &Path, model: &Path) {
    let out =
        ltr().args(["train", "regression", "--train"]).arg(data).arg("--model").arg(model).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

const PIPE_SPEC: &str = r#"
name = "pipe-check"
collection = "letor3"
datasets = ["OHSUMED"]
folds = [1]
seed = 1

[[algorithms]]
id = "regression"
"#;

/// `ltr <cmd> ... | head -1`: a closed stdout ends the program quietly with status 0, as
/// ripgrep does, for every command that prints.
#[test]
fn a_closed_stdout_ends_every_command_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (data, model) = trained(d);
    let scores = d.join("scores.txt");
    let spec = d.join("pipe.toml");
    std::fs::write(&spec, PIPE_SPEC).unwrap();
    let cache = d.join("cache");
    let results = d.join("results");
    let mut cases: Vec<(&str, Command)> = Vec::new();
    let mut c = ltr();
    c.arg("algorithms");
    cases.push(("algorithms", c));
    let mut c = ltr();
    c.args(["train", "regression", "--train"]).arg(&data).arg("--model").arg(d.join("m2.json"));
    cases.push(("train", c));
    let mut c = ltr();
    c.args(["predict", "--model"]).arg(&model).arg("--data").arg(&data).arg("--scores").arg(&scores);
    cases.push(("predict", c));
    let mut c = ltr();
    c.args(["fetch", "letor3", "--datasets", "OHSUMED", "--data-dir"]).arg(&cache);
    cases.push(("fetch", c));
    let mut c = ltr();
    c.arg("run").arg(&spec).arg("--results").arg(&results).arg("--data-dir").arg(&cache);
    c.arg("--out").arg(d.join("reports"));
    cases.push(("run", c));
    let mut c = ltr();
    c.arg("report").arg(&spec).arg("--results").arg(&results).arg("--out").arg(d.join("reports"));
    cases.push(("report", c));
    for (what, mut cmd) in cases {
        ends_quietly(what, &mut cmd);
    }
    // eval reads the scores predict wrote.
    let out = ltr()
        .args(["predict", "--model"])
        .arg(&model)
        .arg("--data")
        .arg(&data)
        .arg("--scores")
        .arg(&scores)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for format in ["text", "json", "official"] {
        ends_quietly(
            "eval",
            ltr().arg("eval").arg(&data).arg(&scores).args(["--per-query", "--format", format]),
        );
    }
    // The other commands that print, on the same files.
    let system = |name: &str| format!("{name}={}", scores.display());
    let mut cases: Vec<(&str, Command)> = Vec::new();
    for format in ["text", "markdown", "json"] {
        let mut c = ltr();
        c.arg("compare").arg(&data).args([system("a"), system("b")]).args(["--format", format]);
        cases.push(("compare", c));
    }
    let mut c = ltr();
    c.arg("qrels").arg(&data);
    cases.push(("qrels", c));
    let mut c = ltr();
    c.arg("explain").arg(&model);
    cases.push(("explain", c));
    let mut c = ltr();
    c.args(["synth", "--shape", "small", "--queries", "10", "--out"]).arg(d.join("synth"));
    cases.push(("synth", c));
    for (what, mut cmd) in cases {
        ends_quietly(what, &mut cmd);
    }
}

/// `ltr ARGS` with every file it writes limited to 512 bytes, SIGXFSZ ignored: a write past
/// the limit fails (EFBIG) as on a full disk.
fn ltr_on_a_full_disk(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 1; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_ltr"))
        .args(args)
        .env_remove("LTR_MIRROR")
        .output()
        .unwrap()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A model or score file is replaced whole or not at all: when the new one cannot be
/// written, the old one stays byte-identical and no temporary file is left behind.
#[test]
fn a_failing_write_leaves_the_old_model_and_scores_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = d.join("wide.txt");
    small_letor(&data, 40, 150);
    let model = d.join("model.json");
    train_regression(&data, &model);
    let scores = d.join("scores.txt");
    let out = ltr()
        .args(["predict", "--model"])
        .arg(&model)
        .arg("--data")
        .arg(&data)
        .arg("--scores")
        .arg(&scores)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (old_model, old_scores) = (std::fs::read(&model).unwrap(), std::fs::read(&scores).unwrap());
    assert!(old_model.len() > 2048 && old_scores.len() > 2048);
    let before = names_in(d);

    let out = ltr_on_a_full_disk(&[
        "train".as_ref(),
        "regression".as_ref(),
        "--set".as_ref(),
        "lambda=0.5".as_ref(),
        "--train".as_ref(),
        data.as_os_str(),
        "--model".as_ref(),
        model.as_os_str(),
    ]);
    assert_no_crash("train", &out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("model.json"), "{}", stderr(&out));
    assert!(std::fs::read(&model).unwrap() == old_model, "the old model was changed");

    let out = ltr_on_a_full_disk(&[
        "predict".as_ref(),
        "--model".as_ref(),
        model.as_os_str(),
        "--data".as_ref(),
        data.as_os_str(),
        "--scores".as_ref(),
        scores.as_os_str(),
    ]);
    assert_no_crash("predict", &out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(std::fs::read(&scores).unwrap() == old_scores, "the old scores were changed");
    assert_eq!(names_in(d), before, "a temporary file was left behind");
}

/// `ltr synth` on a full disk fails with one line naming the file and leaves no file behind,
/// neither a partial dataset file nor a temporary one.
#[test]
fn a_synth_on_a_full_disk_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("synth");
    let out = ltr_on_a_full_disk(&[
        "synth".as_ref(),
        "--shape".as_ref(),
        "small".as_ref(),
        "--out".as_ref(),
        out_dir.as_os_str(),
    ]);
    assert_clear_error("synth", &out, ".txt");
    let left = crate::common::files_under(&out_dir);
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The failure of `what`: no crash, a non-zero status, and a first line `error: ...` that
/// contains `needle`.
fn assert_clear_error(what: &str, out: &Output, needle: &str) {
    assert_no_crash(what, out);
    let err = stderr(out);
    assert!(!out.status.success(), "{what}: succeeded: {err}");
    let first = err.lines().find(|l| !l.starts_with('[')).unwrap_or_default();
    assert!(first.starts_with("error: ") && first.contains(needle), "{what}: expected `{needle}` in: {err}");
}

/// Every size taken from a flag or a model file has an upper bound checked before anything
/// is allocated: the command fails with one clear line, never panics, aborts or hangs.
#[test]
fn absurd_sizes_in_flags_and_model_files_fail_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (data, model) = trained(d);
    let huge = "18446744073709551615";

    let out = crate::common::output_within(
        ltr()
            .args(["train", "regression", "--features", huge, "--train"])
            .arg(&data)
            .arg("--model")
            .arg(d.join("x.json")),
        60,
    );
    assert_clear_error("train --features", &out, "--features");

    let metric = format!("ndcg@{huge}");
    let out = crate::common::output_within(
        ltr()
            .args(["train", "regression", "--metric", &metric, "--train"])
            .arg(&data)
            .arg("--vali")
            .arg(&data)
            .arg("--model")
            .arg(d.join("x.json")),
        60,
    );
    assert_clear_error("train --metric", &out, "ndcg@");

    let scores = d.join("scores.txt");
    let out = ltr()
        .args(["predict", "--model"])
        .arg(&model)
        .arg("--data")
        .arg(&data)
        .arg("--scores")
        .arg(&scores)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out =
        crate::common::output_within(ltr().arg("eval").arg(&data).arg(&scores).args(["--max-k", huge]), 60);
    assert_clear_error("eval --max-k", &out, "--max-k");

    let out =
        crate::common::output_within(ltr().args(["--threads", huge, "eval"]).arg(&data).arg(&scores), 60);
    assert_clear_error("--threads", &out, "--threads");

    // A model file that declares 10^12 features (its weights say 3).
    let text = std::fs::read_to_string(&model).unwrap();
    assert!(text.contains(r#""n_features":3"#), "{text}");
    let big = d.join("big.json");
    std::fs::write(&big, text.replace(r#""n_features":3"#, r#""n_features":1000000000000"#)).unwrap();
    let out = crate::common::output_within(
        ltr().args(["predict", "--model"]).arg(&big).arg("--data").arg(&data).arg("--scores").arg(&scores),
        60,
    );
    assert_clear_error("predict with n_features 1e12", &out, "big.json");
    assert!(stderr(&out).contains("n_features"), "{}", stderr(&out));
}

/// `ltr` under a 4 GiB address-space limit (`ulimit -v`): a command that reads without bound
/// aborts instead of taking the machine's memory.
fn ltr_in_4gib(args: &[&std::ffi::OsStr]) -> Command {
    let mut c = Command::new("sh");
    c.args(["-c", "ulimit -v 4194304 && exec \"$@\"", "sh", env!("CARGO_BIN_EXE_ltr")]).args(args);
    c.env_remove("LTR_MIRROR")
        .env_remove("LTR_DATA_DIR")
        .env_remove("LTR_RESULTS_DIR")
        .env_remove("LTR_REPORTS_DIR")
        .env("CI", "1");
    c
}

/// Every file a command reads whole or parses is expected to be a regular file: a device
/// (`/dev/zero` reads forever; its reported size is 0) or a FIFO (opening it waits for a
/// writer) given in its place is refused at once, with one line naming it, never read until
/// memory runs out or waited on.
#[test]
fn special_files_given_as_inputs_are_refused_at_once_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (data, model) = trained(d);
    let scores = d.join("scores.txt");
    std::fs::write(&scores, "0.5\n".repeat(30)).unwrap(); // one per document of `data`
    let fifo = d.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for special in [Path::new("/dev/zero"), fifo.as_path()] {
        let s = special.as_os_str();
        let a = |p: &Path| p.as_os_str().to_owned();
        let x = d.join("x.json");
        let system = {
            let mut v = std::ffi::OsString::from("A=");
            v.push(s);
            v
        };
        let cases: Vec<(&str, Vec<std::ffi::OsString>)> = vec![
            (
                "predict --model",
                vec![
                    "predict".into(),
                    "--model".into(),
                    s.into(),
                    "--data".into(),
                    a(&data),
                    "--scores".into(),
                    a(&d.join("o.txt")),
                ],
            ),
            (
                "predict --data",
                vec![
                    "predict".into(),
                    "--model".into(),
                    a(&model),
                    "--data".into(),
                    s.into(),
                    "--scores".into(),
                    a(&d.join("o.txt")),
                ],
            ),
            ("eval score file", vec!["eval".into(), a(&data), s.into()]),
            ("eval feature file", vec!["eval".into(), s.into(), a(&scores)]),
            (
                "check --baseline",
                vec!["check".into(), "--baseline".into(), s.into(), "--results".into(), a(&x)],
            ),
            ("explain", vec!["explain".into(), s.into()]),
            ("compare", vec!["compare".into(), a(&data), system, format!("B={}", scores.display()).into()]),
            ("qrels", vec!["qrels".into(), s.into()]),
            (
                "train --train",
                vec![
                    "train".into(),
                    "regression".into(),
                    "--train".into(),
                    s.into(),
                    "--model".into(),
                    a(&x),
                ],
            ),
        ];
        for (what, args) in cases {
            let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let what = format!("{what} {}", special.display());
            let out = crate::common::output_within(&mut ltr_in_4gib(&args), 30);
            assert_clear_error(&what, &out, &special.display().to_string());
            assert!(stderr(&out).contains("not a regular file"), "{what}: {}", stderr(&out));
        }
    }
}

/// A model applied to data of another width is an error (a missing column would read as 0
/// and every score would be silently wrong), unless `--allow-width-mismatch` is given for
/// narrower data. Wider data is always refused: its extra columns would be ignored.
#[test]
fn a_model_applied_to_data_of_another_width_is_an_error_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, model) = trained(d);
    let scores = d.join("scores.txt");
    let predict = |data: &Path, allow: bool| {
        let mut c = ltr();
        c.args(["predict", "--model"]).arg(&model).arg("--data").arg(data).arg("--scores").arg(&scores);
        if allow {
            c.arg("--allow-width-mismatch");
        }
        c.output().unwrap()
    };
    let narrow = d.join("narrow.txt");
    small_letor(&narrow, 4, 2);
    let out = predict(&narrow, false);
    assert_clear_error("narrower data", &out, "narrow.txt");
    assert!(stderr(&out).contains("--allow-width-mismatch"), "{}", stderr(&out));
    assert!(!scores.exists());
    let out = predict(&narrow, true);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&scores).unwrap().lines().count(), 24);

    let wide = d.join("wide.txt");
    small_letor(&wide, 4, 4);
    for allow in [false, true] {
        let out = predict(&wide, allow);
        assert_clear_error("wider data", &out, "wide.txt");
    }

    // The validation file of `ltr train` against the training file, the same way.
    let train = |vali: &Path, allow: bool| {
        let mut c = ltr();
        c.args(["train", "regression", "--train"]).arg(d.join("train.txt")).arg("--vali").arg(vali);
        c.arg("--model").arg(d.join("v.json"));
        if allow {
            c.arg("--allow-width-mismatch");
        }
        c.output().unwrap()
    };
    assert_clear_error("narrower vali", &train(&narrow, false), "narrow.txt");
    assert!(train(&narrow, true).status.success());
    assert_clear_error("wider vali", &train(&wide, true), "wide.txt");
}

/// An output path that names an input (the same path, another spelling of it, or a hard
/// link to it) is refused before anything is written, and the input stays as it was.
#[test]
fn an_output_that_is_one_of_the_inputs_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (data, model) = trained(d);
    let vali = d.join("vali.txt");
    small_letor(&vali, 4, 3);
    let link = d.join("link.txt");
    std::fs::hard_link(&data, &link).unwrap();
    let respelled = d.join(".").join("train.txt");
    let before: Vec<Vec<u8>> = [&data, &model, &vali].iter().map(|p| std::fs::read(p).unwrap()).collect();
    let predict = |scores: &Path| {
        let mut c = ltr();
        c.args(["predict", "--model"]).arg(&model).arg("--data").arg(&data).arg("--scores").arg(scores);
        c
    };
    let train = |vali_arg: Option<&Path>, out: &Path| {
        let mut c = ltr();
        c.args(["train", "regression", "--train"]).arg(&data).arg("--model").arg(out);
        if let Some(v) = vali_arg {
            c.arg("--vali").arg(v);
        }
        c
    };
    let qrels = |out: &Path| {
        let mut c = ltr();
        c.arg("qrels").arg(&data).arg("--out").arg(out);
        c
    };
    let cases: Vec<(&str, Command, &str)> = vec![
        ("predict --scores DATA", predict(&data), "--data"),
        ("predict --scores DATA respelled", predict(&respelled), "--data"),
        ("predict --scores a hard link to DATA", predict(&link), "--data"),
        ("predict --scores MODEL", predict(&model), "--model"),
        ("train --model TRAIN", train(None, &data), "--train"),
        ("train --model VALI", train(Some(&vali), &vali), "--vali"),
        ("qrels --out FEATURE_FILE", qrels(&data), "FEATURE_FILE"),
    ];
    for (what, mut cmd, input) in cases {
        let out = cmd.output().unwrap();
        assert_clear_error(what, &out, input);
        assert!(stderr(&out).contains("input"), "{what}: {}", stderr(&out));
        let now: Vec<Vec<u8>> = [&data, &model, &vali].iter().map(|p| std::fs::read(p).unwrap()).collect();
        assert!(now == before, "{what}: an input was changed");
    }
}

/// `compare --permutations` past what runs in seconds is refused with one line naming the
/// bound (ten million took minutes on 400 queries); the bound itself runs.
#[test]
fn compare_refuses_more_permutations_than_run_in_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.txt");
    small_letor(&data, 5, 3);
    let scores = |name: &str, step: usize| {
        let p = dir.path().join(name);
        std::fs::write(&p, (0..30).map(|i| format!("{}\n", (i * step) % 11)).collect::<String>()).unwrap();
        format!("{}={}", name, p.display())
    };
    let (a, b) = (scores("a", 7), scores("b", 3));
    let compare = |n: &str| {
        ltr()
            .arg("compare")
            .arg(&data)
            .args([&a, &b])
            .args(["--test", "randomization", "--permutations", n])
            .output()
            .unwrap()
    };
    assert_clear_error("compare --permutations 10000000", &compare("10000000"), "--permutations");
    assert_clear_error("compare --permutations 100001", &compare("100001"), "100000");
    let out = compare("100000");
    assert!(out.status.success(), "{}", stderr(&out));
}
