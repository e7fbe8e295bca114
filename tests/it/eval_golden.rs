//! `ltr eval` against the official scripts' recorded output (`tests/fixtures/eval-golden`), on
//! the Fold1 test files rebuilt from the embedded pieces.

use ltr_format::scores::read_scores;
use ltr_format::{ReadOptions, read_file};
use ltr_metrics::official::{Digits, render};
use ltr_metrics::{Convention, EvalConfig, Evaluation, evaluate_dataset};

use crate::common::{fold_file, golden_dir};

/// (golden file stem, collection, dataset, convention): the Fold1 test file of each.
const CASES: [(&str, &str, &str, Convention); 2] = [
    ("ohsumed-fold1-test", "letor3", "OHSUMED", Convention::Letor3),
    ("mq2008-fold1-test", "letor4", "MQ2008", Convention::Letor4),
];

fn evaluate_case(collection: &str, dataset: &str, scores: &str, conv: Convention) -> Evaluation {
    let feature = fold_file(collection, dataset, 1, "test");
    let data = read_file(&feature, &ReadOptions::default()).unwrap().dataset;
    let scores = read_scores(&golden_dir().join(scores)).unwrap();
    evaluate_dataset(&data, &scores, &EvalConfig::official(conv)).unwrap()
}

/// The official output, byte for byte, for both score files and both flags.
#[test]
fn script_layout_is_byte_identical() {
    for (stem, collection, dataset, conv) in CASES {
        for kind in ["ties", "continuous"] {
            let eval = evaluate_case(collection, dataset, &format!("{stem}.{kind}.scores"), conv);
            for (per_query, suffix) in [(false, "official.txt"), (true, "official-perquery.txt")] {
                let golden_path = golden_dir().join(format!("{stem}.{kind}.{suffix}"));
                let golden = std::fs::read_to_string(&golden_path).unwrap();
                let ours = render(&eval, per_query, Digits::Script);
                if ours != golden {
                    let first = ours.lines().zip(golden.lines()).position(|(a, b)| a != b);
                    panic!(
                        "{} differs at line {:?}:\nours:   {:?}\ngolden: {:?}",
                        golden_path.display(),
                        first.map(|i| i + 1),
                        first.and_then(|i| ours.lines().nth(i)),
                        first.and_then(|i| golden.lines().nth(i)),
                    );
                }
            }
        }
    }
}

/// Full-precision numbers agree with the 3.0 script's 15 significant digits to 1e-9 and
/// with the 4.0 script's 4 decimals to half a unit in the last place.
#[test]
fn full_precision_numbers_agree() {
    for (stem, collection, dataset, conv) in CASES {
        for kind in ["ties", "continuous"] {
            let eval = evaluate_case(collection, dataset, &format!("{stem}.{kind}.scores"), conv);
            let golden =
                std::fs::read_to_string(golden_dir().join(format!("{stem}.{kind}.official.txt"))).unwrap();
            let theirs: Vec<f64> =
                golden.split(['\t', '\n']).filter_map(|t| t.trim().parse::<f64>().ok()).collect();
            let ours_text = render(&eval, false, Digits::Full);
            let ours: Vec<f64> =
                ours_text.split(['\t', '\n']).filter_map(|t| t.trim().parse::<f64>().ok()).collect();
            assert_eq!(ours.len(), theirs.len(), "{stem}.{kind}");
            let tol = if conv == Convention::Letor3 { 1e-9 } else { 5e-5 + 1e-12 };
            for (a, b) in ours.iter().zip(&theirs) {
                assert!((a - b).abs() <= tol, "{stem}.{kind}: ours {a} vs official {b}");
            }
        }
    }
}
