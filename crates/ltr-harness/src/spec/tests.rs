#![allow(clippy::unwrap_used)]
use super::*;

const BASE: &str = r#"
name = "t"
collection = "letor3"
datasets = ["OHSUMED"]
seed = 1

[[algorithms]]
id = "regression"
grid = { lambda = [0.1, 1.0], standardize = [true, false] }
"#;

fn err(text: &str) -> String {
    ExperimentSpec::parse(text, Path::new("x/spec.toml")).unwrap_err().to_string()
}

/// `seeds` is a count from 1 to [`MAX_SEEDS`], 1 when absent; anything else is refused in
/// one line naming the key and the range. The refits count against `--max-cells`.
#[test]
fn seeds_default_to_one_and_are_bounded() {
    assert_eq!(ExperimentSpec::parse(BASE, Path::new("t.toml")).unwrap().seeds, 1);
    let five = BASE.replace("seed = 1", "seed = 1\nseeds = 5");
    assert_eq!(ExperimentSpec::parse(&five, Path::new("t.toml")).unwrap().seeds, 5);
    for bad in ["0", "-2", "101", "4294967297"] {
        let e = err(&BASE.replace("seed = 1", &format!("seed = 1\nseeds = {bad}")));
        assert!(
            e.starts_with("x/spec.toml:")
                && e.contains("`seeds` must be between 1 and 100")
                && e.ends_with(bad)
                && !e.contains('\n'),
            "{e}"
        );
    }
    // 4 points x 5 folds = 20 fits, and 4 refits x 5 folds = 20 more.
    let limits = |max_cells| SpecLimits { max_cells };
    ExperimentSpec::parse_with(&five, Path::new("t.toml"), &limits(40)).unwrap();
    let e = ExperimentSpec::parse_with(&five, Path::new("t.toml"), &limits(39)).unwrap_err().to_string();
    assert!(e.contains("40 model fits") && e.contains("4 refits with further `seeds`"), "{e}");
}

#[test]
fn data_names_skip_generic_folders_and_leave_built_in_names_alone() {
    for (path, name) in [
        ("x/OHSUMED-L2/Data/Fold2", "OHSUMED-L2"),
        ("sets/Gov25/DATA", "Gov25"),
        ("a/mine/data.txt.gz", "mine"),
        ("a/mine/all.txt", "all"),
        ("x/OHSUMED/Data", "OHSUMED-local"),
        ("y/mq2008", "mq2008-local"),
        ("Fold1", "data"),
    ] {
        assert_eq!(data_name(Path::new(path)), name, "{path}");
    }
    assert!(is_generic_name("fold01") && is_generic_name("Data") && !is_generic_name("database"));
    let defaults = ExperimentSpec::parse(BASE, Path::new("b.toml")).unwrap();
    let named = |name: &str| DataOptions { name: Some(name.into()), ..DataOptions::default() };
    let s = ExperimentSpec::for_data(Path::new("x/Data"), 1, &defaults, &named("My set")).unwrap();
    assert_eq!((s.datasets[0].as_str(), &s.name[..7]), ("My set", "My_set-"));
    assert!(s.paths[0].guess_convention && s.paths[0].convention.is_none());
    let e = ExperimentSpec::for_data(Path::new("x/Data"), 1, &defaults, &named("td2003")).unwrap_err();
    assert!(e.to_string().contains("`TD2003` is the built-in LETOR 3.0 dataset"), "{e}");
    assert!(ExperimentSpec::for_data(Path::new("x"), 1, &defaults, &named(" ")).is_err());
}

#[test]
fn shipped_specs_parse_with_every_algorithm() {
    for (name, _) in BUILTIN {
        let s = ExperimentSpec::builtin(name).unwrap();
        assert_eq!(s.name, name);
        // The large collections run the algorithms that fit their day on 2 cores.
        if !["letor3", "letor4"].contains(&name) {
            continue;
        }
        let ids: Vec<&str> = s.algorithms.iter().map(|a| a.id.as_str()).collect();
        for a in crate::ALGORITHMS {
            assert!(ids.contains(&a.id), "{name} lacks {}", a.id);
        }
    }
}

#[test]
fn baseline_and_significance_keys_are_checked_at_load() {
    let s = ExperimentSpec::parse(BASE, Path::new("t.toml")).unwrap();
    assert_eq!((s.baseline, s.significance), (None, SignificanceTest::T));
    let text = BASE.replace("seed = 1", "seed = 1\nbaseline = \"regression\"\nsignificance = \"tukey\"");
    let s = ExperimentSpec::parse(&text, Path::new("t.toml")).unwrap();
    assert_eq!((s.baseline.as_deref(), s.significance), (Some("regression"), SignificanceTest::Tukey));
    let text = BASE.replace("seed = 1", "seed = 1\nsignificance = \"randomization\"");
    assert_eq!(
        ExperimentSpec::parse(&text, Path::new("t.toml")).unwrap().significance,
        SignificanceTest::Randomization
    );
    let e = err(&BASE.replace("seed = 1", "seed = 1\nbaseline = \"ranksvm\""));
    assert!(e.starts_with("x/spec.toml:") && e.contains("baseline `ranksvm`"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = err(&BASE.replace("seed = 1", "seed = 1\nsignificance = \"wilcoxon\""));
    assert!(e.starts_with("x/spec.toml:") && e.contains("wilcoxon"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

#[test]
fn grids_expand_in_a_fixed_order_with_defaults_filled_in() {
    let s = ExperimentSpec::parse(BASE, Path::new("t.toml")).unwrap();
    let a = &s.algorithms[0];
    assert_eq!(a.grid.len(), 4);
    assert_eq!(a.validation_metric, Metric::Map);
    let first = a.grid[0].params_json();
    assert_eq!(first["lambda"], 0.1);
    assert_eq!(first["standardize"], true);
    assert_eq!(a.grid[1].params_json()["standardize"], false);
    assert_eq!(s.folds, vec![1, 2, 3, 4, 5]);
}

#[test]
fn errors_name_the_file_the_algorithm_and_the_key() {
    let e = err(&BASE.replace("\"regression\"", "\"no-such-ranker\""));
    assert!(e.starts_with("x/spec.toml:") && e.contains("unknown algorithm `no-such-ranker`"), "{e}");
    let e = err(&BASE.replace("lambda = [0.1, 1.0]", "lambda = [\"x\"]"));
    assert!(e.contains("x/spec.toml") && e.contains("regression") && e.contains("`lambda`"), "{e}");
    let e = err(&BASE.replace("lambda = [0.1, 1.0]", "lamda = [0.1]"));
    assert!(e.contains("`lamda`"), "{e}");
    let e = err(&BASE.replace("lambda = [0.1, 1.0]", "lambda = [-1.0]"));
    assert!(e.contains("`lambda`") && e.contains("-1"), "{e}");
    let e = err(&BASE.replace("lambda = [0.1, 1.0]", "lambda = []"));
    assert!(e.contains("`lambda` has no values"), "{e}");
    let e = err(&BASE.replace("seed = 1", "seed = 1\nvalidation_metric = \"auc\""));
    assert!(e.contains("validation_metric") && e.contains("auc"), "{e}");
    let e = err(&BASE.replace("seed = 1", "sede = 1"));
    assert!(e.contains("x/spec.toml") && e.contains("sede"), "{e}");
    let e = err(&format!("{BASE}\n[[algorithms]]\nid = \"regression\"\n"));
    assert!(e.contains("used twice"), "{e}");
}

#[test]
fn every_metric_selects_and_erring_parts_are_refused_at_load() {
    for (name, m) in [
        ("err@10", Metric::Err(10)),
        ("dcg@5", Metric::Dcg(5)),
        ("recall@10", Metric::Recall(10)),
        ("rr", Metric::Mrr),
    ] {
        let text = BASE.replace("seed = 1", &format!("seed = 1\nvalidation_metric = \"{name}\""));
        let s = ExperimentSpec::parse(&text, Path::new("t.toml")).unwrap();
        assert_eq!(s.algorithms[0].validation_metric, m, "{name}");
    }
    let text = BASE.replace("seed = 1", "seed = 1\neval = { max_grade = 4 }");
    let s = ExperimentSpec::parse(&text, Path::new("t.toml")).unwrap();
    assert_eq!(s.eval.max_grade, Some(4));
    let e = err(&BASE.replace("seed = 1", "seed = 1\neval = { max_grade = 0 }"));
    assert!(e.contains("eval") && e.contains("max_grade must be at least 1"), "{e}");
    let e = err(&BASE.replace("seed = 1", "seed = 1\nvalidation_metric = \"recall@0\""));
    assert!(e.contains("recall@0"), "{e}");
}

/// A seed is a `u64`; a negative one (TOML integers are signed) must not wrap to a huge
/// seed that runs quietly, but be refused with one line naming the key.
#[test]
fn negative_seeds_are_refused_naming_the_key() {
    let e = err(&BASE.replace("seed = 1", "seed = -1"));
    assert!(e.starts_with("x/spec.toml:") && e.contains("`seed`") && e.contains("-1"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let with_split = |seed: &str| {
        format!(
            "name = \"t\"\nseed = 1\n\n[[datasets]]\nname = \"mine\"\npath = \"one.txt\"\n\
             split_seed = {seed}\n\n[[algorithms]]\nid = \"regression\"\n"
        )
    };
    for bad in ["-1", "-9223372036854775808"] {
        let e = err(&with_split(bad));
        assert!(e.starts_with("x/spec.toml:") && e.contains("`split_seed`") && e.contains(bad), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // The largest seed TOML can write is kept as it is.
    let max = i64::MAX.to_string();
    let s = ExperimentSpec::parse(&with_split(&max), Path::new("t.toml")).unwrap();
    assert_eq!(s.paths[0].split_seed, Some(i64::MAX as u64));
    let s = ExperimentSpec::parse(&BASE.replace("seed = 1", &format!("seed = {max}")), Path::new("t.toml"))
        .unwrap();
    assert_eq!(s.seed, i64::MAX as u64);
}

#[test]
fn spec_names_that_could_leave_the_results_folder_are_refused() {
    // The name becomes `<results>/<name>/` and `<out>/<name>.md`.
    for bad in ["../../../../tmp/x", "/tmp/x", "", ".", "..", ".hidden", "a/b", "a\\b", "x y", "é"] {
        let e = err(&BASE.replace("name = \"t\"", &format!("name = {bad:?}")));
        assert!(e.starts_with("x/spec.toml: name"), "{bad:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    for good in ["letor3", "my_run-1.2", "A.b"] {
        let s =
            ExperimentSpec::parse(&BASE.replace("name = \"t\"", &format!("name = {good:?}")), Path::new("t"));
        assert_eq!(s.unwrap().name, good);
    }
}

#[test]
fn duplicate_folds_datasets_or_labels_are_spec_errors() {
    // A duplicate names the same cell twice: two writers of one record.
    let e = err(&BASE.replace("seed = 1", "seed = 1\nfolds = [1, 2, 1]"));
    assert!(e.starts_with("x/spec.toml:") && e.contains("fold 1") && e.contains("twice"), "{e}");
    let e = err(&BASE.replace(r#"["OHSUMED"]"#, r#"["OHSUMED", "MQ2008", "ohsumed"]"#));
    assert!(e.starts_with("x/spec.toml:") && e.contains("ohsumed") && e.contains("twice"), "{e}");
    let e = err(&format!("{BASE}\n[[algorithms]]\nid = \"regression\"\n"));
    assert!(e.starts_with("x/spec.toml:") && e.contains("used twice"), "{e}");
}

#[test]
fn a_huge_grid_is_refused_before_it_is_expanded() {
    // 12 keys x 10 values: 10^12 points, which expanding would try to allocate.
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
    let grid: Vec<String> = keys.iter().map(|k| format!("{k} = [{}]", ["1"; 10].join(", "))).collect();
    let text = format!(
        "name = \"t\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nseed = 1\n\n\
         [[algorithms]]\nid = \"lambdamart\"\ngrid = {{ {} }}\n",
        grid.join(", ")
    );
    let e = err(&text);
    assert!(e.starts_with("x/spec.toml:") && e.contains("lambdamart"), "{e}");
    assert!(e.contains("1000000000000") && e.contains("--max-cells"), "{e}");
    // Within a raised limit the count is what decides, not the allocation.
    let spec = ExperimentSpec::parse_with(BASE, Path::new("t"), &SpecLimits { max_cells: 20 }).unwrap();
    assert_eq!(spec.algorithms[0].grid.len(), 4);
    // 4 points x 1 dataset x 5 folds = 20 fits: the limit counts every fold and dataset.
    let e = ExperimentSpec::parse_with(BASE, Path::new("t"), &SpecLimits { max_cells: 19 }).unwrap_err();
    assert!(e.to_string().contains("20"), "{e}");
}

/// A dataset `path` that is not there, or is neither a file nor a folder, is the spec's
/// error when it loads, naming the key and the path, not a dataset found unavailable
/// when the run resolves it.
#[test]
fn a_dataset_path_that_is_not_there_is_refused_when_the_spec_loads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folds")).unwrap();
    std::fs::write(dir.path().join("one.txt"), "0 qid:1 1:0.5\n").unwrap();
    let file = dir.path().join("spec.toml");
    let spec = |path: &str| {
        std::fs::write(
            &file,
            format!(
                "name = \"t\"\nseed = 1\n\n[[datasets]]\nname = \"mine\"\npath = {path:?}\n\n\
                 [[algorithms]]\nid = \"regression\"\n"
            ),
        )
        .unwrap();
        ExperimentSpec::load(&file)
    };
    spec("folds").unwrap();
    spec("one.txt").unwrap();
    for (path, why) in [("nope", "no such file or folder"), ("/dev/null", "neither a file nor a folder")] {
        let e = spec(path).unwrap_err().to_string();
        assert!(e.contains("`path` of dataset `mine`") && e.contains(path) && e.contains(why), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn a_grid_larger_than_this_build_expands_is_refused_at_any_max_cells() {
    // 10 x 10 x 10 x 10 x 10 x 2 = 200,000 points: within a raised `--max-cells`, but more
    // than the grid points a spec may expand to.
    let ten = |f: &dyn Fn(u32) -> String| (1..=10).map(f).collect::<Vec<_>>().join(", ");
    let text = format!(
        "name = \"t\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nfolds = [1]\nseed = 1\n\n\
         [[algorithms]]\nid = \"lambdamart\"\ngrid = {{ trees = [{}], leaves = [{}], learning_rate = [{}], \
         min_data_in_leaf = [{}], sigma = [{}], lambda_l2 = [0.0, 1.0] }}\n",
        ten(&|i| i.to_string()),
        ten(&|i| (i + 1).to_string()),
        ten(&|i| format!("{:.2}", f64::from(i) / 100.0)),
        ten(&|i| i.to_string()),
        ten(&|i| format!("{:.1}", f64::from(i) / 10.0)),
    );
    let limits = SpecLimits { max_cells: u64::MAX };
    let e = ExperimentSpec::parse_with(&text, Path::new("x/spec.toml"), &limits).unwrap_err().to_string();
    assert!(e.starts_with("x/spec.toml:") && e.contains("200000") && e.contains("lambdamart"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

/// Values just outside a parameter's documented range (none for a flag).
fn outside(range: ltr_core::ParamRange) -> Vec<String> {
    use ltr_core::ParamRange;
    match range {
        ParamRange::Int { min, max } => {
            let mut v = Vec::new();
            if max < i64::MAX as u64 {
                v.push((max + 1).to_string());
            }
            if min > 0 {
                v.push((min - 1).to_string());
            }
            v
        }
        ParamRange::Real { min, max, open_min, open_max } => {
            let mut v = Vec::new();
            if max.is_finite() && max < 1e300 {
                v.push(format!("{:?}", if open_max { max } else { max + max.abs().max(1.0) }));
            }
            if min.is_finite() && min > -1e300 {
                v.push(format!("{:?}", if open_min { min } else { min - min.abs().max(1.0) }));
            }
            v.push("nan".into());
            v
        }
        ParamRange::Choice(_) => vec!["\"no-such-choice\"".into()],
        ParamRange::Bool => Vec::new(),
    }
}

#[test]
fn every_parameter_outside_its_documented_range_is_refused_at_spec_load() {
    let mut accepted = Vec::new();
    for info in crate::ALGORITHMS {
        for row in crate::registry::param_table(info.id).unwrap() {
            for value in outside(row.range) {
                let text = format!(
                    "name = \"t\"\ncollection = \"letor3\"\ndatasets = [\"OHSUMED\"]\nseed = 1\n\n\
                     [[algorithms]]\nid = \"{}\"\nparams = {{ {} = {value} }}\n",
                    info.id, row.key
                );
                match ExperimentSpec::parse(&text, Path::new("x/spec.toml")) {
                    Ok(_) => {
                        accepted.push(format!("{} {} = {value} (range {})", info.id, row.key, row.range))
                    }
                    Err(e) => {
                        let e = e.to_string();
                        assert!(e.starts_with("x/spec.toml:") && e.contains(row.key), "{e}");
                        assert_eq!(e.lines().count(), 1, "{e}");
                    }
                }
            }
        }
    }
    assert!(accepted.is_empty(), "accepted out of range:\n{}", accepted.join("\n"));
    // The issue's examples: a float where a count is wanted, and a count far too large.
    for v in ["1e9", "1000000000"] {
        let e = err(&BASE.replace("id = \"regression\"", "id = \"lambdamart\"").replace(
            "grid = { lambda = [0.1, 1.0], standardize = [true, false] }",
            &format!("params = {{ trees = {v} }}"),
        ));
        assert!(e.contains("lambdamart") && e.contains("`trees`"), "{e}");
    }
}

#[test]
fn a_dataset_table_sets_its_normalisation_by_path_or_by_name() {
    let s = ExperimentSpec::parse(BASE, Path::new("t.toml")).unwrap();
    assert!(s.normalize.is_empty() && s.normalization("OHSUMED").is_none());
    let by_name = BASE.replace(
        r#"datasets = ["OHSUMED"]"#,
        "datasets = [{ name = \"OHSUMED\", normalize = \"zscore\" }, \"MQ2008\"]",
    );
    let s = ExperimentSpec::parse(&by_name, Path::new("t.toml")).unwrap();
    assert_eq!(s.normalization("ohsumed"), Normalization::Zscore);
    assert_eq!(s.normalization("MQ2008"), Normalization::None);
    let by_path = BASE.replace(
        r#"datasets = ["OHSUMED"]"#,
        "datasets = [{ name = \"mine\", path = \"d\", normalize = \"query-minmax\" }]",
    );
    let mut s = ExperimentSpec::parse(&by_path, Path::new("x/t.toml")).unwrap();
    assert_eq!(s.normalization("mine"), Normalization::QueryMinmax);
    s.set_normalization("MINE", Normalization::None);
    assert!(s.normalize.is_empty(), "none is not recorded");
    let e = err(&by_path.replace("query-minmax", "minmax"));
    assert!(e.starts_with("x/spec.toml: datasets[0]: normalize") && e.contains("query-minmax"), "{e}");
    // A collection dataset still takes no path-only key.
    let e = err(&by_name.replace("normalize", "features = 3, normalize"));
    assert!(e.contains("`features` applies to datasets given by `path` only"), "{e}");
}

#[test]
fn settings_parse_as_toml_literals() {
    let c =
        AlgoConfig::from_settings("regression", &["lambda=0.5".into(), "standardize=false".into()]).unwrap();
    assert_eq!(c.params_json()["lambda"], 0.5);
    let e = AlgoConfig::from_settings("regression", &["lambda".into()]).unwrap_err().to_string();
    assert!(e.contains("key=value"), "{e}");
    let e = AlgoConfig::from_settings("regression", &["lambda=abc".into()]).unwrap_err().to_string();
    assert!(e.contains("`lambda`"), "{e}");
}
