//! Scale-out on the schedulers people already run: a spec's cells cut into tasks that Slurm
//! job arrays, Kubernetes Indexed Jobs or GNU parallel run, and the stores they fill merged
//! back into one.
//!
//! A plan folder ([`Plan::write`]) holds:
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
//! [`collect`] copies every planned cell that is sound in any of several stores into one
//! ([`crate::store::verify_cell`] on both sides) and writes that store's `run.json`, so the
//! report renders from it as from a single `ltr run`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ltr_data::resolved::{DataFile, DatasetStatus};
use serde::{Deserialize, Serialize};

use crate::code::CodeHashes;
use crate::error::{HarnessError, Result};
use crate::runner::{PlannedCell, RunRecord, plan_cells};
use crate::spec::{ExperimentSpec, SpecLimits};
use crate::store::{CellCheck, ResultStore, verify_cell, write_atomic};

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

fn plan_error(dir: &Path, reason: impl std::fmt::Display) -> HarnessError {
    HarnessError::Plan { dir: dir.to_owned(), reason: reason.to_string() }
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
            return Err(HarnessError::NothingToRun {
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
                grid: c.entry.grid.iter().map(crate::AlgoConfig::params_json).collect(),
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

    /// Writes `plan.json`, `cells.jsonl` and the three engine files into `dir` (created),
    /// each atomically, and creates `dir/logs`.
    pub fn write(&self, dir: &Path, engines: &Engines) -> Result<Vec<PathBuf>> {
        engines.check().map_err(|reason| plan_error(dir, reason))?;
        std::fs::create_dir_all(dir.join("logs")).map_err(|e| plan_error(dir, e))?;
        let mut header = serde_json::to_vec_pretty(&self.header).map_err(|e| plan_error(dir, e))?;
        header.push(b'\n');
        let mut lines = Vec::new();
        for c in &self.cells {
            serde_json::to_writer(&mut lines, c).map_err(|e| plan_error(dir, e))?;
            lines.push(b'\n');
        }
        let files = [
            ("plan.json", header),
            ("cells.jsonl", lines),
            ("slurm.sbatch", slurm_sbatch(self, engines).into_bytes()),
            ("k8s-job.yaml", k8s_job(self, engines).into_bytes()),
            ("parallel.sh", parallel_sh(self, engines).into_bytes()),
        ];
        let mut written = Vec::new();
        for (name, bytes) in files {
            let path = dir.join(name);
            write_atomic(&path, &bytes)?;
            written.push(path);
        }
        for script in ["slurm.sbatch", "parallel.sh"] {
            set_executable(&dir.join(script));
        }
        Ok(written)
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

fn set_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)) {
            log::warn!("{}: cannot make it executable: {e}", path.display());
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// How the engine files call `ltr`, as the machines that run the tasks see things.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Engines {
    /// The plan folder (absolute, on the shared file system).
    pub plan_dir: String,
    /// The result store folder the tasks write into (`ltr run-cell --results`).
    pub results: String,
    /// The data cache folder of the tasks (`LTR_DATA_DIR`), if set when planning.
    pub data_dir: Option<String>,
    /// The `ltr` executable.
    pub program: String,
    /// Tasks running at once (P).
    pub parallel: usize,
    /// Cores per task.
    pub cpus_per_task: usize,
    /// Time limit of one task, minutes ([`time_limit_minutes`]).
    pub time_limit_minutes: u64,
    /// The container image of the Kubernetes Job.
    pub image: String,
}

impl Engines {
    /// Whether the engine files can name these paths: any character but a control character
    /// (a line break would end a `#SBATCH` line or a shell command), and no backslash in the
    /// plan folder (Slurm reads a backslash in `--output` as "no `%A`/`%a` replacement", so
    /// every task would log into one file).
    fn check(&self) -> std::result::Result<(), String> {
        let mut paths = vec![("the plan folder", &self.plan_dir), ("the result store", &self.results)];
        paths.extend(self.data_dir.as_ref().map(|d| ("the data cache", d)));
        paths.push(("the ltr executable", &self.program));
        for (what, p) in paths {
            if p.chars().any(char::is_control) {
                return Err(format!(
                    "{what} {p:?} has a control character, which the engine files cannot carry"
                ));
            }
        }
        if self.plan_dir.contains('\\') {
            return Err(format!(
                "the plan folder {:?} has a backslash, which turns off Slurm's %A/%a in log file names",
                self.plan_dir
            ));
        }
        Ok(())
    }

    /// Tasks at once, at least 1 and at most the plan's tasks.
    fn at_once(&self, plan: &Plan) -> usize {
        self.parallel.clamp(1, plan.header.tasks.max(1))
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

/// Whether `s` is one word as it is, for a shell and for sbatch.
fn plain_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b))
}

/// Quotes a value for a POSIX shell (single quotes).
fn sh_quote(s: &str) -> String {
    if plain_word(s) { s.to_owned() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}

/// Quotes a value for an `#SBATCH` line as sbatch reads it: words end at whitespace outside
/// quotes, and inside double quotes a backslash takes the next character as it is.
fn sbatch_quote(s: &str) -> String {
    if plain_word(s) { s.to_owned() } else { format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")) }
}

/// Quotes a value for YAML (double quotes, JSON escaping is valid YAML).
fn yaml_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

fn header_comment(plan: &Plan, engine: &str) -> String {
    let h = &plan.header;
    format!(
        "# {engine} for `{}` ({} cells in {} tasks of at most {}), written by `ltr plan`.\n\
         # Every task runs `ltr run-cell --plan PLAN --task N`: it skips cells already in the\n\
         # store, so after failures submit the same file again; `ltr collect` then merges.\n",
        h.name, h.cells, h.tasks, h.cells_per_task
    )
}

/// `slurm.sbatch`: a job array over the tasks.
pub fn slurm_sbatch(plan: &Plan, e: &Engines) -> String {
    let h = &plan.header;
    let mut s = String::from("#!/bin/bash\n");
    s += &header_comment(plan, "Slurm job array");
    s += "# Submit with `sbatch slurm.sbatch` (resubmit only some tasks with `--array=LIST`).\n";
    let _ = writeln!(s, "#SBATCH --job-name={}", sbatch_quote(&format!("ltr-{}", h.name)));
    let _ = writeln!(s, "#SBATCH --array=0-{}%{}", h.tasks.saturating_sub(1), e.at_once(plan));
    let _ = writeln!(s, "#SBATCH --ntasks=1");
    let _ = writeln!(s, "#SBATCH --cpus-per-task={}", e.cpus_per_task.max(1));
    let _ = writeln!(s, "#SBATCH --time={}", slurm_time(e.time_limit_minutes));
    // In a file name pattern `%` is Slurm's: `%%` is a plain one.
    let log = sbatch_quote(&format!("{}/logs/slurm-%A_%a.out", e.plan_dir.replace('%', "%%")));
    let _ = writeln!(s, "#SBATCH --output={log}");
    let _ = writeln!(s, "#SBATCH --error={log}");
    s += "set -euo pipefail\n";
    let _ = writeln!(s, "export RAYON_NUM_THREADS=\"${{SLURM_CPUS_PER_TASK:-{}}}\"", e.cpus_per_task.max(1));
    s += &shell_paths(e);
    s += "exec \"$ltr\" run-cell --plan \"$plan\" --task \"$SLURM_ARRAY_TASK_ID\" --results \"$results\"\n";
    s
}

/// The shell lines of both scripts that set `plan`, `results` and `ltr` (the executable,
/// `LTR_BIN` if set) and export `LTR_DATA_DIR` (the plan's data cache unless set), each path
/// single-quoted: the shell expands nothing in it.
fn shell_paths(e: &Engines) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "plan={}", sh_quote(&e.plan_dir));
    let _ = writeln!(s, "results={}", sh_quote(&e.results));
    let _ = writeln!(s, "ltr=${{LTR_BIN:-}}");
    let _ = writeln!(s, "[ -n \"$ltr\" ] || ltr={}", sh_quote(&e.program));
    if let Some(d) = &e.data_dir {
        let _ = writeln!(s, "[ -n \"${{LTR_DATA_DIR:-}}\" ] || LTR_DATA_DIR={}", sh_quote(d));
        s += "export LTR_DATA_DIR\n";
    }
    s
}

/// Slurm's `--time` as `D-HH:MM:00`.
fn slurm_time(minutes: u64) -> String {
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    format!("{d}-{h:02}:{m:02}:00")
}

/// `k8s-job.yaml`: an Indexed Job, one completion per task. The plan, results and data
/// folders are volumes (persistent volume claims `ltr-plan`, `ltr-results`, `ltr-data`, to be
/// bound to the shared storage); in the pod they are `/ltr/plan`, `/ltr/results` and
/// `/ltr/data`.
pub fn k8s_job(plan: &Plan, e: &Engines) -> String {
    let h = &plan.header;
    let name =
        format!("ltr-{}", h.name.to_ascii_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
    let mut s = header_comment(plan, "Kubernetes Indexed Job");
    s += "# Apply with `kubectl apply -f k8s-job.yaml` once the three claims below exist.\n";
    s += "apiVersion: batch/v1\nkind: Job\nmetadata:\n";
    let _ = writeln!(s, "  name: {}", yaml_quote(&name));
    s += "spec:\n  completionMode: Indexed\n";
    let _ = writeln!(s, "  completions: {}", h.tasks);
    let _ = writeln!(s, "  parallelism: {}", e.at_once(plan));
    s += "  backoffLimitPerIndex: 2\n";
    let _ = writeln!(s, "  maxFailedIndexes: {}", h.tasks);
    let _ = writeln!(
        s,
        "  activeDeadlineSeconds: {}",
        e.time_limit_minutes * 60 * h.tasks.div_ceil(e.at_once(plan)) as u64
    );
    s += "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n";
    s += "        - name: ltr\n";
    let _ = writeln!(s, "          image: {}", yaml_quote(&e.image));
    s += "          command:\n            - /bin/sh\n            - -c\n";
    s += "            - exec ltr run-cell --plan /ltr/plan --task \"$JOB_COMPLETION_INDEX\" --results /ltr/results\n";
    s += "          env:\n";
    s += "            - name: LTR_DATA_DIR\n              value: /ltr/data\n";
    s += "            - name: RAYON_NUM_THREADS\n";
    let _ = writeln!(s, "              value: {}", yaml_quote(&e.cpus_per_task.max(1).to_string()));
    s += "          resources:\n            requests:\n";
    let _ = writeln!(s, "              cpu: {}", yaml_quote(&e.cpus_per_task.max(1).to_string()));
    s += "          volumeMounts:\n";
    for (vol, path, ro) in
        [("plan", "/ltr/plan", true), ("results", "/ltr/results", false), ("data", "/ltr/data", false)]
    {
        let _ = writeln!(s, "            - name: {vol}\n              mountPath: {path}");
        if ro {
            s += "              readOnly: true\n";
        }
    }
    s += "      volumes:\n";
    for vol in ["plan", "results", "data"] {
        let _ = writeln!(
            s,
            "        - name: {vol}\n          persistentVolumeClaim:\n            claimName: ltr-{vol}"
        );
    }
    s
}

/// `parallel.sh`: the tasks for GNU parallel. Extra arguments go to `parallel` (e.g.
/// `--sshloginfile hosts`: every host must see the plan, results and data folders at the
/// same paths).
pub fn parallel_sh(plan: &Plan, e: &Engines) -> String {
    let h = &plan.header;
    let mut s = String::from("#!/usr/bin/env bash\n");
    s += &header_comment(plan, "GNU parallel");
    s += "# `bash parallel.sh [PARALLEL OPTIONS]`; the job log lets a rerun resume (--resume),\n";
    s += "# add --resume-failed to rerun the tasks that failed.\n";
    s += "set -euo pipefail\n";
    let _ = writeln!(s, "export RAYON_NUM_THREADS=\"${{RAYON_NUM_THREADS:-{}}}\"", e.cpus_per_task.max(1));
    s += &shell_paths(e);
    // GNU parallel joins a command's words with spaces and hands the line to a shell again;
    // --quote makes it quote each word first, so paths with spaces or quotes stay whole.
    let _ = writeln!(
        s,
        "seq 0 {} | parallel --jobs \"${{LTR_JOBS:-{}}}\" --joblog \"$plan/logs/parallel.joblog\" --resume \\\n    \
         --env RAYON_NUM_THREADS --env LTR_DATA_DIR \"$@\" \\\n    \
         --quote \"$ltr\" run-cell --plan \"$plan\" --task {{}} --results \"$results\"",
        h.tasks.saturating_sub(1),
        e.at_once(plan),
    );
    s
}

/// A data file of the task that is not the plan's.
fn data_mismatch(plan: &Plan, task: usize, cell: &PlanCell, what: String) -> HarnessError {
    HarnessError::Plan {
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
                return Err(HarnessError::Plan {
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

/// What [`collect`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Collected {
    /// Cells copied into the target store now.
    pub copied: usize,
    /// Cells that were already sound in the target store.
    pub present: usize,
    /// Planned cells found in no store, by index.
    pub missing: Vec<usize>,
    /// Damaged copies met in the source stores (store folder, cell index, what is wrong);
    /// a cell with a sound copy elsewhere is still collected.
    pub damaged: Vec<(PathBuf, usize, String)>,
}

impl Collected {
    /// The tasks holding missing cells, as an `sbatch --array` list (`1,3-5`).
    pub fn resubmit(&self, plan: &Plan) -> String {
        let mut tasks: Vec<usize> =
            self.missing.iter().filter_map(|&i| plan.cells.get(i).map(|c| c.task)).collect();
        tasks.dedup();
        array_list(&tasks)
    }
}

/// `0,2-4,7` from sorted, distinct numbers.
pub fn array_list(sorted: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    parts.join(",")
}

/// Copies every planned cell sound in one of `sources` (and not already sound in `into`)
/// into `into`: scores, model and timing first, the record last, each atomically, then
/// checks the copy ([`verify_cell`]). Then writes `into`'s `run.json` for the plan, so that
/// `ltr report` renders from it as from a single run (missing cells are reported there).
pub fn collect(plan: &Plan, sources: &[ResultStore], into: &ResultStore) -> Result<Collected> {
    let mut out = Collected::default();
    let mut seconds = 0.0f64;
    let mut threads = 1usize;
    for cell in &plan.cells {
        let mut found = matches!(verify_cell(into, &cell.key), CellCheck::Sound(_));
        if found {
            out.present += 1;
        }
        for source in sources.iter().filter(|s| s.root() != into.root()) {
            if found {
                break;
            }
            match verify_cell(source, &cell.key) {
                CellCheck::Sound(record) => {
                    let test = cell.files.iter().find(|f| f.split == "test");
                    if test.is_some_and(|t| t.sha256 != record.test_sha256) {
                        out.damaged.push((
                            source.root().to_owned(),
                            cell.index,
                            "record of other test data than the plan's".into(),
                        ));
                        continue;
                    }
                    copy_cell(source, into, &cell.key)?;
                    match verify_cell(into, &cell.key) {
                        CellCheck::Sound(_) => {
                            out.copied += 1;
                            found = true;
                        }
                        CellCheck::Missing | CellCheck::Damaged(_) => {
                            return Err(HarnessError::store(
                                into.record_path(&cell.key),
                                format!("cell {} ({}) did not verify after copying", cell.index, cell.name()),
                            ));
                        }
                    }
                }
                CellCheck::Missing => {}
                CellCheck::Damaged(why) => out.damaged.push((source.root().to_owned(), cell.index, why)),
            }
        }
        if found {
            if let Some(t) = into.load_timing(&cell.key) {
                seconds += t.total_seconds;
                threads = threads.max(t.threads);
            }
        } else {
            out.missing.push(cell.index);
        }
    }
    let h = &plan.header;
    let record = RunRecord {
        name: h.name.clone(),
        spec_source: h.spec_source.clone(),
        collection: h.collection.clone(),
        seed: h.seed,
        datasets: h.datasets.clone(),
        cells: plan.cells.iter().map(|c| c.key.clone()).collect(),
        cell_names: plan.cells.iter().map(PlanCell::name).collect(),
        failed: Vec::new(),
        computed: plan.cells.len() - out.missing.len(),
        // The cells' own times added up: the compute the plan took, wherever it ran.
        wall_seconds: seconds,
        threads,
        version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    into.save_json("run.json", &record)?;
    Ok(out)
}

fn copy_cell(from: &ResultStore, to: &ResultStore, key: &str) -> Result<()> {
    let timing = from.timing_path(key);
    let mut files =
        vec![(from.scores_path(key), to.scores_path(key)), (from.model_path(key), to.model_path(key))];
    if timing.is_file() {
        files.push((timing, to.timing_path(key)));
    }
    // The record last: a cell counts as present only once it is there.
    files.push((from.record_path(key), to.record_path(key)));
    for (src, dst) in files {
        let bytes = std::fs::read(&src).map_err(|e| HarnessError::store(&src, e))?;
        write_atomic(&dst, &bytes)?;
    }
    Ok(())
}

/// A lock that lets one of several tasks on a host (or sharing a data cache) fetch data
/// while the others wait: the file `<dir>/.ltr-fetch.lock`, created with `create_new`
/// (atomic on local file systems and NFSv3 and later), holding `pid host seconds`, removed
/// when dropped.
///
/// A lock is stale, and is removed by the next task that wants it, when its holder was on
/// this host and that process is gone (killed, say), or when it is older than `stale_after`
/// whatever host holds it (a machine that died). A task waits at most `wait` for the lock.
#[derive(Debug)]
pub struct FetchLock {
    path: PathBuf,
}

/// The lock file's name in the data folder.
pub const FETCH_LOCK: &str = ".ltr-fetch.lock";

impl FetchLock {
    /// Takes the lock in `dir` (created), waiting for another holder and removing a stale
    /// lock.
    pub fn acquire(dir: &Path, stale_after: Duration, wait: Duration) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| HarnessError::store(dir, e))?;
        let path = dir.join(FETCH_LOCK);
        let started = std::time::Instant::now();
        let me = format!("{} {} {}\n", std::process::id(), host_name(), unix_seconds(SystemTime::now()));
        let mut told = false;
        loop {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    use std::io::Write;
                    f.write_all(me.as_bytes()).map_err(|e| HarnessError::store(&path, e))?;
                    let _ = f.sync_all();
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(HarnessError::store(&path, e)),
            }
            let held = std::fs::read_to_string(&path).unwrap_or_default();
            if let Some(why) = stale(&path, &held, stale_after) {
                // Only the lock that was judged stale goes: a fresh one taken meanwhile by
                // another task reads differently.
                if std::fs::read_to_string(&path).unwrap_or_default() == held {
                    log::warn!("removing a stale fetch lock {} ({why})", path.display());
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            if started.elapsed() >= wait {
                return Err(HarnessError::store(
                    &path,
                    format!("held by `{}` for longer than {} s", held.trim(), wait.as_secs()),
                ));
            }
            if !told {
                log::info!("waiting for the fetch lock {} (held by `{}`)", path.display(), held.trim());
                told = true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for FetchLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Why the lock `held` (the lock file's content) is stale, if it is.
fn stale(path: &Path, held: &str, stale_after: Duration) -> Option<String> {
    let mut parts = held.split_whitespace();
    let (pid, host) = (parts.next().and_then(|p| p.parse::<u32>().ok()), parts.next());
    if let (Some(pid), Some(host)) = (pid, host)
        && host == host_name()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(pid.to_string()).exists()
    {
        return Some(format!("process {pid} of this host has ended"));
    }
    let age = std::fs::metadata(path).and_then(|m| m.modified()).ok()?.elapsed().ok()?;
    (age > stale_after).then(|| format!("{} s old", age.as_secs()))
}

fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// This machine's name (`/proc/sys/kernel/hostname`, else `HOSTNAME`), for lock files.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty() && !h.contains(char::is_whitespace))
        .unwrap_or_else(|| "unknown-host".to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::runner::fixture::{SPEC, dataset, options, spec};
    use crate::runner::{NoProgress, run, run_cells};

    fn engines() -> Engines {
        Engines {
            plan_dir: "/shared/plan".into(),
            results: "/shared/results".into(),
            data_dir: Some("/shared/data".into()),
            program: "/opt/ltr/bin/ltr".into(),
            parallel: 2,
            cpus_per_task: 2,
            time_limit_minutes: 70,
            image: "ltr:latest".into(),
        }
    }

    fn plan_of(spec: &ExperimentSpec, data: &[DatasetStatus], k: usize) -> Plan {
        let ps = PlanSpec { spec, text: SPEC, datasets: &[], algorithms: &[], manifest: None };
        Plan::new(&ps, data, &CodeHashes::builtin(), k).unwrap()
    }

    #[test]
    fn tasks_cover_the_runner_order_and_collecting_split_stores_gives_the_single_run() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let spec = spec(SPEC);
        let plan = plan_of(&spec, &data, 3);
        assert_eq!((plan.header.cells, plan.header.tasks), (4, 2));
        plan.write(&dir.path().join("plan"), &engines()).unwrap();
        let plan = Plan::load(&dir.path().join("plan")).unwrap();
        assert_eq!(plan.task_cells(1).unwrap().len(), 1);
        assert!(plan.task_cells(2).is_err());
        assert_eq!(plan.spec(&SpecLimits::default()).unwrap().algorithms, spec.algorithms);

        let single = ResultStore::open(&dir.path().join("single"), "t").unwrap();
        let record = run(&spec, &data, &single, &options(), &NoProgress).unwrap();
        assert_eq!(record.cells, plan.cells.iter().map(|c| c.key.clone()).collect::<Vec<_>>());

        let stores: Vec<ResultStore> =
            ["a", "b"].map(|s| ResultStore::open(&dir.path().join(s), "t").unwrap()).into();
        for task in 0..plan.header.tasks {
            check_task_data(&plan, task, &data).unwrap();
            let cells = task_cells_here(&plan, task, &spec, &data, &CodeHashes::builtin()).unwrap();
            let refs: Vec<&PlannedCell<'_>> = cells.iter().collect();
            let o = run_cells(&spec, &data, &refs, &stores[task % 2], &options(), &NoProgress);
            assert!(o.failed.is_empty());
        }
        let into = ResultStore::open(&dir.path().join("merged"), "t").unwrap();
        // Only store a: the cells of task 1 are missing, and named.
        let c = collect(&plan, &stores[..1], &into).unwrap();
        assert_eq!((c.copied, c.missing.clone(), c.resubmit(&plan)), (3, vec![3], "1".to_owned()));
        let c = collect(&plan, &stores, &into).unwrap();
        assert_eq!((c.copied, c.present, c.missing.len()), (1, 3, 0));
        for key in &record.cells {
            for f in [ResultStore::record_path, ResultStore::scores_path, ResultStore::model_path] {
                assert_eq!(std::fs::read(f(&into, key)).unwrap(), std::fs::read(f(&single, key)).unwrap());
            }
        }
        let merged: RunRecord = into.load_json("run.json").unwrap();
        assert_eq!(
            (merged.cells, merged.cell_names, merged.datasets),
            (record.cells, record.cell_names, record.datasets)
        );
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
    fn paths_the_engine_files_cannot_carry_are_refused_and_others_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let plan = plan_of(&spec(SPEC), &data, 3);
        let out = dir.path().join("plan");
        let cases = [
            (Engines { results: "/shared/res\nults".into(), ..engines() }, "control character"),
            (Engines { program: "/opt/l\rtr".into(), ..engines() }, "control character"),
            (Engines { plan_dir: "/shared/pl\\an".into(), ..engines() }, "backslash"),
        ];
        for (e, why) in cases {
            let err = plan.write(&out, &e).unwrap_err().to_string();
            assert!(err.contains(why), "{err}");
            assert!(!out.exists(), "{err}");
        }
        let odd = Engines { plan_dir: "/sh ared/'p' \"q\" $x %y".into(), ..engines() };
        plan.write(&out, &odd).unwrap();
        let sbatch = std::fs::read_to_string(out.join("slurm.sbatch")).unwrap();
        let log = r#""/sh ared/'p' \"q\" $x %%y/logs/slurm-%A_%a.out""#;
        assert!(sbatch.contains(&format!("#SBATCH --output={log}\n")), "{sbatch}");
        assert!(sbatch.contains("plan='/sh ared/'\\''p'\\'' \"q\" $x %y'\n"), "{sbatch}");
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

    #[test]
    fn a_damaged_plan_folder_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let data = [DatasetStatus::Available(dataset(dir.path()))];
        let plan = plan_of(&spec(SPEC), &data, 3);
        let p = dir.path().join("plan");
        plan.write(&p, &engines()).unwrap();
        let lines = std::fs::read_to_string(p.join("cells.jsonl")).unwrap();
        let header = std::fs::read_to_string(p.join("plan.json")).unwrap();
        let cases: [(&str, String); 4] = [
            ("cells.jsonl", lines.lines().rev().collect::<Vec<_>>().join("\n")),
            ("cells.jsonl", lines.lines().take(2).collect::<Vec<_>>().join("\n")),
            ("plan.json", header.replace("\"cells\": 4", "\"cells\": 0")),
            ("plan.json", header[..header.len() / 2].to_owned()),
        ];
        for (file, text) in cases {
            std::fs::write(p.join(file), &text).unwrap();
            let e = Plan::load(&p).unwrap_err().to_string();
            assert!(e.contains(file), "{e}");
            plan.write(&p, &engines()).unwrap();
        }
        assert_eq!(Plan::load(&p).unwrap(), plan);
    }

    #[test]
    fn array_lists_compress_ranges() {
        assert_eq!(array_list(&[0, 1, 2, 4, 6, 7]), "0-2,4,6-7");
        assert_eq!(array_list(&[]), "");
        assert_eq!(slurm_time(70), "0-01:10:00");
        assert_eq!(slurm_time(1500), "1-01:00:00");
    }

    #[test]
    fn the_fetch_lock_is_exclusive_and_a_dead_holder_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let long = Duration::from_secs(3600);
        let first = FetchLock::acquire(dir.path(), long, long).unwrap();
        let e = FetchLock::acquire(dir.path(), long, Duration::ZERO).unwrap_err().to_string();
        assert!(e.contains("held by"), "{e}");
        drop(first);
        assert!(!dir.path().join(FETCH_LOCK).exists());
        // A holder of this host whose process is gone (pids never reach u32::MAX - 1).
        std::fs::write(dir.path().join(FETCH_LOCK), format!("{} {} 0\n", u32::MAX - 1, host_name())).unwrap();
        drop(FetchLock::acquire(dir.path(), long, Duration::ZERO).unwrap());
        // Another host's lock: stale only by age.
        std::fs::write(dir.path().join(FETCH_LOCK), "1 elsewhere 0\n").unwrap();
        assert!(FetchLock::acquire(dir.path(), long, Duration::ZERO).is_err());
        drop(FetchLock::acquire(dir.path(), Duration::ZERO, Duration::ZERO).unwrap());
    }
}
