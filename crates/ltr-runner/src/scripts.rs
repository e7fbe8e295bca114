//! The engine files of a plan folder: `slurm.sbatch` (a job array), `k8s-job.yaml` (an
//! Indexed Job) and `parallel.sh` (GNU parallel), each running `ltr run-cell` for every task
//! of a [`Plan`], and [`Plan::write`], which writes them beside the plan itself.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::plan::{Plan, plan_error};
use crate::store::write_atomic;

impl Plan {
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
    /// Time limit of one task, minutes ([`crate::plan::time_limit_minutes`]).
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

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_data::resolved::DatasetStatus;

    use super::*;
    use crate::fixture::{SPEC, dataset, spec};
    use crate::plan::tests::plan_of;

    pub(crate) fn engines() -> Engines {
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
    fn slurm_times_are_days_hours_and_minutes() {
        assert_eq!(slurm_time(70), "0-01:10:00");
        assert_eq!(slurm_time(1500), "1-01:00:00");
    }
}
