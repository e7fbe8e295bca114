//! `ltr cells RESULTS [--dataset D] [--algorithm A] [--fold K] [--all] [--format F]`: which
//! cell of a result store is which dataset, fold and algorithm, with its selected parameters,
//! its validation and test value, and the paths of its model and scores; as JSON or CSV also
//! its model's seed and the `ltr train` command that fits that model again.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_data::resolved::DatasetStatus;
use ltr_runner::runner::RunRecord;
use ltr_runner::store::{CellCheck, CellRecord, ResultStore};
use serde::Serialize;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned table: the parameters that vary over the grid, short keys.
    Table,
    /// JSON: one object per cell, every parameter of the selected grid point, full keys.
    Json,
    /// CSV with a header row; the selected parameters as one JSON object per row.
    Csv,
}

/// Arguments of `ltr cells`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A result store (`results/letor3`), or a folder of them (`results`).
    results: PathBuf,
    /// Only this dataset (case-insensitive).
    #[arg(long)]
    dataset: Option<String>,
    /// Only this algorithm: a spec label or an algorithm id.
    #[arg(long)]
    algorithm: Option<String>,
    /// Only this fold.
    #[arg(long)]
    fold: Option<u32>,
    /// Every sound record in the store, not only the cells of its last run (older code or
    /// specs leave cells the last run did not use).
    #[arg(long)]
    all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

/// One listed cell.
#[derive(Debug, Serialize)]
struct Row {
    store: String,
    key: String,
    dataset: String,
    fold: u32,
    algorithm: String,
    id: String,
    params: serde_json::Value,
    /// The parameters that vary over the cell's grid, `key=value` (table only).
    #[serde(skip)]
    varied: String,
    metric: String,
    validation: f64,
    test: f64,
    model: String,
    scores: String,
    /// The seed the model was fitted with: the selected grid point's, derived from the
    /// run's master seed, the fold's files and the parameters.
    seed: Option<u64>,
    /// The `ltr train` command that fits the same model (without `--model`), when the run's
    /// data is at hand and flags say how it is read.
    train: Option<String>,
}

/// Runs `ltr cells`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for dir in super::stores_in(&args.results)? {
        let store = super::open_store(&dir)?;
        let run: Option<RunRecord> = store.load_json("run.json").ok();
        let datasets = run.as_ref().map_or(&[][..], |r| r.datasets.as_slice());
        let keys: Vec<String> = match &run {
            Some(r) if !args.all => r.cells.clone(),
            _ => store.record_keys()?.into_iter().collect(),
        };
        for key in keys {
            match store.check(&key) {
                CellCheck::Sound(record) if wanted(&args, &record) => {
                    rows.push(row(&store, &record, datasets, run.as_ref().map_or(0, |r| r.seed)))
                }
                CellCheck::Sound(_) => {}
                CellCheck::Missing => {
                    let name = run.as_ref().and_then(|r| {
                        r.cells.iter().position(|k| *k == key).and_then(|i| r.cell_names.get(i))
                    });
                    let name = name.map(|n| format!(" ({n})")).unwrap_or_default();
                    notes.push(format!(
                        "{}: cell {key}{name} of the last run is not in the store",
                        dir.display()
                    ));
                }
                CellCheck::Damaged(why) => {
                    notes.push(format!("{}: cell {key} is damaged: {why}", dir.display()))
                }
            }
        }
    }
    let text = match args.format {
        Format::Table => table(&rows),
        Format::Json => serde_json::to_string_pretty(&rows)? + "\n",
        Format::Csv => csv(&rows),
    };
    crate::write_stdout(text.as_bytes());
    for n in &notes {
        eprintln!("warning: {n} (`ltr run` computes it)");
    }
    if rows.is_empty() {
        eprintln!("no cell of {} matches", args.results.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn wanted(args: &Args, r: &CellRecord) -> bool {
    args.dataset.as_ref().is_none_or(|d| d.eq_ignore_ascii_case(&r.dataset))
        && args.algorithm.as_ref().is_none_or(|a| *a == r.label || *a == r.algorithm)
        && args.fold.is_none_or(|f| f == r.fold)
}

fn row(store: &ResultStore, r: &CellRecord, datasets: &[DatasetStatus], master_seed: u64) -> Row {
    let chosen = r.grid.get(r.chosen);
    let params = chosen.map(|g| g.config.params_json()).unwrap_or_default();
    let points: Vec<serde_json::Value> = r.grid.iter().map(|g| g.config.params_json()).collect();
    let varied: Vec<String> = ltr_report::varied_params(points)
        .iter()
        .filter_map(|k| params.get(k).map(|v| format!("{k}={v}")))
        .collect();
    let path = |p: PathBuf| p.display().to_string();
    Row {
        store: path(store.root().to_owned()),
        key: r.key.clone(),
        dataset: r.dataset.clone(),
        fold: r.fold,
        algorithm: r.label.clone(),
        id: r.algorithm.clone(),
        varied: if varied.is_empty() { "-".into() } else { varied.join(", ") },
        params,
        metric: r.validation.metric.to_string(),
        validation: chosen.map_or(f64::NAN, |g| g.vali),
        test: r.validation.metric.of_summary(&r.test).unwrap_or(f64::NAN),
        model: path(store.model_path(&r.key)),
        scores: path(store.scores_path(&r.key)),
        seed: super::train::model_seed(&store.model_path(&r.key)).ok(),
        train: super::train::cell_fit(store, r, datasets, master_seed)
            .ok()
            .and_then(|job| super::train::plain_command(&job).ok()),
    }
}

fn number(x: f64) -> String {
    if x.is_nan() { "-".into() } else { format!("{x:.4}") }
}

fn table(rows: &[Row]) -> String {
    let mut b = tabled::builder::Builder::default();
    b.push_record(
        ["key", "dataset", "fold", "algorithm", "selected", "metric", "vali", "test", "model", "scores"]
            .map(String::from),
    );
    for r in rows {
        let algorithm =
            if r.algorithm == r.id { r.id.clone() } else { format!("{} ({})", r.algorithm, r.id) };
        b.push_record([
            r.key[..r.key.len().min(12)].to_owned(),
            r.dataset.clone(),
            r.fold.to_string(),
            algorithm,
            r.varied.clone(),
            r.metric.clone(),
            number(r.validation),
            number(r.test),
            r.model.clone(),
            r.scores.clone(),
        ]);
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::blank());
    t.to_string() + "\n"
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

fn csv(rows: &[Row]) -> String {
    let mut out =
        "store,key,dataset,fold,algorithm,id,params,metric,validation,test,model,scores,seed,train\n"
            .to_owned();
    for r in rows {
        let cells = [
            field(&r.store),
            r.key.clone(),
            field(&r.dataset),
            r.fold.to_string(),
            field(&r.algorithm),
            r.id.clone(),
            field(&r.params.to_string()),
            r.metric.clone(),
            r.validation.to_string(),
            r.test.to_string(),
            field(&r.model),
            field(&r.scores),
            r.seed.map(|s| s.to_string()).unwrap_or_default(),
            field(r.train.as_deref().unwrap_or_default()),
        ];
        out += &cells.join(",");
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
    }
}
