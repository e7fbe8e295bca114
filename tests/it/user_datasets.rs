//! A user's own dataset through `ltr run`: a LETOR 2.0-shaped folder (25 features,
//! `FoldN/{trainingset,validationset,testset}.txt`, built here from the embedded OHSUMED
//! pieces by dropping columns) by spec and by `--data`; folds that disagree on the feature
//! count; one file split into 5 query-disjoint folds, the same for the same seed. And the
//! large collections' fetch errors, offline: one line per archive, a placed archive with the
//! wrong hash, a license-gated archive that is missing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use ltr_data::reader::{ReadOptions, read_file};
use sha2::{Digest, Sha256};

use crate::common::letor2_folder;

pub(crate) fn ltr(dir: &Path, args: &[&str]) -> Output {
    ltr_with_cache(dir, &dir.join("cache"), args)
}

/// `ltr args` in `dir` with the data cache `cache`, no mirror, no results or reports folder
/// set, and the network closed.
pub(crate) fn ltr_with_cache(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ltr"))
        .args(args)
        .current_dir(dir)
        .env("LTR_DATA_DIR", cache)
        .env_remove("LTR_MIRROR")
        .env_remove("LTR_RESULTS_DIR")
        .env_remove("LTR_REPORTS_DIR")
        // No network in any case: every address goes to a closed local port.
        .env("HTTP_PROXY", "http://127.0.0.1:1")
        .env("HTTPS_PROXY", "http://127.0.0.1:1")
        .env("ALL_PROXY", "http://127.0.0.1:1")
        .env("CI", "1")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

pub(crate) fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}", text(out));
    text(out)
}

/// The markdown report of `ltr run --data` on an input whose stem is `stem`, written into
/// the reports folder `reports` as `<stem>-<hash of the input's path>.md`.
pub(crate) fn data_report(reports: &Path, stem: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.strip_prefix(stem)
                .and_then(|r| r.strip_prefix('-'))
                .is_some_and(|r| r.len() == 11 && r.ends_with(".md"))
        })
        .collect();
    assert_eq!(found.len(), 1, "{stem} in {}: {found:?}", reports.display());
    found[0].clone()
}

#[test]
fn a_letor2_folder_runs_by_spec_and_by_data_with_25_features_and_no_published_numbers() {
    let dir = tempfile::tempdir().unwrap();
    letor2_folder(dir.path());
    // Named like a LETOR dataset on purpose: its published numbers must not appear.
    std::fs::write(
        dir.path().join("spec.toml"),
        "name = \"ohsumed-l2\"\nseed = 7\n\n[[datasets]]\nname = \"OHSUMED\"\npath = \"OHSUMED-L2\"\n\
         convention = \"letor3\"\n\n[[algorithms]]\nid = \"regression\"\ngrid = { lambda = [0.1, 1.0] }\n",
    )
    .unwrap();
    let run = ok(&ltr(dir.path(), &["run", "spec.toml", "--results", "res"]));
    assert!(run.contains("OHSUMED: Fold1..5 of trainingset/validationset/testset files (5 folds), 25 features, grades 0, 1, 2"), "{run}");
    ok(&ltr(dir.path(), &["report", "spec.toml", "--results", "res", "--out", "rep"]));
    let md = std::fs::read_to_string(dir.path().join("rep/ohsumed-l2.md")).unwrap();
    assert!(md.starts_with("# ohsumed-l2"), "titled by the spec");
    assert!(!md.to_lowercase().contains("published"), "{md}");
    let json = std::fs::read_to_string(dir.path().join("rep/ohsumed-l2.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["published"], serde_json::json!([]), "no published rows");
    // Every fold file's hash is in the report.
    let f = std::fs::read(dir.path().join("OHSUMED-L2/Fold3/validationset.txt")).unwrap();
    let h: String = Sha256::digest(&f).iter().map(|b| format!("{b:02x}")).collect();
    assert!(md.contains(&h) || json.contains(&h), "the report shows the data's sha256s");

    let data = ok(&ltr(
        dir.path(),
        &["run", "--data", "OHSUMED-L2", "--algorithms", "regression", "--results", "res2"],
    ));
    assert!(data.contains("25 features"), "{data}");
    let md = std::fs::read_to_string(data_report(&dir.path().join("reports"), "OHSUMED-L2")).unwrap();
    assert!(!md.to_lowercase().contains("published"), "{md}");
    assert!(md.contains("| regression |"), "{md}");
}

/// `--data` names a dataset past generic folders (`Data`, `Fold1`), never as a built-in
/// dataset (a folder `OHSUMED` that is not the LETOR 3.0 release gets `-local`; `--name
/// OHSUMED` is refused), takes `--name`, `--convention` and `--published` as a spec's dataset
/// does, and says in one line which convention scores it and why.
#[test]
fn data_is_named_past_generic_folders_and_takes_a_specs_dataset_options() {
    let dir = tempfile::tempdir().unwrap();
    let root = letor2_folder(dir.path());
    std::fs::create_dir_all(dir.path().join("OHSUMED")).unwrap();
    std::fs::rename(&root, dir.path().join("OHSUMED/Data")).unwrap();
    let data = |extra: &[&str], results: &str| {
        // Each run its own store and reports folder.
        let mut args = vec!["run", "--algorithms", "regression", "--results", results, "--out", results];
        args.extend_from_slice(extra);
        ltr(dir.path(), &args)
    };

    let out = ok(&data(&["--data", "OHSUMED/Data"], "r1"));
    assert!(out.contains("named `OHSUMED-local`: `OHSUMED` is the built-in LETOR 3.0 dataset"), "{out}");
    let line = out.lines().find(|l| l.contains("scored under")).unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        line,
        "OHSUMED-local: scored under the letor3 convention (the default, its grades being 0-2; --convention to choose)"
    );
    data_report(&dir.path().join("r1"), "OHSUMED-local");
    // A fold folder given directly is named the same way.
    let out = ok(&data(&["--data", "OHSUMED/Data/Fold3"], "r2"));
    assert!(out.contains("OHSUMED-local: one fold of trainingset/validationset/testset files"), "{out}");

    let out = data(&["--data", "OHSUMED/Data", "--name", "ohsumed"], "r3");
    assert!(!out.status.success());
    let errs: Vec<String> = text(&out).lines().filter(|l| l.starts_with("error")).map(String::from).collect();
    assert_eq!(errs.len(), 1, "{}", text(&out));
    assert!(errs[0].contains("--name ohsumed: `OHSUMED` is the built-in LETOR 3.0 dataset"), "{}", errs[0]);

    // The published sheet of the release, matched by dataset name; the convention as given.
    std::fs::write(
        dir.path().join("sheet.toml"),
        "[sources.l2]\ncitation = \"LETOR 2.0 baselines\"\n\n[[results]]\ncollection = \"letor2\"\n\
         dataset = \"OHSUMED-L2\"\nalgorithm = \"Regression\"\nids = [\"regression\"]\nsource = \"l2\"\n\
         metrics = { \"map\" = 0.4220, \"ndcg@10\" = 0.4110 }\n",
    )
    .unwrap();
    let args = [
        "--data",
        "OHSUMED/Data",
        "--name",
        "OHSUMED-L2",
        "--convention",
        "letor4",
        "--published",
        "sheet.toml",
    ];
    let out = ok(&data(&args, "r4"));
    assert!(out.contains("OHSUMED-L2: scored under the letor4 convention (as given)"), "{out}");
    let md = std::fs::read_to_string(data_report(&dir.path().join("r4"), "OHSUMED-L2")).unwrap();
    assert!(md.contains("### OHSUMED-L2: published reference numbers beside ours"), "{md}");
    assert!(md.contains("/ 0.4220 /"), "{md}");

    // Grades above 2: mslr, said to be a guess.
    let mut graded = String::new();
    for q in 0..40 {
        for d in 0..6 {
            graded += &format!("{} qid:{q} 1:{d} 2:{}\n", (q + d) % 5, q % 7);
        }
    }
    std::fs::write(dir.path().join("graded.txt"), graded).unwrap();
    let out = ok(&data(&["--data", "graded.txt"], "r5"));
    assert!(
        out.contains("graded: scored under the mslr convention (guessed from its grades 0-4: gains 0, 1, 3, 7, 15, relevant from 2; --convention to choose)"),
        "{out}"
    );
    // The options are --data's: a spec gives them in its file.
    let out = ltr(dir.path(), &["run", "letor3", "--name", "x"]);
    assert!(!out.status.success() && text(&out).contains("apply to --data"), "{}", text(&out));
}

#[test]
fn folds_that_disagree_on_the_feature_count_fail_with_one_line_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = letor2_folder(dir.path());
    let f = root.join("Fold2/trainingset.txt");
    let cut: String = std::fs::read_to_string(&f).unwrap().replace(" 25:", " #25:");
    std::fs::write(&f, cut).unwrap();
    let out =
        ltr(dir.path(), &["run", "--data", "OHSUMED-L2", "--algorithms", "regression", "--results", "res"]);
    assert!(!out.status.success());
    let all = text(&out);
    let line = all.lines().find(|l| l.contains("disagree")).unwrap_or_else(|| panic!("{all}"));
    assert!(line.contains("Fold2/trainingset.txt") && line.contains("Fold1/trainingset.txt"), "{line}");
}

/// A test split that shares query ids with its training split measures queries the model
/// was trained on: the run warns, naming the first few ids and counting the rest.
#[test]
fn a_test_split_sharing_query_ids_with_training_is_warned_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let split = |qids: &[u32]| -> String {
        let mut text = String::new();
        for &q in qids {
            for d in 0..6u32 {
                let grade = (q + d) % 3;
                let (a, b) = (f64::from((q * 7 + d * 3) % 11) / 10.0, f64::from(grade) * 0.3);
                text += &format!("{grade} qid:{q} 1:{a:.2} 2:{b:.2} 3:{:.2}\n", a * b);
            }
        }
        text
    };
    let root = dir.path().join("mine");
    std::fs::create_dir_all(&root).unwrap();
    let train: Vec<u32> = (1..=12).collect();
    let vali: Vec<u32> = (101..=108).collect();
    let test: Vec<u32> = [9, 2, 4, 1, 3, 5, 7].into_iter().chain(201..=205).collect();
    for (name, qids) in [("train", &train), ("vali", &vali), ("test", &test)] {
        std::fs::write(root.join(format!("{name}.txt")), split(qids)).unwrap();
    }
    let all =
        ok(&ltr(dir.path(), &["run", "--data", "mine", "--algorithms", "regression", "--results", "res"]));
    let line = all.lines().find(|l| l.contains("query ids")).unwrap_or_else(|| panic!("no warning: {all}"));
    assert!(line.contains("WARN") && line.contains("fold 1"), "{line}");
    assert!(line.contains("7 query ids") && line.contains("training split"), "{line}");
    assert!(line.contains("9, 2, 4, 1, 3 and 2 more"), "{line}");
}

#[test]
fn one_file_is_split_into_five_query_disjoint_folds_the_same_for_the_same_seed() {
    let dir = tempfile::tempdir().unwrap();
    let root = letor2_folder(dir.path());
    let mut all = Vec::new();
    for s in ["trainingset", "validationset", "testset"] {
        all.extend(std::fs::read(root.join(format!("Fold1/{s}.txt"))).unwrap());
    }
    std::fs::write(dir.path().join("all.txt"), &all).unwrap();
    let split_dir = |cache: &str| -> PathBuf {
        let base = dir.path().join(cache).join("local/all");
        std::fs::read_dir(&base).unwrap().next().unwrap().unwrap().path()
    };
    let run = |seed: &str, results: &str| {
        ok(&ltr(
            dir.path(),
            &["run", "--data", "all.txt", "--seed", seed, "--algorithms", "regression", "--results", results],
        ))
    };
    let first = run("3", "r1");
    assert!(first.contains("split into 5 query-disjoint subsets by seed 3"), "{first}");
    let a = split_dir("cache");
    let qids = |p: &Path| -> BTreeSet<String> {
        read_file(p, &ReadOptions::default()).unwrap().dataset.query_ids().iter().cloned().collect()
    };
    let pieces: Vec<BTreeSet<String>> = (1..=5).map(|i| qids(&a.join(format!("S{i}.txt")))).collect();
    assert_eq!(pieces.iter().map(BTreeSet::len).sum::<usize>(), 106);
    for i in 0..5 {
        for j in i + 1..5 {
            assert!(pieces[i].is_disjoint(&pieces[j]), "S{} and S{}", i + 1, j + 1);
        }
        let k = i + 1;
        assert!(
            qids(&a.join(format!("Fold{k}/test.txt")))
                .is_disjoint(&qids(&a.join(format!("Fold{k}/train.txt"))))
        );
    }
    let report = std::fs::read_to_string(data_report(&dir.path().join("reports"), "all")).unwrap();
    assert!(report.contains("split by seed 3"), "the seed is recorded in the report");

    // The same seed again, from scratch: the same folds, byte for byte.
    std::fs::rename(dir.path().join("cache"), dir.path().join("cache-first")).unwrap();
    run("3", "r2");
    let b = split_dir("cache");
    for f in ["S1.txt", "Fold1/train.txt", "Fold5/test.txt", "split.json"] {
        assert_eq!(
            std::fs::read(a.to_string_lossy().replace("/cache/", "/cache-first/") + "/" + f).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    run("4", "r3");
    let other = std::fs::read_dir(dir.path().join("cache/local/all")).unwrap().count();
    assert_eq!(other, 2, "another seed, another split");
}

#[test]
fn fetch_mslr_offline_fails_fast_with_one_line_per_archive() {
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let out = ltr(dir.path(), &["fetch", "mslr"]);
    assert!(!out.status.success());
    assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
    let all = text(&out);
    let lines: Vec<&str> = all.lines().filter(|l| l.contains(": unavailable:")).collect();
    assert_eq!(lines.len(), 2, "{all}");
    assert!(
        lines[0].starts_with("MSLR-WEB10K: unavailable:") && lines[0].contains("MSLR-WEB10K.zip"),
        "{all}"
    );
    assert!(
        lines[1].starts_with("MSLR-WEB30K: unavailable:") && lines[1].contains("MSLR-WEB30K.zip"),
        "{all}"
    );
}

#[test]
fn a_placed_istella_archive_with_the_wrong_hash_is_refused_with_both_hashes_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let placed = dir.path().join("cache/.downloads/istella-s-letor.tar.gz");
    std::fs::create_dir_all(placed.parent().unwrap()).unwrap();
    std::fs::write(&placed, b"not the Istella-S archive").unwrap();
    let actual: String =
        Sha256::digest(b"not the Istella-S archive").iter().map(|b| format!("{b:02x}")).collect();
    let out = ltr(dir.path(), &["fetch", "istella", "--datasets", "Istella-S"]);
    assert!(!out.status.success());
    let all = text(&out);
    let line =
        all.lines().find(|l| l.starts_with("Istella-S: unavailable:")).unwrap_or_else(|| panic!("{all}"));
    assert!(line.contains(&actual), "{line}");
    assert!(line.contains("41b21116a3650cc043dbe16f02ee39f4467f9405b37fdbcc9a6a05e230a38981"), "{line}");
    assert!(line.contains("third party"), "the expected hash is marked third-party: {line}");
    assert!(placed.is_file(), "a placed archive is not deleted");
}

#[test]
fn a_missing_yahoo_archive_gets_the_placement_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = ltr(dir.path(), &["fetch", "yahoo"]);
    assert!(!out.status.success());
    let all = text(&out);
    let line =
        all.lines().find(|l| l.starts_with("Yahoo-Set1: unavailable:")).unwrap_or_else(|| panic!("{all}"));
    let place = dir.path().join("cache/.downloads/ltrc_yahoo.tar.bz2");
    assert!(line.contains("license-gated") && line.contains("webscope"), "{line}");
    assert!(line.contains(&place.display().to_string()), "{line}");
    // MQ2007's official address is behind an agreement too.
    let out = ltr(dir.path(), &["fetch", "letor4", "--datasets", "MQ2007"]);
    let all = text(&out);
    let line = all.lines().find(|l| l.starts_with("MQ2007: unavailable:")).unwrap_or_else(|| panic!("{all}"));
    assert!(line.contains("license-gated") && line.contains("MQ2007.rar"), "{line}");
}

#[test]
fn a_lab_describes_its_own_collection_with_a_manifest_file_for_fetch_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = letor2_folder(dir.path());
    // The lab's "server": a folder mirror laid out like its manifest's paths.
    for k in 1..=2 {
        for (from, to) in [("trainingset", "train"), ("validationset", "vali"), ("testset", "test")] {
            let src = root.join(format!("Fold{k}/{from}.txt"));
            let dst = dir.path().join(format!("mirror/lab/OH25/Fold{k}/{to}.txt"));
            std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
            std::fs::copy(src, dst).unwrap();
        }
    }
    std::fs::write(
        dir.path().join("lab.toml"),
        "collection = \"lab\"\ntitle = \"The lab's collection\"\nhomepage = \"-\"\ncitation = \"-\"\n\
         convention = \"letor3\"\n\n[[archives]]\nname = \"lab.zip\"\nurls = []\nformat = \"zip\"\n\n\
         [[datasets]]\nname = \"OH25\"\nfeatures = 25\nlabels = [0, 1, 2]\ndefault_variant = \"d\"\n\n\
         [[datasets.variants]]\nname = \"d\"\narchive = \"lab.zip\"\narchive_root = \"\"\npath = \"lab/OH25\"\n\
         folds = 2\ntrain = \"train.txt\"\nvali = \"vali.txt\"\ntest = \"test.txt\"\n",
    )
    .unwrap();
    let fetched = ok(&ltr(dir.path(), &["fetch", "--manifest", "lab.toml", "--mirror", "mirror"]));
    assert!(fetched.contains("OH25: 6 installed"), "{fetched}");
    std::fs::write(
        dir.path().join("spec.toml"),
        "name = \"lab\"\ncollection = \"lab\"\ndatasets = [\"OH25\"]\nfolds = [1, 2]\nseed = 3\n\n\
         [[algorithms]]\nid = \"regression\"\n",
    )
    .unwrap();
    let run = ok(&ltr(
        dir.path(),
        &["run", "spec.toml", "--manifest", "lab.toml", "--no-fetch", "--results", "res"],
    ));
    assert!(run.contains("lab: 2 cells"), "{run}");
    ok(&ltr(
        dir.path(),
        &["report", "spec.toml", "--manifest", "lab.toml", "--results", "res", "--out", "rep"],
    ));
    let md = std::fs::read_to_string(dir.path().join("rep/lab.md")).unwrap();
    assert!(md.starts_with("# The lab's collection"), "{md}");
    // Without the manifest, the built-in manifests do not know the collection.
    let out = ltr(dir.path(), &["run", "spec.toml", "--no-fetch", "--results", "res"]);
    assert!(!out.status.success() && text(&out).contains("lab"), "{}", text(&out));
}

/// An algorithm whose measured scale limit a dataset's training split exceeds is refused when
/// the spec loads, before anything is fetched, with one line naming the limit; with
/// `scale_limits = false` the run goes on (here to the fetch, which fails offline).
#[test]
fn an_algorithm_over_its_scale_limit_is_refused_when_the_spec_loads() {
    let (limited_id, limited) = ltr_harness::limits::limited().next().expect("some algorithm is limited");
    let dir = tempfile::tempdir().unwrap();
    let spec = |extra: &str| {
        format!(
            "name = \"big\"\ncollection = \"mslr\"\ndatasets = [\"MSLR-WEB10K\"]\nseed = 1\n{extra}\n\
             [[algorithms]]\nid = \"regression\"\n\n[[algorithms]]\nid = \"{}\"\n",
            limited_id
        )
    };
    std::fs::write(dir.path().join("big.toml"), spec("")).unwrap();
    let out = ltr(dir.path(), &["run", "big.toml"]);
    assert!(!out.status.success());
    let all = text(&out);
    let errors: Vec<&str> = all.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{all}");
    let limit = ltr_harness::limits::thousands(limited.max_train_rows);
    assert!(
        errors[0].contains(&format!("{} on MSLR-WEB10K: about 720,114 training rows", limited_id))
            && errors[0].contains(&format!("{limited_id}'s limit of {limit}"))
            && errors[0].contains("scale_limits = false"),
        "{all}"
    );
    assert!(!all.contains("unavailable"), "refused before any fetch: {all}");

    std::fs::write(dir.path().join("big.toml"), spec("scale_limits = false")).unwrap();
    let out = ltr(dir.path(), &["run", "big.toml"]);
    let all = text(&out);
    assert!(!out.status.success() && !all.contains("'s limit of") && all.contains("unavailable"), "{all}");
}
