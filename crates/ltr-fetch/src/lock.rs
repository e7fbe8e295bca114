//! The fetch lock: one of several tasks sharing a data cache (the tasks of a cluster plan on
//! one host or one shared file system) fetches while the others wait.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A fetch lock that could not be taken: the lock file (or its folder), and why.
#[derive(Debug, thiserror::Error)]
#[error("fetch lock {}: {reason}", path.display())]
pub struct LockError {
    /// The lock file, or the folder that could not be created.
    pub path: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl LockError {
    fn new(path: &Path, reason: impl std::fmt::Display) -> Self {
        Self { path: path.to_owned(), reason: reason.to_string() }
    }
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
    pub fn acquire(dir: &Path, stale_after: Duration, wait: Duration) -> Result<Self, LockError> {
        std::fs::create_dir_all(dir).map_err(|e| LockError::new(dir, e))?;
        let path = dir.join(FETCH_LOCK);
        let started = std::time::Instant::now();
        let me = format!("{} {} {}\n", std::process::id(), host_name(), unix_seconds(SystemTime::now()));
        let mut told = false;
        loop {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    use std::io::Write;
                    f.write_all(me.as_bytes()).map_err(|e| LockError::new(&path, e))?;
                    let _ = f.sync_all();
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(LockError::new(&path, e)),
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
                return Err(LockError::new(
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
