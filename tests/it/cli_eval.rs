//! `ltr eval` as a process, against the golden outputs (`tests/fixtures/eval-golden`), on the
//! Fold1 test files rebuilt from the embedded pieces.

use std::process::Command;

use crate::common::{fold_file, golden_dir};

fn ltr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
}

#[test]
fn official_format_is_byte_identical_for_both_scripts() {
    let cases = [("letor3", "OHSUMED", "ohsumed-fold1-test"), ("letor4", "MQ2008", "mq2008-fold1-test")];
    for (conv, dataset, stem) in cases {
        for kind in ["ties", "continuous"] {
            let golden_dir = golden_dir();
            let out = ltr()
                .arg("eval")
                .arg(fold_file(conv, dataset, 1, "test"))
                .arg(golden_dir.join(format!("{stem}.{kind}.scores")))
                .args(["--convention", conv, "--format", "official", "--per-query"])
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let golden =
                std::fs::read(golden_dir.join(format!("{stem}.{kind}.official-perquery.txt"))).unwrap();
            assert!(out.stdout == golden, "{stem}.{kind}: output differs from the official script");
        }
    }
}

#[test]
fn json_and_text_formats_carry_full_precision() {
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    let scores = golden_dir().join("ohsumed-fold1-test.ties.scores");
    let out = ltr().arg("eval").arg(&feature).arg(&scores).args(["--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let map = v["summary"]["map"].as_f64().unwrap();
    assert!((map - 0.257377750387705).abs() < 1e-12, "{map}");
    assert_eq!(v["config"]["convention"], "letor3");
    assert!(v.get("per_query").is_none());
    let text = ltr().arg("eval").arg(&feature).arg(&scores).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("MAP:\t{map}\n")), "{text}");
}

#[test]
fn bad_inputs_fail_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    let short = dir.path().join("short.scores");
    std::fs::write(&short, "1\n2\n").unwrap();
    let out = ltr().arg("eval").arg(&feature).arg(&short).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 scores") && err.contains("documents"), "{err}");

    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "1 qid:1 1:0.5\n0 qid:1 1:zz\n").unwrap();
    let out = ltr().arg("eval").arg(&bad).arg(&short).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("bad.txt:2") && err.contains("1:zz"), "{err}");

    let nan = dir.path().join("nan.scores");
    std::fs::write(&nan, "1\nNaN\n").unwrap();
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "1 qid:7 1:0.5\n0 qid:7 1:1\n").unwrap();
    let out = ltr().arg("eval").arg(&good).arg(&nan).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("NaN") && err.contains("query 7"), "{err}");
}

/// The README's table of conventions says what each one does past a list's end, as the code
/// computes it: NDCG@5 and P@5 of a 3-document list, in the table's words.
#[test]
fn the_readme_says_what_each_convention_does_past_a_lists_end() {
    use ltr_metrics::{Convention, EvalConfig, evaluate_query};
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).unwrap();
    for c in Convention::ALL {
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{c}`")))
            .unwrap_or_else(|| panic!("no row for `{c}` in the README's convention table"));
        let documented = row.split('|').nth(4).unwrap().trim();
        let m = evaluate_query("q", &[3, 0, 2], &[3.0, 2.0, 1.0], &EvalConfig::official(c), 3).unwrap();
        let relevant = m.n_relevant as f64;
        let ndcg = if m.ndcg[4] == 0.0 {
            "NDCG@k 0"
        } else if m.ndcg[4] == m.ndcg[2] {
            "NDCG@k = NDCG@n (n the list length)"
        } else {
            panic!("{c}: NDCG@5 {} of a 3-document list", m.ndcg[4])
        };
        let p = if m.precision[4] == 0.0 {
            "P@k 0"
        } else if m.precision[4] == relevant / 5.0 {
            "P@k divides by k"
        } else if m.precision[4] == m.precision[2] {
            "P@k = P@n"
        } else {
            panic!("{c}: P@5 {} of a 3-document list", m.precision[4])
        };
        assert_eq!(documented, format!("{ndcg}; {p}"), "the README's `{c}` row");
    }
}

#[test]
fn tie_rules_change_only_rankings_with_ties() {
    let feature = fold_file("letor3", "OHSUMED", 1, "test");
    // The golden "continuous" scores hold one tie; these hold none.
    let dir = tempfile::tempdir().unwrap();
    let n = std::fs::read_to_string(golden_dir().join("ohsumed-fold1-test.continuous.scores"))
        .unwrap()
        .lines()
        .count();
    let distinct: String = (0..n).map(|i| format!("{}\n", (i * 7919 % n) as f64 / n as f64)).collect();
    std::fs::write(dir.path().join("distinct.scores"), distinct).unwrap();
    let summary = |kind: &str, ties: &str| -> serde_json::Value {
        let scores = match kind {
            "distinct" => dir.path().join("distinct.scores"),
            _ => golden_dir().join(format!("ohsumed-fold1-test.{kind}.scores")),
        };
        let out = ltr()
            .arg("eval")
            .arg(&feature)
            .arg(&scores)
            .args(["--format", "json", "--ties", ties])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = if ties == "file" { serde_json::Value::Null } else { ties.into() };
        assert_eq!(v["config"]["ties"], want, "the JSON names any rule but file order");
        v["summary"].clone()
    };
    // Without ties the three rules agree in every bit.
    let file = summary("distinct", "file");
    assert_eq!(summary("distinct", "pessimistic"), file);
    assert_eq!(summary("distinct", "expected"), file);
    // Tied scores: the pessimistic order is the worst, the expectation lies above it.
    let (file, worst, mean) =
        (summary("ties", "file"), summary("ties", "pessimistic"), summary("ties", "expected"));
    for key in ["map", "mrr"] {
        let (f, w, m) =
            (file[key].as_f64().unwrap(), worst[key].as_f64().unwrap(), mean[key].as_f64().unwrap());
        assert!(w < m && w <= f, "{key}: pessimistic {w}, expected {m}, file {f}");
    }
    for k in 0..10 {
        let (w, m) = (worst["ndcg"][k].as_f64().unwrap(), mean["ndcg"][k].as_f64().unwrap());
        assert!(w <= m, "ndcg@{}: pessimistic {w}, expected {m}", k + 1);
    }
}

#[test]
fn parts_set_on_the_command_line_are_named_and_change_only_their_part() {
    let feature = fold_file("letor4", "MQ2008", 1, "test");
    let scores = golden_dir().join("mq2008-fold1-test.continuous.scores");
    let run = |extra: &[&str]| -> (serde_json::Value, String) {
        let out = ltr()
            .arg("eval")
            .arg(&feature)
            .arg(&scores)
            .args(["--convention", "letor4", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (serde_json::from_slice(&out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (preset, note) = run(&[]);
    assert!(note.is_empty(), "{note}");
    // MQ2008 has queries without relevant documents: dropping them raises MAP; the note
    // names the departure.
    let (dropped, note) = run(&["--no-relevant", "skip"]);
    assert!(note.contains("letor4 (no_relevant=skip)"), "{note}");
    assert!(dropped["summary"]["n_counted"].as_u64() < preset["summary"]["n_counted"].as_u64());
    assert!(dropped["summary"]["map"].as_f64() > preset["summary"]["map"].as_f64());
    // Cutting NDCG at the list length changes only NDCG past some list's end.
    let (cut, _) = run(&["--ndcg-past-end", "cut"]);
    assert_eq!(cut["summary"]["map"], preset["summary"]["map"]);
    assert_eq!(cut["summary"]["ndcg"][0], preset["summary"]["ndcg"][0]);
    assert!(cut["summary"]["ndcg"][9].as_f64() > preset["summary"]["ndcg"][9].as_f64());
    let bad = ltr().arg("eval").arg(&feature).arg(&scores).args(["--gain", "square"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn further_metrics_are_printed_on_request_beside_the_scripts_layout() {
    let feature = fold_file("letor4", "MQ2008", 1, "test");
    let scores = golden_dir().join("mq2008-fold1-test.continuous.scores");
    let eval = |extra: &[&str]| {
        let out = ltr()
            .arg("eval")
            .arg(&feature)
            .arg(&scores)
            .args(["--convention", "letor4"])
            .args(extra)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let json = |extra: &[&str]| -> serde_json::Value {
        let (code, out, err) = eval(&[&["--format", "json"], extra].concat());
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let v = json(&["--metrics", "err@10,dcg@10,recall@10,rr,recall@20"]);
    assert_eq!(v["err_max_grade"], 2);
    let s = &v["summary"];
    let m = &v["metrics"];
    assert_eq!(m["err@10"], s["err"][9]);
    assert_eq!(m["dcg@10"], s["dcg"][9]);
    assert_eq!(m["recall@10"], s["recall"][9]);
    assert_eq!(m["mrr"], s["mrr"]);
    // A cut-off past the layout's max_k is evaluated apart; the layout keeps its 10.
    assert!(m["recall@20"].as_f64().unwrap() >= m["recall@10"].as_f64().unwrap());
    assert_eq!(s["recall"].as_array().unwrap().len(), 10);
    // ERR's gmax: 4 lowers every stop probability; nothing else moves; the note names it.
    let (_, _, note) = eval(&["--max-grade", "4", "--format", "json"]);
    assert!(note.contains("letor4 (max_grade=4)"), "{note}");
    let yahoo = json(&["--max-grade", "4"]);
    assert_eq!(yahoo["err_max_grade"], 4);
    assert!(yahoo["summary"]["err"][9].as_f64() < s["err"][9].as_f64());
    assert_eq!(yahoo["summary"]["map"], s["map"]);
    // Text: the script's layout unchanged, then the table.
    let (_, plain, _) = eval(&[]);
    let (code, text, err) = eval(&["--metrics", "err@10,rr", "--per-query"]);
    assert_eq!(code, Some(0), "{err}");
    let (_, plain_per_query, _) = eval(&["--per-query"]);
    assert!(text.starts_with(&plain_per_query) && plain_per_query != plain, "{text}");
    let table = &text[plain_per_query.len()..];
    assert!(table.starts_with("\nletor4 (ERR's gmax 2):\nquery\terr@10\tmrr\n"), "{table}");
    assert!(table.ends_with(&format!("mean\t{}\t{}\n", s["err"][9], s["mrr"])), "{table}");
    assert_eq!(table.lines().count(), 3 + 1 + v["summary"]["n_queries"].as_u64().unwrap() as usize);
    // The official format stays the script's alone.
    let (code, _, err) = eval(&["--format", "official", "--metrics", "rr"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--metrics") && err.contains("official"), "{err}");
    let (code, _, err) = eval(&["--metrics", "auc"]);
    assert_eq!(code, Some(2), "{err}");
}
