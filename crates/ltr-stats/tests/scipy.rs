//! The paired t-test against scipy's `ttest_rel`, on values computed once and committed
//! (`tests/fixtures/stats/make_ttest_rel.py`).
#![allow(clippy::unwrap_used)]

use serde_json::Value;

const FIXTURE: &str = include_str!("../../../tests/fixtures/stats/ttest_rel.json");

fn close(ours: f64, theirs: f64, rel: f64, what: &str) {
    let tol = rel * theirs.abs().max(1e-300);
    assert!((ours - theirs).abs() <= tol, "{what}: ours {ours:e}, scipy {theirs:e}");
}

#[test]
fn paired_t_matches_scipy_ttest_rel() {
    let doc: Value = serde_json::from_str(FIXTURE).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let v =
            |k: &str| -> Vec<f64> { c[k].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
        let f = |k: &str| c[k].as_f64().unwrap();
        let r = ltr_stats::paired_t(&v("a"), &v("b")).unwrap();
        close(r.t, f("t"), 1e-10, &format!("{name} t"));
        close(r.p_value, f("p_value"), 1e-8, &format!("{name} p"));
        close(r.df, f("df"), 0.0, &format!("{name} df"));
        close(r.mean_diff, f("mean_diff"), 1e-12, &format!("{name} mean"));
        close(r.ci_low, f("ci_low"), 1e-9, &format!("{name} ci_low"));
        close(r.ci_high, f("ci_high"), 1e-9, &format!("{name} ci_high"));
        close(r.cohens_d, f("cohens_d"), 1e-10, &format!("{name} d"));
    }
}
