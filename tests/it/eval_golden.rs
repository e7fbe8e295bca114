//! `ltr eval` against the official scripts' recorded output (`../shared/eval-golden`).

use ltr_data::scores::read_scores;
use ltr_data::{ReadOptions, read_file};
use ltr_metrics::official::{Digits, render};
use ltr_metrics::{Convention, EvalConfig, Evaluation, evaluate_dataset};

use crate::common::{mirror, mirror_file, shared};

const CASES: [(&str, &str, Convention); 2] = [
    ("ohsumed-fold1-test", "letor3/OHSUMED/QueryLevelNorm/Fold1/test.txt", Convention::Letor3),
    ("mq2008-fold1-test", "letor4/MQ2008/Fold1/test.txt", Convention::Letor4),
];

fn evaluate_case(feature_rel: &str, scores: &str, conv: Convention) -> Option<Evaluation> {
    let mirror = mirror()?;
    let data = read_file(&mirror_file(&mirror, feature_rel), &ReadOptions::default()).unwrap().dataset;
    let scores = read_scores(&shared().join("eval-golden").join(scores)).unwrap();
    Some(evaluate_dataset(&data, &scores, &EvalConfig::official(conv)).unwrap())
}

/// The official output, byte for byte, for both score files and both flags.
#[test]
fn script_layout_is_byte_identical() {
    for (stem, rel, conv) in CASES {
        for kind in ["ties", "continuous"] {
            let Some(eval) = evaluate_case(rel, &format!("{stem}.{kind}.scores"), conv) else { return };
            for (per_query, suffix) in [(false, "official.txt"), (true, "official-perquery.txt")] {
                let golden_path = shared().join("eval-golden").join(format!("{stem}.{kind}.{suffix}"));
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
    for (stem, rel, conv) in CASES {
        for kind in ["ties", "continuous"] {
            let Some(eval) = evaluate_case(rel, &format!("{stem}.{kind}.scores"), conv) else { return };
            let golden = std::fs::read_to_string(
                shared().join("eval-golden").join(format!("{stem}.{kind}.official.txt")),
            )
            .unwrap();
            let theirs: Vec<f64> = golden
                .split(['\t', '\n'])
                .filter_map(|t| t.trim().parse::<f64>().ok())
                .filter(|_| true)
                .collect();
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
