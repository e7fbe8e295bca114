//! The per-query frame on disk: `per_query.parquet` (typed, for analyses in polars, pandas or
//! R) and `per_query.csv` (for everything else), written atomically.

use std::path::{Path, PathBuf};

use polars::prelude::DataFrame;
use polars_io::SerWriter;
use polars_io::csv::write::CsvWriter;

use crate::FrameError;

/// The frame as CSV bytes (header, one row per query).
pub fn to_csv(frame: &DataFrame) -> Result<Vec<u8>, FrameError> {
    let mut df = frame.clone();
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(true).finish(&mut df)?;
    Ok(buf)
}

/// The frame as parquet bytes: one row group, uncompressed, no statistics.
///
/// Written with polars-parquet directly rather than polars-io's writer, whose `parquet`
/// feature compiles five compression codecs (two of them C libraries) that a file of a few
/// megabytes does not need.
#[cfg(feature = "parquet")]
pub fn to_parquet(frame: &DataFrame) -> Result<Vec<u8>, FrameError> {
    use polars::prelude::{CompatLevel, SchemaExt};
    use polars_parquet::write::{
        CompressionOptions, FileWriter, StatisticsOptions, Version, WriteOptions, get_dtype_encoding,
        row_group_iter, to_parquet_schema,
    };
    let mut df = frame.clone();
    df.rechunk_mut();
    let options = WriteOptions {
        statistics: StatisticsOptions::empty(),
        version: Version::V2,
        compression: CompressionOptions::Uncompressed,
        data_page_size: None,
    };
    let schema = df.schema().to_arrow(CompatLevel::newest());
    let fields = to_parquet_schema(&schema)?.fields().to_vec();
    let encodings: Vec<_> = schema.iter_values().map(|f| get_dtype_encoding(&f.dtype)).collect();
    let mut writer = FileWriter::try_new(Vec::new(), schema, options)?;
    for batch in df.iter_chunks(CompatLevel::newest(), false) {
        let rows = batch.len() as u64;
        writer.write(rows, row_group_iter(batch, encodings.clone().into(), fields.clone(), options))?;
    }
    writer.end(None)?;
    Ok(writer.into_inner())
}

/// The frame with the strata columns appended ([`crate::strata`]; one entry per row, in
/// the frame's order): `relevant` (the query's relevant documents), `ideal_dcg`,
/// `relevant_stratum` and `ideal_dcg_stratum` (bins 1-3; null for a query without a relevant
/// document) and `vs_baseline` (`win`, `tie` or `loss` of NDCG@10 against the report's
/// baseline; null on the baseline's own rows and on queries left out). The existing columns
/// are unchanged.
pub fn with_strata(
    mut frame: DataFrame,
    cols: &crate::strata::QueryColumns,
) -> Result<DataFrame, FrameError> {
    use polars::prelude::Column;
    if cols.relevant.len() != frame.height() {
        return Err(FrameError::Polars(format!(
            "strata columns of {} rows for a frame of {}",
            cols.relevant.len(),
            frame.height()
        )));
    }
    for c in [
        Column::new("relevant".into(), &cols.relevant),
        Column::new("ideal_dcg".into(), &cols.ideal_dcg),
        Column::new("relevant_stratum".into(), &cols.relevant_stratum),
        Column::new("ideal_dcg_stratum".into(), &cols.ideal_dcg_stratum),
        Column::new("vs_baseline".into(), &cols.vs_baseline),
    ] {
        frame.with_column(c)?;
    }
    Ok(frame)
}

/// Writes `<dir>/per_query.parquet` (with the `parquet` feature) and `<dir>/per_query.csv`.
pub fn write(frame: &DataFrame, dir: &Path) -> Result<Vec<PathBuf>, FrameError> {
    std::fs::create_dir_all(dir).map_err(|e| FrameError::io(dir, e))?;
    let mut written = Vec::new();
    let files = vec![
        #[cfg(feature = "parquet")]
        ("per_query.parquet", to_parquet(frame)?),
        ("per_query.csv", to_csv(frame)?),
    ];
    for (file, bytes) in files {
        let path = dir.join(file);
        ltr_runner::store::write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use polars::prelude::*;

    use super::*;

    /// Reads a parquet file back with polars-parquet's decoder (one series per column, every
    /// row group appended).
    #[cfg(feature = "parquet")]
    fn read_parquet(bytes: &[u8]) -> DataFrame {
        use polars_parquet::read::{
            BasicDecompressor, PageReader, column_iter_to_arrays, infer_schema, read_metadata,
        };
        let meta = read_metadata(&mut std::io::Cursor::new(bytes)).unwrap();
        let schema = infer_schema(&meta).unwrap();
        let mut cols = Vec::new();
        for field in schema.iter_values() {
            let mut arrays = Vec::new();
            for rg in &meta.row_groups {
                let (decompressors, types): (Vec<_>, Vec<_>) = rg
                    .columns_under_root_iter(&field.name)
                    .unwrap()
                    .map(|c| {
                        let r = c.byte_range();
                        let chunk = bytes[r.start as usize..r.end as usize].to_vec();
                        let pages =
                            PageReader::new(std::io::Cursor::new(chunk.into()), c, vec![], usize::MAX);
                        (BasicDecompressor::new(pages, vec![]), &c.descriptor().descriptor.primitive_type)
                    })
                    .unzip();
                arrays.extend(column_iter_to_arrays(decompressors, types, field.clone(), None).unwrap().0);
            }
            cols.push(Column::from(Series::try_from((field, arrays)).unwrap()));
        }
        DataFrame::new(meta.num_rows, cols).unwrap()
    }

    #[test]
    fn parquet_and_csv_read_back() {
        let df = DataFrame::new(
            3,
            vec![
                Column::new("dataset".into(), ["D", "D", "E"]),
                Column::new("fold".into(), [1u32, 2, 1]),
                Column::new("counted".into(), [true, false, true]),
                Column::new("ndcg@10".into(), [0.5f64, 0.25, 0.1 + 0.2]),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = write(&df, dir.path()).unwrap();
        let csv = std::fs::read_to_string(files.last().unwrap()).unwrap();
        assert_eq!(
            csv,
            "dataset,fold,counted,ndcg@10\nD,1,true,0.5\nD,2,false,0.25\nE,1,true,0.30000000000000004\n"
        );
        #[cfg(feature = "parquet")]
        {
            assert!(files[0].ends_with("per_query.parquet"));
            let back = read_parquet(&std::fs::read(&files[0]).unwrap());
            assert!(back.equals(&df), "{back}");
            // The CSV of what the parquet holds is the CSV written beside it.
            assert_eq!(String::from_utf8(to_csv(&back).unwrap()).unwrap(), csv);
        }
    }
}
