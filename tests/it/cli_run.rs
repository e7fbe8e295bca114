//! `ltr run` (by spec and by `--data`) as a user drives it: a seed given on the command line,
//! a grid point that cannot train, grids too large to expand, reports of different inputs
//! under one result store, files a spec names that are not there, algorithms a scale limit
//! leaves out, and spec arguments that are paths.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::harness::Env;

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}", text(out));
    text(out)
}

/// The `error:` lines of a failed command that was not killed and did not panic.
fn errors(out: &Output) -> Vec<String> {
    let all = text(out);
    assert!(out.status.code().is_some(), "killed by a signal: {all}");
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(!all.contains("panicked"), "{all}");
    all.lines().filter(|l| l.starts_with("error:")).map(str::to_owned).collect()
}

/// `queries` queries of `docs` documents over 3 features, grades 0..=2.
fn letor(path: &Path, queries: usize, docs: usize) {
    let mut text = String::new();
    for q in 0..queries {
        for d in 0..docs {
            let grade = (q + d) % 3;
            text += &format!("{grade} qid:{}", q + 1);
            for f in 0..3 {
                let v = ((q * 7 + d * 3 + f * 5) % 11) as f64 / 10.0 + grade as f64 * 0.05 * (f + 1) as f64;
                text += &format!(" {}:{v:.3}", f + 1);
            }
            text += &format!(" #docid = D{q}-{d}\n");
        }
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// The markdown table rows whose leading cells are `lead`, their cells trimmed (the first and
/// last, outside the bars, are empty).
fn rows(md: &str, lead: &[&str]) -> Vec<Vec<String>> {
    md.lines()
        .map(|l| l.split('|').map(|c| c.trim().to_owned()).collect::<Vec<_>>())
        .filter(|cells| {
            cells.len() > lead.len() + 1
                && cells[0].is_empty()
                && lead.iter().zip(&cells[1..]).all(|(a, b)| a == b)
        })
        .collect()
}

fn row(md: &str, lead: &[&str]) -> Option<Vec<String>> {
    rows(md, lead).into_iter().next()
}

/// The report files `<stem>*.md` under `dir`.
fn reports(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(stem) && name.ends_with(".md")
        })
        .collect();
    v.sort();
    v
}

/// A spec over one small dataset given by path.
fn small_spec(env: &Env, name: &str, extra: &str) -> PathBuf {
    letor(&env.path("small.txt"), 30, 6);
    env.spec(
        name,
        &format!(
            "name = \"{name}\"\nseed = 1\n{extra}\n[[datasets]]\nname = \"small\"\npath = \"small.txt\"\n\n\
             [[algorithms]]\nid = \"regression\"\n"
        ),
    )
}

/// `--seed` on a spec replaces the spec's seed: the run records it and its cells are other
/// cells (the seed is part of every key); `ltr report --seed` reports that run.
#[test]
fn seed_on_the_command_line_overrides_the_spec_seed() {
    let env = Env::bare();
    let spec = small_spec(&env, "seeded", "");
    let spec = spec.to_str().unwrap();
    let run_json = |results: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(env.path(results).join("seeded/run.json")).unwrap()).unwrap()
    };
    ok(&env.ltr(&["run", spec, "--results", "a"], None));
    ok(&env.ltr(&["run", spec, "--seed", "7", "--results", "b"], None));
    let (a, b) = (run_json("a"), run_json("b"));
    assert_eq!((a["seed"].as_u64(), b["seed"].as_u64()), (Some(1), Some(7)));
    assert_ne!(a["cells"], b["cells"], "the seed is part of every cell key");
    // Without it the report looks for the spec's seed's cells, and says which seed ran.
    let out = env.ltr(&["report", spec, "--results", "b", "--out", "rep"], None);
    assert!(errors(&out).len() == 1 && text(&out).contains("`--seed 7`"), "{}", text(&out));
    ok(&env.ltr(&["report", spec, "--seed", "7", "--results", "b", "--out", "rep"], None));
    let md = std::fs::read_to_string(env.path("rep/seeded.md")).unwrap();
    assert_eq!(row(&md, &["Master seed"]).map(|r| r[2].clone()).as_deref(), Some("7"), "{md}");
}

/// AdaRank-NDCG's `k = [3, 10]` on 6-document queries: NDCG@10 of a 6-document list is 0
/// whatever the order under letor3, so `k = 10` cannot train; the cell selects among the
/// points that trained and records the other, and the report says so.
#[test]
fn a_grid_point_that_cannot_train_leaves_the_others_to_selection() {
    let env = Env::bare();
    letor(&env.path("six.txt"), 40, 6);
    let out = env.ltr(&["run", "--data", "six.txt", "--algorithms", "adarank-ndcg,regression"], None);
    let all = ok(&out);
    assert!(all.contains("k = 10") && all.contains("no training query"), "{all}");
    let md = reports(&env.path("reports"), "six");
    assert_eq!(md.len(), 1, "{md:?}");
    let md = std::fs::read_to_string(&md[0]).unwrap();
    // The selected-hyperparameters row: every fold chose k=3 and names k=10 as failed.
    let chosen = rows(&md, &["six", "adarank-ndcg"])
        .into_iter()
        .find(|r| r[3].contains(" (map "))
        .unwrap_or_else(|| panic!("{md}"));
    for fold in &chosen[3..chosen.len() - 1] {
        assert!(fold.starts_with("k=3 (") && fold.contains("k=10 failed"), "{chosen:?}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("reports").join(reports_json(&env, "six"))).unwrap())
            .unwrap();
    let fold = json["folds"].as_array().unwrap().iter().find(|f| f["algorithm"] == "adarank-ndcg").unwrap();
    assert_eq!(fold["chosen_params"]["k"], 3);
    let failed = fold["failed_points"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{fold}");
    assert_eq!(failed[0]["params"]["k"], 10);
    assert!(failed[0]["error"].as_str().unwrap().contains("no training query"), "{fold}");
}

fn reports_json(env: &Env, stem: &str) -> String {
    let md = reports(&env.path("reports"), stem);
    md[0].with_extension("json").file_name().unwrap().to_string_lossy().into_owned()
}

/// On 2-document queries no `k` of AdaRank-NDCG can train: its cells fail, the others run,
/// and `--data` writes the report of what ran, naming what did not; `--allow-partial` is
/// accepted and makes such a run a success.
#[test]
fn a_data_run_with_a_failed_cell_writes_the_report_of_what_ran() {
    let env = Env::bare();
    letor(&env.path("two.txt"), 60, 2);
    let args = ["run", "--data", "two.txt", "--algorithms", "adarank-ndcg,regression"];
    let out = env.ltr(&args, None);
    let errs = errors(&out);
    let all = text(&out);
    assert!(all.contains("none of its 2 grid points") && all.contains("k = 3"), "{all}");
    assert!(errs.len() <= 1, "{all}");
    let md = reports(&env.path("reports"), "two");
    assert_eq!(md.len(), 1, "no report: {all}");
    let md = std::fs::read_to_string(&md[0]).unwrap();
    assert!(md.contains("Partial report") && md.contains("adarank-ndcg"), "{md}");
    assert!(row(&md, &["two", "regression"]).is_some(), "{md}");

    let mut with = args.to_vec();
    with.push("--allow-partial");
    let out = env.ltr(&with, None);
    assert!(out.status.success(), "{}", text(&out));
}

/// A 10^12-point grid with `--max-cells` raised as far as it goes is refused at once with one
/// line, by `run` and by `plan`, never expanded until memory runs out.
#[test]
fn a_huge_grid_is_refused_at_any_max_cells_without_allocating() {
    let env = Env::bare();
    let keys = [
        "trees",
        "leaves",
        "learning_rate",
        "min_data_in_leaf",
        "min_sum_hessian_in_leaf",
        "lambda_l2",
        "max_bins",
        "row_subsample",
        "feature_subsample",
        "sigma",
        "ndcg_truncation",
        "early_stopping_rounds",
    ];
    let grid: Vec<String> = keys
        .iter()
        .map(|k| {
            let values: Vec<String> = (1..=10)
                .map(|i| match *k {
                    "learning_rate" | "lambda_l2" | "row_subsample" | "feature_subsample" | "sigma" => {
                        format!("{:.1}", f64::from(i) / 10.0)
                    }
                    "min_sum_hessian_in_leaf" => format!("{:.3}", f64::from(i) / 1000.0),
                    "leaves" | "max_bins" => (i + 1).to_string(),
                    _ => i.to_string(),
                })
                .collect();
            format!("{k} = [{}]", values.join(", "))
        })
        .collect();
    let spec = env.spec(
        "huge",
        &format!(
            "name = \"huge\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nfolds = [1]\nseed = 1\n\n\
             [[algorithms]]\nid = \"lambdamart\"\ngrid = {{ {} }}\n",
            grid.join(", ")
        ),
    );
    let spec = spec.to_str().unwrap();
    let max = u64::MAX.to_string();
    for args in [
        vec!["run", spec, "--no-fetch", "--max-cells", &max],
        vec!["plan", spec, "--no-fetch", "--out", "plan", "--max-cells", &max],
    ] {
        let mut cmd = env.command(&args, None);
        let out = crate::common::output_within(&mut cmd, 60);
        let errs = errors(&out);
        assert_eq!(errs.len(), 1, "{}", text(&out));
        assert!(errs[0].contains("1000000000000") && errs[0].contains("lambdamart"), "{}", errs[0]);
    }
}

/// A plan lists each cell's whole grid: 100,000 grid points (as many as a spec expands to)
/// over six folds is refused at any `--max-cells`, before the plan is built, with one line.
#[test]
fn a_plan_of_more_grid_points_than_it_holds_is_refused_at_any_max_cells() {
    let env = Env::bare();
    for k in 1..=6 {
        for split in ["train", "vali", "test"] {
            letor(&env.path(&format!("six-folds/Fold{k}/{split}.txt")), 4, 3);
        }
    }
    let lambdas: Vec<String> = (1..=50_000).map(|i| format!("{}.0", i)).collect();
    let spec = env.spec(
        "wide",
        &format!(
            "name = \"wide\"\nseed = 1\nfolds = [1, 2, 3, 4, 5, 6]\n\n[[datasets]]\nname = \"six\"\n\
             path = \"six-folds\"\n\n[[algorithms]]\nid = \"regression\"\n\
             grid = {{ lambda = [{}], standardize = [true, false] }}\n",
            lambdas.join(", ")
        ),
    );
    let max = u64::MAX.to_string();
    let mut cmd = env.command(&["plan", spec.to_str().unwrap(), "--out", "plan", "--max-cells", &max], None);
    let out = crate::common::output_within(&mut cmd, 120);
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{}", text(&out));
    assert!(errs[0].contains("600000 grid points") && errs[0].contains("500000"), "{}", errs[0]);
    assert!(!env.path("plan/cells.jsonl").exists());
}

/// Two `--data` inputs with one stem (`exp1/mine.txt`, `exp2/mine.txt`), and two whose stems
/// differ only in a character a name cannot hold (`a b.txt`, `a_b.txt`), get a report and a
/// result store each (under one `--results`, and in the one reports folder).
#[test]
fn data_reports_of_inputs_with_one_stem_do_not_overwrite_each_other() {
    let env = Env::bare();
    letor(&env.path("exp1/mine.txt"), 30, 6);
    letor(&env.path("exp2/mine.txt"), 35, 6);
    letor(&env.path("a b.txt"), 30, 5);
    letor(&env.path("a_b.txt"), 25, 5);
    for input in ["exp1/mine.txt", "exp2/mine.txt", "a b.txt", "a_b.txt"] {
        ok(&env.ltr(&["run", "--data", input, "--algorithms", "regression"], None));
    }
    for (stem, queries) in [("mine", [30, 35]), ("a_b", [30, 25])] {
        let md = reports(&env.path("reports"), stem);
        assert_eq!(md.len(), 2, "{md:?}");
        // Each report is its own input's: the query counts differ.
        let mut counts: Vec<usize> = md
            .iter()
            .map(|p| {
                let json: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(p.with_extension("json")).unwrap()).unwrap();
                let per_query = |f: &serde_json::Value| f["cell"].as_str().unwrap().to_owned();
                let cells: Vec<String> = json["folds"].as_array().unwrap().iter().map(per_query).collect();
                let store = env.path("results").join(p.file_stem().unwrap());
                assert!(store.join("run.json").is_file(), "the store is named like the report: {store:?}");
                cells
                    .iter()
                    .map(|k| {
                        let record: serde_json::Value = serde_json::from_slice(
                            &std::fs::read(store.join("cells").join(format!("{k}.json"))).unwrap(),
                        )
                        .unwrap();
                        record["per_query"].as_array().unwrap().len()
                    })
                    .sum()
            })
            .collect();
        counts.sort_unstable();
        let mut want = queries.to_vec();
        want.sort_unstable();
        assert_eq!(counts, want, "{stem}");
    }
}

/// A spec's `published` file is checked when the spec loads: missing, not a regular file or
/// not parsing, `run` fails before anything runs, naming the key and the file.
#[test]
fn a_bad_published_file_is_refused_when_the_spec_loads() {
    let env = Env::bare();
    std::fs::create_dir_all(env.path("adir")).unwrap();
    std::fs::write(env.path("bad.toml"), "results = 3\n").unwrap();
    for (file, why) in
        [("nope.toml", "nope.toml"), ("adir", "adir"), ("/dev/null", "/dev/null"), ("bad.toml", "bad.toml")]
    {
        let spec = small_spec(&env, "pub", &format!("published = {file:?}\n"));
        let out = env.ltr(&["run", spec.to_str().unwrap(), "--results", "r"], None);
        let errs = errors(&out);
        assert_eq!(errs.len(), 1, "{}", text(&out));
        assert!(errs[0].contains("`published`") && errs[0].contains(why), "{}", errs[0]);
        assert!(!env.path("r/pub/run.json").exists(), "nothing ran");
    }
}

/// On `--data` of 180,000 training rows per fold, the algorithms a scale limit refuses are
/// left out of the default set with one line naming them, and the rest go on (here to the
/// result store, which cannot be opened: nothing is computed); one named with `--algorithms`
/// is refused with the reason and advice `--data` can follow.
#[test]
fn data_leaves_limited_algorithms_out_of_the_default_set_and_refuses_them_by_name() {
    let env = Env::bare();
    // 5 subsets of which 3 train: 60,000 queries of 5 documents give 180,000 training rows.
    let mut text = String::with_capacity(60_000 * 5 * 24);
    for q in 0..60_000 {
        for d in 0..5 {
            text += &format!("{} qid:{q} 1:{d} 2:{}\n", d % 2, q % 7);
        }
    }
    std::fs::write(env.path("big.txt"), text).unwrap();
    std::fs::write(env.path("not-a-folder"), "").unwrap();
    let out = env.ltr(&["run", "--data", "big.txt", "--results", "not-a-folder/r"], None);
    let errs = errors(&out);
    let all = self::text(&out);
    assert_eq!(errs.len(), 1, "{all}");
    assert!(errs[0].contains("result store"), "the run went on to open its store: {all}");
    let left: Vec<&str> = all.lines().filter(|l| l.contains("left out")).collect();
    assert_eq!(left.len(), 1, "{all}");
    for (id, _) in ltr_harness::limits::limited() {
        assert!(left[0].contains(id), "{id}: {all}");
    }

    let (limited, _) = ltr_harness::limits::limited().next().unwrap();
    let out = env.ltr(&["run", "--data", "big.txt", "--algorithms", limited], None);
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{}", self::text(&out));
    assert!(errs[0].contains(limited) && errs[0].contains("limit of"), "{}", errs[0]);
    assert!(!errs[0].contains("set `scale_limits = false`"), "advice --data cannot follow: {}", errs[0]);
}

/// A spec argument that is a path (has a slash, ends in `.toml`, or exists) is read as a file,
/// and one that is not there or not a file is said to be so.
#[test]
fn a_spec_argument_that_is_a_path_is_a_path() {
    let env = Env::bare();
    std::fs::create_dir_all(env.path("specs")).unwrap();
    for (arg, want) in [
        ("/dev/zero", "/dev/zero: not a spec file"),
        ("nosuch.toml", "nosuch.toml: no such file"),
        ("specs/nosuch", "specs/nosuch: no such file"),
        ("specs", "specs: not a spec file"),
        ("nosuch", "nosuch: no such built-in spec"),
    ] {
        let out = env.ltr(&["run", arg, "--no-fetch"], None);
        let errs = errors(&out);
        assert_eq!(errs.len(), 1, "{}", text(&out));
        assert!(errs[0].starts_with(&format!("error: {want}")), "{arg}: {}", errs[0]);
        assert!(arg == "nosuch" || !errs[0].contains("experiments/"), "{arg}: {}", errs[0]);
    }
}

/// A spec's `eval` table sets parts of the convention: its cells are other cells (the
/// evaluation config is part of every key), every table names the departure, and a part that
/// does not exist is refused when the spec loads, naming the key.
#[test]
fn a_specs_eval_parts_are_keyed_and_named_in_every_table() {
    let env = Env::bare();
    let plain = small_spec(&env, "plain", "");
    let parts = small_spec(&env, "parts", "eval = { gain = \"linear\", ties = \"expected\" }\n");
    for (spec, out) in [(&plain, "rep-plain"), (&parts, "rep-parts")] {
        let spec = spec.to_str().unwrap();
        ok(&env.ltr(&["run", spec, "--results", "r"], None));
        ok(&env.ltr(&["report", spec, "--results", "r", "--out", out], None));
    }
    let md = std::fs::read_to_string(env.path("rep-parts/parts.md")).unwrap();
    assert!(md.contains("## small (letor3 convention with gain=linear, ties=expected)"), "{md}");
    assert!(
        md.contains("Departing from it (not the official script's numbers): gain=linear, ties=expected."),
        "{md}"
    );
    let csv = std::fs::read_to_string(env.path("rep-parts/parts.csv")).unwrap();
    assert!(csv.contains("letor3 (gain=linear, ties=expected)"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("rep-parts/parts.json")).unwrap()).unwrap();
    assert_eq!(json["convention_parts"]["small"], serde_json::json!({"gain": "linear", "ties": "expected"}));
    // The preset's report is as before: no parts anywhere.
    let md = std::fs::read_to_string(env.path("rep-plain/plain.md")).unwrap();
    assert!(md.contains("## small (letor3 convention)") && !md.contains("Departing"), "{md}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.path("rep-plain/plain.json")).unwrap()).unwrap();
    assert!(json.get("convention_parts").is_none());
    // The same model scored two ways: the linear gain changes NDCG (grades reach 2 here).
    let plain_md = std::fs::read_to_string(env.path("rep-plain/plain.md")).unwrap();
    let parts_md = std::fs::read_to_string(env.path("rep-parts/parts.md")).unwrap();
    let (a, b) = (row(&plain_md, &["regression"]), row(&parts_md, &["regression"]));
    assert!(a.is_some() && a != b, "{a:?} {b:?}");

    let bad = small_spec(&env, "bad", "eval = { gains = \"linear\" }\n");
    let out = env.ltr(&["run", bad.to_str().unwrap(), "--results", "r"], None);
    assert!(!out.status.success() && text(&out).contains("gains"), "{}", text(&out));
    let bad = small_spec(&env, "bad0", "eval = { relevant_from = 0 }\n");
    let out = env.ltr(&["run", bad.to_str().unwrap(), "--results", "r"], None);
    assert!(!out.status.success() && text(&out).contains("relevant_from"), "{}", text(&out));
}

/// The run digest: the same at 1 and 2 threads, recomputed by `ltr verify --report` from the
/// store, compared by an exact `ltr check`, and changed by one damaged score.
#[test]
fn the_run_digest_is_the_same_at_any_thread_count_and_verify_recomputes_it() {
    let env = Env::bare();
    let spec = small_spec(&env, "digest", "");
    let spec = spec.to_str().unwrap();
    for (threads, results, out) in [(1, "r1", "rep1"), (2, "r2", "rep2")] {
        ok(&env.ltr(&["run", spec, "--results", results], Some(threads)));
        ok(&env.ltr(&["report", spec, "--results", results, "--out", out], None));
    }
    let json = |out: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(env.path(out).join("digest.json")).unwrap()).unwrap()
    };
    let (one, two) = (json("rep1"), json("rep2"));
    assert_eq!(one["digest"], two["digest"]);
    assert_eq!(one["digest"]["cells"], 5);
    let all = one["digest"]["all"].as_str().unwrap().to_owned();
    let md = std::fs::read_to_string(env.path("rep1/digest.md")).unwrap();
    assert!(md.contains(&format!("`{all}`")), "{md}");
    let rep1 = env.path("rep1/digest.json");
    let rep1 = rep1.to_str().unwrap();
    let rep2 = env.path("rep2/digest.json");
    let check = ["check", "--baseline", rep1, "--results", rep2.to_str().unwrap()];
    let passed = ok(&env.ltr(&[&check[..], &["--tolerance", "0"]].concat(), None));
    assert!(passed.contains("by run digest"), "{passed}");
    let verified = ok(&env.ltr(&["verify", "r2", "--report", rep1], None));
    assert!(verified.contains("as the report states"), "{verified}");

    // A report whose digest was not this store's is refused, naming the dataset.
    let mut forged = one.clone();
    forged["digest"]["datasets"]["small"] = "0".repeat(64).into();
    forged["digest"]["all"] = "0".repeat(64).into();
    std::fs::write(env.path("forged.json"), serde_json::to_vec(&forged).unwrap()).unwrap();
    let out = env.ltr(&["verify", "r2", "--report", env.path("forged.json").to_str().unwrap()], None);
    assert!(!out.status.success() && text(&out).contains("DIFFERS small"), "{}", text(&out));
    let out = env.ltr(
        &[&check[..2], &[env.path("forged.json").to_str().unwrap()], &check[3..], &["--tolerance", "0"]]
            .concat(),
        None,
    );
    assert!(!out.status.success() && text(&out).contains("test scores differ: small"), "{}", text(&out));
}
