//! Feature importance: hand-derived values on tiny tree and linear models, the top-N list
//! for reports, and `ltr explain` as a process.

use std::process::Command;

use ltr_harness::AnyModel;
use ltr_harness::importance::{Importance, importance, mean_top_features, top_features};

fn ltr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
}

fn model(json: serde_json::Value) -> AnyModel {
    serde_json::from_value(json).unwrap()
}

/// Two trees on 3 features: splits on feature 1 (gain 4) and 3 (gain 1), then on 3 (gain 3).
fn two_trees() -> AnyModel {
    model(serde_json::json!({"algorithm": "lambdamart", "model": {
    "n_features": 3, "base_score": 0.0, "trees": [
        {"split_feature": [0, 2], "threshold": [0.5, 0.5], "left": [1, -2], "right": [-1, -3],
         "split_gain": [4.0, 1.0], "internal_count": [4, 2],
         "leaf_value": [1.0, -1.0, 0.5], "leaf_count": [2, 1, 1]},
        {"split_feature": [2], "threshold": [0.25], "left": [-1], "right": [-2],
         "split_gain": [3.0], "internal_count": [4],
         "leaf_value": [0.1, -0.1], "leaf_count": [2, 2]}
    ]}}))
}

#[test]
fn tree_importance_sums_gains_and_counts_splits() {
    let Importance::Trees { algorithm, trees, features } = importance(&two_trees(), None).unwrap() else {
        panic!("not a tree importance")
    };
    assert_eq!((algorithm.as_str(), trees), ("lambdamart", 2));
    let rows: Vec<(usize, f64, f64, u64, f64)> =
        features.iter().map(|f| (f.feature, f.gain, f.gain_share, f.splits, f.split_share)).collect();
    // Features 1 and 3 tie on gain (4 = 1 + 3); more splits rank first, then the number.
    assert_eq!(rows, [(3, 4.0, 0.5, 2, 2.0 / 3.0), (1, 4.0, 0.5, 1, 1.0 / 3.0), (2, 0.0, 0.0, 0, 0.0)]);
    let top = top_features(&two_trees(), None, 1).unwrap().unwrap();
    assert_eq!((top.len(), top[0].feature, top[0].importance, top[0].share), (1, 3, 4.0, 0.5));
}

#[test]
fn top_features_over_folds_average_the_shares() {
    let svm = |w: [f64; 3]| {
        let m = model(serde_json::json!({"algorithm": "ranksvm", "model": {"weights": w, "bias": 0.0}}));
        importance(&m, None).unwrap()
    };
    let undefined = Importance::Undefined { algorithm: "x".into(), reason: "y".into() };
    // Shares: fold 1 (0.5, 0.25, 0.25), fold 2 (0, 0.5, 0.5) -> means (0.25, 0.375, 0.375).
    let folds = [svm([2.0, -1.0, 1.0]), undefined.clone(), svm([0.0, 3.0, -3.0])];
    let top = mean_top_features(&folds, 2).unwrap();
    let got: Vec<(usize, f64, f64)> = top.iter().map(|t| (t.feature, t.share, t.importance)).collect();
    assert_eq!(got, [(2, 0.375, 2.0), (3, 0.375, 2.0)]);
    assert!(mean_top_features(&[undefined], 3).is_none());
}

#[test]
fn linear_importance_is_the_absolute_weight_times_the_spread_when_data_is_given() {
    let m = model(
        serde_json::json!({"algorithm": "ranksvm", "model": {"weights": [2.0, -1.0, 0.5], "bias": 0.0}}),
    );
    // Feature 1: 0, 2, 0, 2 (sd 1); feature 2 constant (sd 0); feature 3: 0, 0, 0, 4 (sd sqrt 3).
    let text = b"1 qid:1 1:0 2:1 3:0\n0 qid:1 1:2 2:1 3:0\n1 qid:2 1:0 2:1 3:0\n0 qid:2 1:2 2:1 3:4\n";
    let data = ltr_format::reader::parse_bytes(text, "tiny", &ltr_format::ReadOptions::default()).unwrap();

    let Importance::Linear { standardised, features, .. } = importance(&m, None).unwrap() else { panic!() };
    assert!(!standardised);
    let raw: Vec<(usize, f64, f64)> = features.iter().map(|f| (f.feature, f.importance, f.share)).collect();
    assert_eq!(raw, [(1, 2.0, 2.0 / 3.5), (2, 1.0, 1.0 / 3.5), (3, 0.5, 0.5 / 3.5)]);
    assert!(features.iter().all(|f| f.std_dev.is_none()));
    assert_eq!(features[1].weight, -1.0);

    let Importance::Linear { standardised, features, .. } = importance(&m, Some(&data)).unwrap() else {
        panic!()
    };
    assert!(standardised);
    let expected = [(1, 2.0, 1.0), (3, 0.5 * 3f64.sqrt(), 3f64.sqrt()), (2, 0.0, 0.0)];
    let total = 2.0 + 0.5 * 3f64.sqrt();
    for (f, (feature, imp, sd)) in features.iter().zip(expected) {
        assert_eq!(f.feature, feature);
        assert!((f.importance - imp).abs() < 1e-12, "{f:?}");
        assert!((f.std_dev.unwrap() - sd).abs() < 1e-12, "{f:?}");
        assert!((f.share - imp / total).abs() < 1e-12, "{f:?}");
    }

    // Boosters over single features collapse to one weight per feature.
    let ada = model(serde_json::json!({"algorithm": "adarank-map", "model": {"n_features": 2, "rounds": [
        {"weak": {"feature": 1, "negated": true}, "alpha": 0.5},
        {"weak": {"feature": 0, "negated": false}, "alpha": 0.25},
        {"weak": {"feature": 1, "negated": false}, "alpha": 2.0}]}}));
    let top = top_features(&ada, None, 5).unwrap().unwrap();
    let top: Vec<(usize, f64)> = top.iter().map(|t| (t.feature, t.importance)).collect();
    assert_eq!(top, [(2, 1.5), (1, 0.25)]);

    // Data of another width is refused.
    let narrow =
        ltr_format::reader::parse_bytes(b"1 qid:1 1:0\n", "n", &ltr_format::ReadOptions::default()).unwrap();
    assert!(importance(&m, Some(&narrow)).is_err());
}

#[test]
fn explain_prints_tables_json_and_one_line_for_other_models() {
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.txt");
    let mut text = String::new();
    for q in 1..=6 {
        for d in 0..6u32 {
            let label = d % 3;
            let noise = (q * 7 + d as usize * 3) % 5;
            text += &format!(
                "{label} qid:{q} 1:{} 2:{noise} 3:{}\n",
                f64::from(label) + 0.1 * noise as f64,
                d % 2
            );
        }
    }
    std::fs::write(&train, text).unwrap();
    let train_model = |id: &str, sets: &[&str]| {
        let path = dir.path().join(format!("{id}.json"));
        let mut c = ltr();
        c.args(["train", id, "-q", "--train"]).arg(&train).arg("--model").arg(&path);
        for s in sets {
            c.args(["--set", s]);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        path
    };
    let explain = |model: &std::path::Path, extra: &[&str]| {
        let out = ltr().arg("explain").arg(model).args(extra).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };

    let lm = train_model("lambdamart", &["trees=5", "min_data_in_leaf=1"]);
    let v: serde_json::Value =
        serde_json::from_str(&explain(&lm, &["--format", "json", "--top", "2"])).unwrap();
    assert_eq!((v["kind"].as_str(), v["algorithm"].as_str()), (Some("trees"), Some("lambdamart")));
    assert_eq!(v["features"].as_array().unwrap().len(), 2);
    assert_eq!(v["features"][0]["feature"], 1, "the feature that carries the label: {v}");
    let text = explain(&lm, &["--top", "3"]);
    assert!(text.starts_with("lambdamart, 5 trees: importance by split gain"), "{text}");
    assert_eq!(text.lines().count(), 1 + 1 + 3, "{text}");

    let svm = train_model("ranksvm", &[]);
    let raw = explain(&svm, &[]);
    assert!(raw.contains("(raw, not standardised"), "{raw}");
    let std = explain(&svm, &["--data", train.to_str().unwrap()]);
    assert!(std.contains("standard deviation in") && std.contains("(standardised)"), "{std}");

    let rb = train_model("rankboost", &["rounds=3"]);
    let line = explain(&rb, &[]);
    assert!(line.starts_with("rankboost: feature importance is not defined for this model"), "{line}");
    assert_eq!(line.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(&explain(&rb, &["--format", "json"])).unwrap();
    assert_eq!(v["kind"], "undefined");
}
