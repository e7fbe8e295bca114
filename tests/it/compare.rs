//! `ltr compare` as a process: a good ranking against a shuffled copy, identical files, and
//! the randomisation test's independence of the thread count.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fold_file, markdown_tables, markdown_text};

fn ltr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
}

/// Writes scores that rank well (the label plus a little deterministic jitter) and a copy
/// shuffled across the whole file.
fn score_files(feature: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let data = ltr_format::read_file(feature, &ltr_format::ReadOptions::default()).unwrap().dataset;
    let mut rng = ltr_core::Rng::new(7);
    let good: Vec<f64> = data.labels().iter().map(|&l| f64::from(l) + 0.9 * rng.uniform()).collect();
    let mut shuffled = good.clone();
    rng.shuffle(&mut shuffled);
    let write = |name: &str, v: &[f64]| {
        let p = dir.join(name);
        std::fs::write(&p, v.iter().map(|x| format!("{x}\n")).collect::<String>()).unwrap();
        p
    };
    (write("good.scores", &good), write("shuffled.scores", &shuffled))
}

fn json(args: &[&std::ffi::OsStr], threads: &str) -> (serde_json::Value, Vec<u8>) {
    let out = ltr()
        .arg("compare")
        .args(args)
        .args(["--format", "json"])
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (serde_json::from_slice(&out.stdout).unwrap(), out.stdout)
}

#[test]
fn a_shuffled_copy_is_significantly_worse_and_identical_files_are_not() {
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    let dir = tempfile::tempdir().unwrap();
    let (good, shuffled) = score_files(&feature, dir.path());
    let sys = |name: &str, p: &Path| format!("{name}={}", p.display());
    let (v, _) =
        json(&[feature.as_os_str(), sys("pred", &good).as_ref(), sys("shuffled", &shuffled).as_ref()], "2");
    assert_eq!(v["convention"], "letor3", "the suite's default convention");
    assert_eq!(v["systems"].as_array().unwrap().len(), 2, "both rows");
    let cmp = v["comparisons"].as_array().unwrap();
    let ndcg = cmp.iter().find(|c| c["metric"] == "ndcg@10").unwrap();
    assert_eq!((ndcg["algorithm"].as_str(), ndcg["baseline"].as_str()), (Some("shuffled"), Some("pred")));
    assert!(ndcg["mean_diff"].as_f64().unwrap() < 0.0);
    assert!(ndcg["p_holm"].as_f64().unwrap() < 1e-6 && ndcg["p_value"].as_f64().unwrap() < 1e-6);
    assert_eq!(v["systems"][0]["better_than"]["ndcg@10"][0], "shuffled");

    let text =
        ltr().arg("compare").arg(&feature).arg(sys("a", &good)).arg(sys("b", &shuffled)).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("^b") && text.contains("a a") && text.contains("b b"), "{text}");

    let (v, _) = json(&[feature.as_os_str(), sys("x", &good).as_ref(), sys("y", &good).as_ref()], "2");
    for c in v["comparisons"].as_array().unwrap() {
        assert_eq!((c["p_value"].as_f64(), c["p_holm"].as_f64()), (Some(1.0), Some(1.0)), "{c}");
    }
    for s in v["systems"].as_array().unwrap() {
        assert!(s["better_than"].as_object().unwrap().is_empty(), "nothing marked: {s}");
    }
}

/// A system name can be anything an argument can hold: the markdown tables keep their
/// columns (`|` and `\\` escaped, a line break as `<br>`) and show the name as given.
#[test]
fn markdown_tables_keep_their_columns_whatever_the_system_names() {
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    let dir = tempfile::tempdir().unwrap();
    let (good, shuffled) = score_files(&feature, dir.path());
    let names = ["reg,1 |\"z\"", "a\\|b *c* `d`\ne"];
    let out = ltr()
        .arg("compare")
        .arg(&feature)
        .arg(format!("{}={}", names[0], good.display()))
        .arg(format!("{}={}", names[1], shuffled.display()))
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let tables = markdown_tables(&text);
    assert_eq!(tables.len(), 2, "{text}");
    let systems: Vec<String> = tables[0][2..].iter().map(|r| markdown_text(&r[0])).collect();
    assert_eq!(systems, [format!("a {}", names[0]), format!("b {}", names[1])], "{text}");
    assert!(tables[1].len() > 2, "{text}");
    for row in &tables[1][2..] {
        assert_eq!(markdown_text(&row[0]), names[1], "{text}");
    }
}

#[test]
fn randomisation_p_values_do_not_depend_on_threads_or_runs() {
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    let dir = tempfile::tempdir().unwrap();
    let (good, shuffled) = score_files(&feature, dir.path());
    // Close systems, so the p-values are neither 1 nor the floor.
    let mut rng = ltr_core::Rng::new(9);
    let good_v: Vec<f64> =
        std::fs::read_to_string(&good).unwrap().lines().map(|l| l.parse::<f64>().unwrap()).collect();
    let noisy: Vec<f64> = good_v.iter().map(|x| x + 1.5 * rng.normal()).collect();
    let noisy_p = dir.path().join("noisy.scores");
    std::fs::write(&noisy_p, noisy.iter().map(|x| format!("{x}\n")).collect::<String>()).unwrap();
    let args: Vec<std::ffi::OsString> = vec![
        feature.into(),
        format!("a={}", good.display()).into(),
        format!("b={}", noisy_p.display()).into(),
        format!("c={}", shuffled.display()).into(),
        "--test".into(),
        "randomization".into(),
        "--all-pairs".into(),
        "--permutations".into(),
        "2000".into(),
    ];
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (v1, b1) = json(&refs, "1");
    let (_, b2) = json(&refs, "2");
    let (_, b3) = json(&refs, "2");
    assert!(b1 == b2 && b2 == b3, "same seed: same bytes at 1 and 2 threads and across runs");
    assert_eq!(v1["test"], "randomization");
    assert_eq!(v1["pairs"].as_array().unwrap().len(), 3 * 8);
}
