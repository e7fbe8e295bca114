//! Cells as polars frames, and their aggregation.
//!
//! * [`query_frame`]: one row per test query of every cell (dataset, fold, query id,
//!   algorithm, whether the query counts, its place in the official script's order) with each
//!   report metric. This is the one source of every number in a report.
//! * [`fold_rows`]: the query frame reduced to one row per cell (dataset, algorithm, fold):
//!   each metric's mean over the counted queries, summed in the script's order, so the fold
//!   means equal the official scripts' (and the cells' stored summaries) to the last bit.
//! * [`cell_frame`]: those rows as a frame.
//! * [`aggregate`]: the cell frame grouped by (dataset, algorithm) in first-appearance order:
//!   fold count, mean and sample standard deviation of every metric.

use ltr_metrics::Metric;
use ltr_runner::store::CellRecord;
use polars::prelude::*;
use polars_io::SerWriter;
use polars_io::csv::write::CsvWriter;

use crate::FrameError;

/// The metric columns of the comparison tables.
pub const METRICS: [Metric; 8] = Metric::REPORT;

/// The metric columns of the per-query frame: the tables' and every NDCG@k up to 10 (for the
/// NDCG@k plot), NDCG first, then the further metrics (`ltr_report::further::FURTHER_METRICS`).
pub const FRAME_METRICS: [Metric; 18] = [
    Metric::Ndcg(1),
    Metric::Ndcg(2),
    Metric::Ndcg(3),
    Metric::Ndcg(4),
    Metric::Ndcg(5),
    Metric::Ndcg(6),
    Metric::Ndcg(7),
    Metric::Ndcg(8),
    Metric::Ndcg(9),
    Metric::Ndcg(10),
    Metric::Precision(1),
    Metric::Precision(3),
    Metric::Precision(10),
    Metric::Map,
    Metric::Err(10),
    Metric::Dcg(10),
    Metric::Recall(10),
    Metric::Mrr,
];

/// One fold of one algorithm on one dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Fold.
    pub fold: u32,
    /// Values of [`METRICS`] (NaN: not evaluated).
    pub metrics: [f64; 8],
}

impl FoldRow {
    /// The row of a cell: its test means.
    pub fn of(cell: &CellRecord) -> Self {
        Self {
            dataset: cell.dataset.clone(),
            algorithm: cell.label.clone(),
            fold: cell.fold,
            metrics: METRICS.map(|m| m.of_summary(&cell.test).unwrap_or(f64::NAN)),
        }
    }
}

/// Mean and sample standard deviation over folds.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Folds averaged.
    pub folds: usize,
    /// Means of [`METRICS`].
    pub mean: [f64; 8],
    /// Sample standard deviations (n - 1) of [`METRICS`]; 0 for a single fold.
    pub std: [f64; 8],
}

impl Aggregate {
    /// The mean of `metric` (NaN if it is not a report column).
    pub fn mean_of(&self, metric: Metric) -> f64 {
        METRICS.iter().position(|m| *m == metric).map_or(f64::NAN, |j| self.mean[j])
    }
}

/// Mean and sample standard deviation (n - 1; 0 for one value), summed in the given order:
/// the aggregation of [`aggregate`] for values outside a frame.
pub fn mean_and_std(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count() as f64;
    let mean = values.clone().sum::<f64>() / n;
    let std =
        if n > 1.0 { (values.map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    (mean, std)
}

/// The column name of a metric in every frame (`ndcg@10`).
pub fn column(metric: Metric) -> PlSmallStr {
    metric.to_string().into()
}

/// One row per cell: `dataset`, `algorithm`, `fold` and one column per report metric.
pub fn cell_frame(rows: &[FoldRow]) -> PolarsResult<DataFrame> {
    let mut cols = vec![
        Column::new("dataset".into(), rows.iter().map(|r| r.dataset.as_str()).collect::<Vec<_>>()),
        Column::new("algorithm".into(), rows.iter().map(|r| r.algorithm.as_str()).collect::<Vec<_>>()),
        Column::new("fold".into(), rows.iter().map(|r| r.fold).collect::<Vec<_>>()),
    ];
    for (j, m) in METRICS.iter().enumerate() {
        cols.push(Column::new(column(*m), rows.iter().map(|r| r.metrics[j]).collect::<Vec<_>>()));
    }
    DataFrame::new(rows.len(), cols)
}

/// One row per test query of every cell, in cell order then the evaluation's (file) query
/// order: `dataset`, `fold`, `query` (its id), `algorithm`, `counted` (whether the query
/// counts in the means under the cell's convention: false only for a query without relevant
/// documents under a convention that skips them), `script_order` (the query's place, from 0,
/// in the order the official scripts sum a file's queries: ascending numeric id) and one
/// column per report metric (NaN: not evaluated).
pub fn query_frame(cells: &[&CellRecord]) -> PolarsResult<DataFrame> {
    let n: usize = cells.iter().map(|c| c.per_query.len()).sum();
    let (mut dataset, mut fold, mut query, mut algorithm) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut counted, mut order) = (Vec::with_capacity(n), vec![0u32; n]);
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(n); FRAME_METRICS.len()];
    for c in cells {
        let start = dataset.len();
        for (place, i) in ltr_metrics::script_order(&c.per_query).into_iter().enumerate() {
            // A test file's query count is far below u32::MAX (it was held in memory).
            order[start + i] = u32::try_from(place).unwrap_or(u32::MAX);
        }
        for q in &c.per_query {
            dataset.push(c.dataset.as_str());
            fold.push(c.fold);
            query.push(q.qid.as_str());
            algorithm.push(c.label.as_str());
            counted.push(q.counted);
            for (j, m) in FRAME_METRICS.iter().enumerate() {
                values[j].push(m.of_query(q).unwrap_or(f64::NAN));
            }
        }
    }
    let mut cols = vec![
        Column::new("dataset".into(), dataset),
        Column::new("fold".into(), fold),
        Column::new("query".into(), query),
        Column::new("algorithm".into(), algorithm),
        Column::new("counted".into(), counted),
        Column::new("script_order".into(), order),
    ];
    for (m, v) in FRAME_METRICS.iter().zip(values) {
        cols.push(Column::new(column(*m), v));
    }
    DataFrame::new(n, cols)
}

/// The fold means of every cell from a [`query_frame`] for the report's [`METRICS`]: one row
/// per (dataset, algorithm, fold) in first-appearance order ([`fold_means`]).
pub fn fold_rows(frame: &DataFrame) -> Result<Vec<FoldRow>, FrameError> {
    Ok(fold_means(frame, &METRICS)?
        .into_iter()
        .map(|(dataset, algorithm, fold, v)| {
            let mut metrics = [f64::NAN; 8];
            for (m, x) in metrics.iter_mut().zip(v) {
                *m = x;
            }
            FoldRow { dataset, algorithm, fold, metrics }
        })
        .collect())
}

/// The fold means of `metrics` (columns of the frame) for every cell of a [`query_frame`]:
/// (dataset, algorithm, fold, one mean per metric) in first-appearance order, each the mean
/// over the cell's counted queries (0 when none counts, as the scripts print).
///
/// The queries of each cell are put in the script's order and summed left to right, because
/// the scripts sum sequentially and any other order (polars' float sum adds in SIMD stripes)
/// differs in the last bits.
pub fn fold_means(frame: &DataFrame, metrics: &[Metric]) -> Result<Vec<FoldMeans>, FrameError> {
    if frame.height() == 0 {
        return Ok(Vec::new());
    }
    let datasets = frame.column("dataset")?.str()?;
    let algorithms = frame.column("algorithm")?.str()?;
    let folds = frame.column("fold")?.cast(&DataType::UInt32)?;
    let folds = folds.u32()?;
    let counted = frame.column("counted")?.bool()?;
    let order = frame.column("script_order")?.cast(&DataType::UInt32)?;
    let order = order.u32()?;
    let values = metrics
        .iter()
        .map(|m| Ok(frame.column(&column(*m))?.f64()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect()))
        .collect::<Result<Vec<Vec<f64>>, FrameError>>()?;
    let keys = (0..frame.height()).map(|i| {
        (
            datasets.get(i).unwrap_or_default(),
            algorithms.get(i).unwrap_or_default(),
            folds.get(i).unwrap_or(0),
        )
    });
    let mut rows = Vec::new();
    for (key, mut members) in groups_in_order(keys) {
        // Stable: equal places keep the frame's order, as a stable sort by the place would.
        members.sort_by_key(|&i| order.get(i).unwrap_or(u32::MAX));
        members.retain(|&i| counted.get(i).unwrap_or(false));
        let means = values
            .iter()
            .map(|v| {
                let sum = members.iter().fold(0.0, |s, &i| s + v[i]);
                if members.is_empty() { 0.0 } else { sum / members.len() as f64 }
            })
            .collect();
        rows.push((key.0.to_owned(), key.1.to_owned(), key.2, means));
    }
    Ok(rows)
}

/// The rows of each distinct key, the groups in the order their keys first appear.
fn groups_in_order<K: Eq + std::hash::Hash + Clone>(keys: impl Iterator<Item = K>) -> Vec<(K, Vec<usize>)> {
    let mut index = std::collections::HashMap::new();
    let mut groups: Vec<(K, Vec<usize>)> = Vec::new();
    for (i, k) in keys.enumerate() {
        let g = *index.entry(k.clone()).or_insert_with(|| {
            groups.push((k, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    groups
}

/// (dataset, algorithm, fold, means) of one cell ([`fold_means`]).
pub type FoldMeans = (String, String, u32, Vec<f64>);

/// Groups the cell rows by (dataset, algorithm) in first-appearance order and aggregates
/// every metric: fold count, mean, sample standard deviation.
///
/// The arithmetic is polars' group aggregation's, so the reports' numbers did not move when
/// the lazy engine left the build: the mean is a Kahan-compensated sum over n (one value is
/// itself), the variance Welford's online update with n - 1 in the denominator.
pub fn aggregate(rows: &[FoldRow]) -> Result<Vec<Aggregate>, FrameError> {
    let groups = groups_in_order(rows.iter().map(|r| (r.dataset.as_str(), r.algorithm.as_str())));
    Ok(groups
        .into_iter()
        .map(|((dataset, algorithm), members)| {
            let mut mean = [0.0; 8];
            let mut std = [0.0; 8];
            for j in 0..METRICS.len() {
                let values = || members.iter().map(|&i| rows[i].metrics[j]);
                mean[j] = compensated_mean(values());
                // A single fold has no sample deviation: nothing varies.
                std[j] = sample_variance(values()).map_or(0.0, f64::sqrt);
            }
            Aggregate {
                dataset: dataset.to_owned(),
                algorithm: algorithm.to_owned(),
                folds: members.len(),
                mean,
                std,
            }
        })
        .collect())
}

/// Kahan-compensated mean (0 for no values); the error term is only kept while finite, so an
/// infinite value cannot turn the sum into NaN through inf - inf.
fn compensated_mean(values: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = values.len();
    let (mut sum, mut err) = (0.0f64, 0.0f64);
    let mut only = 0.0;
    for v in values {
        only = v;
        let y = v - err;
        let next = sum + y;
        let e = (next - sum) - y;
        sum = next;
        if e.is_finite() {
            err = e;
        }
    }
    match n {
        0 => 0.0,
        1 => only,
        _ => sum / n as f64,
    }
}

/// Welford's online sample variance (n - 1); `None` below two values.
fn sample_variance(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut m2, mut mean, mut count) = (0.0f64, 0.0f64, 0u64);
    for v in values {
        count += 1;
        let d1 = v - mean;
        let next = d1 / count as f64 + mean;
        m2 += d1 * (v - next);
        mean = next;
    }
    (count > 1).then(|| m2 / (count as f64 - 1.0))
}

/// The aggregates as CSV (header, one row per dataset and algorithm), written by polars.
pub fn to_csv(aggs: &[Aggregate], extra: &[(&str, Vec<String>)]) -> Result<String, FrameError> {
    let mut cols = vec![
        Column::new("dataset".into(), aggs.iter().map(|a| a.dataset.as_str()).collect::<Vec<_>>()),
        Column::new("algorithm".into(), aggs.iter().map(|a| a.algorithm.as_str()).collect::<Vec<_>>()),
    ];
    for (name, values) in extra {
        cols.push(Column::new((*name).into(), values.clone()));
    }
    cols.push(Column::new("folds".into(), aggs.iter().map(|a| a.folds as u64).collect::<Vec<_>>()));
    for (j, m) in METRICS.iter().enumerate() {
        cols.push(Column::new(
            format!("{m}_mean").into(),
            aggs.iter().map(|a| a.mean[j]).collect::<Vec<_>>(),
        ));
        cols.push(Column::new(format!("{m}_std").into(), aggs.iter().map(|a| a.std[j]).collect::<Vec<_>>()));
    }
    let mut df = DataFrame::new(aggs.len(), cols)?;
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(true).finish(&mut df)?;
    String::from_utf8(buf).map_err(|e| FrameError::Polars(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn row(d: &str, a: &str, fold: u32, v: f64) -> FoldRow {
        FoldRow { dataset: d.into(), algorithm: a.into(), fold, metrics: [v; 8] }
    }

    #[test]
    fn means_and_sample_std_in_first_appearance_order() {
        let rows =
            vec![row("B", "x", 1, 1.0), row("B", "x", 2, 3.0), row("A", "y", 1, 0.5), row("B", "x", 3, 2.0)];
        let aggs = aggregate(&rows).unwrap();
        assert_eq!(aggs.len(), 2);
        assert_eq!((aggs[0].dataset.as_str(), aggs[0].algorithm.as_str(), aggs[0].folds), ("B", "x", 3));
        assert!((aggs[0].mean[7] - 2.0).abs() < 1e-15);
        assert!((aggs[0].std[7] - 1.0).abs() < 1e-15);
        assert_eq!(aggs[0].mean_of(Metric::Map), aggs[0].mean[7]);
        assert_eq!((aggs[1].folds, aggs[1].std[0]), (1, 0.0));
        let csv = to_csv(&aggs, &[]).unwrap();
        assert!(csv.starts_with("dataset,algorithm,folds,ndcg@1_mean,ndcg@1_std"), "{csv}");
        assert_eq!(csv.lines().count(), 3);
    }

    #[test]
    fn mean_and_std_by_hand() {
        // 1, 2, 4: mean 7/3; squared deviations 16/9, 1/9, 25/9 -> variance 42/18 = 7/3.
        let (m, s) = mean_and_std([1.0, 2.0, 4.0].into_iter());
        assert_eq!(m, 7.0 / 3.0);
        assert!((s - (7.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert_eq!(mean_and_std([0.5].into_iter()), (0.5, 0.0));
    }

    #[test]
    fn the_aggregation_is_the_textbook_mean_and_sample_std() {
        let values = [0.4486982041585071, 0.3467645435311651, 0.5012, 0.47, 0.43];
        let rows: Vec<FoldRow> =
            values.iter().enumerate().map(|(i, v)| row("D", "a", i as u32 + 1, *v)).collect();
        let agg = &aggregate(&rows).unwrap()[0];
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!((agg.mean[0] - mean).abs() < 1e-15 && (agg.std[0] - var.sqrt()).abs() < 1e-15);
    }
}
