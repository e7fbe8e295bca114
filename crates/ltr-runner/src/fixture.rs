//! A tiny dataset written to disk and a spec over it: the runner, the store and cluster
//! plans exercised for real in milliseconds (tests only).
#![allow(clippy::unwrap_used)]
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ltr_data::resolved::{DataFile, DatasetInput, FoldFiles};
use ltr_harness::ExperimentSpec;
use ltr_metrics::Convention;

use crate::runner::RunOptions;

/// Two folds of dataset `D` (3 features, 6 queries of 5 documents per split) under
/// `root`, as a resolved dataset.
pub(crate) fn dataset(root: &Path) -> DatasetInput {
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as f64 / f64::from(1u32 << 31)
    };
    let mut folds = Vec::new();
    for fold in 1..=2u32 {
        let mut file = |split: &str| {
            let mut text = String::new();
            for q in 0..6 {
                for _ in 0..5 {
                    let (a, b, c) = (next(), next(), next());
                    let label = u8::from(a + 0.3 * b > 0.8) + u8::from(a > 0.9);
                    let _ = writeln!(text, "{label} qid:{fold}{q} 1:{a:.4} 2:{b:.4} 3:{c:.4}");
                }
            }
            let rel = format!("D/Fold{fold}/{split}.txt");
            std::fs::create_dir_all(root.join(format!("D/Fold{fold}"))).unwrap();
            std::fs::write(root.join(&rel), &text).unwrap();
            DataFile { rel, sha256: crate::code::sha256_hex(text.as_bytes()) }
        };
        folds.push(FoldFiles { fold, train: file("train"), vali: file("vali"), test: file("test") });
    }
    input(root.to_owned(), folds)
}

/// Dataset `D` (variant `v`, 3 features, letor3) with the given folds under `root`.
pub(crate) fn input(root: PathBuf, folds: Vec<FoldFiles>) -> DatasetInput {
    DatasetInput {
        name: "D".into(),
        variant: "v".into(),
        convention: Convention::Letor3,
        features: 3,
        missing_token: None,
        clip: None,
        format: Default::default(),
        rotation: None,
        root,
        folds,
    }
}

/// The options of a test run.
pub(crate) fn options() -> RunOptions {
    RunOptions::new("test".into())
}

/// Two cheap algorithms over folds 1 and 2 of `D`.
pub(crate) const SPEC: &str = r#"
name = "t"
collection = "letor3"
datasets = ["D"]
folds = [1, 2]
seed = 3

[[algorithms]]
id = "regression"
grid = { lambda = [0.1, 1.0] }

[[algorithms]]
id = "prank"
"#;

pub(crate) fn spec(text: &str) -> ExperimentSpec {
    ExperimentSpec::parse(text, Path::new("t.toml")).unwrap()
}
