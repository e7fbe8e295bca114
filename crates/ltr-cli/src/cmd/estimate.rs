//! `ltr estimate SPEC`: the predicted time of a spec before it runs, from every algorithm's
//! measured cost of one fit scaled to the spec's datasets, grids and budgets
//! ([`ltr_runner::estimate`]). A collection's datasets are priced from its manifest: nothing
//! is fetched or read.

use std::path::PathBuf;
use std::process::ExitCode;

use ltr_harness::spec::SpecLimits;
use ltr_runner::RunnerError;
use ltr_runner::estimate::{
    DatasetEstimate, DatasetShape, MAX_JOBS, SpecEstimate, manifest_shape, path_shape,
};

use crate::cmd::pipeline::{Pipeline, manifest_of};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table per dataset and the totals, for reading.
    Table,
    /// One JSON object, every number unrounded, for scripts.
    Json,
}

/// Arguments of `ltr estimate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment spec: a TOML file, or the name of a built-in one.
    spec: String,
    /// Only these datasets (comma-separated).
    #[arg(long, value_delimiter = ',')]
    datasets: Vec<String>,
    /// Only these algorithms (labels or ids, comma-separated).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Fits running at once, for the predicted wall time (each at the threads its cost was
    /// measured with).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_JOBS)))]
    jobs: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// A collection manifest file instead of the built-in one.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The most model fits the spec may ask for (as for `ltr run`).
    #[arg(long, default_value_t = ltr_harness::spec::DEFAULT_MAX_CELLS)]
    max_cells: u64,
}

/// Runs `ltr estimate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limits = SpecLimits { max_cells: args.max_cells };
    let spec = Pipeline::load_spec(&args.spec, &args.datasets, &args.algorithms, &limits)?;
    let manifest = manifest_of(&spec, args.manifest.as_deref())?;
    let mut shapes = Vec::new();
    for name in &spec.datasets {
        let shape = match (spec.path_dataset(name), &manifest) {
            (Some(p), _) => path_shape(p, &spec, ltr_fetch::local::SPLIT_PARTS),
            (None, Some(m)) => {
                // A fold the dataset lacks is the spec's error, as for `ltr run`.
                if let Ok(entry) = m.dataset(name) {
                    let has: Vec<u32> = (1..=entry.default_variant().folds).collect();
                    spec.check_folds(&entry.name, &has)?;
                }
                manifest_shape(m, name, &spec)
            }
            (None, None) => {
                shapes.push(DatasetShape::Unknown {
                    name: name.clone(),
                    reason: "no manifest names it".into(),
                });
                continue;
            }
        };
        shapes.push(match shape {
            Ok(s) => DatasetShape::Known(s),
            Err(RunnerError::Shape { reason, .. }) => DatasetShape::Unknown { name: name.clone(), reason },
            Err(e) => DatasetShape::Unknown { name: name.clone(), reason: e.to_string() },
        });
    }
    let estimate = ltr_runner::estimate::estimate(&spec, &shapes, args.jobs);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&estimate)?),
        Format::Table => print!("{}", text(&estimate, &spec.source)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `1234.5` as `1,235`.
fn seconds(s: f64) -> String {
    let rounded = if s.is_finite() { s.max(0.0).round() } else { 0.0 };
    ltr_harness::limits::thousands(rounded as u64)
}

/// Seconds per fit: one decimal below 100 s, whole seconds above.
fn per_fit(s: f64) -> String {
    if s < 100.0 { format!("{s:.1}") } else { seconds(s) }
}

/// A duration in the unit that reads best: `42 s`, `12.5 min`, `7.3 h`, `3.2 days`.
fn human(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7_200.0 => format!("{:.1} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3_600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}

fn dataset_text(d: &DatasetEstimate, jobs: u32) -> String {
    let sh = &d.shape;
    let mut out = format!(
        "{}: {} training rows per fold x {} features, {} fold{} ({})\n",
        sh.name,
        ltr_harness::limits::thousands(sh.train_rows),
        sh.features,
        sh.folds,
        if sh.folds == 1 { "" } else { "s" },
        sh.source
    );
    let mut b = tabled::builder::Builder::default();
    b.push_record(["algorithm", "grid points", "fits", "s per fit", "threads", "total s"].map(String::from));
    for a in &d.algorithms {
        let label = if a.label == a.id { a.id.clone() } else { format!("{} ({})", a.label, a.id) };
        let fits = if a.seed_refits > 0 {
            format!("{} ({} seed refits)", a.fits, a.seed_refits)
        } else {
            a.fits.to_string()
        };
        b.push_record([
            label,
            a.grid_points.to_string(),
            fits,
            per_fit(a.seconds_per_fit),
            a.threads.to_string(),
            seconds(a.seconds),
        ]);
    }
    let fits: u64 = d.algorithms.iter().map(|a| a.fits).sum();
    b.push_record([
        "fits".into(),
        String::new(),
        fits.to_string(),
        String::new(),
        String::new(),
        seconds(d.fit_seconds),
    ]);
    let reading = if sh.read_once {
        format!("reading ({} rows once)", ltr_harness::limits::thousands(sh.read_rows))
    } else {
        format!("reading ({} rows per fold)", ltr_harness::limits::thousands(sh.read_rows))
    };
    b.push_record([
        reading,
        String::new(),
        String::new(),
        String::new(),
        "1".into(),
        seconds(d.read_seconds),
    ]);
    let mut t = b.build();
    t.with(tabled::settings::Style::blank());
    for line in t.to_string().lines() {
        out += &format!("  {}\n", line.trim_end());
    }
    out += &format!(
        "  {}: {} CPU-seconds; {} s wall at --jobs {jobs} ({})\n",
        sh.name,
        seconds(d.cpu_seconds),
        seconds(d.wall_seconds),
        human(d.wall_seconds)
    );
    if let Some(line) = &d.left_out_line {
        out += &format!("  left out: {line}\n");
    }
    if !d.no_measurement.is_empty() {
        out += &format!("  no measurement (in no total): {}\n", d.no_measurement.join(", "));
    }
    out
}

/// `1 thread; 2 for adarank-ndcg, cascade`: the thread counts of the costs used, each but the
/// first with the labels measured at it.
fn threads_text(e: &SpecEstimate) -> String {
    let mut parts = Vec::new();
    for (i, &t) in e.threads.iter().enumerate() {
        let mut labels: Vec<&str> = e
            .datasets
            .iter()
            .flat_map(|d| d.algorithms.iter().filter(|a| a.threads == t).map(|a| a.label.as_str()))
            .collect();
        labels.sort_unstable();
        labels.dedup();
        let unit = if t == 1 { "thread" } else { "threads" };
        parts.push(if i == 0 { format!("{t} {unit}") } else { format!("{t} for {}", labels.join(", ")) });
    }
    parts.join("; ")
}

/// The table form: a table per dataset, then the totals and what they leave out.
fn text(e: &SpecEstimate, source: &str) -> String {
    let mut out = format!(
        "{} ({source}): predicted time from each algorithm's measured cost of one fit (its INFO's \
         `cost`: `just bench-budget`, its README's \"Scale\"), scaled by training rows, features \
         and its budget keys (trees, rounds, epochs)\n\n",
        e.spec
    );
    for d in &e.datasets {
        out += &dataset_text(d, e.jobs);
        out.push('\n');
    }
    for u in &e.unknown {
        out += &format!("{}: not priced ({}); in no total\n\n", u.name, u.reason);
    }
    out += &format!(
        "total: {} s of fits + {} s reading = {} s\n",
        seconds(e.fit_seconds),
        seconds(e.read_seconds),
        seconds(e.fit_seconds + e.read_seconds)
    );
    out += &format!(
        "  CPU-seconds: {} ({}): each fit's seconds x the threads its cost was measured with\n",
        seconds(e.cpu_seconds),
        human(e.cpu_seconds)
    );
    let max_threads = e.threads.last().copied().unwrap_or(1);
    out += &format!(
        "  wall time at --jobs {}: {} s ({}), each fit at the threads its cost was measured with ({}): at \
         most {} cores\n",
        e.jobs,
        seconds(e.wall_seconds),
        human(e.wall_seconds),
        threads_text(e),
        u64::from(e.jobs) * u64::from(max_threads)
    );
    if !e.no_measurement.is_empty() {
        out += &format!(
            "no measurement, so in no total: {} (no measured cost in its INFO const)\n",
            e.no_measurement.join(", ")
        );
    }
    out += &format!(
        "Reading: {} rows per second at {} features ({}).\n",
        ltr_harness::limits::thousands(e.read_rows_per_second.round() as u64),
        ltr_runner::estimate::PARSE_FEATURES,
        e.read_measured
    );
    out += "Not modelled: fits that stop early (early stopping, improvement tests) take less; more \
            leaves, hidden units or a larger SVM `c` take more.\n";
    out
}
