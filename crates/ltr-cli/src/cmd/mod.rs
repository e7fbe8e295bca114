//! One module per subcommand: `Args` (clap) and `run`.

pub mod algorithms;
pub mod cells;
pub mod check;
pub mod collect;
pub mod compare;
pub mod estimate;
pub mod eval;
pub mod explain;
pub mod fetch;
pub mod pipeline;
pub mod plan;
pub mod predict;
pub mod qrels;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod run_cell;
pub mod sensitivity;
pub mod survey;
pub mod synth;
pub mod train;
pub mod verify;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use ltr_fetch::{FetchOptions, Mirror};
use ltr_runner::store::ResultStore;

/// Where data comes from (shared by fetch, run and reproduce). The environment is read here
/// and only here; the libraries get plain [`FetchOptions`].
#[derive(Debug, Clone, clap::Args)]
pub struct DataArgs {
    /// Mirror folder or http(s) address laid out like a collection root (files .gz or plain),
    /// tried before the embedded data and the official addresses.
    #[arg(long, env = "LTR_MIRROR")]
    pub mirror: Option<String>,
    /// Data cache folder (default: $XDG_CACHE_HOME/ltr, else ~/.cache/ltr).
    #[arg(long, env = "LTR_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// A download slower than this many bytes per second, averaged over --speed-window, is
    /// abandoned and resumed by the next attempt (0: no such rule).
    #[arg(long, env = "LTR_MIN_SPEED", default_value_t = 10_000)]
    pub min_speed: u64,
    /// The seconds the --min-speed rule averages over (1 to 86400).
    #[arg(long, env = "LTR_SPEED_WINDOW", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub speed_window: u64,
    /// Seconds a download may wait for an answer or for data before the attempt is retried
    /// (1 to 3600); a download with nothing received for 45 s over all its attempts is given
    /// up.
    #[arg(long, env = "LTR_TIMEOUT", default_value_t = 20,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// The most seconds one download from one address may take, retries included, however
    /// fast it goes (1 to 604800); what arrived is kept and resumed by the next run.
    #[arg(long, env = "LTR_MAX_TIME", default_value_t = 14_400,
          value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub max_time: u64,
}

impl DataArgs {
    /// The fetch configuration: the cache folder (given, else the per-user default; made
    /// absolute, so that every message names it one way) and the mirror (unset or empty:
    /// none).
    pub fn fetch_options(&self) -> anyhow::Result<FetchOptions> {
        let data_dir = match self.data_dir.as_ref().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => d.clone(),
            None => ltr_fetch::options::default_data_dir(),
        };
        let data_dir = std::path::absolute(&data_dir).unwrap_or(data_dir);
        let mut opts = FetchOptions::new(data_dir);
        opts.min_speed = self.min_speed;
        opts.speed_window = std::time::Duration::from_secs(self.speed_window);
        opts.timeout = std::time::Duration::from_secs(self.timeout);
        opts.max_time = std::time::Duration::from_secs(self.max_time);
        if let Some(m) = self.mirror.as_ref().filter(|m| !m.trim().is_empty()) {
            opts.mirror = Some(m.parse::<Mirror>().map_err(|e| anyhow::anyhow!("--mirror {m}: {e}"))?);
        }
        Ok(opts)
    }
}

/// Where a report goes (shared by `run`, `reproduce` and `report`, so every command that
/// writes a report writes it to one place).
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Folder for the report: <out>/<name>.md, .json and .csv, and <out>/<name>/ with the
    /// plots and per-query data (default: $LTR_REPORTS_DIR, else ./reports).
    #[arg(long, env = "LTR_REPORTS_DIR", default_value = "reports")]
    pub out: PathBuf,
}

/// The version string recorded in reports: crate version and, when built from a git
/// checkout, the commit.
pub fn code_version() -> String {
    match option_env!("LTR_GIT_REV") {
        Some(rev) if !rev.is_empty() => format!("ltr {} (git {rev})", env!("CARGO_PKG_VERSION")),
        _ => format!("ltr {}", env!("CARGO_PKG_VERSION")),
    }
}

/// The sha256 of the running executable, recorded in each computed cell as provenance (cells
/// are keyed by source hashes, not by the executable). Falls back to the version string when
/// the executable cannot be read.
pub fn binary_sha256() -> String {
    use sha2::{Digest, Sha256};
    let bytes = std::env::current_exe().and_then(std::fs::read);
    match bytes {
        Ok(b) => Sha256::digest(&b).iter().map(|x| format!("{x:02x}")).collect(),
        Err(_) => code_version(),
    }
}

/// The result stores `path` names: itself when it is one (it has a `cells/` folder), else
/// every store directly in it, sorted (`results/letor3` or `results`).
pub fn stores_in(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let is_store = |p: &Path| p.join("cells").is_dir();
    if is_store(path) {
        return Ok(vec![path.to_owned()]);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("reading {}", path.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| is_store(p))
        .collect();
    found.sort();
    if found.is_empty() {
        bail!("{}: not a result store (no cells/ folder), and holds none", path.display());
    }
    Ok(found)
}

/// Opens the existing result store folder `dir` (one [`stores_in`] found).
pub fn open_store(dir: &Path) -> anyhow::Result<ResultStore> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let base = dir.parent().unwrap_or(Path::new("."));
    Ok(ResultStore::open(base, &name)?)
}

/// The `candidates` close to `name`, for "did you mean" hints: equal but for case, one the
/// prefix of the other, or at most two edits apart (a third of the name's length at most),
/// without repeats, in the order given.
pub fn close_names<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let lower = name.to_lowercase();
    let limit = (lower.chars().count() / 3).min(2);
    let mut out: Vec<&str> = Vec::new();
    for c in candidates {
        let other = c.to_lowercase();
        let near = other == lower
            || (lower.len().min(other.len()) >= 3
                && (other.starts_with(&lower) || lower.starts_with(&other)))
            || edit_distance(&lower, &other) <= limit;
        if near && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `text` with the data cache folder `cache` (absolute) named `<data cache>`: what is written
/// into a run record and its reports names no folder of the machine that ran it.
pub fn without_cache_path(text: &str, cache: &Path) -> String {
    text.replace(&format!("{}{}", cache.display(), std::path::MAIN_SEPARATOR), "<data cache>/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_allow_case_prefixes_and_small_typos() {
        let ids =
            ["lambdamart", "lambdarank", "listnet", "listmle", "ranksvm", "ranksvm-ensemble", "regression"];
        assert_eq!(close_names("lambdaMART", ids), ["lambdamart"]);
        assert_eq!(close_names("listnt", ids), ["listnet"]);
        assert_eq!(close_names("ranksvm-ens", ids), ["ranksvm", "ranksvm-ensemble"]);
        assert_eq!(close_names("lambda", ids), ["lambdamart", "lambdarank"]);
        assert!(close_names("xgboost", ids).is_empty());
        assert!(close_names("ab", ["ac", "abc"]).is_empty(), "too short to guess");
        assert_eq!((edit_distance("kitten", "sitting"), edit_distance("", "abc")), (3, 3));
    }
}
