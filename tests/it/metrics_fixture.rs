//! ERR@10, DCG@10, recall@10 and reciprocal rank of two committed runs equal what ranx and a
//! plain script computed for them (`tests/fixtures/metrics/README.md`), each under the
//! convention that README names.

use ltr_format::trec::{evaluation_input, parse_qrels, parse_run};
use ltr_metrics::{Convention, ConventionParts, EvalConfig, GainRule, Metric, NoRelevant};

use crate::common::root;

fn fixture(name: &str) -> std::path::PathBuf {
    root().join("tests").join("fixtures").join("metrics").join(name)
}

/// A run and its qrels (paths relative to the fixture folder) as a dataset and scores.
fn read_back(qrels: &str, run: &str) -> (ltr_core::Dataset, Vec<f64>) {
    let run = parse_run(&std::fs::read_to_string(fixture(run)).unwrap(), "run").unwrap();
    let qrels = parse_qrels(&std::fs::read_to_string(fixture(qrels)).unwrap(), "qrels").unwrap();
    evaluation_input(&run, &qrels, "run").unwrap()
}

fn check(what: &str, ours: f64, theirs: &serde_json::Value) {
    let theirs = theirs.as_f64().unwrap_or_else(|| panic!("{what}: no value in values.json"));
    let scale = theirs.abs().max(1.0);
    assert!((ours - theirs).abs() <= 1e-9 * scale, "{what}: ltr {ours}, independent {theirs}");
}

#[test]
fn further_metrics_equal_the_values_of_ranx_and_of_the_plain_script() {
    let values: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("values.json")).unwrap()).unwrap();
    let sets = [
        ("mq2008", "../trec/mq2008-fold1-test.qrels", "../trec/mq2008-fold1-test.ranksvm.run"),
        ("graded", "graded.qrels", "graded.run"),
    ];
    for (name, qrels, run) in sets {
        let (data, scores) = read_back(qrels, run);
        let v = &values[name];
        assert_eq!(v["queries"].as_u64(), Some(data.n_queries() as u64), "{name}");
        let mean = |m: Metric, cfg: EvalConfig| m.mean(&data, &scores, &cfg).unwrap();
        let zero = EvalConfig::standard(NoRelevant::Zero);
        let with = |parts: ConventionParts| zero.with_parts(&parts);
        let (ranx, script) = (&v["ranx"], &v["script"]);
        check(&format!("{name} dcg_burges@10"), mean(Metric::Dcg(10), zero), &ranx["dcg_burges@10"]);
        let linear = with(ConventionParts { gain: Some(GainRule::Linear), ..Default::default() });
        check(&format!("{name} dcg@10 (linear)"), mean(Metric::Dcg(10), linear), &ranx["dcg@10"]);
        check(&format!("{name} recall@10"), mean(Metric::Recall(10), zero), &ranx["recall@10"]);
        check(&format!("{name} mrr"), mean(Metric::Mrr, zero), &ranx["mrr"]);
        let from2 = with(ConventionParts { relevant_from: Some(2), ..Default::default() });
        check(&format!("{name} recall@10-l2"), mean(Metric::Recall(10), from2), &ranx["recall@10-l2"]);
        check(&format!("{name} mrr-l2"), mean(Metric::Mrr, from2), &ranx["mrr-l2"]);
        check(&format!("{name} ndcg_burges@10"), mean(Metric::Ndcg(10), zero), &ranx["ndcg_burges@10"]);
        // ERR: standard's gmax is the data's highest grade; the Yahoo! challenge's is 4.
        let gmax = v["max_grade"].as_u64().unwrap();
        assert_eq!(u64::from(data.max_grade()), gmax, "{name}");
        check(&format!("{name} err@10"), mean(Metric::Err(10), zero), &script[format!("err@10 gmax={gmax}")]);
        let yahoo = with(ConventionParts { max_grade: Some(4), ..Default::default() });
        check(&format!("{name} err@10 gmax=4"), mean(Metric::Err(10), yahoo), &script["err@10 gmax=4"]);
        // The LETOR conventions' own past-end rules.
        let l4 = EvalConfig::official(Convention::Letor4);
        check(&format!("{name} dcg@10 letor4"), mean(Metric::Dcg(10), l4), &script["dcg@10 letor"]);
        let l3 = EvalConfig::official(Convention::Letor3);
        check(&format!("{name} recall@10 letor3"), mean(Metric::Recall(10), l3), &script["recall@10 letor3"]);
    }
}
