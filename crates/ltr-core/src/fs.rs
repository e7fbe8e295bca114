//! Whole-file writes that never leave a partial file behind.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically: into a new temporary file in the same folder, flushed
/// to disk (`fsync`), then renamed over `path`. Readers see the old content or the new one,
/// never a mix, and a crash or a full disk leaves the old file as it was. On error the
/// temporary file is removed and `path` is untouched.
///
/// The temporary name (`.<name>.<pid>-<n>.tmp`) is unique per call within the machine's
/// processes, so concurrent writers, of one path or of several, never share one. An existing
/// file's permissions carry over to the new one. The folder must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.{}-{n}.tmp", name.to_string_lossy(), std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let written = (|| {
        if let Ok(meta) = std::fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir);
    Ok(())
}

/// Makes the rename durable. A failure is not reported: the new content is already in place,
/// and at worst a crash brings back the old file whole.
fn sync_dir(dir: &Path) {
    // Folders cannot be opened as files on every platform; where they can, this flushes them.
    if cfg!(unix)
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn scratch_dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ltr-core-fs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_and_replaces_a_file_leaving_nothing_else() {
        let d = scratch_dir("replace");
        let p = d.join("out.json");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second, longer");
        assert_eq!(names(&d), ["out.json"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_target_untouched_and_no_temporary_file() {
        let d = scratch_dir("fail");
        // A folder in the way: the rename fails after the temporary file was written.
        let p = d.join("taken");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("inside"), b"old").unwrap();
        assert!(write_atomic(&p, b"new").is_err());
        assert_eq!(std::fs::read(p.join("inside")).unwrap(), b"old");
        assert_eq!(names(&d), ["taken"]);
        // A folder that does not exist.
        assert!(write_atomic(&d.join("no/such/file"), b"x").is_err());
        assert!(write_atomic(Path::new("/"), b"x").is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn concurrent_writers_of_one_path_never_mix_or_collide() {
        let d = scratch_dir("race");
        let p = d.join("shared.txt");
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let p = &p;
                s.spawn(move || {
                    for _ in 0..50 {
                        write_atomic(p, &vec![b'a' + t; 10_000]).unwrap();
                    }
                });
            }
        });
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(bytes.len(), 10_000);
        assert!(bytes.iter().all(|&b| b == bytes[0]));
        assert_eq!(names(&d), ["shared.txt"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_old_file_permissions_carry_over() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch_dir("perm");
        let p = d.join("private");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
