//! The per-query frame on disk: `per_query.parquet` (typed, for analyses in polars, pandas or
//! R) and `per_query.csv` (for everything else), written atomically.

use std::path::{Path, PathBuf};

use polars::prelude::DataFrame;
use polars_io::SerWriter;
use polars_io::csv::write::CsvWriter;

use crate::ReportError;

/// The frame as CSV bytes (header, one row per query).
pub fn to_csv(frame: &DataFrame) -> Result<Vec<u8>, ReportError> {
    let mut df = frame.clone();
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(true).finish(&mut df)?;
    Ok(buf)
}

/// The frame as parquet bytes (polars' default compression).
#[cfg(feature = "parquet")]
pub fn to_parquet(frame: &DataFrame) -> Result<Vec<u8>, ReportError> {
    let mut df = frame.clone();
    let mut buf = Vec::new();
    polars_io::parquet::write::ParquetWriter::new(&mut buf).finish(&mut df)?;
    Ok(buf)
}

/// Writes `<dir>/per_query.parquet` (with the `parquet` feature) and `<dir>/per_query.csv`.
pub fn write(frame: &DataFrame, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportError::io(dir, e))?;
    let mut written = Vec::new();
    let files = vec![
        #[cfg(feature = "parquet")]
        ("per_query.parquet", to_parquet(frame)?),
        ("per_query.csv", to_csv(frame)?),
    ];
    for (file, bytes) in files {
        let path = dir.join(file);
        ltr_harness::store::write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use polars::prelude::*;

    use super::*;

    #[test]
    fn parquet_and_csv_read_back() {
        let df = DataFrame::new(
            2,
            vec![
                Column::new("dataset".into(), ["D", "D"]),
                Column::new("fold".into(), [1u32, 2]),
                Column::new("ndcg@10".into(), [0.5f64, 0.25]),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = write(&df, dir.path()).unwrap();
        #[cfg(feature = "parquet")]
        {
            use polars_io::SerReader;
            let file = std::fs::File::open(&files[0]).unwrap();
            let back = polars_io::parquet::read::ParquetReader::new(file).finish().unwrap();
            assert!(back.equals(&df));
        }
        let csv = std::fs::read_to_string(files.last().unwrap()).unwrap();
        assert_eq!(csv, "dataset,fold,ndcg@10\nD,1,0.5\nD,2,0.25\n");
    }
}
