//! Cells as polars frames, and their aggregation through the lazy API.
//!
//! * [`cell_frame`]: one row per cell (dataset, algorithm, fold) with each report metric of
//!   the fold's test means, as the official scripts compute them.
//! * [`query_frame`]: one row per test query of every cell (dataset, fold, query id,
//!   algorithm) with each report metric, for analyses across queries (significance tests,
//!   per-query wins) that the tables do not need.
//! * [`aggregate`]: the cell frame grouped by (dataset, algorithm) in first-appearance order:
//!   fold count, mean and sample standard deviation of every metric.

use ltr_harness::store::CellRecord;
use ltr_metrics::Metric;
use polars::prelude::*;
use polars_io::SerWriter;
use polars_io::csv::write::CsvWriter;

use crate::ReportError;

/// The metric columns of the comparison tables.
pub const METRICS: [Metric; 8] = Metric::REPORT;

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

/// One row per test query of every cell: `dataset`, `fold`, `query` (its id), `algorithm`
/// and one column per report metric, in cell order then the evaluation's query order.
pub fn query_frame(cells: &[&CellRecord]) -> PolarsResult<DataFrame> {
    let n: usize = cells.iter().map(|c| c.per_query.len()).sum();
    let (mut dataset, mut fold, mut query, mut algorithm) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(n); METRICS.len()];
    for c in cells {
        for q in &c.per_query {
            dataset.push(c.dataset.as_str());
            fold.push(c.fold);
            query.push(q.qid.as_str());
            algorithm.push(c.label.as_str());
            for (j, m) in METRICS.iter().enumerate() {
                values[j].push(m.of_query(q).unwrap_or(f64::NAN));
            }
        }
    }
    let mut cols = vec![
        Column::new("dataset".into(), dataset),
        Column::new("fold".into(), fold),
        Column::new("query".into(), query),
        Column::new("algorithm".into(), algorithm),
    ];
    for (m, v) in METRICS.iter().zip(values) {
        cols.push(Column::new(column(*m), v));
    }
    DataFrame::new(n, cols)
}

/// Groups the cell rows by (dataset, algorithm) in first-appearance order and aggregates
/// every metric: fold count, mean, sample standard deviation.
pub fn aggregate(rows: &[FoldRow]) -> Result<Vec<Aggregate>, ReportError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut aggs = vec![col("fold").len().alias("folds")];
    for m in METRICS {
        let name = column(m);
        aggs.push(col(name.clone()).mean().alias(format!("{name}_mean")));
        aggs.push(col(name.clone()).std(1).alias(format!("{name}_std")));
    }
    let out =
        cell_frame(rows)?.lazy().group_by_stable([col("dataset"), col("algorithm")]).agg(aggs).collect()?;

    let text = |name: &str, i: usize| -> Result<String, ReportError> {
        Ok(out.column(name)?.str()?.get(i).unwrap_or_default().to_owned())
    };
    let number = |name: &str, i: usize| -> Result<f64, ReportError> {
        // A null standard deviation (one fold) is 0: nothing varies.
        Ok(out.column(name)?.f64()?.get(i).unwrap_or(0.0))
    };
    let folds = out.column("folds")?.cast(&DataType::UInt64)?;
    let folds = folds.u64()?;
    let mut result = Vec::with_capacity(out.height());
    for i in 0..out.height() {
        let mut mean = [0.0; 8];
        let mut std = [0.0; 8];
        for (j, m) in METRICS.iter().enumerate() {
            mean[j] = number(&format!("{m}_mean"), i)?;
            std[j] = number(&format!("{m}_std"), i)?;
        }
        result.push(Aggregate {
            dataset: text("dataset", i)?,
            algorithm: text("algorithm", i)?,
            folds: folds.get(i).unwrap_or(0) as usize,
            mean,
            std,
        });
    }
    Ok(result)
}

/// The aggregates as CSV (header, one row per dataset and algorithm), written by polars.
pub fn to_csv(aggs: &[Aggregate], extra: &[(&str, Vec<String>)]) -> Result<String, ReportError> {
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
    String::from_utf8(buf).map_err(|e| ReportError::Polars(e.to_string()))
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
