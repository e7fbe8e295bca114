//! Whether a gap between algorithms is larger than what a change of seed alone moves.
//!
//! With a spec's `seeds = N` above 1, the protocol fits the selected grid point of every cell
//! again with N - 1 further seeds (derived from the point's own) and records their test means
//! ([`ltr_harness::protocol::SeedRuns`]); algorithms that draw nothing from their seed are not
//! refitted and are marked deterministic. Here those runs are set beside the spread over
//! folds the comparison tables show: per dataset and algorithm, the mean and standard
//! deviation over folds (the tables' own numbers), the standard deviation over the seeds of
//! each fold averaged over the folds, and the ratio of the two.

use ltr_metrics::Metric;
use ltr_runner::store::CellRecord;
use serde::Serialize;

use crate::aggregate::{Aggregate, mean_and_std};
use crate::markdown::{escape_markdown, header_label};

/// The metrics whose spread over seeds is reported.
pub const SEED_METRICS: [Metric; 2] = [Metric::Ndcg(10), Metric::Map];

/// One metric of one algorithm on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedMetric {
    /// Metric (`ndcg@10`, `map`).
    pub metric: Metric,
    /// Mean over folds of the first seed's fold means (the tables' mean).
    pub mean: f64,
    /// Sample standard deviation over folds (the tables' `±`; 0 for one fold).
    pub std_folds: f64,
    /// Per fold, the sample standard deviation over its seeds; then the mean over folds
    /// (exactly 0 for a deterministic algorithm).
    pub std_seeds: f64,
    /// `std_seeds / std_folds` (NaN, written `null`, when `std_folds` is 0).
    pub ratio: f64,
}

/// The spread over seeds of one algorithm on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Seeds per fold, the cell's own included (the spec's `seeds`).
    pub seeds: u32,
    /// Whether the algorithm draws nothing from its seed (not refitted: every seed gives the
    /// cell's model).
    pub deterministic: bool,
    /// Folds with seed runs.
    pub folds: usize,
    /// NDCG@10, then MAP ([`SEED_METRICS`]).
    pub metrics: Vec<SeedMetric>,
}

/// The seed spread of every (dataset, algorithm) of `aggs` (report order) whose cells hold
/// seed runs; empty when no cell does (a run with one seed).
pub fn compute(cells: &[&CellRecord], aggs: &[Aggregate]) -> Vec<SeedRow> {
    let mut out = Vec::new();
    for a in aggs {
        let runs: Vec<(&CellRecord, &ltr_harness::protocol::SeedRuns)> = cells
            .iter()
            .filter(|c| c.dataset == a.dataset && c.label == a.algorithm)
            .filter_map(|c| c.seed_runs.as_ref().filter(|r| r.seeds > 1).map(|r| (*c, r)))
            .collect();
        if runs.is_empty() {
            continue;
        }
        let deterministic = runs.iter().all(|(_, r)| !r.randomised);
        let metrics = SEED_METRICS
            .iter()
            .map(|&m| {
                let per_fold = runs.iter().map(|(c, r)| {
                    if !r.randomised {
                        return 0.0;
                    }
                    let first = m.of_summary(&c.test).unwrap_or(f64::NAN);
                    let further = r.runs.iter().filter_map(|s| s.test.as_ref());
                    let values =
                        std::iter::once(first).chain(further.map(|t| m.of_summary(t).unwrap_or(f64::NAN)));
                    mean_and_std(values.collect::<Vec<_>>().into_iter()).1
                });
                let (std_seeds, _) = mean_and_std(per_fold.collect::<Vec<_>>().into_iter());
                let (mean, std_folds) = (a.mean_of(m), std_of(a, m));
                let ratio = if std_folds > 0.0 { std_seeds / std_folds } else { f64::NAN };
                SeedMetric { metric: m, mean, std_folds, std_seeds, ratio }
            })
            .collect();
        out.push(SeedRow {
            dataset: a.dataset.clone(),
            algorithm: a.algorithm.clone(),
            seeds: runs.iter().map(|(_, r)| r.seeds).max().unwrap_or(1),
            deterministic,
            folds: runs.len(),
            metrics,
        });
    }
    out
}

/// The tables' standard deviation over folds of `metric`.
fn std_of(a: &Aggregate, metric: Metric) -> f64 {
    crate::aggregate::METRICS.iter().position(|m| *m == metric).map_or(f64::NAN, |j| a.std[j])
}

/// A number with four decimals, `-` when undefined.
fn fmt4(x: f64) -> String {
    if x.is_nan() { "-".into() } else { format!("{x:.4}") }
}

/// The "Seed sensitivity" section (`##`), empty when `rows` is.
pub fn section(rows: &[SeedRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut md = "## Seed sensitivity\n\n".to_owned();
    md += "The selected model of every fold fitted again with further seeds derived from its own \
           (same data, same hyperparameters, nothing reselected; the tables' numbers are the \
           first seed's). Mean and σ folds: over folds, as in the tables. σ seeds: per fold, the \
           standard deviation over its seeds (sample, n − 1), then the mean of those over the \
           folds. Ratio: σ seeds / σ folds; near 1 or above, another seed moves a fold's number \
           as much as another fold does, so a gap between algorithms of that size can be seed \
           noise. Deterministic algorithms draw nothing from their seed and are not refitted: \
           their σ seeds is 0.\n\n";
    let mut header = vec!["Dataset".to_owned(), "Algorithm".to_owned(), "Seeds".to_owned()];
    for m in SEED_METRICS {
        let name = header_label(m);
        header.extend([
            name.clone(),
            format!("σ folds {name}"),
            format!("σ seeds {name}"),
            format!("Ratio {name}"),
        ]);
    }
    let mut b = tabled::builder::Builder::default();
    b.push_record(header);
    for r in rows {
        let mut line = vec![
            escape_markdown(&r.dataset),
            escape_markdown(&r.algorithm),
            if r.deterministic { "deterministic".to_owned() } else { r.seeds.to_string() },
        ];
        for m in &r.metrics {
            line.extend([fmt4(m.mean), fmt4(m.std_folds), fmt4(m.std_seeds), fmt4(m.ratio)]);
        }
        b.push_record(line);
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::markdown());
    md + &t.to_string() + "\n\n"
}
