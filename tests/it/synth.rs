//! `ltr synth`: counts per split, determinism, and learnability (on the small shape,
//! LambdaMART beats ridge regression by a clear NDCG@10 margin, so the hidden relevance is
//! not linear).

use std::path::Path;
use std::process::{Command, Output};

use ltr_format::{ReadOptions, read_file};

fn ltr(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(args)
        .current_dir(dir)
        .env("LTR_DATA_DIR", dir.join("cache"))
        .env_remove("LTR_RESULTS_DIR")
        .env_remove("LTR_REPORTS_DIR")
        .env("CI", "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    out
}

#[test]
fn synth_writes_the_counts_it_reports_and_the_same_bytes_for_the_same_seed() {
    let dir = tempfile::tempdir().unwrap();
    let out = ltr(dir.path(), &["synth", "--shape", "small", "--out", "a", "--seed", "5"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut total_test = 0;
    for k in 1..=5 {
        let mut queries = 0;
        for s in ["train", "vali", "test"] {
            let rel = format!("a/Fold{k}/{s}.txt");
            let d = read_file(&dir.path().join(&rel), &ReadOptions::default()).unwrap().dataset;
            assert_eq!(d.n_features(), 20, "{rel}");
            assert!(d.labels().iter().all(|&g| g <= 4), "{rel}");
            let line = format!("{rel}: {} queries, {} rows", d.n_queries(), d.n_docs());
            assert!(stdout.contains(&line), "{line} not in {stdout}");
            queries += d.n_queries();
            if s == "test" {
                total_test += d.n_docs();
            }
        }
        assert_eq!(queries, 400, "fold {k}: 3/5 + 1/5 + 1/5 of the queries");
    }
    assert!(
        stdout.contains(&format!("small: 400 queries, {total_test} documents, 20 features, seed 5")),
        "{stdout}"
    );
    let grades: std::collections::BTreeSet<u8> =
        read_file(&dir.path().join("a/Fold1/train.txt"), &ReadOptions::default())
            .unwrap()
            .dataset
            .labels()
            .iter()
            .copied()
            .collect();
    assert_eq!(grades.len(), 5, "all five grades occur: {grades:?}");

    ltr(dir.path(), &["synth", "--shape", "small", "--out", "b", "--seed", "5"]);
    ltr(dir.path(), &["synth", "--shape", "small", "--out", "c", "--seed", "6"]);
    let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
    assert_eq!(read("a/Fold3/train.txt"), read("b/Fold3/train.txt"));
    assert_ne!(read("a/Fold3/train.txt"), read("c/Fold3/train.txt"));

    // A one-fold shape scaled down, and one fold of a five-fold shape.
    let out = ltr(dir.path(), &["synth", "--shape", "yahoo", "--queries", "300", "--out", "y"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("yahoo: 300 queries"));
    let y = read_file(
        &dir.path().join("y/train.txt"),
        &ReadOptions { n_features: Some(700), ..ReadOptions::default() },
    )
    .unwrap()
    .dataset;
    assert_eq!(y.n_queries(), 200, "Set 1's two thirds");
    ltr(dir.path(), &["synth", "--shape", "mslr-web10k", "--queries", "50", "--folds", "1", "--out", "m"]);
    assert!(dir.path().join("m/Fold1/vali.txt").is_file() && !dir.path().join("m/Fold2").exists());
}

#[test]
fn on_the_small_shape_lambdamart_beats_ridge_regression_clearly() {
    let dir = tempfile::tempdir().unwrap();
    ltr(dir.path(), &["synth", "--shape", "small", "--out", "small", "--seed", "11"]);
    // Two folds and small grids: the margin, not the best numbers.
    std::fs::write(
        dir.path().join("spec.toml"),
        "name = \"small\"\nfolds = [1, 2]\nseed = 2\n\n[[datasets]]\nname = \"small\"\npath = \"small\"\n\n\
         [[algorithms]]\nid = \"regression\"\ngrid = { lambda = [0.1, 10.0] }\n\n\
         [[algorithms]]\nid = \"lambdamart\"\nvalidation_metric = \"ndcg@10\"\nparams = { trees = 100, leaves = 15 }\n",
    )
    .unwrap();
    ltr(dir.path(), &["run", "spec.toml", "--results", "res"]);
    ltr(dir.path(), &["report", "spec.toml", "--results", "res", "--out", "res"]);
    let csv = std::fs::read_to_string(dir.path().join("res/small.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "ndcg@10_mean").unwrap();
    let ndcg = |algorithm: &str| -> f64 {
        let row = csv.lines().find(|l| l.split(',').nth(1) == Some(algorithm)).unwrap();
        row.split(',').nth(col).unwrap().parse().unwrap()
    };
    let (trees, linear) = (ndcg("lambdamart"), ndcg("regression"));
    assert!(trees > linear + 0.05, "LambdaMART {trees:.4} vs ridge {linear:.4}");
}

/// Every file under `dir`, as relative paths with their bytes, sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    crate::common::files_under(dir)
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// Concurrent runs into one folder: each run is whole, the folder ends as exactly one of
/// them (no file of one seed beside a file of the other, none a mix), every run succeeds,
/// and no temporary file is left; a run killed midway leaves nothing the next run keeps.
#[test]
fn concurrent_synth_runs_into_one_folder_leave_one_complete_run_and_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let args = |seed: &str, out: &str| -> Vec<String> {
        ["synth", "--shape", "small", "--queries", "3000", "--folds", "1", "--seed", seed, "--out", out]
            .map(String::from)
            .to_vec()
    };
    let spawn = |seed: &str, out: &str| {
        Command::new(env!("CARGO_BIN_EXE_ltr"))
            .args(args(seed, out))
            .current_dir(dir.path())
            .env("CI", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    for seed in ["1", "2"] {
        ltr(dir.path(), &args(seed, &format!("ref{seed}")).iter().map(String::as_str).collect::<Vec<_>>());
    }
    let (ref1, ref2) = (tree(&dir.path().join("ref1")), tree(&dir.path().join("ref2")));
    assert_ne!(ref1, ref2);

    // A run killed while writing, then concurrent runs over what it left.
    let mut killed = spawn("1", "shared");
    std::thread::sleep(std::time::Duration::from_millis(150));
    killed.kill().unwrap();
    killed.wait().unwrap();
    for round in 0..3 {
        let children: Vec<_> = ["1", "2", "1", "2"].iter().map(|s| spawn(s, "shared")).collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "round {round}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let got = tree(&dir.path().join("shared"));
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        let expected: Vec<&str> = ref1.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, expected, "round {round}: other files than one run's");
        assert!(
            got == ref1 || got == ref2,
            "round {round}: the folder is neither the seed-1 run nor the seed-2 run"
        );
    }
}

/// Yandex's IM2009 as it ships (the `yandex-im2009` shape) goes through `datasets/yandex.toml`
/// end to end: placed on a mirror, fetched unverified with its hash recorded, cut into five
/// folds, read with its query ids in comments and its real labels rounded (and said so), run.
#[test]
fn the_im2009_release_is_fetched_split_into_folds_and_run() {
    let dir = tempfile::tempdir().unwrap();
    ltr(
        dir.path(),
        &[
            "synth",
            "--shape",
            "yandex-im2009",
            "--queries",
            "150",
            "--seed",
            "4",
            "--out",
            "mirror/yandex/IM2009",
        ],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(["fetch", "yandex"])
        .current_dir(dir.path())
        .env("LTR_DATA_DIR", dir.path().join("cache"))
        .env("CI", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no stable public address") && stderr.contains("imat2009_learning.txt.gz"),
        "{stderr}"
    );

    let out = ltr(dir.path(), &["fetch", "yandex", "--mirror", "mirror"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("IM2009: 16 installed") && stdout.contains("1 UNVERIFIED"), "{stdout}");
    let recorded = std::fs::read_to_string(dir.path().join("cache/recorded-sha256.json")).unwrap();
    assert!(recorded.contains("yandex/IM2009/imat2009_learning.txt") && recorded.contains("Fold5/test.txt"));

    std::fs::write(
        dir.path().join("im.toml"),
        "name = \"im\"\ncollection = \"yandex\"\ndatasets = [\"IM2009\"]\nseed = 3\n\n\
         [[algorithms]]\nid = \"regression\"\ngrid = { lambda = [1.0] }\n",
    )
    .unwrap();
    let out = ltr(dir.path(), &["run", "im.toml", "--results", "res", "--no-fetch"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("labels are real values, not grades")
            && stderr.contains("rounded to the nearest grade"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("5 cells"), "{stdout}");

    // The same file given by path: read with the spec keys that declare its form.
    let spec = |keys: &str| {
        format!(
            "name = \"own\"\nfolds = [1]\nseed = 3\n\n[[datasets]]\nname = \"imat\"\n\
             path = \"mirror/yandex/IM2009/imat2009_learning.txt\"\n{keys}\n\
             [[algorithms]]\nid = \"regression\"\n"
        )
    };
    std::fs::write(
        dir.path().join("own.toml"),
        spec("qid_in_comment = true\nfractional_labels = \"floor\"\n"),
    )
    .unwrap();
    let out = ltr(dir.path(), &["run", "own.toml", "--results", "res"]);
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        all.contains("imat: scored under the letor3 convention") && all.contains("rounded down"),
        "{all}"
    );
    std::fs::write(dir.path().join("own.toml"), spec("")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(["run", "own.toml", "--results", "res"])
        .current_dir(dir.path())
        .env("LTR_DATA_DIR", dir.path().join("cache"))
        .env("CI", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let all = String::from_utf8_lossy(&out.stderr);
    assert!(all.contains("imat2009_learning.txt:1:") && all.contains("qid"), "{all}");
}
