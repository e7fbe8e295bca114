//! Whether a report's conclusion depends on the metric convention it happened to use.
//!
//! The stored test scores of every cell (the models selected under the dataset's own
//! convention: nothing is reselected or refit) are evaluated again under a fixed panel of
//! conventions ([`PANEL`]), each built from the convention parts
//! ([`ltr_metrics::EvalConfig::with_parts`]) and tie rules of `ltr-metrics`. Under each, the
//! algorithms' NDCG@10 and MAP means go through the report's own pipeline (the per-query frame,
//! means over the counted queries of each fold, then over folds; the report's significance
//! test), and are compared with the dataset's own order by Kendall's tau-b
//! ([`ltr_stats::kendall_tau_b`]: ties in the means are ties), and by the significant
//! differences that appear or disappear.

use std::collections::{BTreeMap, BTreeSet};

use ltr_core::Grade;
use ltr_metrics::{Convention, ConventionParts, EvalConfig, GainRule, Metric, NoRelevant, Ties};
use ltr_runner::runner::{DatasetStatus, RunRecord};
use ltr_runner::store::{CellRecord, ResultStore};
use serde::Serialize;

use crate::FrameError;
use crate::markdown::{escape_markdown, header_label};
use crate::significance::{Significance, SignificanceConfig, metrics_of_query_frame};

/// The metrics whose orders the panel compares.
pub const SENSITIVITY_METRICS: [Metric; 2] = [Metric::Ndcg(10), Metric::Map];

/// A convention of the panel, relative to the dataset's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The dataset's own convention (the report's numbers).
    Own,
    /// `standard` with this rule for queries without relevant documents.
    Standard(NoRelevant),
    /// The dataset's convention with linear gain.
    LinearGain,
    /// The dataset's convention with this tie rule.
    Ties(Ties),
}

/// The panel, the dataset's own convention first.
pub const PANEL: [Variant; 7] = [
    Variant::Own,
    Variant::Standard(NoRelevant::Zero),
    Variant::Standard(NoRelevant::One),
    Variant::Standard(NoRelevant::Skip),
    Variant::LinearGain,
    Variant::Ties(Ties::Pessimistic),
    Variant::Ties(Ties::Expected),
];

impl Variant {
    /// Its key in the JSON.
    pub fn key(self) -> &'static str {
        match self {
            Variant::Own => "own",
            Variant::Standard(NoRelevant::Zero) => "standard-no-relevant-0",
            Variant::Standard(NoRelevant::One) => "standard-no-relevant-1",
            Variant::Standard(NoRelevant::Skip) => "standard-no-relevant-dropped",
            Variant::LinearGain => "linear-gain",
            Variant::Ties(Ties::File) => "file-order-ties",
            Variant::Ties(Ties::Pessimistic) => "pessimistic-ties",
            Variant::Ties(Ties::Expected) => "expected-ties",
        }
    }

    /// Its name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Own => "own",
            Variant::Standard(NoRelevant::Zero) => "standard, no-relevant = 0",
            Variant::Standard(NoRelevant::One) => "standard, no-relevant = 1",
            Variant::Standard(NoRelevant::Skip) => "standard, no-relevant dropped",
            Variant::LinearGain => "linear gain",
            Variant::Ties(Ties::File) => "ties in file order",
            Variant::Ties(Ties::Pessimistic) => "pessimistic ties",
            Variant::Ties(Ties::Expected) => "expected ties",
        }
    }

    /// Its configuration, given the dataset's own.
    pub fn config(self, own: &EvalConfig) -> EvalConfig {
        let parts = match self {
            Variant::Own => return *own,
            Variant::Standard(n) => {
                let parts = ConventionParts { no_relevant: Some(n), ..ConventionParts::default() };
                return EvalConfig::official(Convention::Standard).with_parts(&parts);
            }
            Variant::LinearGain => {
                ConventionParts { gain: Some(GainRule::Linear), ..ConventionParts::default() }
            }
            Variant::Ties(t) => ConventionParts { ties: Some(t), ..ConventionParts::default() },
        };
        own.with_parts(&parts)
    }
}

/// What re-evaluating scores needs of a test file: its queries and grades.
#[derive(Debug, Clone, PartialEq)]
struct Grades {
    qids: Vec<String>,
    labels: Vec<Grade>,
    offsets: Vec<usize>,
    doc_ids: Option<Vec<String>>,
}

/// The stored test scores of a report's cells with the grades of the test files they score
/// ([`load`]): what the panel is evaluated from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredScores {
    /// Whether [`load`] made it (a report input built otherwise has no panel).
    loaded: bool,
    /// Test file sha256 -> its grades.
    grades: BTreeMap<String, Grades>,
    /// Cell key -> its test scores.
    scores: BTreeMap<String, Vec<f64>>,
    /// Dataset -> why its scores or test files could not be read (its panel is not computed).
    pub unreadable: BTreeMap<String, String>,
}

impl StoredScores {
    /// The query ids, grades and query offsets of the test file with this sha256, when
    /// [`load`] read it: the strata's ideal DCGs come from the same read.
    pub fn test_grades(&self, sha256: &str) -> Option<(&[String], &[Grade], &[usize])> {
        self.grades.get(sha256).map(|g| (g.qids.as_slice(), g.labels.as_slice(), g.offsets.as_slice()))
    }
}

/// Reads the test scores of `cells` from `store` and the grades of their test files, located
/// through the datasets `run` records and checked against the sha256 each cell recorded
/// ([`ltr_runner::verify::read_test`]). A dataset whose files cannot be read is named in
/// [`StoredScores::unreadable`] (with a warning), not an error: the rest of a report does not
/// need them.
pub fn load<'a>(
    store: &ResultStore,
    run: &RunRecord,
    cells: impl IntoIterator<Item = &'a CellRecord>,
) -> StoredScores {
    let mut out = StoredScores { loaded: true, ..StoredScores::default() };
    let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in cells {
        if out.unreadable.contains_key(&c.dataset) {
            continue;
        }
        match read_cell(store, run, c, &mut out.grades) {
            Ok(scores) => {
                out.scores.insert(c.key.clone(), scores);
                keys.entry(c.dataset.clone()).or_default().push(c.key.clone());
            }
            Err(why) => {
                log::warn!("{}: no convention sensitivity ({why})", c.dataset);
                for k in keys.remove(&c.dataset).unwrap_or_default() {
                    out.scores.remove(&k);
                }
                out.unreadable.insert(c.dataset.clone(), why);
            }
        }
    }
    out
}

/// The scores of one cell, with the grades of its test file read into `grades` if they are
/// not there yet.
fn read_cell(
    store: &ResultStore,
    run: &RunRecord,
    c: &CellRecord,
    grades: &mut BTreeMap<String, Grades>,
) -> Result<Vec<f64>, String> {
    if !grades.contains_key(&c.test_sha256) {
        let dataset = run
            .datasets
            .iter()
            .find_map(|d| match d {
                DatasetStatus::Available(x) if x.name == c.dataset && x.variant == c.variant => Some(x),
                _ => None,
            })
            .ok_or_else(|| "the run record does not list its data".to_owned())?;
        let test = ltr_runner::verify::read_test(c, dataset)?;
        grades.insert(
            c.test_sha256.clone(),
            Grades {
                qids: test.query_ids().to_vec(),
                labels: test.labels().to_vec(),
                offsets: test.query_offsets().to_vec(),
                doc_ids: test.doc_ids().map(<[String]>::to_vec),
            },
        );
    }
    let scores = ltr_runner::verify::read_cell_scores(store, c)?;
    let n = grades.get(&c.test_sha256).map_or(0, |g| g.labels.len());
    if scores.len() != n {
        return Err(format!(
            "cell {} holds {} scores for the {n} documents of {}",
            c.key,
            scores.len(),
            c.test_file
        ));
    }
    Ok(scores)
}

/// A significant difference: `better` beats `worse`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Pair {
    /// The algorithm significantly better.
    pub better: String,
    /// The algorithm it beats.
    pub worse: String,
}

impl std::fmt::Display for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} > {}", self.better, self.worse)
    }
}

/// One metric under one convention of the panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricPanel {
    /// Metric (`ndcg@10`, `map`).
    pub metric: Metric,
    /// Algorithm -> its mean over folds of the fold means.
    pub means: BTreeMap<String, f64>,
    /// The algorithms by descending mean (equal means in report order).
    pub order: Vec<String>,
    /// Kendall's tau-b between the dataset's own order and this one (NaN, written `null`,
    /// when undefined: fewer than two algorithms, or all means equal).
    pub tau_b: f64,
    /// Pairs in the opposite order from the dataset's own (`better`: the one ahead here).
    pub swapped: Vec<Pair>,
    /// Significant differences under this convention that are not under the dataset's own.
    pub appears: Vec<Pair>,
    /// Significant differences under the dataset's own convention that are not under this one.
    pub disappears: Vec<Pair>,
}

/// One convention of the panel on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantPanel {
    /// Key ([`Variant::key`]).
    pub variant: &'static str,
    /// Name ([`Variant::name`]).
    pub name: &'static str,
    /// The convention in full ([`EvalConfig::label`]).
    pub convention: String,
    /// Whether it scores NDCG@10 and MAP as the dataset's own convention does (tau is then 1
    /// and no pair changes).
    pub same_as_own: bool,
    /// NDCG@10, then MAP.
    pub metrics: Vec<MetricPanel>,
}

/// The panel of one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetSensitivity {
    /// Dataset.
    pub dataset: String,
    /// Its own convention ([`EvalConfig::label`]).
    pub convention: String,
    /// The significance test the pairs come from (the report's).
    pub test: String,
    /// Why the panel could not be computed (absent when it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_computed: Option<String>,
    /// The algorithms, in report order.
    pub algorithms: Vec<String>,
    /// The panel ([`PANEL`] order, the dataset's own convention first).
    pub variants: Vec<VariantPanel>,
}

/// What one convention of the panel gives on every dataset: per dataset, the algorithms'
/// means (report order) per metric, and the significance results.
struct Evaluated {
    means: BTreeMap<String, Vec<(String, [f64; 2])>>,
    significance: Significance,
}

/// The cells of `cells` evaluated under `variant` and reduced as the report reduces them.
fn evaluate_variant(
    cells: &[&CellRecord],
    stored: &StoredScores,
    variant: Variant,
    sig: &SignificanceConfig,
) -> Result<Evaluated, FrameError> {
    let mut owned: Vec<CellRecord> = Vec::new();
    if variant != Variant::Own {
        owned.reserve(cells.len());
        for c in cells {
            let (Some(g), Some(scores)) = (stored.grades.get(&c.test_sha256), stored.scores.get(&c.key))
            else {
                continue;
            };
            let cfg = variant.config(&c.eval);
            let e = ltr_metrics::evaluate(&g.qids, &g.labels, &g.offsets, g.doc_ids.as_deref(), scores, &cfg)
                .map_err(|e| FrameError::Input {
                    path: c.test_file.clone().into(),
                    reason: format!("cell {} under {}: {e}", c.key, cfg.label()),
                })?;
            let mut r = CellRecord { per_query: Vec::new(), ..(*c).clone() };
            (r.eval, r.test, r.per_query) = (cfg, e.summary, e.per_query);
            owned.push(r);
        }
    }
    let refs: Vec<&CellRecord> =
        if variant == Variant::Own { cells.to_vec() } else { owned.iter().collect() };
    let frame = crate::aggregate::query_frame(&refs)?;
    let aggs = crate::aggregate::aggregate(&crate::aggregate::fold_rows(&frame)?)?;
    let significance = metrics_of_query_frame(&frame, sig, &SENSITIVITY_METRICS)?;
    let mut means: BTreeMap<String, Vec<(String, [f64; 2])>> = BTreeMap::new();
    for a in &aggs {
        means
            .entry(a.dataset.clone())
            .or_default()
            .push((a.algorithm.clone(), SENSITIVITY_METRICS.map(|m| a.mean_of(m))));
    }
    Ok(Evaluated { means, significance })
}

/// The significant differences of `metric` on `dataset`.
fn significant(s: &Significance, dataset: &str, metric: Metric) -> BTreeSet<Pair> {
    let name = metric.to_string();
    s.beats
        .iter()
        .filter(|((d, _, m), _)| d == dataset && *m == name)
        .flat_map(|((_, better, _), worse)| {
            worse.iter().map(|w| Pair { better: better.clone(), worse: w.clone() })
        })
        .collect()
}

/// The test the pairs come from, in words.
fn test_description(sig: &SignificanceConfig) -> String {
    if sig.all_pairs {
        format!("randomised Tukey HSD over all pairs, alpha = {}", sig.alpha)
    } else {
        format!("paired {} test against the baseline, Holm-corrected, alpha = {}", sig.test.name(), sig.alpha)
    }
}

/// The panel of every dataset of `cells` (report order) from their stored scores: empty when
/// `stored` was not [`load`]ed. Each dataset's significance test is `sig` (the report's).
pub fn compute(
    cells: &[&CellRecord],
    stored: &StoredScores,
    sig: &SignificanceConfig,
) -> Result<Vec<DatasetSensitivity>, FrameError> {
    if !stored.loaded {
        return Ok(Vec::new());
    }
    let mut datasets: Vec<&str> = Vec::new();
    for c in cells {
        if !datasets.contains(&c.dataset.as_str()) {
            datasets.push(&c.dataset);
        }
    }
    let readable: Vec<&CellRecord> =
        cells.iter().copied().filter(|c| !stored.unreadable.contains_key(&c.dataset)).collect();
    let evaluated: Vec<Evaluated> = if readable.is_empty() {
        Vec::new()
    } else {
        PANEL.iter().map(|v| evaluate_variant(&readable, stored, *v, sig)).collect::<Result<_, _>>()?
    };
    let mut out = Vec::with_capacity(datasets.len());
    for d in datasets {
        let Some(own) = cells.iter().find(|c| c.dataset == d).map(|c| c.eval) else { continue };
        let mut panel = DatasetSensitivity {
            dataset: d.to_owned(),
            convention: own.label(),
            test: test_description(sig),
            not_computed: stored.unreadable.get(d).cloned(),
            algorithms: Vec::new(),
            variants: Vec::new(),
        };
        if panel.not_computed.is_none()
            && let Some(first) = evaluated.first()
        {
            let own_means = first.means.get(d).cloned().unwrap_or_default();
            panel.algorithms = own_means.iter().map(|(a, _)| a.clone()).collect();
            for (variant, e) in PANEL.iter().zip(&evaluated) {
                let cfg = variant.config(&own);
                let means = e.means.get(d).cloned().unwrap_or_default();
                let metrics = SENSITIVITY_METRICS
                    .iter()
                    .enumerate()
                    .map(|(j, m)| {
                        let own_sig = significant(&first.significance, d, *m);
                        let here = significant(&e.significance, d, *m);
                        metric_panel(*m, &own_means, &means, j, &own_sig, &here)
                    })
                    .collect();
                panel.variants.push(VariantPanel {
                    variant: variant.key(),
                    name: variant.name(),
                    convention: cfg.label(),
                    same_as_own: EvalConfig { max_k: own.max_k, max_grade: own.max_grade, ..cfg } == own,
                    metrics,
                });
            }
        }
        out.push(panel);
    }
    Ok(out)
}

/// Metric `j` of [`SENSITIVITY_METRICS`] under one convention against the dataset's own.
fn metric_panel(
    metric: Metric,
    own: &[(String, [f64; 2])],
    here: &[(String, [f64; 2])],
    j: usize,
    own_sig: &BTreeSet<Pair>,
    here_sig: &BTreeSet<Pair>,
) -> MetricPanel {
    // Algorithms with a finite mean under both, in report order.
    let (mut names, mut x, mut y) = (Vec::new(), Vec::new(), Vec::new());
    for (a, v) in own {
        if let Some((_, w)) = here.iter().find(|(b, _)| b == a)
            && v[j].is_finite()
            && w[j].is_finite()
        {
            names.push(a);
            x.push(v[j]);
            y.push(w[j]);
        }
    }
    let tau_b = ltr_stats::kendall_tau_b(&x, &y).unwrap_or(f64::NAN);
    let mut swapped = Vec::new();
    for a in 0..names.len() {
        for b in 0..names.len() {
            if x[a] > x[b] && y[a] < y[b] {
                swapped.push(Pair { better: names[b].clone(), worse: names[a].clone() });
            }
        }
    }
    swapped.sort();
    let mut order: Vec<(usize, &String, f64)> =
        here.iter().enumerate().map(|(i, (a, v))| (i, a, v[j])).collect();
    // Descending; NaN last; equal means keep report order.
    order.sort_by(|p, q| {
        q.2.is_nan().cmp(&p.2.is_nan()).reverse().then(q.2.total_cmp(&p.2)).then(p.0.cmp(&q.0))
    });
    MetricPanel {
        metric,
        means: here.iter().map(|(a, v)| (a.clone(), v[j])).collect(),
        order: order.into_iter().map(|(_, a, _)| a.clone()).collect(),
        tau_b,
        swapped,
        appears: here_sig.difference(own_sig).cloned().collect(),
        disappears: own_sig.difference(here_sig).cloned().collect(),
    }
}

/// The most changed pairs named per convention and metric in the markdown (the JSON lists
/// every one).
const PAIRS_SHOWN: usize = 8;

/// A tau or a mean with four decimals, `-` when undefined.
fn fmt4(x: f64) -> String {
    if x.is_nan() { "-".into() } else { format!("{x:.4}") }
}

fn markdown_table(header: Vec<String>, rows: Vec<Vec<String>>) -> String {
    let mut b = tabled::builder::Builder::default();
    b.push_record(header);
    for r in rows {
        b.push_record(r);
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::markdown());
    t.to_string() + "\n"
}

/// `pairs` for the markdown: at most [`PAIRS_SHOWN`], escaped, then how many more.
fn pair_list(pairs: &[Pair]) -> String {
    let mut shown: Vec<String> =
        pairs.iter().take(PAIRS_SHOWN).map(|x| escape_markdown(&x.to_string())).collect();
    if pairs.len() > PAIRS_SHOWN {
        shown.push(format!("{} more", pairs.len() - PAIRS_SHOWN));
    }
    shown.join(", ")
}

/// The convention-sensitivity section of one dataset (`###`), empty when `panels` has none
/// for it.
pub fn dataset_section(panels: &[DatasetSensitivity], dataset: &str) -> String {
    let Some(p) = panels.iter().find(|p| p.dataset == dataset) else { return String::new() };
    let esc = escape_markdown;
    let mut md = format!("### {}: convention sensitivity\n\n", esc(dataset));
    if let Some(why) = &p.not_computed {
        md += &format!("Not computed: {}.\n\n", esc(why));
        return md;
    }
    let names = SENSITIVITY_METRICS.map(header_label);
    let own = esc(&p.convention);
    md += &format!(
        "The stored test scores of the models selected under {own} (the report's numbers), \
         evaluated again under other conventions; nothing is reselected or refit. τ: Kendall's \
         tau-b between the algorithms' order by mean (over queries per fold, then over folds) \
         under {own} and under the convention (equal means are ties; 1: the same order). \
         Swapped: pairs of algorithms in the opposite order. Significance: differences \
         significant ({}) under one convention and not the other (+: only under the \
         convention, −: only under {own}).\n\n",
        esc(&p.test),
    );
    let both = names.join(", ");
    let mut header = vec!["Convention".to_owned()];
    header.extend(names.iter().map(|n| format!("τ {n}")));
    header.push(format!("Swapped ({both})"));
    header.push(format!("Significance ({both})"));
    let mut rows = Vec::new();
    let mut changed = String::new();
    for v in &p.variants {
        let label = esc(&v.convention);
        rows.push(
            std::iter::once(match (v.variant == Variant::Own.key(), v.same_as_own) {
                (true, _) => format!("{label} (own)"),
                (false, true) => format!("{label} (as own)"),
                (false, false) => label.clone(),
            })
            .chain(v.metrics.iter().map(|m| fmt4(m.tau_b)))
            .chain([
                v.metrics.iter().map(|m| m.swapped.len().to_string()).collect::<Vec<_>>().join(", "),
                v.metrics
                    .iter()
                    .map(|m| format!("+{} −{}", m.appears.len(), m.disappears.len()))
                    .collect::<Vec<_>>()
                    .join(", "),
            ])
            .collect(),
        );
        let mut what = Vec::new();
        for m in &v.metrics {
            for (how, pairs) in [
                ("swapped", &m.swapped),
                ("significant only here", &m.appears),
                ("no longer significant", &m.disappears),
            ] {
                if !pairs.is_empty() {
                    what.push(format!("{} {how}: {}", header_label(m.metric), pair_list(pairs)));
                }
            }
        }
        if !what.is_empty() {
            changed += &format!("- {label}: {}\n", what.join("; "));
        }
    }
    md += &markdown_table(header, rows);
    md += "\n";
    if !changed.is_empty() {
        md += &format!(
            "What changes (`a > b`: a ahead, or significantly better, under the convention):\n\n{changed}\n"
        );
    }
    // The means themselves, folded away: the table above is the point.
    let mut header = vec!["Algorithm".to_owned()];
    header.extend(p.variants.iter().map(|v| esc(v.name)));
    let rows = p
        .algorithms
        .iter()
        .map(|a| {
            let mean = |m: &MetricPanel| m.means.get(a).copied().map_or("-".into(), fmt4);
            std::iter::once(esc(a))
                .chain(p.variants.iter().map(|v| v.metrics.iter().map(mean).collect::<Vec<_>>().join(" / ")))
                .collect()
        })
        .collect();
    md += &format!(
        "<details><summary>{} / {} means under each convention</summary>\n\n{}\n</details>\n\n",
        names[0],
        names[1],
        markdown_table(header, rows)
    );
    md
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// One cell of dataset `D` scored under `own`: its record as a run writes it, and its
    /// stored scores and test grades added to `stored`.
    fn cell(
        label: &str,
        fold: u32,
        queries: &[(&[Grade], &[f64])],
        own: &EvalConfig,
        stored: &mut StoredScores,
    ) -> CellRecord {
        let mut g = Grades { qids: Vec::new(), labels: Vec::new(), offsets: vec![0], doc_ids: None };
        let mut scores = Vec::new();
        for (q, (labels, s)) in queries.iter().enumerate() {
            g.qids.push(format!("{fold}{q:03}"));
            g.labels.extend_from_slice(labels);
            g.offsets.push(g.labels.len());
            scores.extend_from_slice(s);
        }
        let e = ltr_metrics::evaluate(&g.qids, &g.labels, &g.offsets, None, &scores, own).unwrap();
        let mut c = crate::testutil::cell(label, fold, &[0.0; 5]);
        c.key = format!("{label}{fold}");
        c.test_sha256 = format!("{fold:0>64}");
        (c.eval, c.test, c.per_query) = (*own, e.summary, e.per_query);
        stored.loaded = true;
        stored.grades.insert(c.test_sha256.clone(), g);
        stored.scores.insert(c.key.clone(), scores);
        c
    }

    /// Dataset `D` under `own`: on fold 1, 30 queries without a relevant document and 10
    /// where `a` puts the relevant document first and `b` second or third; on fold 2, 10
    /// where `b` puts it first and `a` second. `c` scores every document the same, and the
    /// relevant document comes first in the file: file order ranks it first, the pessimistic
    /// rule last.
    fn dataset(own: &EvalConfig) -> (Vec<CellRecord>, StoredScores) {
        let mut stored = StoredScores::default();
        let none: &[Grade] = &[0, 0, 0];
        let one: &[Grade] = &[1, 0, 0];
        let mut cells = Vec::new();
        for (label, first, second) in [
            ("a", [0.9, 0.5, 0.1], [0.5, 0.9, 0.1]),
            ("b", [0.5, 0.9, 0.1], [0.9, 0.5, 0.1]),
            ("c", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]),
        ] {
            // b puts the relevant document third on every other query of fold 1.
            let third = [0.1, 0.9, 0.5];
            let mut fold1: Vec<(&[Grade], &[f64])> = vec![(none, &first[..]); 30];
            for q in 0..10 {
                let s: &[f64] = if label == "b" && q % 2 == 1 { &third } else { &first };
                fold1.push((one, s));
            }
            cells.push(cell(label, 1, &fold1, own, &mut stored));
            cells.push(cell(label, 2, &vec![(one, &second[..]); 10], own, &mut stored));
        }
        (cells, stored)
    }

    fn panel(own: &EvalConfig) -> DatasetSensitivity {
        let (cells, stored) = dataset(own);
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let mut out = compute(&refs, &stored, &SignificanceConfig::default()).unwrap();
        assert_eq!(out.len(), 1);
        out.remove(0)
    }

    fn variant(p: &DatasetSensitivity, v: Variant) -> &VariantPanel {
        p.variants.iter().find(|x| x.variant == v.key()).unwrap()
    }

    #[test]
    fn an_order_that_flips_when_queries_without_relevant_documents_are_dropped_is_named() {
        let own = EvalConfig::standard(NoRelevant::Zero);
        let p = panel(&own);
        assert_eq!(p.algorithms, ["a", "b", "c"]);
        assert_eq!(p.variants.len(), PANEL.len());
        let dropped = variant(&p, Variant::Standard(NoRelevant::Skip));
        let pair = Pair { better: "a".into(), worse: "b".into() };
        for m in &dropped.metrics {
            // Under the own convention b is ahead of a (fold 1's wins of a are diluted by
            // its 30 queries scoring 0), dropped a is ahead.
            let own_means = &variant(&p, Variant::Own).metrics
                [SENSITIVITY_METRICS.iter().position(|x| *x == m.metric).unwrap()]
            .means;
            assert!(own_means["b"] > own_means["a"], "{} {own_means:?}", m.metric);
            assert!(m.means["a"] > m.means["b"], "{} {:?}", m.metric, m.means);
            assert_eq!(m.swapped, std::slice::from_ref(&pair), "{}", m.metric);
            assert!(m.tau_b < 1.0);
        }
        let md = dataset_section(std::slice::from_ref(&p), "D");
        let line = md
            .lines()
            .find(|l| l.starts_with("- standard (no\\_relevant=skip)"))
            .unwrap_or_else(|| panic!("{md}"));
        assert!(line.contains("NDCG@10 swapped: a \\> b") && line.contains("MAP swapped: a \\> b"), "{line}");
        assert!(md.contains("| standard (no\\_relevant=skip) "), "{md}");
    }

    #[test]
    fn tau_is_one_for_the_own_convention_and_for_a_variant_identical_to_it() {
        let own = EvalConfig::standard(NoRelevant::Zero);
        let p = panel(&own);
        for v in [Variant::Own, Variant::Standard(NoRelevant::Zero)] {
            let x = variant(&p, v);
            assert!(x.same_as_own, "{}", x.name);
            for m in &x.metrics {
                assert_eq!(m.tau_b, 1.0, "{} {}", x.name, m.metric);
                assert!(m.swapped.is_empty() && m.appears.is_empty() && m.disappears.is_empty());
            }
        }
        // The own convention's means are the report's, bit for bit.
        let (cells, _) = dataset(&own);
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let frame = crate::aggregate::query_frame(&refs).unwrap();
        let aggs = crate::aggregate::aggregate(&crate::aggregate::fold_rows(&frame).unwrap()).unwrap();
        for a in &aggs {
            for m in &variant(&p, Variant::Own).metrics {
                assert_eq!(m.means[&a.algorithm].to_bits(), a.mean_of(m.metric).to_bits());
            }
        }
        let md = dataset_section(std::slice::from_ref(&p), "D");
        let rows: Vec<Vec<&str>> = md.lines().map(|l| l.split('|').map(str::trim).collect()).collect();
        for name in ["standard (no\\_relevant=zero) (own)", "standard (no\\_relevant=zero) (as own)"] {
            assert!(
                rows.iter().any(|r| r.len() > 4 && r[1..4] == [name, "1.0000", "1.0000"]),
                "{name}: {md}"
            );
        }
    }

    #[test]
    fn a_significant_difference_that_rests_on_tie_order_is_named_where_it_turns() {
        let p = panel(&EvalConfig::standard(NoRelevant::Zero));
        // c's perfect rankings under file order are its worst under the pessimistic rule.
        let pessimistic = variant(&p, Variant::Ties(Ties::Pessimistic));
        assert_eq!(pessimistic.convention, "standard (no_relevant=zero, ties=pessimistic)");
        for m in &pessimistic.metrics {
            assert_eq!(m.disappears, [Pair { better: "c".into(), worse: "a".into() }], "{}", m.metric);
            assert_eq!(m.appears, [Pair { better: "a".into(), worse: "c".into() }], "{}", m.metric);
        }
        let md = dataset_section(std::slice::from_ref(&p), "D");
        assert!(
            md.contains("NDCG@10 significant only here: a \\> c; NDCG@10 no longer significant: c \\> a"),
            "{md}"
        );
        // A linear gain changes nothing with grades 0 and 1.
        assert!(variant(&p, Variant::LinearGain).metrics.iter().all(|m| m.tau_b == 1.0));
    }

    #[test]
    fn the_panel_is_built_from_the_convention_parts() {
        let l4 = EvalConfig::official(Convention::Letor4);
        let labels: Vec<String> = PANEL.iter().map(|v| v.config(&l4).label()).collect();
        assert_eq!(
            labels,
            [
                "letor4",
                "standard (no_relevant=zero)",
                "standard",
                "standard (no_relevant=skip)",
                "letor4 (gain=linear)",
                "letor4 (ties=pessimistic)",
                "letor4 (ties=expected)",
            ]
        );
        // Nothing loaded (an input not read from a store): no section.
        assert!(compute(&[], &StoredScores::default(), &SignificanceConfig::default()).unwrap().is_empty());
        // A dataset whose files could not be read says why.
        let (cells, mut stored) = dataset(&l4);
        stored.unreadable.insert("D".into(), "test file gone".into());
        let refs: Vec<&CellRecord> = cells.iter().collect();
        let p = compute(&refs, &stored, &SignificanceConfig::default()).unwrap();
        assert_eq!(p[0].not_computed.as_deref(), Some("test file gone"));
        assert!(dataset_section(&p, "D").contains("Not computed: test file gone."));
    }
}
