//! The predicted time of a spec before anything runs (`ltr estimate`): every fit the spec asks
//! for, priced from its algorithm's measured cost ([`ltr_core::FitCost`], in its INFO const),
//! plus the reading of the files.
//!
//! One fit of an algorithm on a dataset costs its measured seconds scaled by the training rows
//! (to the power its cost states), by the features, and by every budget key (trees, rounds,
//! epochs) at the grid point's own value over its default. A dataset costs, per fold, every
//! grid point of every algorithm (and the seed refits of `seeds`), plus the reading of its
//! files. The shapes come from the collection's manifest (nothing is fetched or read), or
//! for a dataset given by path from one pass over one of its files and the sizes of the
//! others.
//!
//! Only timing: nothing here reaches a record or a number.

use ltr_core::FitCost;
use ltr_data::manifest::Manifest;
use ltr_harness::limits::{leave_out, train_rows_estimate};
use ltr_harness::spec::{AlgorithmEntry, ExperimentSpec, PathDataset};
use serde::Serialize;

use crate::error::{Result, RunnerError};

/// Rows per second the LETOR reader parses at the MSLR-WEB10K shape ([`PARSE_MEASURED`]).
pub const PARSE_ROWS_PER_SECOND: f64 = 116_500.0;

/// The features of the rows [`PARSE_ROWS_PER_SECOND`] was measured on: reading a row costs in
/// proportion to its features.
pub const PARSE_FEATURES: u64 = 136;

/// Where [`PARSE_ROWS_PER_SECOND`] comes from.
pub const PARSE_MEASURED: &str = "`ltr --threads 1 train regression --train Fold1/train.txt` on `ltr synth \
     --shape mslr-web10k --folds 1 --seed 1` (728,521 rows x 136 features, 776 MB) parsed in 5.5, 6.3 \
     and 6.3 s, 2026-11-27 on the 2-core development machine with other work running (load average \
     3.2 to 3.5): the median, 116,500 rows per second";

/// The most fits `--jobs` may run at once.
pub const MAX_JOBS: u32 = 100_000;

/// What the estimate knows of one dataset before reading it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shape {
    /// The dataset's name.
    pub name: String,
    /// Training rows of one fold, which the fit costs scale with.
    pub train_rows: u64,
    /// Training rows checked against the scale limits, as `ltr run` checks them.
    pub limit_rows: u64,
    /// Features.
    pub features: u64,
    /// The folds of the spec that the dataset has.
    pub folds: u32,
    /// Rows read per fold (train, vali and test), or once for every fold ([`Shape::read_once`]).
    pub read_rows: u64,
    /// Whether the folds are built from subsets parsed once for all of them.
    pub read_once: bool,
    /// Where the numbers come from, in words.
    pub source: String,
}

/// A dataset of the spec: its shape, or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub enum DatasetShape {
    /// Known.
    Known(Shape),
    /// Not known: not in the manifest, no size in it, a path that cannot be read.
    Unknown {
        /// The dataset's name.
        name: String,
        /// Why.
        reason: String,
    },
}

/// The folds of `spec` among `1..=n`.
fn folds_within(spec: &ExperimentSpec, n: u32) -> u32 {
    let count = spec.folds.iter().filter(|&&k| (1..=n).contains(&k)).count();
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// `n` with thousands separators.
fn thousands(n: u64) -> String {
    ltr_harness::limits::thousands(n)
}

/// The shape of the collection dataset `name` from `manifest` alone: training rows as `ltr
/// run` checks them against the scale limits (`train_documents`, else the rotation's share of
/// `documents`), less the holdout a validation split is carved out of, and the rows read per
/// fold. Nothing is fetched or read.
///
/// # Errors
/// [`RunnerError::Shape`]: the manifest has no such dataset, or gives neither size.
pub fn manifest_shape(manifest: &Manifest, name: &str, spec: &ExperimentSpec) -> Result<Shape> {
    let shape_error = |reason: String| RunnerError::Shape { dataset: name.to_owned(), reason };
    let entry = manifest.dataset(name).map_err(|e| shape_error(e.to_string()))?;
    let v = entry.default_variant();
    let n = v.folds;
    let as_u64 = |x: usize| u64::try_from(x).unwrap_or(u64::MAX);
    let documents = entry.documents.map(as_u64);
    let (limit_rows, mut source) = match (entry.train_documents.map(as_u64), documents) {
        (Some(t), _) => (t, format!("manifest: {} training documents", thousands(t))),
        (None, Some(d)) if n >= 3 => (
            train_rows_estimate(d, n),
            format!("manifest: {} documents in {n} folds, {} of them training each", thousands(d), n - 2),
        ),
        (None, Some(d)) => (d, format!("manifest: {} documents, all counted as training", thousands(d))),
        (None, None) => {
            return Err(shape_error(format!(
                "the {} manifest gives neither `documents` nor `train_documents` for it",
                manifest.collection
            )));
        }
    };
    let train_rows = match &v.holdout {
        Some(h) if h.every > 0 => {
            let every = u64::from(h.every);
            source += &format!(", less the one query in {every} held out for vali");
            limit_rows / every * (every - 1)
        }
        _ => limit_rows,
    };
    let folds = folds_within(spec, n);
    // A rotation's fold reads every subset (train, vali and test); a fixed release reads its
    // training file and, where the manifest counts it, its test split.
    let (read_rows, read_once) = match documents {
        Some(d) if n >= 3 => (d, v.rotation && folds > 1),
        Some(d) => (limit_rows.saturating_add(d), false),
        None => {
            source += "; reading counts the training file only, the manifest giving no other size";
            (limit_rows, false)
        }
    };
    Ok(Shape {
        name: entry.name.clone(),
        train_rows,
        limit_rows,
        features: as_u64(entry.features),
        folds,
        read_rows,
        read_once,
        source,
    })
}

/// The shape of a dataset given by path: one pass over its first training file (or its single
/// file) for rows and features ([`ltr_data::local::inspect`]), the other files' rows in
/// proportion to their sizes. A single file is split into `split_parts` folds, as `ltr run`
/// splits it.
///
/// # Errors
/// [`RunnerError::Shape`]: the layout is not recognised, or a file cannot be read.
pub fn path_shape(p: &PathDataset, spec: &ExperimentSpec, split_parts: u32) -> Result<Shape> {
    use ltr_data::local::{Layout, detect, inspect};
    let shape_error = |reason: String| RunnerError::Shape { dataset: p.name.clone(), reason };
    let size = |path: &std::path::Path| -> Result<u64> {
        std::fs::metadata(path).map(|m| m.len()).map_err(|e| shape_error(format!("{}: {e}", path.display())))
    };
    let summary = |path: &std::path::Path| inspect(path, p.format).map_err(|e| shape_error(e.to_string()));
    match detect(&p.path).map_err(|e| shape_error(e.to_string()))? {
        Layout::Single(file) => {
            let s = summary(&file)?;
            let rows = u64::try_from(s.rows).unwrap_or(u64::MAX);
            let features = p.features.unwrap_or(s.max_index);
            Ok(Shape {
                name: p.name.clone(),
                train_rows: train_rows_estimate(rows, split_parts),
                limit_rows: train_rows_estimate(rows, split_parts),
                features: u64::try_from(features).unwrap_or(u64::MAX),
                folds: folds_within(spec, split_parts),
                read_rows: rows,
                read_once: false,
                source: format!(
                    "{}: {} rows (read), split into {split_parts} folds",
                    file.display(),
                    thousands(rows)
                ),
            })
        }
        Layout::Folds { folds, .. } => {
            let n = u32::try_from(folds.len()).unwrap_or(u32::MAX);
            let run: Vec<_> = folds.iter().filter(|f| spec.folds.contains(&f.fold)).collect();
            let first =
                run.first().copied().or(folds.first()).ok_or_else(|| shape_error("no folds".into()))?;
            let s = summary(&first.train)?;
            let rows_per_byte = s.rows as f64 / size(&first.train)?.max(1) as f64;
            let (mut train_rows, mut read_rows) = (0u64, 0u64);
            for f in &run {
                let train = size(&f.train)?;
                let all = train.saturating_add(size(&f.vali)?).saturating_add(size(&f.test)?);
                train_rows = train_rows.max((train as f64 * rows_per_byte).round() as u64);
                read_rows = read_rows.max((all as f64 * rows_per_byte).round() as u64);
            }
            let features = p.features.unwrap_or(s.max_index);
            Ok(Shape {
                name: p.name.clone(),
                train_rows,
                limit_rows: train_rows,
                features: u64::try_from(features).unwrap_or(u64::MAX),
                folds: folds_within(spec, n),
                read_rows,
                read_once: false,
                source: format!(
                    "{}: {} rows (read); the other files by their sizes",
                    first.train.display(),
                    thousands(u64::try_from(s.rows).unwrap_or(u64::MAX))
                ),
            })
        }
    }
}

/// The shape of every dataset of `spec`, in spec order: by path ([`path_shape`], a single
/// file split into `split_parts` folds), else from `manifest` ([`manifest_shape`]); a dataset
/// whose shape cannot be known is [`DatasetShape::Unknown`], with the reason.
///
/// # Errors
/// A fold of the spec that a collection's dataset lacks, as `ltr run` refuses it.
pub fn shapes(
    spec: &ExperimentSpec,
    manifest: Option<&Manifest>,
    split_parts: u32,
) -> Result<Vec<DatasetShape>> {
    let mut out = Vec::new();
    for name in &spec.datasets {
        let shape = match (spec.path_dataset(name), manifest) {
            (Some(p), _) => path_shape(p, spec, split_parts),
            (None, Some(m)) => {
                if let Ok(entry) = m.dataset(name) {
                    let has: Vec<u32> = (1..=entry.default_variant().folds).collect();
                    spec.check_folds(&entry.name, &has)?;
                }
                manifest_shape(m, name, spec)
            }
            (None, None) => {
                Err(RunnerError::Shape { dataset: name.clone(), reason: "no manifest names it".into() })
            }
        };
        out.push(match shape {
            Ok(s) => DatasetShape::Known(s),
            Err(RunnerError::Shape { reason, .. }) => DatasetShape::Unknown { name: name.clone(), reason },
            Err(e) => DatasetShape::Unknown { name: name.clone(), reason: e.to_string() },
        });
    }
    Ok(out)
}

/// The predicted time of one algorithm entry on one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryEstimate {
    /// The entry's label.
    pub label: String,
    /// Its algorithm id.
    pub id: String,
    /// Grid points.
    pub grid_points: u64,
    /// Fits over every fold: grid points x folds, plus the seed refits.
    pub fits: u64,
    /// Of [`EntryEstimate::fits`], the refits of the selected point with further seeds
    /// (`seeds` in the spec).
    pub seed_refits: u64,
    /// Mean seconds of one fit.
    pub seconds_per_fit: f64,
    /// The longest fit's seconds.
    pub longest_fit: f64,
    /// Seconds of every fit together, each at [`EntryEstimate::threads`] threads.
    pub seconds: f64,
    /// The threads its cost was measured at.
    pub threads: u32,
    /// CPU-seconds: [`EntryEstimate::seconds`] x threads (an upper bound where a fit does not
    /// keep every thread busy).
    pub cpu_seconds: f64,
    /// Which measurement the cost is.
    pub measured: &'static str,
}

/// The predicted time of one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DatasetEstimate {
    /// What is known of it.
    #[serde(flatten)]
    pub shape: Shape,
    /// Every algorithm entry with a measured cost, in spec order.
    pub algorithms: Vec<EntryEstimate>,
    /// The labels left out because the training rows exceed their scale limit.
    pub left_out: Vec<String>,
    /// The line saying so ([`ltr_harness::limits::leave_out`]).
    pub left_out_line: Option<String>,
    /// The labels whose algorithm has no measured cost (not in any total).
    pub no_measurement: Vec<String>,
    /// Seconds reading the files.
    pub read_seconds: f64,
    /// Seconds of every fit together.
    pub fit_seconds: f64,
    /// CPU-seconds: fits x their threads, plus reading.
    pub cpu_seconds: f64,
    /// Wall seconds at the estimate's concurrent fits: per fold the larger of its fits spread
    /// over the jobs and its longest fit, plus reading.
    pub wall_seconds: f64,
}

/// A dataset the estimate could not price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpriced {
    /// The dataset's name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// The predicted time of a spec.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpecEstimate {
    /// The spec's name.
    pub spec: String,
    /// Fits running at once.
    pub jobs: u32,
    /// Each dataset with a known shape, in spec order.
    pub datasets: Vec<DatasetEstimate>,
    /// The datasets without one.
    pub unknown: Vec<Unpriced>,
    /// Every label without a measured cost, in spec order (in no total).
    pub no_measurement: Vec<String>,
    /// The thread counts the costs used were measured at, ascending.
    pub threads: Vec<u32>,
    /// Seconds of every fit together.
    pub fit_seconds: f64,
    /// Seconds reading the files.
    pub read_seconds: f64,
    /// CPU-seconds.
    pub cpu_seconds: f64,
    /// Wall seconds at `jobs` fits at once, the datasets one after the other.
    pub wall_seconds: f64,
    /// The reader's measured speed, rows per second at [`PARSE_FEATURES`] features.
    pub read_rows_per_second: f64,
    /// Where that speed comes from.
    pub read_measured: &'static str,
}

/// The value of the parameter `key` at one grid point (its parameters as JSON), if numeric.
fn budget_value(params: &serde_json::Value, key: &str) -> Option<f64> {
    params.get(key).and_then(serde_json::Value::as_f64)
}

/// One entry on one dataset: every grid point on every fold, and the seed refits.
fn entry_estimate(entry: &AlgorithmEntry, cost: &FitCost, shape: &Shape, seeds: u32) -> EntryEstimate {
    let folds = u64::from(shape.folds);
    let per_point: Vec<(f64, bool)> = entry
        .grid
        .iter()
        .map(|c| {
            let params = c.params_json();
            (
                cost.seconds(shape.train_rows, shape.features, |k| budget_value(&params, k)),
                c.draws_from_seed(),
            )
        })
        .collect();
    let points = u64::try_from(per_point.len()).unwrap_or(u64::MAX);
    let grid_seconds: f64 = per_point.iter().map(|(s, _)| s).sum();
    // The selected point is not known before the run: a refit costs the mean of the points
    // that draw from their seed.
    let drawing: Vec<f64> = per_point.iter().filter(|(_, d)| *d).map(|(s, _)| *s).collect();
    let (refits_per_fold, refit_seconds) = if seeds > 1 && !drawing.is_empty() {
        (u64::from(seeds - 1), drawing.iter().sum::<f64>() / drawing.len() as f64)
    } else {
        (0, 0.0)
    };
    let seed_refits = refits_per_fold * folds;
    let fits = points * folds + seed_refits;
    let seconds = folds as f64 * grid_seconds + seed_refits as f64 * refit_seconds;
    EntryEstimate {
        label: entry.label.clone(),
        id: entry.id.clone(),
        grid_points: points,
        fits,
        seed_refits,
        seconds_per_fit: if fits > 0 { seconds / fits as f64 } else { 0.0 },
        longest_fit: per_point.iter().map(|(s, _)| *s).fold(0.0, f64::max),
        seconds,
        threads: cost.threads,
        cpu_seconds: seconds * f64::from(cost.threads),
        measured: cost.measured,
    }
}

/// Seconds reading a dataset's files: its rows at the measured speed, scaled by its features.
pub fn read_seconds(shape: &Shape) -> f64 {
    let per_pass =
        shape.read_rows as f64 / PARSE_ROWS_PER_SECOND * shape.features as f64 / PARSE_FEATURES as f64;
    let passes = if shape.read_once { shape.folds.min(1) } else { shape.folds };
    per_pass * f64::from(passes)
}

/// One dataset: the algorithms above their scale limit left out (as `ltr run --data` leaves
/// them out; none when the spec sets `scale_limits = false`), those without a cost listed,
/// the others priced.
fn dataset_estimate(spec: &ExperimentSpec, shape: &Shape, jobs: u32) -> DatasetEstimate {
    let mut within = spec.clone();
    let left_out_line = leave_out(&mut within, shape.limit_rows);
    let left_out: Vec<String> = spec
        .algorithms
        .iter()
        .filter(|a| !within.algorithms.iter().any(|w| w.label == a.label))
        .map(|a| a.label.clone())
        .collect();
    let mut algorithms = Vec::new();
    let mut no_measurement = Vec::new();
    for entry in &within.algorithms {
        match ltr_harness::registry::info(&entry.id).and_then(|i| i.cost.as_ref()) {
            Some(cost) => algorithms.push(entry_estimate(entry, cost, shape, spec.seeds)),
            None => no_measurement.push(entry.label.clone()),
        }
    }
    let read = read_seconds(shape);
    let fit_seconds: f64 = algorithms.iter().map(|a| a.seconds).sum();
    let cpu_seconds = algorithms.iter().map(|a| a.cpu_seconds).sum::<f64>() + read;
    let folds = f64::from(shape.folds);
    let longest = algorithms.iter().map(|a| a.longest_fit).fold(0.0, f64::max);
    let per_fold =
        if folds > 0.0 { (fit_seconds / folds / f64::from(jobs.max(1))).max(longest) } else { 0.0 };
    DatasetEstimate {
        shape: shape.clone(),
        algorithms,
        left_out,
        left_out_line,
        no_measurement,
        read_seconds: read,
        fit_seconds,
        cpu_seconds,
        wall_seconds: per_fold * folds + read,
    }
}

/// The predicted time of `spec` over `datasets` (its datasets' shapes, in spec order) with
/// `jobs` fits at once (at least 1, at most [`MAX_JOBS`]).
pub fn estimate(spec: &ExperimentSpec, datasets: &[DatasetShape], jobs: u32) -> SpecEstimate {
    let jobs = jobs.clamp(1, MAX_JOBS);
    let mut out = SpecEstimate {
        spec: spec.name.clone(),
        jobs,
        datasets: Vec::new(),
        unknown: Vec::new(),
        no_measurement: Vec::new(),
        threads: Vec::new(),
        fit_seconds: 0.0,
        read_seconds: 0.0,
        cpu_seconds: 0.0,
        wall_seconds: 0.0,
        read_rows_per_second: PARSE_ROWS_PER_SECOND,
        read_measured: PARSE_MEASURED,
    };
    for d in datasets {
        match d {
            DatasetShape::Known(shape) => {
                let e = dataset_estimate(spec, shape, jobs);
                out.fit_seconds += e.fit_seconds;
                out.read_seconds += e.read_seconds;
                out.cpu_seconds += e.cpu_seconds;
                out.wall_seconds += e.wall_seconds;
                out.threads.extend(e.algorithms.iter().map(|a| a.threads));
                out.datasets.push(e);
            }
            DatasetShape::Unknown { name, reason } => {
                out.unknown.push(Unpriced { name: name.clone(), reason: reason.clone() });
            }
        }
    }
    out.threads.sort_unstable();
    out.threads.dedup();
    // Every label without a cost, whether or not a dataset's scale left it in.
    out.no_measurement = spec
        .algorithms
        .iter()
        .filter(|a| ltr_harness::registry::info(&a.id).is_none_or(|i| i.cost.is_none()))
        .map(|a| a.label.clone())
        .collect();
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const REF_ROWS: u64 = FitCost::MSLR_WEB10K_ROWS;

    fn spec(body: &str) -> ExperimentSpec {
        let text = format!("name = \"t\"\ncollection = \"mslr\"\ndatasets = [\"D\"]\nseed = 1\n{body}");
        ExperimentSpec::parse(&text, std::path::Path::new("t.toml")).unwrap()
    }

    fn shape(train_rows: u64, features: u64, folds: u32) -> Shape {
        Shape {
            name: "D".into(),
            train_rows,
            limit_rows: train_rows,
            features,
            folds,
            read_rows: 0,
            read_once: false,
            source: "test".into(),
        }
    }

    fn base(id: &str) -> f64 {
        ltr_harness::registry::info(id).unwrap().cost.unwrap().fit_seconds
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Hand-derived: a 2-point grid on twice the reference rows with `trees = 200` (default
    /// 100) costs 2 points x 2 (rows) x 2 (trees) = 8 times one fit at the defaults, per fold.
    #[test]
    fn a_two_point_grid_on_twice_the_rows_with_twice_the_trees_costs_eight_fits() {
        let s = spec(
            "[[algorithms]]\nid = \"lambdamart\"\nparams = { trees = 200 }\ngrid = { learning_rate = [0.05, 0.1] }\n",
        );
        let e = estimate(&s, &[DatasetShape::Known(shape(2 * REF_ROWS, 136, 1))], 1);
        let a = &e.datasets[0].algorithms[0];
        assert_eq!((a.grid_points, a.fits, a.threads), (2, 2, 1));
        assert!(close(a.seconds, 8.0 * base("lambdamart")), "{a:?}");
        assert!(
            close(a.seconds_per_fit, 4.0 * base("lambdamart")) && close(a.longest_fit, a.seconds_per_fit)
        );
        // Five folds cost five times as much; twice the features twice as much.
        let e = estimate(&s, &[DatasetShape::Known(shape(2 * REF_ROWS, 272, 5))], 1);
        assert!(close(e.fit_seconds, 5.0 * 2.0 * 8.0 * base("lambdamart")), "{}", e.fit_seconds);
        assert_eq!(e.datasets[0].algorithms[0].fits, 10);
    }

    /// A grid over a budget key prices each point at its own value: trees 100 and 300 at the
    /// reference shape are 1 + 3 fits' worth, the longest fit 3.
    #[test]
    fn each_grid_point_is_priced_at_its_own_budget() {
        let s = spec("[[algorithms]]\nid = \"lambdamart\"\ngrid = { trees = [100, 300] }\n");
        let e = estimate(&s, &[DatasetShape::Known(shape(REF_ROWS, 136, 1))], 1);
        let a = &e.datasets[0].algorithms[0];
        assert!(close(a.seconds, 4.0 * base("lambdamart")) && close(a.longest_fit, 3.0 * base("lambdamart")));
        // LambdaMART's leaves are priced as (leaves / 31)^0.19: 31 and 255 leaves are
        // 1 + 8.2258^0.19 = 1 + 1.4924 fits' worth.
        let s = spec("[[algorithms]]\nid = \"lambdamart\"\ngrid = { leaves = [31, 255] }\n");
        let e = estimate(&s, &[DatasetShape::Known(shape(REF_ROWS, 136, 1))], 1);
        let a = &e.datasets[0].algorithms[0];
        let big = (255.0f64 / 31.0).powf(0.19);
        assert!((big - 1.4924).abs() < 1e-4, "{big}");
        assert!(close(a.seconds, (1.0 + big) * base("lambdamart")), "{a:?}");
        assert!(close(a.longest_fit, big * base("lambdamart")), "{a:?}");
        // RankGP is proportional to population and generations: 200 x 10 of 50 x 20 is 2.
        let s = spec("[[algorithms]]\nid = \"rankgp\"\nparams = { population = 200, generations = 10 }\n");
        let e = estimate(&s, &[DatasetShape::Known(shape(REF_ROWS, 136, 1))], 1);
        assert!(close(e.fit_seconds, 2.0 * base("rankgp")), "{}", e.fit_seconds);
    }

    /// Wall time: per fold the larger of the fits spread over the jobs and the longest fit;
    /// CPU-seconds count the threads a cost was measured at (AdaRank's two).
    #[test]
    fn wall_time_spreads_a_folds_fits_over_the_jobs() {
        let s = spec(
            "[[algorithms]]\nid = \"regression\"\ngrid = { lambda = [0.1, 1.0, 10.0, 100.0] }\n\
             [[algorithms]]\nid = \"adarank-map\"\n",
        );
        let shapes = [DatasetShape::Known(shape(REF_ROWS, 136, 2))];
        let (r, a) = (base("regression"), base("adarank-map"));
        let one = estimate(&s, &shapes, 1);
        assert!(close(one.fit_seconds, 2.0 * (4.0 * r + a)) && close(one.wall_seconds, one.fit_seconds));
        assert!(close(one.cpu_seconds, 2.0 * (4.0 * r + 2.0 * a)), "{}", one.cpu_seconds);
        assert_eq!(one.threads, [1, 2]);
        // Two jobs: half of each fold, unless one fit is longer than that.
        let two = estimate(&s, &shapes, 2);
        assert!(close(two.wall_seconds, 2.0 * ((4.0 * r + a) / 2.0).max(a)), "{}", two.wall_seconds);
        let many = estimate(&s, &shapes, 1000);
        assert!(close(many.wall_seconds, 2.0 * a), "{}", many.wall_seconds);
    }

    /// Reading: the rows at the measured speed, scaled by the features, per fold or once.
    #[test]
    fn reading_costs_per_fold_or_once() {
        let mut sh = shape(REF_ROWS, 272, 5);
        sh.read_rows = 233_000;
        assert!(close(read_seconds(&sh), 5.0 * 233_000.0 / PARSE_ROWS_PER_SECOND * 2.0));
        sh.read_once = true;
        assert!(close(read_seconds(&sh), 233_000.0 / PARSE_ROWS_PER_SECOND * 2.0));
        let e = estimate(&spec("[[algorithms]]\nid = \"regression\"\n"), &[DatasetShape::Known(sh)], 1);
        assert!(close(e.read_seconds, 4.0) && close(e.wall_seconds, e.fit_seconds + 4.0), "{e:?}");
    }

    /// Above a scale limit an algorithm is left out, as `ltr run` leaves it out, unless the
    /// spec says `scale_limits = false`: then it is priced at its own row exponent (PCRank's
    /// 2.04 from 149,860 rows).
    #[test]
    fn scale_limits_leave_out_unless_the_spec_says_not() {
        let body = "[[algorithms]]\nid = \"pcrank\"\n[[algorithms]]\nid = \"regression\"\n";
        let e = estimate(&spec(body), &[DatasetShape::Known(shape(2 * FitCost::LIMITED_ROWS, 136, 1))], 1);
        let d = &e.datasets[0];
        assert_eq!(d.left_out, ["pcrank"]);
        assert!(d.left_out_line.as_ref().unwrap().contains("pcrank (limit 150,000)"));
        assert_eq!(d.algorithms.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["regression"]);
        let off = spec(&format!("scale_limits = false\n{body}"));
        let e = estimate(&off, &[DatasetShape::Known(shape(2 * FitCost::LIMITED_ROWS, 136, 1))], 1);
        let p = &e.datasets[0].algorithms[0];
        assert!(e.datasets[0].left_out.is_empty());
        assert!(close(p.seconds, base("pcrank") * 2f64.powf(2.04)), "{p:?}");
    }

    /// `seeds = 3`: two refits per fold of the algorithms that draw from their seed, none of
    /// the others.
    #[test]
    fn seed_refits_are_counted_for_the_algorithms_that_draw() {
        let s = spec("seeds = 3\n[[algorithms]]\nid = \"listnet\"\n[[algorithms]]\nid = \"regression\"\n");
        let e = estimate(&s, &[DatasetShape::Known(shape(REF_ROWS, 136, 5))], 1);
        let [listnet, regression] = &e.datasets[0].algorithms[..] else { panic!() };
        assert_eq!((listnet.fits, listnet.seed_refits), (15, 10));
        assert!(close(listnet.seconds, 15.0 * base("listnet")));
        assert_eq!((regression.fits, regression.seed_refits), (5, 0));
    }

    /// Every registered id either has a cost or is listed under "no measurement" (and then in
    /// no total).
    #[test]
    fn every_registered_id_is_priced_or_listed_without_a_measurement() {
        let body: String =
            ltr_harness::ALGORITHMS.iter().map(|a| format!("[[algorithms]]\nid = \"{}\"\n", a.id)).collect();
        let s = spec(&format!("scale_limits = false\n{body}"));
        let e = estimate(&s, &[DatasetShape::Known(shape(REF_ROWS, 136, 1))], 1);
        let d = &e.datasets[0];
        for info in ltr_harness::ALGORITHMS {
            let priced = d.algorithms.iter().any(|a| a.id == info.id);
            let listed = e.no_measurement.iter().any(|l| l == info.id);
            assert!(priced != listed, "{}: priced {priced}, listed {listed}", info.id);
        }
        assert_eq!(e.no_measurement, d.no_measurement);
        assert_eq!(e.no_measurement, ["frank", "best-feature"]);
        let sum: f64 = d.algorithms.iter().map(|a| a.seconds).sum();
        assert!(close(e.fit_seconds, sum) && e.fit_seconds.is_finite());
    }

    /// A collection's shape comes from its manifest alone: MSLR-WEB10K's rotation trains on
    /// three of five parts of 1,200,192 documents and reads them all per fold; Istella's
    /// holdout takes one query in five from its training documents; Yahoo! counts only its
    /// training file.
    #[test]
    fn manifest_shapes() {
        let s = spec("[[algorithms]]\nid = \"regression\"\n");
        let mslr = Manifest::builtin("mslr").unwrap();
        let w10 = manifest_shape(&mslr, "MSLR-WEB10K", &s).unwrap();
        assert_eq!((w10.train_rows, w10.limit_rows, w10.features, w10.folds), (720_114, 720_114, 136, 5));
        assert_eq!((w10.read_rows, w10.read_once), (1_200_192, false));
        assert!(manifest_shape(&mslr, "MSLR-WEB99K", &s).is_err());
        let istella = Manifest::builtin("istella").unwrap();
        let full = manifest_shape(&istella, "Istella", &s).unwrap();
        assert_eq!((full.limit_rows, full.train_rows, full.folds), (7_325_625, 5_860_500, 1));
        assert_eq!(full.read_rows, 7_325_625);
        let letor4 = Manifest::builtin("letor4").unwrap();
        let mq = manifest_shape(&letor4, "MQ2008", &s).unwrap();
        assert_eq!((mq.train_rows, mq.features, mq.read_rows, mq.read_once), (9_126, 46, 15_211, true));
    }

    /// A dataset given by path: the rows of its first training file by one pass, the others
    /// by their sizes.
    #[test]
    fn path_shapes_from_one_pass_and_the_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let line = "1 qid:1 1:0.5 2:0.25 3:1\n";
        for k in 1..=2 {
            let fold = dir.path().join(format!("Fold{k}"));
            std::fs::create_dir_all(&fold).unwrap();
            for (split, n) in [("train", 30 * k), ("vali", 10), ("test", 10)] {
                std::fs::write(fold.join(format!("{split}.txt")), line.repeat(n)).unwrap();
            }
        }
        let text = format!(
            "name = \"t\"\nseed = 1\n[[datasets]]\nname = \"mine\"\npath = \"{}\"\n[[algorithms]]\nid = \"regression\"\n",
            dir.path().display()
        );
        let s = ExperimentSpec::parse(&text, &dir.path().join("t.toml")).unwrap();
        let p = s.path_dataset("mine").unwrap();
        let sh = path_shape(p, &s, 5).unwrap();
        assert_eq!((sh.train_rows, sh.features, sh.folds, sh.read_rows), (60, 3, 2, 80));
        let single = dir.path().join("one.txt");
        std::fs::write(&single, line.repeat(100)).unwrap();
        let text = text.replace(&dir.path().display().to_string(), &single.display().to_string());
        let s = ExperimentSpec::parse(&text, &dir.path().join("t.toml")).unwrap();
        let sh = path_shape(s.path_dataset("mine").unwrap(), &s, 5).unwrap();
        assert_eq!((sh.train_rows, sh.folds, sh.read_rows), (60, 5, 100));
    }
}
