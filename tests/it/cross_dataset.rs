//! A report over more than one dataset: OHSUMED of the collection plus its 25-feature cut
//! given by path carries the summary across datasets (mean rank with a bootstrap interval,
//! significant wins, winning number) and, per dataset, the wins, ties and losses against the
//! baseline by query difficulty, in the markdown, the JSON and the per-query data.

use crate::common::{data_dir, installed, letor2_folder};
use crate::user_datasets::{ltr_with_cache, ok};

#[test]
fn ohsumed_and_its_25_feature_cut_give_the_cross_dataset_summary_with_intervals() {
    installed("letor3", "OHSUMED");
    let dir = tempfile::tempdir().unwrap();
    letor2_folder(dir.path());
    std::fs::write(
        dir.path().join("spec.toml"),
        "name = \"two\"\ncollection = \"letor3\"\nseed = 11\n\
         datasets = [\"OHSUMED\", { name = \"OHSUMED-L2\", path = \"OHSUMED-L2\", convention = \"letor3\" }]\n\n\
         [[algorithms]]\nid = \"regression\"\ngrid = { lambda = [0.1, 1.0] }\n\n\
         [[algorithms]]\nid = \"regression\"\nlabel = \"regression-strong\"\nparams = { lambda = 1000.0 }\n\n\
         [[algorithms]]\nid = \"ranksvm\"\ngrid = { c = [0.1] }\n",
    )
    .unwrap();
    let cache = data_dir();
    ok(&ltr_with_cache(dir.path(), &cache, &["run", "spec.toml", "--results", "res", "--out", "rep"]));
    let md = std::fs::read_to_string(dir.path().join("rep/two.md")).unwrap();
    let section = md.split("## Across datasets").nth(1).unwrap_or_else(|| panic!("{md}"));
    let section = section.split("\n## ").next().unwrap();
    assert!(section.contains("Over 2 datasets (OHSUMED, OHSUMED-L2), by NDCG@10"), "{section}");
    let rows: Vec<&str> =
        section.lines().filter(|l| l.starts_with("| regression") || l.starts_with("| ranksvm")).collect();
    assert_eq!(rows.len(), 3, "{section}");
    for r in &rows {
        // `mean [low, high]`, then 2 datasets and `k of 4` comparisons.
        let cells = crate::common::markdown_cells(r);
        assert!(cells[1].contains(" [") && cells[1].ends_with(']'), "{r}");
        assert_eq!(cells[2], "2", "{r}");
        assert!(cells[4].ends_with(" of 4"), "{r}");
    }

    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rep/two.json")).unwrap()).unwrap();
    let summary = &doc["cross_dataset"];
    assert_eq!(summary["metric"], "ndcg@10");
    assert_eq!(summary["resamples"], 1000);
    let rows = summary["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let mut wn = 0;
    for r in rows {
        let (lo, mean, hi) = (
            r["mean_rank_low"].as_f64().unwrap(),
            r["mean_rank"].as_f64().unwrap(),
            r["mean_rank_high"].as_f64().unwrap(),
        );
        assert!((1.0..=3.0).contains(&lo) && lo <= hi && (1.0..=3.0).contains(&hi), "{r}");
        assert!((1.0..=3.0).contains(&mean), "{r}");
        assert_eq!(r["ideal_winning_number"], 4, "{r}");
        wn += r["winning_number"].as_u64().unwrap();
    }
    // Every comparison without a tie has one winner: at most 6 wins in all.
    assert!(wn <= 6, "{summary}");

    // The strata: a table per dataset, in the JSON and as per-query columns.
    assert_eq!(
        md.matches("wins/ties/losses of NDCG@10 against the baseline (regression)").count(),
        2,
        "{md}"
    );
    let strata = doc["strata"]["datasets"].as_array().unwrap();
    assert_eq!(strata.len(), 2);
    for s in strata {
        assert!(s["ideal_dcg_bins"].is_object(), "the test files were read: {s}");
        assert_eq!(s["rows"].as_array().unwrap().len(), 2, "{s}");
    }
    let csv = std::fs::read_to_string(dir.path().join("rep/two/per_query.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("dataset,fold,query,algorithm,counted,script_order,ndcg@1,")
            && header.ends_with(",relevant,ideal_dcg,relevant_stratum,ideal_dcg_stratum,vs_baseline"),
        "{header}"
    );
}
