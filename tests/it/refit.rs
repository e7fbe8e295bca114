//! `ltr train` gives the report's model: a stored cell's selected grid point fitted again,
//! by `--cell` and by the plain form with the values `ltr cells` shows, is the cell's stored
//! model byte for byte, for a linear, a tree and a network learner that draw random numbers.

use crate::harness::{Env, ok};

/// One fold of OHSUMED under a normalisation and a validation metric other than the
/// algorithms' defaults, with two grid points for two of them: everything the plain form must
/// be told. CRR samples its SGD steps, LambdaMART subsamples rows and features, RankNet
/// initialises its weights and shuffles its queries.
const SPEC: &str = r#"
name = "refit"
collection = "letor3"
datasets = [{ name = "OHSUMED", normalize = "zscore" }]
folds = [2]
seed = 11

[[algorithms]]
id = "crr"
params = { steps = 3000 }
grid = { lambda = [0.01, 0.1] }
validation_metric = "ndcg@5"

[[algorithms]]
id = "lambdamart"
params = { trees = 15, row_subsample = 0.7 }
grid = { feature_subsample = [0.5, 0.8] }

[[algorithms]]
id = "ranknet"
params = { epochs = 3, hidden = 5 }
"#;

#[test]
fn ltr_train_refits_a_stored_cell_byte_for_byte_by_its_key_and_by_the_plain_form() {
    let env = Env::new();
    let spec = env.spec("refit", SPEC);
    ok(&env.ltr(&["run", spec.to_str().unwrap(), "--results", "results"], Some(2)), "run");
    let listed = ok(&env.ltr(&["cells", "results", "--format", "json"], None), "cells");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["crr", "lambdamart", "ranknet"]);
    for r in &rows {
        let id = r["id"].as_str().unwrap();
        let key = r["key"].as_str().unwrap();
        let stored = std::fs::read(env.path(r["model"].as_str().unwrap())).unwrap();
        let file: serde_json::Value = serde_json::from_slice(&stored).unwrap();
        let seed = r["seed"].as_u64().unwrap_or_else(|| panic!("{r}"));
        assert_eq!(file["seed"].as_u64(), Some(seed), "{id}: cells shows the model's seed");
        assert_ne!(seed, 11, "{id}: a grid point's seed is derived, not the master seed");

        // By key (a prefix of it, as the table shows it).
        let out = format!("{id}-cell.json");
        let said = ok(
            &env.ltr(&["train", "--cell", &key[..12], "--results", "results", "--model", &out], None),
            &format!("{id}: train --cell"),
        );
        assert!(std::fs::read(env.path(&out)).unwrap() == stored, "{id}: --cell gives another model");
        assert!(said.contains("byte for byte"), "{id}: {said}");

        // By the plain form `ltr cells` shows, which states the seed and every setting.
        let command = r["train"].as_str().unwrap_or_else(|| panic!("{id}: no command: {r}"));
        assert!(said.contains(command), "{id}: --cell shows the plain form: {said}");
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[..3], ["ltr", "train", id], "{command}");
        assert!(!command.contains('\''), "{command}");
        let seed_flag = format!("--seed {seed}");
        for part in [seed_flag.as_str(), "--normalize zscore", "--convention letor3", "--features 45"] {
            assert!(command.contains(part), "{id}: {command} lacks {part}");
        }
        let metric = if id == "crr" { "--metric ndcg@5" } else { "--metric " };
        assert!(command.contains(metric), "{id}: {command}");
        let plain = format!("{id}-plain.json");
        let mut args = words[1..].to_vec();
        args.extend(["--model", &plain]);
        ok(&env.ltr(&args, None), &format!("{id}: {command}"));
        assert!(
            std::fs::read(env.path(&plain)).unwrap() == stored,
            "{id}: the plain form gives another model"
        );

        // The seed matters: with the run's master seed instead, the model is another.
        let seed_at = args.iter().position(|w| *w == "--seed").unwrap();
        args[seed_at + 1] = "11";
        let other = format!("{id}-master.json");
        *args.last_mut().unwrap() = &other;
        ok(&env.ltr(&args, None), &format!("{id}: seed 11"));
        assert!(std::fs::read(env.path(&other)).unwrap() != stored, "{id}: draws no random number");
    }

    let help = ok(&env.ltr(&["train", "--help"], None), "help");
    assert!(help.contains("--cell KEY --results DIR") && help.contains("derived"), "{help}");
    let unknown =
        env.ltr(&["train", "--cell", "ffffffff", "--results", "results", "--model", "x.json"], None);
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        !unknown.status.success() && err.contains("no cell ffffffff") && err.contains("ltr cells"),
        "{err}"
    );
    let both = env.ltr(&["train", "crr", "--train", "t.txt", "--cell", "ab", "--model", "x.json"], None);
    assert_eq!(both.status.code(), Some(2), "{}", String::from_utf8_lossy(&both.stderr));
}

/// SSRankBoost hides grades drawn from the training split's seed, which the run derives from
/// its master seed and the fold's files: `--cell` sets it, the plain form states it with
/// `--split-seed`, and both give the stored model byte for byte. A spec that sets convention
/// parts has cells whose plain form would be selected otherwise, so `ltr cells` gives none
/// and `--cell` still refits them exactly.
#[test]
fn the_training_splits_seed_and_the_convention_parts_are_refitted_too() {
    let env = Env::new();
    let spec = env.spec(
        "split",
        "name = \"split\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nfolds = [3]\nseed = 5\n\
         eval = { ties = \"expected\" }\n\n[[algorithms]]\nid = \"ssrankboost\"\nparams = { rounds = 20 }\n\n\
         [[algorithms]]\nid = \"ssrankboost\"\nlabel = \"plain\"\nparams = { rounds = 20 }\n",
    );
    ok(&env.ltr(&["run", spec.to_str().unwrap(), "--results", "results"], Some(2)), "run");
    let listed = ok(&env.ltr(&["cells", "results", "--format", "json"], None), "cells");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert!(r["train"].is_null(), "no plain form under convention parts: {r}");
        let key = r["key"].as_str().unwrap();
        let stored = std::fs::read(env.path(r["model"].as_str().unwrap())).unwrap();
        ok(&env.ltr(&["train", "--cell", key, "--results", "results", "--model", "m.json"], None), "--cell");
        assert!(std::fs::read(env.path("m.json")).unwrap() == stored, "--cell gives another model");
    }

    let plain = env.spec(
        "plain",
        "name = \"plain\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nfolds = [3]\nseed = 5\n\n\
         [[algorithms]]\nid = \"ssrankboost\"\nparams = { rounds = 20 }\n",
    );
    ok(&env.ltr(&["run", plain.to_str().unwrap(), "--results", "r2"], Some(2)), "run");
    let listed = ok(&env.ltr(&["cells", "r2", "--format", "json"], None), "cells");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    let command = rows[0]["train"].as_str().unwrap();
    assert!(command.contains("--split-seed "), "{command}");
    let stored = std::fs::read(env.path(rows[0]["model"].as_str().unwrap())).unwrap();
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    args.extend(["--model", "p.json"]);
    ok(&env.ltr(&args, None), command);
    assert!(std::fs::read(env.path("p.json")).unwrap() == stored, "the plain form gives another model");
    // Without the split seed, the hidden grades are drawn from --seed: another model.
    let at = args.iter().position(|w| *w == "--split-seed").unwrap();
    args.drain(at..at + 2);
    *args.last_mut().unwrap() = "q.json";
    ok(&env.ltr(&args, None), "without --split-seed");
    assert!(std::fs::read(env.path("q.json")).unwrap() != stored, "the split seed decides the hidden grades");
}
