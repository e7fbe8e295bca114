//! One module per subcommand: `Args` (clap) and `run`.

pub mod check;
pub mod eval;
pub mod fetch;
pub mod pipeline;
pub mod predict;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod train;

use std::path::PathBuf;

/// Where data comes from (shared by fetch, run and reproduce).
#[derive(Debug, Clone, clap::Args)]
pub struct DataArgs {
    /// Mirror folder or http(s) address laid out like a collection root (files .gz or plain),
    /// tried before the official addresses.
    #[arg(long, env = "LTR_MIRROR")]
    pub mirror: Option<String>,
    /// Data cache folder (default: $LTR_DATA_DIR, else the per-user cache folder).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
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
