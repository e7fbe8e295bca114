//! Where reports go and what they say: every command that writes one writes it to
//! `./reports` (or `--out`) and says so last; a report of a user's data is worded as one; no
//! report names a folder of the machine that wrote it, so two machines give the same bytes.

use std::process::{Command, Output};

use crate::common::{markdown_cells, markdown_tables, toy_fold};
use crate::user_datasets::ltr_with_cache as ltr;

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}", text(out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The markdown without what measures time: the wall-time row, and the columns from `Fit
/// s/fold` on of the tables that have one.
fn without_times(md: &str) -> String {
    let mut out = String::new();
    let mut cut: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            cut = None;
            out += line;
        } else if line.contains("Wall time") {
            continue;
        } else {
            let cells = markdown_cells(line);
            if cut.is_none() {
                cut = cells.iter().position(|c| c == "Fit s/fold");
            }
            out += &cells[..cut.unwrap_or(cells.len()).min(cells.len())].join(" | ");
        }
        out.push('\n');
    }
    out
}

/// `reproduce letor4` offline (MQ2008 from the data compiled in; MQ2007 unavailable, its
/// reason written) from two folders with different data caches and result stores: the same
/// JSON, CSV and per-query data, and the same markdown but for times; no cache path in any.
#[test]
fn reproduce_offline_from_two_folders_with_two_caches_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    for (folder, cache) in [("one", "cache"), ("two", "elsewhere/ltr-cache")] {
        let here = dir.path().join(folder);
        std::fs::create_dir_all(&here).unwrap();
        let cache = here.join(cache);
        let stdout = ok(&ltr(&here, &cache, &["reproduce", "letor4", "--algorithms", "regression,ranksvm"]));
        let last = stdout.lines().last().unwrap_or_default();
        assert!(last.starts_with("report: reports/letor4.md"), "the report's place is said last: {stdout}");
        let read = |f: &str| std::fs::read_to_string(here.join("reports").join(f)).unwrap();
        let files =
            [read("letor4.json"), read("letor4.csv"), read("letor4/per_query.csv"), read("letor4.md")];
        for f in &files {
            for local in [dir.path(), &cache] {
                assert!(!f.contains(&*local.to_string_lossy()), "a report names {}", local.display());
            }
        }
        assert!(files[0].contains("<data cache>/.downloads/MQ2007.rar"), "MQ2007's reason is written");
        reports.push(files);
    }
    let [a, b] = [&reports[0], &reports[1]];
    assert!(a[0] == b[0], "JSON differs");
    assert!(a[1] == b[1], "CSV differs");
    assert!(a[2] == b[2], "per-query CSV differs");
    assert_eq!(without_times(&a[3]), without_times(&b[3]), "markdown differs beyond times");
}

/// A newcomer's run on their own data: the data summary said once, the report in ./reports
/// said last, titled and attributed as what it is, no spread after a single fold's values;
/// and the mistakes of a first day each get one line that says what to do.
#[test]
fn a_run_on_own_data_reports_to_the_default_folder_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    toy_fold(&d.join("mine"));
    let out = ltr(d, &cache, &["run", "--data", "mine", "--algorithms", "regression,ranksvm"]);
    let stdout = ok(&out);
    let all = text(&out);
    assert_eq!(all.matches("one fold of train/vali/test files").count(), 1, "{all}");
    // Named after the folder and a hash of its path; the report's place is the last line.
    let last = stdout.lines().last().unwrap_or_default();
    let name = last
        .strip_prefix("report: reports/")
        .and_then(|r| r.split_once(".md (and .json, .csv; plots and per-query data in reports/"))
        .map(|(name, _)| name.to_owned())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(name.starts_with("mine-") && name.len() == "mine-".len() + 8, "{name}");
    let md = std::fs::read_to_string(d.join(format!("reports/{name}.md"))).unwrap();
    assert!(md.starts_with(&format!("# {name}: results\n")), "{md}");
    assert!(md.contains("Written by `ltr run --data`") && !md.contains("reproduction"), "{md}");
    let row = md.lines().find(|l| l.starts_with("| regression |")).unwrap();
    assert!(!row.contains('±'), "a single fold has no spread: {row}");
    assert!(d.join("results").join(&name).join("run.json").is_file());
    assert!(!d.join("results").join(format!("{name}.md")).exists(), "a report beside the store");

    // `ltr report` where no run was made names the flag, and creates nothing.
    let out = ltr(d, &cache, &["report", "letor3"]);
    assert!(!out.status.success());
    let err = text(&out);
    assert!(err.contains("--results") && err.contains("results/letor3/run.json"), "{err}");
    assert!(!d.join("results/letor3").exists(), "a report created a store folder");
    // A mistyped algorithm is not "not in the spec" when there is no spec.
    let out = ltr(d, &cache, &["run", "--data", "mine", "--algorithms", "lambdaMART"]);
    let err = text(&out);
    assert!(!out.status.success() && err.contains("`lambdaMART` is not a known algorithm"), "{err}");
    assert!(err.contains("did you mean lambdamart?") && !err.contains("not in the spec"), "{err}");
    // Data that is not there: one line, the path once.
    let out = ltr(d, &cache, &["run", "--data", "nowhere"]);
    let err = text(&out);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    assert!(err.starts_with("error: --data nowhere: ") && err.matches("nowhere").count() == 1, "{err}");
}

/// `ltr --help` tells a user what the tool does and where to start, not how it is built.
#[test]
fn help_says_what_the_tool_does_for_its_user() {
    let out = Command::new(env!("CARGO_BIN_EXE_ltr")).arg("--help").output().unwrap();
    let help = ok(&out);
    assert!(help.starts_with("Learning to rank, measured the same way every time"), "{help}");
    assert!(!help.contains("clap") && help.contains("First steps:") && help.contains("ltr run --data DIR"));
}

/// MQ2008 under letor4 with two cheap algorithms: the report shows the convention panel with
/// its tau values (1 for letor4 itself), the JSON holds the same panel, and `ltr sensitivity`
/// on the store prints it too.
#[test]
fn the_report_and_ltr_sensitivity_show_the_convention_panel_on_mq2008() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cache = d.join("cache");
    let args = ["reproduce", "letor4", "--datasets", "MQ2008", "--algorithms", "regression,rankrls"];
    ok(&ltr(d, &cache, &args));
    let md = std::fs::read_to_string(d.join("reports/letor4.md")).unwrap();
    let section = md.split("### MQ2008: convention sensitivity").nth(1).unwrap_or_else(|| panic!("{md}"));
    let panel = &markdown_tables(section)[0];
    // Header, separator, then one row per convention.
    let names: Vec<&str> = panel.iter().skip(2).map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        [
            "letor4 (own)",
            "standard (no\\_relevant=zero)",
            "standard",
            "standard (no\\_relevant=skip)",
            "letor4 (gain=linear)",
            "letor4 (ties=pessimistic)",
            "letor4 (ties=expected)",
        ],
        "{section}"
    );
    assert_eq!(panel[0][1..3], ["τ NDCG@10", "τ MAP"]);
    assert_eq!(panel[2][1..3], ["1.0000", "1.0000"]);
    for row in &panel[3..] {
        for tau in &row[1..3] {
            assert!(
                ["1.0000", "-1.0000", "-"].contains(&tau.as_str()),
                "two algorithms: tau is 1, -1 or undefined: {row:?}"
            );
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/letor4.json")).unwrap()).unwrap();
    let panels = &json["sensitivity"];
    assert_eq!(panels[0]["dataset"], "MQ2008");
    assert_eq!(panels[0]["variants"].as_array().unwrap().len(), 7);
    assert_eq!(panels[0]["variants"][0]["metrics"][0]["tau_b"], 1.0);

    let out = ltr(d, &cache, &["sensitivity", "results/letor4", "--format", "json"]);
    let cli: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(cli["name"], "letor4");
    assert_eq!(&cli["sensitivity"], panels, "ltr sensitivity prints the report's panel");
    let out = ltr(d, &cache, &["sensitivity", "results", "--algorithms", "regression,rankrls"]);
    assert!(ok(&out).contains("### MQ2008: convention sensitivity"));
    let out = ltr(d, &cache, &["sensitivity", "results/letor4", "--datasets", "MQ2007"]);
    assert!(
        !out.status.success() && text(&out).contains("no cell of `MQ2007` in the store (it has: MQ2008)")
    );
}
