//! Seeds follow the data and the parameters, never a name: the same files under two dataset
//! names, and one configuration under two spec labels, give byte-identical metrics.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::fold_file;

fn ltr(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(args)
        .current_dir(dir)
        .env("LTR_DATA_DIR", crate::common::data_dir())
        .env_remove("LTR_MIRROR")
        .env_remove("LTR_RESULTS_DIR")
        .env("HTTP_PROXY", "http://127.0.0.1:1")
        .env("HTTPS_PROXY", "http://127.0.0.1:1")
        .env("CI", "1")
        .output()
        .unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A copy of OHSUMED QueryLevelNorm's first two folds under another folder name.
fn copy_of_ohsumed(dir: &Path, name: &str) {
    for k in 1..=2 {
        let fold = dir.join(name).join(format!("Fold{k}"));
        std::fs::create_dir_all(&fold).unwrap();
        for (split, file) in [("train", "train.txt"), ("vali", "vali.txt"), ("test", "test.txt")] {
            std::fs::copy(fold_file("letor3", "OHSUMED", k, split), fold.join(file)).unwrap();
        }
    }
}

/// The metrics of every (dataset, algorithm, fold) row of a report's CSV, keyed by row order
/// within its dataset: the columns after the dataset and algorithm labels.
fn metric_rows(csv: &str, dataset: &str, algorithm: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let d = header.iter().position(|h| *h == "dataset").unwrap();
    let a = header.iter().position(|h| *h == "algorithm").unwrap();
    let rows: Vec<String> = lines
        .filter(|l| {
            let f: Vec<&str> = l.split(',').collect();
            f[d] == dataset && f[a] == algorithm
        })
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            f.iter()
                .enumerate()
                .filter(|(i, _)| *i != d && *i != a)
                .map(|(_, v)| *v)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert!(!rows.is_empty(), "no rows for {dataset}/{algorithm} in\n{csv}");
    rows
}

#[test]
fn the_same_files_under_two_names_and_one_config_under_two_labels_give_identical_metrics() {
    let dir = tempfile::tempdir().unwrap();
    copy_of_ohsumed(dir.path(), "First");
    copy_of_ohsumed(dir.path(), "Second");
    // ListNet draws its initial weights and its query order from the seed, so a seed that
    // depended on a name or a label would move these numbers.
    let algo = |label: &str| {
        format!(
            "[[algorithms]]\nid = \"listnet\"\nlabel = \"{label}\"\n\
             params = {{ epochs = 3, early_stopping = 0, learning_rate = 0.01 }}\n\n"
        )
    };
    let spec = format!(
        "name = \"seeds\"\nseed = 11\nfolds = [1, 2]\n\n\
         [[datasets]]\nname = \"First\"\npath = \"First\"\nconvention = \"letor3\"\n\n\
         [[datasets]]\nname = \"Second\"\npath = \"Second\"\nconvention = \"letor3\"\n\n{}{}",
        algo("listnet-a"),
        algo("another-label")
    );
    std::fs::write(dir.path().join("seeds.toml"), spec).unwrap();
    ok(&ltr(dir.path(), &["run", "seeds.toml", "--results", "res"]));
    ok(&ltr(dir.path(), &["report", "seeds.toml", "--results", "res", "--out", "rep"]));
    let csv = std::fs::read_to_string(dir.path().join("rep/seeds.csv")).unwrap();
    let reference = metric_rows(&csv, "First", "listnet-a");
    for (d, a) in [("First", "another-label"), ("Second", "listnet-a"), ("Second", "another-label")] {
        assert_eq!(metric_rows(&csv, d, a), reference, "{d}/{a} differs from First/listnet-a");
    }
}
