//! The path `run`, `report` and `reproduce` share: the spec and its collection's manifest are
//! loaded once, then the spec is run over resolved datasets and/or reported from the store.

use std::path::{Path, PathBuf};

use anyhow::Context;
use ltr_data::manifest::Manifest;
use ltr_harness::spec::{BUILTIN, ExperimentSpec, SpecLimits};
use ltr_report::{Published, ReportInput};
use ltr_runner::runner::{DatasetStatus, RunOptions, RunRecord};
use ltr_runner::store::ResultStore;

use crate::cmd::ReportArgs;
use crate::progress::RunBar;

/// Where the spec of a command-line argument is read from ([`locate_spec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecArg {
    /// A spec file.
    File(PathBuf),
    /// A built-in spec: its name and text.
    Builtin(&'static str, &'static str),
}

/// Where the spec argument `arg` is read from. An argument that looks like a path (it holds a
/// path separator or ends in `.toml`) is a file, and one that is not there, or not a regular
/// file, is said to be so. A bare name is a regular file of that name if there is one, else
/// `experiments/<name>.toml` if there is one, else the built-in spec of that name.
///
/// # Errors
/// One line naming `arg`: no such file, not a spec file (a folder, a device, ...), or no such
/// built-in spec (listing them).
pub fn locate_spec(arg: &str) -> anyhow::Result<SpecArg> {
    let path = Path::new(arg);
    let looks_like_path =
        arg.contains('/') || arg.contains(std::path::MAIN_SEPARATOR) || arg.ends_with(".toml");
    let regular = match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => return Ok(SpecArg::File(path.to_owned())),
        Ok(_) => ltr_core::fs::open_regular(path).err(),
        Err(e) => Some(e),
    };
    let not_a_spec = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{arg}: no such file"),
        std::io::ErrorKind::InvalidInput => anyhow::anyhow!("{arg}: not a spec file: {e}"),
        _ => anyhow::anyhow!("{arg}: {e}"),
    };
    if looks_like_path {
        return Err(not_a_spec(regular.unwrap_or_else(|| std::io::ErrorKind::NotFound.into())));
    }
    let local = PathBuf::from("experiments").join(format!("{arg}.toml"));
    if local.is_file() {
        return Ok(SpecArg::File(local));
    }
    if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| *n == arg) {
        return Ok(SpecArg::Builtin(name, text));
    }
    match regular {
        // A folder or a device of that name.
        Some(e) if e.kind() != std::io::ErrorKind::NotFound => Err(not_a_spec(e)),
        _ => anyhow::bail!(
            "{arg}: no such built-in spec (known: {}), nor a file of that name",
            BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// A loaded spec with its manifest.
#[derive(Debug)]
pub struct Pipeline {
    /// The spec, restricted as asked.
    pub spec: ExperimentSpec,
    /// The manifest of its collection (`None`: every dataset is given by path).
    pub manifest: Option<Manifest>,
}

impl Pipeline {
    /// Loads a spec by path, or by built-in name (preferring `experiments/<name>.toml` in the
    /// working directory, so edits there take effect; see [`locate_spec`]), restricted to
    /// `datasets` and `algorithms` when they are not empty ([`Pipeline::from_spec`] adds its
    /// manifest). `limits` bound what the spec may ask for (checked before its grids are
    /// expanded).
    pub fn load_spec(
        spec: &str,
        datasets: &[String],
        algorithms: &[String],
        limits: &SpecLimits,
    ) -> anyhow::Result<ExperimentSpec> {
        let mut spec = match locate_spec(spec)? {
            SpecArg::File(path) => ExperimentSpec::load_with(&path, limits)?,
            SpecArg::Builtin(name, _) => ExperimentSpec::builtin_with(name, limits)?,
        };
        // The published numbers are shown by the report; a file that does not parse is the
        // spec's error now, not the report's after the run.
        if let Some(file) = &spec.published {
            Published::load(file).map_err(|e| {
                anyhow::anyhow!("{}: `published`: {}", spec.source, e.to_string().trim().replace('\n', " "))
            })?;
        }
        if !datasets.is_empty() {
            spec.restrict_datasets(datasets)?;
        }
        if !algorithms.is_empty() {
            restrict_algorithms(&mut spec, algorithms)?;
        }
        Ok(spec)
    }

    /// A spec with its collection's manifest: the one in `manifest_file` if given (its
    /// collection must be the spec's), else the built-in one; none when the spec has no
    /// collection (every dataset given by path).
    pub fn from_spec(spec: ExperimentSpec, manifest_file: Option<&Path>) -> anyhow::Result<Self> {
        let manifest = manifest_of(&spec, manifest_file)?;
        // Before anything is fetched: a fold a dataset lacks is the spec's error. (A dataset
        // the manifest does not know is reported unavailable by the resolution.)
        if let Some(manifest) = &manifest {
            for name in &spec.datasets {
                if let Ok(entry) = manifest.dataset(name) {
                    let folds = entry.default_variant().folds;
                    let has: Vec<u32> = (1..=folds).collect();
                    spec.check_folds(&entry.name, &has)?;
                    // An algorithm refused at this size is refused before any download.
                    let rows = entry.train_documents.map(|n| n as u64).or_else(|| {
                        entry.documents.map(|n| ltr_harness::limits::train_rows_estimate(n as u64, folds))
                    });
                    if let Some(rows) = rows {
                        ltr_harness::limits::check(&spec, &entry.name, rows)?;
                    }
                }
            }
        }
        Ok(Self { spec, manifest })
    }

    /// The published numbers shown beside ours: the spec's own file if it names one, else
    /// the shipped ones, never for datasets given by path (a user's dataset that shares a
    /// name with a LETOR one is not that dataset).
    fn published(&self) -> anyhow::Result<Published> {
        let spec = &self.spec;
        let mut published = match &spec.published {
            Some(file) => {
                let mut p = Published::load(file)?;
                // A spec without a collection (and `--data`) holds datasets given by path only:
                // the file the user gave names them by `dataset`, whatever its `collection`.
                if spec.collection.is_empty() {
                    for r in &mut p.results {
                        r.collection.clear();
                    }
                }
                return Ok(p);
            }
            None => Published::builtin()?,
        };
        published.results.retain(|r| spec.path_dataset(&r.dataset).is_none());
        Ok(published)
    }

    /// Runs every cell of the spec over `datasets` into the store under `results`, and prints
    /// what it did: how many cells were computed and how many came from the store. Fails,
    /// with one line saying why, when no cell could run.
    pub fn run(&self, datasets: &[DatasetStatus], results: &Path, force: bool) -> anyhow::Result<RunRecord> {
        let available = datasets.iter().any(|d| matches!(d, DatasetStatus::Available(_)));
        if available {
            for d in datasets {
                if let DatasetStatus::Unavailable { name, reason } = d {
                    eprintln!("{name}: unavailable ({reason}); the others go on");
                }
            }
        }
        let store = ResultStore::open(results, &self.spec.name)
            .with_context(|| format!("opening the result store under {}", results.display()))?;
        let bar = RunBar::new();
        let opts = RunOptions { force, ..RunOptions::new(crate::cmd::binary_sha256()) };
        let record = ltr_runner::runner::run(&self.spec, datasets, &store, &opts, &bar);
        bar.finish();
        let record = record?;
        println!(
            "{}: {} cells ({} computed now, {} from the store), {} failed, {:.1} s, results in {}",
            self.spec.name,
            record.cells.len(),
            record.computed,
            record.from_store(),
            record.failed.len(),
            record.wall_seconds,
            store.root().display()
        );
        for f in &record.failed {
            eprintln!("failed: {} fold {} {}: {}", f.dataset, f.fold, f.label, f.error);
        }
        Ok(record)
    }

    /// After a run: its report ([`Pipeline::report`]) of what is in the store, also when
    /// some cells failed (its banner names them, and every mean they lack says so).
    pub fn report_run(&self, results: &Path, report: &ReportArgs, command: &str) -> anyhow::Result<()> {
        self.report(results, &report.out, true, command).map(|_| ())
    }

    /// Builds the report of the spec from the store under `results` and writes
    /// `<out>/<name>.{md,json,csv}` with the plots and per-query data in `<out>/<name>/`;
    /// prints where, last, and returns the paths. `command` is the command named in it as
    /// its writer. Missing or damaged cells fail it, naming each, unless `allow_partial`
    /// (then the report says so). A store that was never run fails naming `--results`.
    pub fn report(
        &self,
        results: &Path,
        out: &Path,
        allow_partial: bool,
        command: &str,
    ) -> anyhow::Result<Vec<PathBuf>> {
        let name = &self.spec.name;
        let run_file = results.join(name).join("run.json");
        if !run_file.is_file() {
            anyhow::bail!(
                "no run of `{name}` in the result store folder {} ({} is missing): give `--results DIR` \
                 (or LTR_RESULTS_DIR) the folder `ltr run` wrote into, or run it first",
                results.display(),
                run_file.display()
            );
        }
        let store = ResultStore::open(results, name)?;
        let title = self.manifest.as_ref().map_or_else(|| name.clone(), |m| m.title.clone());
        let mut input = ReportInput::from_store(
            self.spec.clone(),
            &store,
            self.published()?,
            title,
            crate::cmd::code_version(),
        )?;
        input.allow_partial = allow_partial;
        input.written_by = command.to_owned();
        if allow_partial {
            for m in &input.missing {
                log::warn!("partial report: missing {m}");
            }
        }
        let built = ltr_report::build(&input)?;
        let written = ltr_report::write(&built, out, name)?;
        for p in &written {
            log::debug!("wrote {}", p.display());
        }
        let out = out.join(name);
        println!(
            "report: {}.md (and .json, .csv; plots and per-query data in {}/)",
            out.display(),
            out.display()
        );
        Ok(written)
    }
}

/// The manifest of a spec's collection: the one in `manifest_file` if given (its collection
/// must be the spec's), else the built-in one; none when the spec has no collection (every
/// dataset given by path).
pub fn manifest_of(spec: &ExperimentSpec, manifest_file: Option<&Path>) -> anyhow::Result<Option<Manifest>> {
    Ok(match manifest_file {
        Some(file) => {
            let m = Manifest::load(file)?;
            if !spec.collection.is_empty() && m.collection != spec.collection {
                anyhow::bail!(
                    "{}: collection `{}`, but the manifest {} describes `{}`",
                    spec.source,
                    spec.collection,
                    file.display(),
                    m.collection
                );
            }
            Some(m)
        }
        None if spec.collection.is_empty() => None,
        None => Some(
            Manifest::builtin(&spec.collection)
                .with_context(|| format!("{}: collection `{}`", spec.source, spec.collection))?,
        ),
    })
}

/// `--algorithms`: the spec restricted to these labels or ids. A name that is neither one of
/// the spec's nor a registered id is refused as no known algorithm, with the close names of
/// both; a registered id the spec does not run gets the spec's own error (what it has).
pub fn restrict_algorithms(spec: &mut ExperimentSpec, names: &[String]) -> anyhow::Result<()> {
    for n in names {
        let in_spec = spec.algorithms.iter().any(|a| a.label == *n || a.id == *n);
        if in_spec || ltr_harness::registry::info(n).is_some() {
            continue;
        }
        let mut candidates: Vec<&str> = spec.algorithms.iter().map(|a| a.label.as_str()).collect();
        candidates.extend(ltr_harness::ALGORITHMS.iter().map(|a| a.id));
        let close = crate::cmd::close_names(n, candidates);
        let close =
            if close.is_empty() { String::new() } else { format!(" (did you mean {}?)", close.join(", ")) };
        anyhow::bail!(
            "--algorithms: `{n}` is not a known algorithm{close}; `ltr algorithms` lists the {} there are",
            ltr_harness::ALGORITHMS.len()
        );
    }
    spec.restrict_algorithms(names)?;
    Ok(())
}
