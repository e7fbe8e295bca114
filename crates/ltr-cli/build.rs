//! Records the git commit of the checkout (if any) as `LTR_GIT_REV` for report headers,
//! suffixed `+modified` when the sources differ from that commit, so a report never claims
//! a commit that did not produce it.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    // --no-optional-locks: `git status` must not rewrite the index (its refreshed stat data),
    // or the index would look newer than this script's run and trigger a rebuild every time.
    let out = Command::new("git").arg("--no-optional-locks").args(args).current_dir("../..").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    let sources = ["crates", "src", "Cargo.toml", "Cargo.lock"];
    let rev = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let mut args = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            args.extend(sources);
            match git(&args) {
                Some(changes) if changes.is_empty() => rev,
                _ => format!("{rev}+modified"),
            }
        }
        None => String::new(),
    };
    println!("cargo:rustc-env=LTR_GIT_REV={rev}");
    // Rerun when HEAD moves (commit, checkout) or any source changes.
    for p in [".git/HEAD", ".git/refs/heads"].iter().chain(&sources) {
        let p = format!("../../{p}");
        if std::path::Path::new(&p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}
