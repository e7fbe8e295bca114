//! TREC run and qrels files: `ltr predict --format trec` and `ltr qrels` read back and
//! evaluated give `ltr eval`'s numbers; ties keep file order; names fall back to positions;
//! and a committed run + qrels evaluates to what ranx computed for it
//! (`tests/fixtures/trec/README.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

use ltr_format::trec::{evaluation_input, parse_qrels, parse_run, qrels_file, run_file};
use ltr_metrics::{Convention, EvalConfig, NoRelevant, evaluate_dataset};

use crate::common::{fold_file, golden_dir, root};

fn ltr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests").join("fixtures").join("trec").join(name)
}

/// A run and its qrels, read back into a dataset and scores.
fn read_back(run: &Path, qrels: &Path) -> (ltr_core::Dataset, Vec<f64>) {
    let run_text = std::fs::read_to_string(run).unwrap();
    let qrels_text = std::fs::read_to_string(qrels).unwrap();
    let run = parse_run(&run_text, "run").unwrap();
    let qrels = parse_qrels(&qrels_text, "qrels").unwrap();
    evaluation_input(&run, &qrels, "run").unwrap()
}

#[test]
fn predict_and_qrels_round_trip_to_the_numbers_of_eval() {
    let dir = tempfile::tempdir().unwrap();
    let test = fold_file("letor4", "MQ2008", 1, "test");
    let model = dir.path().join("m.json");
    run_ok(
        ltr().arg("train").arg("regression").arg("--train").arg(&test).arg("--model").arg(&model).arg("-q"),
    );
    let scores = dir.path().join("s.txt");
    let run = dir.path().join("run.txt");
    let qrels = dir.path().join("qrels.txt");
    let predict = |out: &Path, trec: bool| {
        let mut c = ltr();
        c.arg("predict").arg("--model").arg(&model).arg("--data").arg(&test).arg("--scores").arg(out);
        if trec {
            c.args(["--format", "trec", "--run-name", "reg"]);
        }
        run_ok(&mut c);
    };
    predict(&scores, false);
    predict(&run, true);
    run_ok(ltr().arg("qrels").arg(&test).arg("--out").arg(&qrels));
    // Standard output carries the same qrels.
    assert_eq!(run_ok(ltr().arg("qrels").arg(&test)), std::fs::read_to_string(&qrels).unwrap());

    let text = std::fs::read_to_string(&run).unwrap();
    let first = text.lines().next().unwrap();
    let f: Vec<&str> = first.split(' ').collect();
    assert_eq!((f.len(), f[1], f[3], f[5]), (6, "Q0", "1", "reg"), "{first}");
    assert!(f[2].starts_with("GX"), "docids come from the #docid comments: {first}");

    let (data, trec_scores) = read_back(&run, &qrels);
    assert_eq!(data.n_docs(), 2874);
    for no_relevant in ["zero", "one", "skip"] {
        let eval: serde_json::Value = serde_json::from_str(&run_ok(
            ltr()
                .arg("eval")
                .arg(&test)
                .arg(&scores)
                .args(["--convention", "standard", "--format", "json"])
                .args(["--no-relevant", no_relevant]),
        ))
        .unwrap();
        let policy = match no_relevant {
            "zero" => NoRelevant::Zero,
            "one" => NoRelevant::One,
            _ => NoRelevant::Skip,
        };
        let ours = evaluate_dataset(&data, &trec_scores, &EvalConfig::standard(policy)).unwrap();
        let summary = serde_json::to_value(&ours.summary).unwrap();
        assert_eq!(summary, eval["summary"], "--no-relevant {no_relevant}");
    }
}

#[test]
fn tied_scores_get_consecutive_ranks_in_file_order() {
    let test = fold_file("letor4", "MQ2008", 1, "test");
    let data = ltr_format::read_file(&test, &ltr_format::ReadOptions::default()).unwrap().dataset;
    let scores =
        ltr_format::scores::read_scores(&golden_dir().join("mq2008-fold1-test.ties.scores")).unwrap();
    let run = parse_run(&run_file(&data, &scores, "ties", "test").unwrap(), "run").unwrap();
    let names = data.doc_ids().unwrap();
    let mut tied_pairs = 0;
    for q in data.queries() {
        let lines: Vec<_> = run.iter().filter(|l| l.qid == q.qid).collect();
        assert_eq!(lines.len(), q.len());
        for (k, w) in lines.windows(2).enumerate() {
            assert_eq!((w[0].rank, w[1].rank), (k as u64 + 1, k as u64 + 2));
            assert!(w[0].score >= w[1].score);
            if w[0].score == w[1].score {
                tied_pairs += 1;
                let pos = |d: &str| q.range().find(|&i| names[i] == d).unwrap();
                assert!(pos(&w[0].doc) < pos(&w[1].doc), "query {}: a tie out of file order", q.qid);
            }
        }
    }
    assert!(tied_pairs > 100, "the fixture has ties: {tied_pairs}");
    // The ranks and the evaluation agree with ltr's evaluation of the LETOR file.
    let qrels = parse_qrels(&qrels_file(&data, "test").unwrap(), "qrels").unwrap();
    let (back, back_scores) = evaluation_input(&run, &qrels, "run").unwrap();
    let cfg = EvalConfig::official(Convention::Standard);
    assert_eq!(
        evaluate_dataset(&back, &back_scores, &cfg).unwrap().summary,
        evaluate_dataset(&data, &scores, &cfg).unwrap().summary
    );
}

#[test]
fn documents_without_docids_are_named_by_position_and_duplicates_are_refused() {
    let opts = ltr_format::ReadOptions::default();
    let plain =
        ltr_format::reader::parse_bytes(b"2 qid:7 1:1\n0 qid:7 1:2\n1 qid:8 1:3\n", "p", &opts).unwrap();
    let run = run_file(&plain, &[0.5, 1.5, 0.0], "x", "p").unwrap();
    assert_eq!(run, "7 Q0 2 1 1.5 x\n7 Q0 1 2 0.5 x\n8 Q0 3 1 0 x\n");
    assert_eq!(qrels_file(&plain, "p").unwrap(), "7 0 1 2\n7 0 2 0\n8 0 3 1\n");
    // Some documents without a docid: every document is named by position.
    let mixed =
        ltr_format::reader::parse_bytes(b"2 qid:7 1:1 #docid = a\n0 qid:7 1:2\n", "m", &opts).unwrap();
    assert_eq!(qrels_file(&mixed, "m").unwrap(), "7 0 1 2\n7 0 2 0\n");
    let dup =
        ltr_format::reader::parse_bytes(b"2 qid:7 1:1 #docid = a\n0 qid:7 1:2 #docid = a\n", "d", &opts)
            .unwrap();
    let e = qrels_file(&dup, "d").unwrap_err().to_string();
    assert!(e.contains("query 7") && e.contains("\"a\""), "{e}");
    for bad in ["", "two words", "tab\tname"] {
        assert!(run_file(&plain, &[0.0; 3], bad, "p").is_err(), "{bad:?}");
    }
    assert!(run_file(&plain, &[0.0, f64::NAN, 0.0], "x", "p").is_err());
    assert!(run_file(&plain, &[0.0; 2], "x", "p").is_err());
}

#[test]
fn a_run_missing_a_relevant_document_is_refused() {
    let run = parse_run("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n", "run").unwrap();
    let qrels = parse_qrels("1 0 a 0\n1 0 b 1\n1 0 c 2\n2 0 z 1\n", "qrels").unwrap();
    let e = evaluation_input(&run, &qrels, "run").unwrap_err().to_string();
    assert!(e.contains("relevant document c"), "{e}");
    // A query judged but not run is left out, as trec_eval does.
    let qrels = parse_qrels("1 0 a 0\n1 0 b 1\n2 0 z 1\n", "qrels").unwrap();
    let (data, _) = evaluation_input(&run, &qrels, "run").unwrap();
    assert_eq!(data.n_queries(), 1);
    assert!(parse_run("1 Q0 a 1 x r\n", "run").unwrap_err().to_string().contains("run:1"));
}

/// The committed run (RankSVM on MQ2008 Fold1, 40 queries without tied scores) and qrels,
/// evaluated by ranx (values in `ranx.json`), and by ltr under `standard` with queries
/// without relevant documents scoring 0: ranx's `ndcg_burges@10` (gain `2^g - 1`, discount
/// `log2(rank + 1)`, NDCG@n for lists shorter than 10) and `map` (relevant from grade 1).
#[test]
fn the_committed_run_evaluates_to_the_values_of_ranx() {
    let run = fixture("mq2008-fold1-test.ranksvm.run");
    let (data, scores) = read_back(&run, &fixture("mq2008-fold1-test.qrels"));
    for q in data.queries() {
        let s = &scores[q.range()];
        let mut sorted = s.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted.dedup();
        assert_eq!(sorted.len(), s.len(), "query {} has tied scores", q.qid);
    }
    let ranx: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("ranx.json")).unwrap()).unwrap();
    let ours = evaluate_dataset(&data, &scores, &EvalConfig::standard(NoRelevant::Zero)).unwrap();
    let ndcg10 = ranx["ndcg_burges@10"].as_f64().unwrap();
    let map = ranx["map"].as_f64().unwrap();
    assert!(
        (ours.summary.ndcg[9] - ndcg10).abs() < 1e-9,
        "ndcg@10 {} vs ranx {ndcg10}",
        ours.summary.ndcg[9]
    );
    assert!((ours.summary.map - map).abs() < 1e-9, "map {} vs ranx {map}", ours.summary.map);
}

/// Query and document ids holding a control or whitespace character (vertical tab, form
/// feed, NUL, ...) would split into extra fields in a TREC file: the reader refuses them with
/// the file and line, and both writers refuse them in data built otherwise.
#[test]
fn ids_with_control_characters_are_refused_at_read_and_by_both_trec_writers() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("ids.txt");
    for (line, bad) in
        [("1 qid:7\u{b}8 1:0.5 #docid = b", "query id"), ("1 qid:7 1:0.5 #docid = b\u{c}c", "document id")]
    {
        std::fs::write(&f, format!("2 qid:7 1:1 #docid = a\n{line}\n")).unwrap();
        let out = ltr().arg("qrels").arg(&f).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad}: qrels written: {}", String::from_utf8_lossy(&out.stdout));
        assert!(err.contains("ids.txt:2:") && err.contains(bad), "{bad}: {err}");
    }

    let data = |qid: &str, doc: &str| {
        ltr_core::Dataset::from_parts(
            1,
            vec![1.0, 0.5],
            vec![2, 1],
            vec![0, 2],
            vec![qid.to_owned()],
            Some(vec!["a".to_owned(), doc.to_owned()]),
        )
        .unwrap()
    };
    for (d, bad) in [
        (data("7\u{b}8", "b"), "query id"),
        (data("7", "b\0c"), "document id"),
        (data("7", "b\u{c}c"), "document id"),
    ] {
        let e = run_file(&d, &[1.0, 0.5], "r", "built").unwrap_err().to_string();
        assert!(e.contains("built") && e.contains(bad), "run: {e}");
        let e = qrels_file(&d, "built").unwrap_err().to_string();
        assert!(e.contains("built") && e.contains(bad), "qrels: {e}");
    }
}
