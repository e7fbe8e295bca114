//! Scale-out on the schedulers people already run: a spec's cells cut into tasks that Slurm
//! job arrays, Kubernetes Indexed Jobs or GNU parallel run (the `scripts` module writes their
//! files), and the stores they fill merged back into one (the `collect` module).
//!
//! A plan folder (`Plan::write`, in `scripts`) holds:
//!
//! ```text
//! plan.json      the spec (its text), the selection, the resolved datasets, K and T
//! cells.jsonl    one line per cell, in the runner's order (runner::plan_cells): index, task,
//!                dataset, fold, algorithm, grid, key, data files with their sha256
//! slurm.sbatch   a job array of T tasks
//! k8s-job.yaml   a Kubernetes Indexed Job of T completions
//! parallel.sh    the same T tasks for GNU parallel
//! logs/          per-task logs of the engines
//! ```
//!
//! Task `t` is cells `t*K .. (t+1)*K` ([`Plan::task_cells`]). A task checks that its data is
//! the plan's ([`check_task_data`]) and that this build gives the planned keys before it
//! computes anything, then writes each cell into the store under its key
//! ([`crate::runner::run_cells`]); cells already there are skipped, so resubmitting a whole
//! array recomputes only what is missing. Where a cell ran changes nothing in it: its key is
//! the sha256 of its code, data, parameters and seed, and every random decision comes from
//! the seed and the cell's names, not from the machine or the order of work.
//!
//! `collect::collect` copies every planned cell that is sound in any of several stores into
//! one (`store::verify_cell` on both sides) and writes that store's `run.json`, so the report
//! renders from it as from a single `ltr run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ltr_data::resolved::{DataFile, DatasetStatus};
use ltr_harness::spec::{ExperimentSpec, SpecLimits};
use serde::{Deserialize, Serialize};

use crate::code::CodeHashes;
use crate::error::{Result, RunnerError};
use crate::runner::{PlannedCell, plan_cells};

/// Format of `plan.json` and `cells.jsonl`.
pub const PLAN_FORMAT: u32 = 1;

/// The most cells a plan may hold (cells.jsonl is read back whole by every task).
pub const MAX_PLAN_CELLS: usize = 10_000_000;

/// The most grid points a plan may hold over all its cells (`cells.jsonl` lists each cell's
/// whole grid, and every task reads the plan back whole), whatever `--max-cells` allows.
/// Measured at the bound (100,000 LambdaMART points over 5 folds): 1.3 GB of memory when
/// planning and in each task that reads the plan, 115 MB of `cells.jsonl`.
pub const MAX_PLAN_POINTS: u64 = 500_000;

/// Largest `plan.json` / `cells.jsonl` read back, in bytes.
const MAX_PLAN_BYTES: u64 = 4 << 30;

/// Minutes a cell is assumed to take when the store has no timing for it.
pub const DEFAULT_CELL_MINUTES: u64 = 60;

/// One data file a cell reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanFile {
    /// `train`, `vali` or `test`.
    pub split: String,
    /// Path relative to the collection root.
    pub rel: String,
    /// sha256 of its content.
    pub sha256: String,
}

/// One line of `cells.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanCell {
    /// Position in the runner's order (0-based).
    pub index: usize,
    /// The task that runs it.
    pub task: usize,
    /// Dataset.
    pub dataset: String,
    /// Feature variant.
    pub variant: String,
    /// Fold.
    pub fold: u32,
    /// Algorithm label.
    pub algorithm: String,
    /// Algorithm id.
    pub id: String,
    /// The grid points the cell searches (selection on vali needs all of them), in order.
    pub grid: Vec<serde_json::Value>,
    /// The cell key.
    pub key: String,
    /// The data files it reads.
    pub files: Vec<PlanFile>,
}

impl PlanCell {
    /// `OHSUMED fold 1 regression`, as the runner names cells.
    pub fn name(&self) -> String {
        format!("{} fold {} {}", self.dataset, self.fold, self.algorithm)
    }
}

/// `plan.json`: what a task needs to run its cells anywhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanHeader {
    /// [`PLAN_FORMAT`].
    pub format: u32,
    /// Spec name (the store's folder and the report's name).
    pub name: String,
    /// Where the spec came from ([`ExperimentSpec::source`]); also the path its text is
    /// parsed under, so relative paths in it resolve as they did.
    pub spec_source: String,
    /// The spec's text.
    pub spec_text: String,
    /// `--datasets` of the plan (empty: all).
    pub select_datasets: Vec<String>,
    /// `--algorithms` of the plan (empty: all).
    pub select_algorithms: Vec<String>,
    /// Collection.
    pub collection: String,
    /// Master seed.
    pub seed: u64,
    /// Cells per task (K).
    pub cells_per_task: usize,
    /// Tasks (T).
    pub tasks: usize,
    /// Cells.
    pub cells: usize,
    /// The collection manifest file the plan was made with (`--manifest`), if not the
    /// built-in one.
    #[serde(default)]
    pub manifest: Option<PathBuf>,
    /// The datasets as resolved when planning (the merged `run.json` records them).
    pub datasets: Vec<DatasetStatus>,
    /// Version of the harness that planned.
    pub version: String,
}

/// A plan: its header and its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// `plan.json`.
    pub header: PlanHeader,
    /// `cells.jsonl`, in order.
    pub cells: Vec<PlanCell>,
}

/// The spec text and selection a plan is made of.
#[derive(Debug, Clone)]
pub struct PlanSpec<'a> {
    /// The spec, already restricted to the selection.
    pub spec: &'a ExperimentSpec,
    /// Its text (parsed under `spec.source`).
    pub text: &'a str,
    /// The dataset selection (empty: all).
    pub datasets: &'a [String],
    /// The algorithm selection (empty: all).
    pub algorithms: &'a [String],
    /// The manifest file, if not the built-in one.
    pub manifest: Option<&'a Path>,
}

pub(crate) fn plan_error(dir: &Path, reason: impl std::fmt::Display) -> RunnerError {
    RunnerError::Plan { dir: dir.to_owned(), reason: reason.to_string() }
}

fn files_of(c: &PlannedCell<'_>) -> Vec<PlanFile> {
    [("train", &c.fold.train), ("vali", &c.fold.vali), ("test", &c.fold.test)]
        .into_iter()
        .map(|(split, f): (&str, &DataFile)| PlanFile {
            split: split.to_owned(),
            rel: f.rel.clone(),
            sha256: f.sha256.clone(),
        })
        .collect()
}

impl Plan {
    /// Cuts the cells of `spec` over `datasets` ([`plan_cells`], keyed with `code`) into
    /// tasks of `cells_per_task`.
    pub fn new(
        spec: &PlanSpec<'_>,
        datasets: &[DatasetStatus],
        code: &CodeHashes,
        cells_per_task: usize,
    ) -> Result<Self> {
        let source = Path::new(&spec.spec.source);
        if cells_per_task == 0 {
            return Err(plan_error(source, "--cells-per-task must be at least 1"));
        }
        let planned = plan_cells(spec.spec, datasets, code)?;
        if planned.is_empty() {
            return Err(RunnerError::NothingToRun {
                reason: format!("{}: no cell to plan (no dataset available)", spec.spec.name),
            });
        }
        if planned.len() > MAX_PLAN_CELLS {
            return Err(plan_error(source, format!("{} cells (at most {MAX_PLAN_CELLS})", planned.len())));
        }
        let points: u64 = planned.iter().map(|c| c.entry.grid.len() as u64).sum();
        if points > MAX_PLAN_POINTS {
            return Err(plan_error(
                source,
                format!(
                    "its {} cells list {points} grid points in all (each cell its algorithm's whole grid), \
                     more than the {MAX_PLAN_POINTS} a plan holds: plan fewer datasets or algorithms at a time",
                    planned.len()
                ),
            ));
        }
        let cells: Vec<PlanCell> = planned
            .iter()
            .enumerate()
            .map(|(index, c)| PlanCell {
                index,
                task: index / cells_per_task,
                dataset: c.dataset.name.clone(),
                variant: c.dataset.variant.clone(),
                fold: c.fold.fold,
                algorithm: c.entry.label.clone(),
                id: c.entry.id.clone(),
                grid: c.entry.grid.iter().map(ltr_harness::AlgoConfig::params_json).collect(),
                key: c.key.clone(),
                files: files_of(c),
            })
            .collect();
        let header = PlanHeader {
            format: PLAN_FORMAT,
            name: spec.spec.name.clone(),
            spec_source: spec.spec.source.clone(),
            spec_text: spec.text.to_owned(),
            select_datasets: spec.datasets.to_vec(),
            select_algorithms: spec.algorithms.to_vec(),
            collection: spec.spec.collection.clone(),
            seed: spec.spec.seed,
            cells_per_task,
            tasks: cells.len().div_ceil(cells_per_task),
            cells: cells.len(),
            manifest: spec.manifest.map(Path::to_owned),
            datasets: datasets.to_vec(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        };
        Ok(Self { header, cells })
    }

    /// The cells of task `task`, in order.
    pub fn task_cells(&self, task: usize) -> Result<&[PlanCell]> {
        let k = self.header.cells_per_task;
        if task >= self.header.tasks {
            return Err(plan_error(
                Path::new(&self.header.name),
                format!(
                    "task {task} does not exist (the plan has tasks 0 to {})",
                    self.header.tasks.saturating_sub(1)
                ),
            ));
        }
        let end = ((task + 1) * k).min(self.cells.len());
        Ok(&self.cells[task * k..end])
    }

    /// The plan's spec, parsed from its text and restricted as planned.
    pub fn spec(&self, limits: &SpecLimits) -> Result<ExperimentSpec> {
        let h = &self.header;
        let mut spec = ExperimentSpec::parse_with(&h.spec_text, Path::new(&h.spec_source), limits)?;
        if !h.select_datasets.is_empty() {
            spec.restrict_datasets(&h.select_datasets)?;
        }
        if !h.select_algorithms.is_empty() {
            spec.restrict_algorithms(&h.select_algorithms)?;
        }
        Ok(spec)
    }

    /// Reads a plan folder written by [`Plan::write`], checking that the cells are the
    /// header's, in order, cut into its tasks.
    pub fn load(dir: &Path) -> Result<Self> {
        let read = |name: &str| -> Result<String> {
            let path = dir.join(name);
            ltr_core::fs::read_bounded_to_string(&path, MAX_PLAN_BYTES).map_err(|e| plan_error(&path, e))
        };
        let header: PlanHeader =
            serde_json::from_str(&read("plan.json")?).map_err(|e| plan_error(&dir.join("plan.json"), e))?;
        if header.format != PLAN_FORMAT {
            return Err(plan_error(
                dir,
                format!("plan format {} (this build reads {PLAN_FORMAT}): plan again", header.format),
            ));
        }
        if header.cells_per_task == 0 || header.cells == 0 || header.cells > MAX_PLAN_CELLS {
            return Err(plan_error(
                dir,
                format!(
                    "plan.json: {} cells_per_task, {} cells (1 to {MAX_PLAN_CELLS})",
                    header.cells_per_task, header.cells
                ),
            ));
        }
        let path = dir.join("cells.jsonl");
        let mut cells = Vec::with_capacity(header.cells);
        for (n, line) in read("cells.jsonl")?.lines().enumerate() {
            let at = format!("cells.jsonl line {}", n + 1);
            let cell: PlanCell =
                serde_json::from_str(line).map_err(|e| plan_error(&path, format!("{at}: {e}")))?;
            if cell.index != n || cell.task != n / header.cells_per_task {
                return Err(plan_error(
                    &path,
                    format!("{at}: cell {} of task {} out of order", cell.index, cell.task),
                ));
            }
            if cells.len() >= header.cells {
                return Err(plan_error(&path, format!("more cells than plan.json's {}", header.cells)));
            }
            cells.push(cell);
        }
        if cells.len() != header.cells || header.tasks != cells.len().div_ceil(header.cells_per_task) {
            return Err(plan_error(
                &path,
                format!("{} cells, plan.json says {} in {} tasks", cells.len(), header.cells, header.tasks),
            ));
        }
        Ok(Self { header, cells })
    }
}

/// A time limit for one task: twice the slowest task's cells (their measured `total_seconds`
/// where `measured` knows them, else [`DEFAULT_CELL_MINUTES`] each), plus 10 minutes for
/// fetching and reading data.
pub fn time_limit_minutes(plan: &Plan, measured: impl Fn(&str) -> Option<f64>) -> u64 {
    let mut slowest = 0.0f64;
    for task in plan.cells.chunk_by(|a, b| a.task == b.task) {
        let seconds: f64 = task
            .iter()
            .map(|c| match measured(&c.key) {
                Some(s) if s.is_finite() && s >= 0.0 => s,
                _ => (DEFAULT_CELL_MINUTES * 60) as f64,
            })
            .sum();
        slowest = slowest.max(seconds);
    }
    // Bounded: a year of minutes at most, whatever the timings say.
    let minutes = (2.0 * slowest / 60.0).ceil().min(525_600.0);
    minutes as u64 + 10
}

/// A data file of the task that is not the plan's.
fn data_mismatch(plan: &Plan, task: usize, cell: &PlanCell, what: String) -> RunnerError {
    RunnerError::Plan {
        dir: PathBuf::from(&plan.header.name),
        reason: format!(
            "task {task}: cell {} ({}): {what}; refusing to run the task (its data is not the data \
             the plan was made on)",
            cell.index,
            cell.name()
        ),
    }
}

/// Checks that the datasets resolved here give every cell of `task` the data files of the
/// plan (same paths, same sha256).
pub fn check_task_data(plan: &Plan, task: usize, datasets: &[DatasetStatus]) -> Result<()> {
    for cell in plan.task_cells(task)? {
        let d = datasets.iter().find_map(|s| match s {
            DatasetStatus::Available(d) if d.name == cell.dataset => Some(d),
            _ => None,
        });
        let Some(d) = d else {
            let why = datasets
                .iter()
                .find_map(|s| match s {
                    DatasetStatus::Unavailable { name, reason } if *name == cell.dataset => {
                        Some(reason.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| "not resolved".into());
            return Err(data_mismatch(
                plan,
                task,
                cell,
                format!("dataset {} unavailable here: {why}", cell.dataset),
            ));
        };
        if d.variant != cell.variant {
            return Err(data_mismatch(
                plan,
                task,
                cell,
                format!("variant {} here, {} in the plan", d.variant, cell.variant),
            ));
        }
        let Some(fold) = d.folds.iter().find(|f| f.fold == cell.fold) else {
            return Err(data_mismatch(plan, task, cell, format!("fold {} not available here", cell.fold)));
        };
        let here = [("train", &fold.train), ("vali", &fold.vali), ("test", &fold.test)];
        for want in &cell.files {
            match here.iter().find(|(s, _)| *s == want.split) {
                Some((_, f)) if f.rel == want.rel && f.sha256 == want.sha256 => {}
                Some((_, f)) => {
                    return Err(data_mismatch(
                        plan,
                        task,
                        cell,
                        format!(
                            "{} file {} has sha256 {} here, the plan has {} with sha256 {}",
                            want.split, f.rel, f.sha256, want.rel, want.sha256
                        ),
                    ));
                }
                None => return Err(data_mismatch(plan, task, cell, format!("no {} split", want.split))),
            }
        }
    }
    Ok(())
}

/// The cells of `task` as this build keys them over `datasets`, in plan order; an error when
/// a key differs from the plan's (other code or another spec than the plan's).
pub fn task_cells_here<'a>(
    plan: &Plan,
    task: usize,
    spec: &'a ExperimentSpec,
    datasets: &'a [DatasetStatus],
    code: &CodeHashes,
) -> Result<Vec<PlannedCell<'a>>> {
    let wanted = plan.task_cells(task)?;
    let mut here: BTreeMap<String, PlannedCell<'a>> =
        plan_cells(spec, datasets, code)?.into_iter().map(|c| (c.key.clone(), c)).collect();
    let mut out = Vec::with_capacity(wanted.len());
    for cell in wanted {
        match here.remove(&cell.key) {
            Some(c) => out.push(c),
            None => {
                return Err(RunnerError::Plan {
                    dir: PathBuf::from(&plan.header.name),
                    reason: format!(
                        "task {task}: cell {} ({}) has key {} in the plan, which this build does not \
                         give (another version of ltr or of the spec than the plan's): plan again",
                        cell.index,
                        cell.name(),
                        cell.key
                    ),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::fixture::{SPEC, dataset, spec};

    pub(crate) fn plan_of(spec: &ExperimentSpec, data: &[DatasetStatus], k: usize) -> Plan {
        let ps = PlanSpec { spec, text: SPEC, datasets: &[], algorithms: &[], manifest: None };
        Plan::new(&ps, data, &CodeHashes::builtin(), k).unwrap()
    }

    #[test]
    fn a_task_whose_data_differs_from_the_plan_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let spec = spec(SPEC);
        let mut plan = plan_of(&spec, &data, 2);
        plan.cells[1].files[2].sha256 = "0".repeat(64);
        let e = check_task_data(&plan, 0, &data).unwrap_err().to_string();
        assert!(e.contains("test file") && e.contains("refusing"), "{e}");
        check_task_data(&plan, 1, &data).unwrap();
        // A key this build does not give.
        plan.cells[2].key = "f".repeat(64);
        let e = task_cells_here(&plan, 1, &spec, &data, &CodeHashes::builtin()).unwrap_err().to_string();
        assert!(e.contains("plan again"), "{e}");
    }

    #[test]
    fn the_time_limit_uses_measured_cells_and_a_default_for_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let spec = spec(SPEC);
        let plan = plan_of(&spec, &data, 2);
        // Every cell measured at 3 minutes: the slowest task is 6 minutes, twice that + 10.
        assert_eq!(time_limit_minutes(&plan, |_| Some(180.0)), 22);
        // One cell unknown: an hour for it.
        let first = plan.cells[0].key.clone();
        assert_eq!(time_limit_minutes(&plan, |k| (k != first).then_some(180.0)), 2 * 63 + 10);
        assert_eq!(time_limit_minutes(&plan, |_| Some(f64::INFINITY)), 2 * 120 + 10);
    }
}
