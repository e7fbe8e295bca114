//! The merge of the stores a plan's tasks filled: [`collect`] copies every planned cell that
//! is sound in any of several stores into one ([`crate::store::verify_cell`] on both sides)
//! and writes that store's `run.json`, so the report renders from it as from a single
//! `ltr run`.

use std::path::PathBuf;

use crate::error::{Result, RunnerError};
use crate::plan::{Plan, PlanCell};
use crate::runner::RunRecord;
use crate::store::{CellCheck, ResultStore, verify_cell, write_atomic};

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
                            return Err(RunnerError::store(
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
        let bytes = std::fs::read(&src).map_err(|e| RunnerError::store(&src, e))?;
        write_atomic(&dst, &bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use ltr_data::resolved::DatasetStatus;
    use ltr_harness::spec::SpecLimits;

    use super::*;
    use crate::code::CodeHashes;
    use crate::fixture::{SPEC, dataset, options, spec};
    use crate::plan::tests::plan_of;
    use crate::plan::{check_task_data, task_cells_here};
    use crate::runner::{NoProgress, PlannedCell, run, run_cells};
    use crate::scripts::tests::engines;

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
    fn array_lists_compress_ranges() {
        assert_eq!(array_list(&[0, 1, 2, 4, 6, 7]), "0-2,4,6-7");
        assert_eq!(array_list(&[]), "");
    }
}
