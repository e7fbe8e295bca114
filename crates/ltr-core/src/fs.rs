//! The one atomic file write of the workspace: every output that must never be seen half
//! written (result store records, reports, models, score files) goes through [`write_atomic`],
//! or through its streaming form [`AtomicFile`] when the output is too large to hold in memory
//! (generated datasets).
//! And the one way a file given by a user is opened ([`open_regular`]) or read whole
//! ([`read_bounded`]): a regular file, at most a stated number of bytes.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` so that readers see the old file or the whole new one, never a
/// part: a temporary file in the same folder, `fsync`, then a rename over `path`, then an
/// `fsync` of the folder (where the platform allows it) so the rename itself survives a
/// crash. The folder is created if needed. On error the temporary file is removed and
/// `path` is untouched.
///
/// The temporary name is unique per write (process id, thread, and a process-wide counter),
/// so several threads or processes writing the same file never share one.
///
/// # Errors
/// The I/O error of the step that failed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// A file written piece by piece that readers see whole or not at all: the streaming form of
/// [`write_atomic`], with the same temporary name in the same folder, `fsync`, rename and
/// folder `fsync`. Nothing reaches `path` before [`AtomicFile::commit`]; dropped without a
/// commit (an error on the way), the temporary file is removed and `path` is untouched. A
/// process killed while writing leaves its temporary file to [`remove_stale_temp_files`].
///
/// Unbuffered: wrap it in a [`std::io::BufWriter`] for many small writes.
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    /// `None` once committed.
    file: Option<std::fs::File>,
}

impl AtomicFile {
    /// Starts writing `path` (its folder is created if needed).
    ///
    /// # Errors
    /// The folder or the temporary file cannot be created.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let dir = folder_of(path);
        std::fs::create_dir_all(dir)?;
        let tmp = temp_path(dir, path);
        let file = std::fs::File::create(&tmp)?;
        Ok(Self { path: path.to_owned(), tmp, file: Some(file) })
    }

    /// The path the file is written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs the bytes written so far to the disk (as [`AtomicFile::commit`] does first): to
    /// learn of a full disk before committing any of several files.
    ///
    /// # Errors
    /// The I/O error of the sync.
    pub fn sync_all(&mut self) -> std::io::Result<()> {
        self.file()?.sync_all()
    }

    /// Syncs the written bytes and renames the temporary file over the path.
    ///
    /// # Errors
    /// The I/O error of the step that failed; the temporary file is then removed and the path
    /// untouched.
    pub fn commit(mut self) -> std::io::Result<()> {
        let Some(file) = self.file.take() else { return Ok(()) };
        let done = file.sync_all().and_then(|()| {
            drop(file);
            std::fs::rename(&self.tmp, &self.path)
        });
        if let Err(e) = done {
            let _ = std::fs::remove_file(&self.tmp);
            return Err(e);
        }
        // Best effort: not every platform or file system can open and sync a folder.
        if let Ok(d) = std::fs::File::open(folder_of(&self.path)) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn file(&mut self) -> std::io::Result<&mut std::fs::File> {
        self.file.as_mut().ok_or_else(|| std::io::Error::other("written after its commit"))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file()?.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file()?.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Opens a file that must be a regular file. Anything else is refused before it is opened
/// (a FIFO's open waits for a writer; a device such as `/dev/zero` reads forever and reports
/// a size of 0), and again if what was opened is not a regular file (it was replaced
/// meanwhile). Symbolic links are followed.
///
/// # Errors
/// The I/O error, or [`std::io::ErrorKind::InvalidInput`] saying what the path is instead
/// (`not a regular file (a FIFO)`).
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    check_regular(&std::fs::metadata(path)?)?;
    let file = File::open(path)?;
    check_regular(&file.metadata()?)?;
    Ok(file)
}

/// Reads a whole regular file ([`open_regular`]) of at most `max` bytes. The bound holds for
/// what is read, not for the size the file system reports: at most `max + 1` bytes are read,
/// and a file longer than `max` is refused.
///
/// # Errors
/// The I/O error; [`std::io::ErrorKind::InvalidInput`] for a file that is not regular;
/// [`std::io::ErrorKind::FileTooLarge`] for one longer than `max` bytes.
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than {max} bytes, the most read from a file of this kind"),
        )
    };
    let reported = file.metadata()?.len();
    if reported > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(reported).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_bounded`] for text: the file must be UTF-8.
///
/// # Errors
/// Those of [`read_bounded`], and [`std::io::ErrorKind::InvalidData`] for text that is not
/// UTF-8.
pub fn read_bounded_to_string(path: &Path, max: u64) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Refuses metadata of anything but a regular file, saying what it is.
fn check_regular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let ft = meta.file_type();
    let what = if ft.is_dir() { "a folder" } else { special_kind(&ft) };
    Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file ({what})")))
}

#[cfg(unix)]
fn special_kind(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Whether `name` is a temporary file of [`write_atomic`] (`.<file>.<pid>.<thread>.<n>.tmp`),
/// e.g. to clean up after a killed process.
pub fn is_temp_name(name: &str) -> bool {
    temp_owner(name).is_some()
}

/// The process id in a temporary name of [`write_atomic`].
fn temp_owner(name: &str) -> Option<u32> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let mut parts = inner.rsplitn(4, '.');
    let (_n, _thread, pid) = (parts.next()?, parts.next()?, parts.next()?);
    parts.next()?;
    pid.parse().ok()
}

/// Removes the temporary files of [`write_atomic`] that processes which have ended left in
/// `dir` (a process killed between creating and renaming one), and returns how many. Files
/// of running processes are kept; where `/proc` is missing nothing is known, and nothing is
/// removed.
///
/// # Errors
/// The folder cannot be listed (a missing folder is not an error).
pub fn remove_stale_temp_files(dir: &Path) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return Ok(0);
    }
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = temp_owner(&name)
            && pid != std::process::id()
            && !proc.join(pid.to_string()).exists()
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    Ok(removed)
}

/// `.<file name>.<pid>.<thread>.<counter>.tmp` in `dir`.
fn temp_path(dir: &Path, path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // `ThreadId` has no stable numeric form; its Debug text is `ThreadId(N)`.
    let thread: String =
        format!("{:?}", std::thread::current().id()).chars().filter(char::is_ascii_digit).collect();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{name}.{}.{thread}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("ltr-core-fs-{}", std::process::id()));
        let path = dir.join("sub").join("out.txt");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new contents").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out.txt"]);
        // A write that cannot happen (the target is a folder) leaves no temporary file.
        assert!(write_atomic(path.parent().unwrap(), b"x").is_err());
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["sub"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_streamed_file_appears_whole_on_commit_and_not_at_all_when_dropped() {
        let dir = std::env::temp_dir().join(format!("ltr-core-stream-{}", std::process::id()));
        let path = dir.join("big.txt");
        write_atomic(&path, b"old").unwrap();
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new ").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old", "nothing reaches the path before the commit");
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new ").unwrap();
        f.write_all(b"contents").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "a temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bounded_reads_take_regular_files_up_to_the_bound_only() {
        let dir = std::env::temp_dir().join(format!("ltr-core-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.txt");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap(), b"0123456789");
        assert_eq!(read_bounded_to_string(&path, 100).unwrap(), "0123456789");
        let e = read_bounded(&path, 9).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
        let e = read_bounded(&dir, 100).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a folder)");
        std::fs::write(&path, b"\xff\xfe").unwrap();
        let e = read_bounded_to_string(&path, 100).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        if Path::new("/dev/zero").exists() {
            // Its reported size is 0; reading it would never end.
            let e = read_bounded(Path::new("/dev/zero"), 100).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file (a character device)");
            assert!(open_regular(Path::new("/dev/zero")).is_err());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_differ_per_write_and_are_recognised() {
        let a = temp_path(Path::new("d"), Path::new("d/x.json"));
        let b = temp_path(Path::new("d"), Path::new("d/x.json"));
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(is_temp_name(name) && name.starts_with(".x.json."), "{name}");
        assert_eq!(temp_owner(name), Some(std::process::id()));
        assert!(!is_temp_name("x.json") && !is_temp_name(".x.tmp"));
    }

    #[test]
    fn stale_temporary_files_of_ended_processes_are_removed() {
        let dir = std::env::temp_dir().join(format!("ltr-core-stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // pid 4294967295 cannot be running; our own pid is.
        let dead = dir.join(".cell.json.4294967295.3.0.tmp");
        let ours = temp_path(&dir, &dir.join("cell.json"));
        for p in [&dead, &ours, &dir.join("cell.json")] {
            std::fs::write(p, b"x").unwrap();
        }
        let expect = usize::from(Path::new("/proc/self").exists());
        assert_eq!(remove_stale_temp_files(&dir).unwrap(), expect);
        assert!(ours.exists() && dir.join("cell.json").exists());
        assert_eq!(dead.exists(), expect == 0);
        assert_eq!(remove_stale_temp_files(&dir.join("nope")).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
