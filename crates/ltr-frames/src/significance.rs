//! Significance of the differences between algorithms, over test queries pooled across folds.
//!
//! Against a baseline (the spec's, else the first algorithm): a paired two-sided test per
//! algorithm (Student t by default, Fisher randomisation as an option), Holm-corrected across
//! the algorithms compared, with the mean difference, its 95% confidence interval and Cohen's
//! d on the paired differences. All pairs: the randomised Tukey HSD test, which needs no
//! further correction. Marks in the style of ranx: a superscript letter on a value names
//! each algorithm it is significantly better than, so a loss against the baseline shows as
//! the algorithm's letter on the baseline's value.
//!
//! The same functions serve `ltr compare` (score files of other tools) and the reports.

use std::collections::BTreeMap;

use ltr_metrics::{Evaluation, Metric};
use ltr_stats::{ALPHA, DEFAULT_PERMUTATIONS, PairedTest};
use polars::prelude::*;
use serde::Serialize;

use crate::FrameError;
use crate::aggregate::{METRICS, column};

/// How to test.
#[derive(Debug, Clone, PartialEq)]
pub struct SignificanceConfig {
    /// The test against the baseline.
    pub test: PairedTest,
    /// Also test all pairs with the randomised Tukey HSD test (and mark from it).
    pub all_pairs: bool,
    /// Baseline label (`None`: the first algorithm).
    pub baseline: Option<String>,
    /// Permutations of the randomised tests.
    pub permutations: usize,
    /// Seed of the randomised tests.
    pub seed: u64,
    /// Significance level of the marks.
    pub alpha: f64,
}

impl Default for SignificanceConfig {
    fn default() -> Self {
        Self {
            test: PairedTest::T,
            all_pairs: false,
            baseline: None,
            permutations: DEFAULT_PERMUTATIONS,
            seed: 0,
            alpha: ALPHA,
        }
    }
}

impl SignificanceConfig {
    /// The configuration a spec asks for: its `baseline` and `significance` keys, seeded by
    /// its master seed.
    pub fn of_spec(spec: &ltr_harness::spec::ExperimentSpec) -> Self {
        use ltr_harness::spec::SignificanceTest;
        let (test, all_pairs) = match spec.significance {
            SignificanceTest::T => (PairedTest::T, false),
            SignificanceTest::Randomization => (PairedTest::Randomization, false),
            SignificanceTest::Tukey => (PairedTest::T, true),
        };
        Self { test, all_pairs, baseline: spec.baseline.clone(), seed: spec.seed, ..Self::default() }
    }
}

/// One algorithm against the baseline on one metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Dataset (empty for `ltr compare`).
    pub dataset: String,
    /// Metric (`ndcg@10`).
    pub metric: String,
    /// Algorithm.
    pub algorithm: String,
    /// Baseline.
    pub baseline: String,
    /// Paired test queries.
    pub queries: usize,
    /// Mean of algorithm - baseline.
    pub mean_diff: f64,
    /// 95% confidence interval of the mean difference (t distribution).
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Cohen's d on the paired differences.
    pub cohens_d: f64,
    /// The test (`t` or `randomization`).
    pub test: &'static str,
    /// Two-sided p-value of the test.
    pub p_value: f64,
    /// Holm-corrected across the algorithms compared with the baseline.
    pub p_holm: f64,
}

/// One pair of algorithms in all-pairs mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairRow {
    /// Dataset.
    pub dataset: String,
    /// Metric.
    pub metric: String,
    /// First algorithm.
    pub a: String,
    /// Second algorithm.
    pub b: String,
    /// Mean of a - b.
    pub mean_diff: f64,
    /// Randomised Tukey HSD p-value (family-wise over all pairs).
    pub p_value: f64,
}

/// The significance results of a report or a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Significance {
    /// Test against the baseline.
    pub test: &'static str,
    /// Whether the marks come from the all-pairs test.
    pub all_pairs: bool,
    /// Level of the marks.
    pub alpha: f64,
    /// Permutations of the randomised tests (when one was used).
    pub permutations: usize,
    /// Per dataset, metric and non-baseline algorithm.
    pub vs_baseline: Vec<Comparison>,
    /// Per dataset, metric and pair (all-pairs mode only).
    pub pairs: Vec<PairRow>,
    /// Per dataset: the baseline label.
    pub baselines: BTreeMap<String, String>,
    /// (dataset, algorithm, metric) -> labels of the algorithms it is significantly better
    /// than (in algorithm order).
    #[serde(skip)]
    pub beats: BTreeMap<(String, String, String), Vec<String>>,
    /// Per dataset: algorithm labels in order (their letters are a, b, c, ...).
    #[serde(skip)]
    pub order: BTreeMap<String, Vec<String>>,
}

/// The results of one metric over aligned systems.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricTests {
    /// Per system: the comparison with the baseline (`None` for the baseline itself).
    pub vs_baseline: Vec<Option<Comparison>>,
    /// All-pairs p-values (`None` unless asked for).
    pub pairs: Option<Vec<Vec<f64>>>,
    /// Per system: indices of the systems it is significantly better than.
    pub beats: Vec<Vec<usize>>,
}

/// Tests one metric: `columns[s][q]` is system `s`'s value on query `q` (aligned, finite).
/// `seed` seeds the randomised tests of this metric.
pub fn test_metric(
    labels: &[String],
    columns: &[Vec<f64>],
    baseline: usize,
    metric: &str,
    cfg: &SignificanceConfig,
    seed: u64,
) -> Result<MetricTests, ltr_stats::StatsError> {
    let m = labels.len();
    let base = &columns[baseline];
    let mut raw: Vec<Option<Comparison>> = Vec::with_capacity(m);
    for (s, col) in columns.iter().enumerate() {
        if s == baseline {
            raw.push(None);
            continue;
        }
        let t = ltr_stats::paired_t(col, base)?;
        let p = match cfg.test {
            PairedTest::T => t.p_value,
            PairedTest::Randomization => {
                // Seeded by the two columns compared, so a label's spelling moves no p-value.
                let sub = ltr_core::derive_seed_from_values(seed, "randomization", &[col, base]);
                ltr_stats::randomization(col, base, cfg.permutations, sub)?
            }
        };
        raw.push(Some(Comparison {
            dataset: String::new(),
            metric: metric.to_owned(),
            algorithm: labels[s].clone(),
            baseline: labels[baseline].clone(),
            queries: t.n,
            mean_diff: t.mean_diff,
            ci_low: t.ci_low,
            ci_high: t.ci_high,
            cohens_d: t.cohens_d,
            test: cfg.test.name(),
            p_value: p,
            p_holm: p,
        }));
    }
    let ps: Vec<f64> = raw.iter().flatten().map(|c| c.p_value).collect();
    let adjusted = ltr_stats::holm(&ps);
    let mut it = adjusted.into_iter();
    for c in raw.iter_mut().flatten() {
        c.p_holm = it.next().unwrap_or(1.0);
    }
    let mut beats = vec![Vec::new(); m];
    let pairs = if cfg.all_pairs && m >= 2 {
        let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let p = ltr_stats::tukey_hsd(&refs, cfg.permutations, {
            let all: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            ltr_core::derive_seed_from_values(seed, "tukey", &all)
        })?;
        let means: Vec<f64> = columns.iter().map(|c| c.iter().sum::<f64>() / c.len() as f64).collect();
        for i in 0..m {
            for j in 0..m {
                if i != j && p[i][j] < cfg.alpha && means[i] > means[j] {
                    beats[i].push(j);
                }
            }
        }
        Some(p)
    } else {
        for (s, c) in raw.iter().enumerate() {
            if let Some(c) = c
                && c.p_holm < cfg.alpha
            {
                if c.mean_diff > 0.0 {
                    beats[s].push(baseline);
                } else if c.mean_diff < 0.0 {
                    beats[baseline].push(s);
                }
            }
        }
        beats[baseline].sort_unstable();
        None
    };
    Ok(MetricTests { vs_baseline: raw, pairs, beats })
}

/// Upper bound on the permutations of the randomised tests. The smallest p-value it can give,
/// 1/100001, is finer than the tables print (4 decimals) and than any Holm threshold of 64 systems (0.05/63), and it
/// bounds run time: on 400 queries, 100000 permutations take about 1.6 s of CPU per system
/// against the baseline (3.9 s for the all-pairs test of two systems); ten million took
/// minutes.
pub const MAX_PERMUTATIONS: usize = 100_000;
/// Upper bound on the number of systems compared (letters and tables stay readable).
pub const MAX_SYSTEMS: usize = 64;

/// Systems scored on the same queries of one data set, each evaluated ([`Evaluation`]),
/// compared as `ltr compare` compares score files: the means of every metric, and per metric
/// the tests of [`test_metric`] over the queries every system has a finite value for, in file
/// order, the randomised tests of metric `m` seeded by `derive_seed(cfg.seed, ["compare", m])`.
#[derive(Debug, Clone)]
pub struct SystemComparison {
    /// The systems' names, in order (their letters are a, b, c, ...).
    pub names: Vec<String>,
    /// Index of the baseline in `names`.
    pub baseline: usize,
    /// The metrics compared.
    pub metrics: Vec<Metric>,
    /// `means[s][j]`: system `s`'s mean of metric `j` (NaN where undefined).
    pub means: Vec<Vec<f64>>,
    /// Per metric: its tests (`None` with fewer than two systems, or when they cannot run).
    pub tests: Vec<Option<MetricTests>>,
    /// How the tests ran.
    pub config: SignificanceConfig,
    /// Queries of the data set.
    pub queries: usize,
}

/// Compares `evals` (one per name, of one data set) on `metrics`; `baseline` indexes `names`.
pub fn compare_systems(
    names: Vec<String>,
    evals: &[Evaluation],
    baseline: usize,
    metrics: &[Metric],
    cfg: SignificanceConfig,
) -> SystemComparison {
    let mut tests: Vec<Option<MetricTests>> = Vec::with_capacity(metrics.len());
    let n = evals.first().map_or(0, |e| e.per_query.len());
    for m in metrics {
        // Queries every system has a finite value for (all of them under the official
        // conventions), in file order.
        let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(n); evals.len()];
        for q in 0..n {
            let row: Vec<f64> = evals
                .iter()
                .map(|e| e.per_query.get(q).and_then(|x| m.of_query(x)).unwrap_or(f64::NAN))
                .collect();
            if row.iter().all(|x| x.is_finite()) {
                for (c, x) in columns.iter_mut().zip(row) {
                    c.push(x);
                }
            }
        }
        let seed = ltr_core::derive_seed(cfg.seed, &["compare", &m.to_string()]);
        tests.push(if names.len() < 2 {
            None
        } else {
            match test_metric(&names, &columns, baseline, &m.to_string(), &cfg, seed) {
                Ok(t) => Some(t),
                Err(e) => {
                    log::warn!("{m}: no significance test ({e})");
                    None
                }
            }
        });
    }
    let means = evals
        .iter()
        .map(|e| metrics.iter().map(|m| m.of_summary(&e.summary).unwrap_or(f64::NAN)).collect())
        .collect();
    SystemComparison { names, baseline, metrics: metrics.to_vec(), means, tests, config: cfg, queries: n }
}

impl SystemComparison {
    /// The letters of the systems system `s` is significantly better than on metric `j`.
    pub fn marks(&self, s: usize, j: usize) -> String {
        self.tests[j].as_ref().map_or(String::new(), |t| t.beats[s].iter().map(|&b| letter(b)).collect())
    }

    /// Every comparison with the baseline, metric by metric.
    pub fn comparisons(&self) -> Vec<&Comparison> {
        self.tests.iter().flatten().flat_map(|t| t.vs_baseline.iter().flatten()).collect()
    }

    /// The JSON of `ltr compare --format json` without what names its files: the baseline,
    /// the test, the systems with their means and the systems each is better than, the
    /// comparisons with the baseline and, in all-pairs mode, the pairs' p-values.
    pub fn to_json(&self) -> serde_json::Value {
        let (names, metrics, sig) = (&self.names, &self.metrics, &self.config);
        let systems: Vec<serde_json::Value> = names
            .iter()
            .enumerate()
            .map(|(s, n)| {
                let m: serde_json::Map<String, serde_json::Value> =
                    metrics.iter().zip(&self.means[s]).map(|(m, v)| (m.to_string(), (*v).into())).collect();
                serde_json::json!({
                    "name": n, "letter": letter(s), "means": m,
                    "better_than": metrics.iter().enumerate()
                        .map(|(j, m)| (m.to_string(), self.tests[j].as_ref()
                            .map_or(Vec::new(), |t| t.beats[s].iter().map(|&b| names[b].clone()).collect())))
                        .filter(|(_, v)| !v.is_empty())
                        .map(|(k, v)| (k, serde_json::Value::from(v)))
                        .collect::<serde_json::Map<String, serde_json::Value>>(),
                })
            })
            .collect();
        let mut pairs = Vec::new();
        for (j, t) in self.tests.iter().enumerate() {
            if let Some(p) = t.as_ref().and_then(|t| t.pairs.as_ref()) {
                for a in 0..names.len() {
                    for b in a + 1..names.len() {
                        pairs.push(serde_json::json!({
                            "metric": metrics[j].to_string(), "a": names[a], "b": names[b], "p_value": p[a][b],
                        }));
                    }
                }
            }
        }
        serde_json::json!({
            "queries": self.queries,
            "baseline": names[self.baseline],
            "test": sig.test.name(),
            "alpha": sig.alpha,
            "permutations": (sig.test == PairedTest::Randomization || sig.all_pairs).then_some(sig.permutations),
            "systems": systems,
            "comparisons": self.comparisons(),
            "pairs": if sig.all_pairs { Some(pairs) } else { None },
        })
    }
}

/// The superscript letter of the `i`-th algorithm: a..z, then aa, ab, ...
pub fn letter(i: usize) -> String {
    let abc = |k: usize| char::from(b'a' + (k % 26) as u8);
    if i < 26 { abc(i).to_string() } else { format!("{}{}", abc(i / 26 - 1), abc(i)) }
}

/// Significance over a per-query frame (`dataset`, `fold`, `query`, `algorithm`, metric
/// columns; [`crate::aggregate::query_frame`]). Queries are paired by (fold, query id,
/// occurrence); only queries every algorithm of the dataset has, with finite values, count,
/// and, when the frame has a `counted` column, only the queries it marks as counted (those the
/// means count). Datasets and algorithms keep their first-appearance order.
pub fn from_query_frame(frame: &DataFrame, cfg: &SignificanceConfig) -> Result<Significance, FrameError> {
    metrics_of_query_frame(frame, cfg, &METRICS)
}

/// [`from_query_frame`] on `metrics` only (columns of the frame); each metric's tests are
/// those [`from_query_frame`] gives it.
pub fn metrics_of_query_frame(
    frame: &DataFrame,
    cfg: &SignificanceConfig,
    metrics: &[Metric],
) -> Result<Significance, FrameError> {
    let filtered;
    let frame = match frame.column("counted") {
        Ok(c) => {
            filtered = frame.filter(c.bool()?)?;
            &filtered
        }
        Err(_) => frame,
    };
    let ds = frame.column("dataset")?.str()?;
    let folds = frame.column("fold")?.cast(&DataType::UInt32)?;
    let folds = folds.u32()?;
    let qs = frame.column("query")?.str()?;
    let al = frame.column("algorithm")?.str()?;
    let metric_cols: Vec<Vec<f64>> = metrics
        .iter()
        .map(|m| Ok(frame.column(&column(*m))?.f64()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect()))
        .collect::<PolarsResult<_>>()?;

    // dataset -> algorithm -> key -> row.
    type Key = (u32, String, usize);
    let mut datasets: Vec<String> = Vec::new();
    let mut algos: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut rows: BTreeMap<(String, String), BTreeMap<Key, usize>> = BTreeMap::new();
    let mut seen: BTreeMap<(String, String, u32, String), usize> = BTreeMap::new();
    let mut key_order: BTreeMap<String, Vec<Key>> = BTreeMap::new();
    for i in 0..frame.height() {
        let (d, a, q) = (ds.get(i).unwrap_or(""), al.get(i).unwrap_or(""), qs.get(i).unwrap_or(""));
        let f = folds.get(i).unwrap_or(0);
        if !datasets.iter().any(|x| x == d) {
            datasets.push(d.to_owned());
        }
        let list = algos.entry(d.to_owned()).or_default();
        if !list.iter().any(|x| x == a) {
            list.push(a.to_owned());
        }
        let n = seen.entry((d.to_owned(), a.to_owned(), f, q.to_owned())).or_insert(0);
        let key = (f, q.to_owned(), *n);
        *n += 1;
        if list.first().is_some_and(|x| x == a) {
            key_order.entry(d.to_owned()).or_default().push(key.clone());
        }
        rows.entry((d.to_owned(), a.to_owned())).or_default().insert(key, i);
    }

    let mut out = Significance {
        test: cfg.test.name(),
        all_pairs: cfg.all_pairs,
        alpha: cfg.alpha,
        permutations: cfg.permutations,
        vs_baseline: Vec::new(),
        pairs: Vec::new(),
        baselines: BTreeMap::new(),
        beats: BTreeMap::new(),
        order: BTreeMap::new(),
    };
    for d in &datasets {
        let labels = algos.get(d).cloned().unwrap_or_default();
        let baseline = cfg.baseline.as_ref().and_then(|b| labels.iter().position(|x| x == b)).unwrap_or(0);
        out.order.insert(d.clone(), labels.clone());
        if labels.len() < 2 {
            continue;
        }
        out.baselines.insert(d.clone(), labels[baseline].clone());
        let empty = BTreeMap::new();
        let maps: Vec<&BTreeMap<Key, usize>> =
            labels.iter().map(|a| rows.get(&(d.clone(), a.clone())).unwrap_or(&empty)).collect();
        let keys: Vec<&Key> = key_order
            .get(d)
            .map(|k| k.iter().filter(|k| maps.iter().all(|m| m.contains_key(*k))).collect())
            .unwrap_or_default();
        for (j, metric) in metrics.iter().enumerate() {
            let name = metric.to_string();
            let values = &metric_cols[j];
            let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(keys.len()); labels.len()];
            for k in &keys {
                let row: Vec<f64> = maps.iter().map(|m| m.get(*k).map_or(f64::NAN, |&i| values[i])).collect();
                if row.iter().all(|x| x.is_finite()) {
                    for (c, x) in columns.iter_mut().zip(row) {
                        c.push(x);
                    }
                }
            }
            // Not by dataset name: the columns seed each test (see `test_metric`).
            let seed = ltr_core::derive_seed(cfg.seed, &["significance", &name]);
            let tests = match test_metric(&labels, &columns, baseline, &name, cfg, seed) {
                Ok(t) => t,
                Err(e) => {
                    log::warn!("{d}, {name}: no significance test ({e})");
                    continue;
                }
            };
            for mut c in tests.vs_baseline.into_iter().flatten() {
                c.dataset = d.clone();
                out.vs_baseline.push(c);
            }
            if let Some(p) = &tests.pairs {
                for a in 0..labels.len() {
                    for b in a + 1..labels.len() {
                        let n = columns[a].len() as f64;
                        out.pairs.push(PairRow {
                            dataset: d.clone(),
                            metric: name.clone(),
                            a: labels[a].clone(),
                            b: labels[b].clone(),
                            mean_diff: columns[a].iter().zip(&columns[b]).map(|(x, y)| x - y).sum::<f64>()
                                / n,
                            p_value: p[a][b],
                        });
                    }
                }
            }
            for (s, beaten) in tests.beats.iter().enumerate() {
                if !beaten.is_empty() {
                    out.beats.insert(
                        (d.clone(), labels[s].clone(), name.clone()),
                        beaten.iter().map(|&b| labels[b].clone()).collect(),
                    );
                }
            }
        }
    }
    Ok(out)
}

impl Significance {
    /// The superscript marks of a value (`<sup>ac</sup>`), empty when it beats nothing.
    pub fn marks(&self, dataset: &str, algorithm: &str, metric: Metric) -> String {
        let Some(order) = self.order.get(dataset) else { return String::new() };
        let key = (dataset.to_owned(), algorithm.to_owned(), metric.to_string());
        match self.beats.get(&key) {
            Some(beaten) if !beaten.is_empty() => {
                let letters: String = beaten
                    .iter()
                    .filter_map(|b| order.iter().position(|x| x == b))
                    .map(letter)
                    .collect::<Vec<_>>()
                    .join("");
                format!("<sup>{letters}</sup>")
            }
            _ => String::new(),
        }
    }

    /// One paragraph that says what the marks mean.
    pub fn explanation(&self) -> String {
        let how = if self.all_pairs {
            format!(
                "every pair of algorithms is compared with the randomised Tukey HSD test \
                 ({} permutations of each query's scores across algorithms, seeded), which \
                 controls the family-wise error over all pairs",
                self.permutations
            )
        } else {
            let test = match self.test {
                "randomization" => format!(
                    "a two-sided paired Fisher randomisation test ({} seeded sign-flip permutations)",
                    self.permutations
                ),
                _ => "a two-sided paired Student t-test".to_owned(),
            };
            format!(
                "each algorithm is compared with the baseline (the first algorithm unless the \
                 spec names one) by {test} over the test queries of all folds pooled, and the \
                 p-values of one dataset and metric are corrected for the number of algorithms \
                 compared with Holm's step-down method"
            )
        };
        format!(
            "**Significance.** Algorithms are lettered a, b, c, ... in table order; {how}. A \
             superscript letter on a value means the algorithm is significantly better than the \
             algorithm of that letter at alpha = {} (corrected), so a loss against the baseline \
             shows as the algorithm's letter on the baseline's value. Unmarked differences are \
             within noise. When all paired differences are zero, p = 1. The table after each \
             dataset gives the mean per-query difference from the baseline with its 95% \
             confidence interval (t distribution), Cohen's d on the paired differences and the \
             Holm-corrected p-value.\n\n",
            self.alpha
        )
    }

    /// The letters legend and the difference table of a dataset (empty if untested).
    pub fn dataset_section(&self, dataset: &str, metrics: &[Metric]) -> String {
        let (Some(order), Some(base)) = (self.order.get(dataset), self.baselines.get(dataset)) else {
            return String::new();
        };
        let esc = crate::markdown::escape_markdown;
        let legend: Vec<String> =
            order.iter().enumerate().map(|(i, a)| format!("{} = {}", letter(i), esc(a))).collect();
        let mut md = format!("Letters: {}. Baseline: {}.\n\n", legend.join(", "), esc(base));
        let mut header = vec!["Algorithm".to_owned()];
        for m in metrics {
            header.push(format!("Δ {} [95% CI]", crate::markdown::header_label(*m)));
            header.push("d".into());
            header.push("p (Holm)".into());
        }
        let mut b = tabled::builder::Builder::default();
        b.push_record(header);
        for a in order.iter().filter(|a| *a != base) {
            let mut r = vec![esc(a)];
            for m in metrics {
                let name = m.to_string();
                match self
                    .vs_baseline
                    .iter()
                    .find(|c| c.dataset == dataset && &c.algorithm == a && c.metric == name)
                {
                    Some(c) => {
                        r.push(format!("{:+.4} [{:+.4}, {:+.4}]", c.mean_diff, c.ci_low, c.ci_high));
                        r.push(format!("{:.2}", c.cohens_d));
                        r.push(format_p(c.p_holm));
                    }
                    None => r.extend(["-".to_owned(), "-".to_owned(), "-".to_owned()]),
                }
            }
            b.push_record(r);
        }
        let mut t = b.build();
        t.with(tabled::settings::Style::markdown());
        md += &format!("Against the baseline ({}), per test query:\n\n{t}\n\n", esc(base));
        md
    }
}

/// A p-value for tables: 4 decimals, or `<0.0001`.
pub fn format_p(p: f64) -> String {
    if p < 1e-4 { "<0.0001".into() } else { format!("{p:.4}") }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn frame(values: &[(&str, u32, &str, f64)]) -> DataFrame {
        let n = values.len();
        let mut cols = vec![
            Column::new("dataset".into(), vec!["D"; n]),
            Column::new("fold".into(), values.iter().map(|v| v.1).collect::<Vec<_>>()),
            Column::new("query".into(), values.iter().map(|v| v.2).collect::<Vec<_>>()),
            Column::new("algorithm".into(), values.iter().map(|v| v.0).collect::<Vec<_>>()),
        ];
        for m in METRICS {
            cols.push(Column::new(column(m), values.iter().map(|v| v.3).collect::<Vec<_>>()));
        }
        DataFrame::new(n, cols).unwrap()
    }

    #[test]
    fn identical_algorithms_give_p_one_and_no_marks() {
        let mut v = Vec::new();
        for a in ["x", "y"] {
            for (i, q) in ["1", "2", "3", "4"].iter().enumerate() {
                v.push((a, 1 + (i as u32 % 2), *q, 0.1 * i as f64));
            }
        }
        let s = from_query_frame(&frame(&v), &SignificanceConfig::default()).unwrap();
        assert_eq!(s.vs_baseline.len(), METRICS.len());
        assert!(s.vs_baseline.iter().all(|c| c.p_value == 1.0 && c.p_holm == 1.0));
        assert!(s.beats.is_empty());
        assert_eq!(s.marks("D", "x", Metric::Map), "");
    }

    #[test]
    fn wins_and_losses_are_marked_on_the_winner() {
        let mut v = Vec::new();
        for i in 0..40u32 {
            let q = format!("q{i}");
            let base = 0.3 + 0.01 * (i % 5) as f64;
            let q: &'static str = Box::leak(q.into_boxed_str());
            v.push(("base", 1, q, base));
            v.push(("better", 1, q, base + 0.2 + 0.01 * (i % 3) as f64));
            v.push(("worse", 1, q, base - 0.2 - 0.01 * (i % 3) as f64));
        }
        for cfg in [
            SignificanceConfig::default(),
            SignificanceConfig { test: PairedTest::Randomization, permutations: 999, ..Default::default() },
            SignificanceConfig { all_pairs: true, permutations: 999, ..Default::default() },
        ] {
            let s = from_query_frame(&frame(&v), &cfg).unwrap();
            assert_eq!(
                s.marks("D", "better", Metric::Map),
                if cfg.all_pairs { "<sup>ac</sup>" } else { "<sup>a</sup>" }
            );
            assert_eq!(s.marks("D", "base", Metric::Map), "<sup>c</sup>");
            assert_eq!(s.marks("D", "worse", Metric::Map), "");
            let md = s.dataset_section("D", &[Metric::Map]);
            assert!(md.contains("a = base, b = better, c = worse"), "{md}");
        }
    }

    #[test]
    fn randomised_p_values_do_not_depend_on_the_names_shown() {
        // Same columns, other labels (and another order of the non-baseline rows): the
        // randomised tests are seeded by the values compared, so every p-value is the same.
        let rows = |names: [&'static str; 3]| {
            let mut v = Vec::new();
            for i in 0..30u32 {
                let q: &'static str = Box::leak(format!("q{i}").into_boxed_str());
                let base = 0.3 + 0.01 * (i % 7) as f64;
                v.push((names[0], 1, q, base));
                v.push((names[1], 1, q, base + 0.02 * ((i % 5) as f64 - 1.5)));
                v.push((names[2], 1, q, base + 0.03 * ((i % 3) as f64 - 0.8)));
            }
            v
        };
        let cfg = SignificanceConfig {
            test: PairedTest::Randomization,
            all_pairs: true,
            permutations: 499,
            ..Default::default()
        };
        let a = from_query_frame(&frame(&rows(["base", "one", "two"])), &cfg).unwrap();
        let b = from_query_frame(&frame(&rows(["a-base", "renamed", "another"])), &cfg).unwrap();
        let ps = |s: &Significance| s.vs_baseline.iter().map(|c| (c.p_value, c.p_holm)).collect::<Vec<_>>();
        assert_eq!(ps(&a), ps(&b));
        assert!(ps(&a).iter().any(|(p, _)| *p < 1.0 && *p > 0.0), "{:?}", ps(&a));
    }

    #[test]
    fn letters_go_past_z() {
        assert_eq!(
            (letter(0), letter(25), letter(26), letter(27)),
            ("a".into(), "z".into(), "aa".into(), "ab".into())
        );
    }
}
