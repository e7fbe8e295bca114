//! Per-fold rows -> per dataset and algorithm mean and standard deviation, with polars.

#![allow(deprecated)] // polars' eager group-by aggregations: all this crate needs, without the lazy engine.

use polars::prelude::*;

use crate::ReportError;

/// The metric columns of the comparison tables.
pub const METRICS: [&str; 8] = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "p@1", "p@3", "p@10", "map"];

/// One fold of one algorithm on one dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldRow {
    /// Dataset.
    pub dataset: String,
    /// Algorithm label.
    pub algorithm: String,
    /// Fold.
    pub fold: u32,
    /// Values of [`METRICS`].
    pub metrics: [f64; 8],
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

/// The fold rows as a polars frame (one chunk, input order).
pub fn frame(rows: &[FoldRow]) -> PolarsResult<DataFrame> {
    let mut cols = vec![
        Column::new("dataset".into(), rows.iter().map(|r| r.dataset.as_str()).collect::<Vec<_>>()),
        Column::new("algorithm".into(), rows.iter().map(|r| r.algorithm.as_str()).collect::<Vec<_>>()),
        Column::new("fold".into(), rows.iter().map(|r| r.fold).collect::<Vec<_>>()),
    ];
    for (j, m) in METRICS.iter().enumerate() {
        cols.push(Column::new((*m).into(), rows.iter().map(|r| r.metrics[j]).collect::<Vec<_>>()));
    }
    DataFrame::new(rows.len(), cols)
}

/// Groups by (dataset, algorithm) in first-appearance order and aggregates every metric.
pub fn aggregate(rows: &[FoldRow]) -> Result<Vec<Aggregate>, ReportError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let df = frame(rows)?;
    let keys = ["dataset", "algorithm"];
    let mean = df.group_by_stable(keys)?.select(METRICS).mean()?;
    let std = df.group_by_stable(keys)?.select(METRICS).std(1)?;
    let count = df.group_by_stable(keys)?.select(["fold"]).count()?;

    let text = |frame: &DataFrame, col: &str, i: usize| -> Result<String, ReportError> {
        Ok(frame.column(col)?.str()?.get(i).unwrap_or_default().to_owned())
    };
    let number = |frame: &DataFrame, col: &str, i: usize| -> Result<f64, ReportError> {
        Ok(frame.column(col)?.f64()?.get(i).unwrap_or(0.0))
    };
    let mut out = Vec::with_capacity(mean.height());
    for i in 0..mean.height() {
        let mut m = [0.0; 8];
        let mut s = [0.0; 8];
        for (j, name) in METRICS.iter().enumerate() {
            m[j] = number(&mean, &format!("{name}_mean"), i)?;
            s[j] = number(&std, &format!("{name}_agg_std"), i)?;
        }
        let folds = count.column("fold_count")?.cast(&DataType::UInt64)?.u64()?.get(i).unwrap_or(0) as usize;
        out.push(Aggregate {
            dataset: text(&mean, "dataset", i)?,
            algorithm: text(&mean, "algorithm", i)?,
            folds,
            mean: m,
            std: s,
        });
    }
    Ok(out)
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
        assert_eq!(aggs[1].folds, 1);
        let csv = to_csv(&aggs, &[]).unwrap();
        assert!(csv.starts_with("dataset,algorithm,folds,ndcg@1_mean,ndcg@1_std"), "{csv}");
        assert_eq!(csv.lines().count(), 3);
    }
}
