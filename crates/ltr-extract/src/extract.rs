//! Unpacking archives (`.zip`, `.rar`, `.gz`, `.tar.gz`, `.tar.bz2`) into a staging folder.
//!
//! Every entry name is checked before anything is written: absolute names, `..`
//! components, drive prefixes (`C:`) and NUL bytes are refused, so nothing can land outside
//! the destination folder. Only regular files and folders are extracted; links, devices and
//! other special entries are skipped (logged at debug level). Every entry is held to a size
//! limit ([`extract_limited`]; the manifest's `max_entry_bytes`, else
//! [`DEFAULT_MAX_ENTRY_BYTES`]) while it is written, before any hash is checked.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;

use ltr_data::manifest::ArchiveFormat;

use crate::error::ExtractError;
use crate::io::{CopyError, copy_bounded, remove_quietly};
use crate::progress::Progress;

/// Unpacks `archive` (of the given format) into the folder `dest` (created if needed) and
/// returns the paths of the extracted regular files, relative to `dest`, in archive order.
///
/// A `.gz` archive holds one file, named like the archive without `.gz`.
///
/// Fails with [`ExtractError::Archive`] on a damaged archive, an encrypted entry, or an entry
/// whose name would escape `dest` (e.g. `../evil`); what was written so far stays in `dest`
/// (callers use a temporary folder).
pub fn extract(
    archive: &Path,
    format: ArchiveFormat,
    dest: &Path,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, ExtractError> {
    extract_limited(archive, format, dest, DEFAULT_MAX_ENTRY_BYTES, progress)
}

/// The largest entry [`extract`] writes when the manifest sets no limit: above every real
/// LETOR and MSLR file (MSLR-WEB30K's largest training file is about 2.3 GB).
pub const DEFAULT_MAX_ENTRY_BYTES: u64 = 4 << 30;

/// [`extract`], refusing ([`ExtractError::Archive`]) any entry larger than `max_entry_bytes`
/// while it is being written, so a damaged or hostile archive cannot fill the disk before
/// its files' hashes are checked.
pub fn extract_limited(
    archive: &Path,
    format: ArchiveFormat,
    dest: &Path,
    max_entry_bytes: u64,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, ExtractError> {
    create_dir_all(dest)?;
    let label = format!(
        "extract {}",
        archive.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    );
    progress.begin(&label, None);
    let limit = Limit { archive, max: max_entry_bytes };
    let out = match format {
        ArchiveFormat::Zip => extract_zip(archive, dest, limit, progress),
        ArchiveFormat::TarGz => {
            extract_tar(MultiGzDecoder::new(open(archive)?), archive, dest, limit, progress)
        }
        ArchiveFormat::TarBz2 => {
            extract_tar(bzip2::read::MultiBzDecoder::new(open(archive)?), archive, dest, limit, progress)
        }
        ArchiveFormat::Gz => extract_gz(archive, dest, limit, progress),
        ArchiveFormat::Rar => extract_rar(archive, dest, limit),
    };
    progress.end();
    out
}

fn archive_err(archive: &Path, reason: impl std::fmt::Display) -> ExtractError {
    ExtractError::Archive { path: archive.to_owned(), reason: reason.to_string() }
}

fn create_dir_all(dir: &Path) -> Result<(), ExtractError> {
    std::fs::create_dir_all(dir).map_err(|source| ExtractError::Io { path: dir.to_owned(), source })
}

/// Checks an entry name and turns it into a relative path. `Ok(None)`: the name denotes
/// the destination itself (`./`). `Err`: the name would escape the destination.
pub fn safe_relative(name: &str) -> Result<Option<PathBuf>, String> {
    if name.contains('\0') {
        return Err("contains a NUL byte".into());
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Err("is an absolute path".into());
    }
    let mut out = PathBuf::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err("escapes the extraction folder (`..`)".into()),
            p if p.contains(':') => return Err("has a drive or stream prefix (`:`)".into()),
            p => out.push(p),
        }
    }
    Ok((!out.as_os_str().is_empty()).then_some(out))
}

fn entry_path(archive: &Path, name: &str) -> Result<Option<PathBuf>, ExtractError> {
    safe_relative(name).map_err(|why| archive_err(archive, format!("entry `{name}` {why}")))
}

/// The size limit per entry of one archive.
#[derive(Clone, Copy)]
struct Limit<'a> {
    archive: &'a Path,
    max: u64,
}

impl Limit<'_> {
    /// Refuses an entry that says (in its header) or turns out to be larger than the limit.
    fn check(&self, name: &str, size: u64) -> Result<(), ExtractError> {
        if size > self.max {
            return Err(self.too_large(name));
        }
        Ok(())
    }

    fn too_large(&self, name: &str) -> ExtractError {
        archive_err(
            self.archive,
            format!("entry `{name}` is larger than the limit of {} bytes per file", self.max),
        )
    }
}

/// Copies a reader into a new file, reporting bytes. An entry that grows beyond the limit is
/// refused as soon as it does (headers can lie about sizes), and its file removed.
fn write_file(
    reader: impl Read,
    path: &Path,
    name: &str,
    limit: Limit<'_>,
    progress: &dyn Progress,
) -> Result<u64, ExtractError> {
    let io = |source| ExtractError::Io { path: path.to_owned(), source };
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    let mut out = BufWriter::new(File::create(path).map_err(io)?);
    let copied = copy_bounded(reader, &mut out, limit.max, |chunk| progress.advance(chunk.len() as u64));
    let total = match copied {
        Ok(total) => total,
        Err(CopyError::Read(e) | CopyError::Write(e)) => return Err(io(e)),
        Err(CopyError::TooLarge) => {
            drop(out);
            remove_quietly(path);
            return Err(limit.too_large(name));
        }
    };
    out.flush().map_err(io)?;
    Ok(total)
}

fn open(archive: &Path) -> Result<BufReader<File>, ExtractError> {
    File::open(archive)
        .map(BufReader::new)
        .map_err(|source| ExtractError::Io { path: archive.to_owned(), source })
}

/// Reading errors inside an archive are archive errors (damaged data), not I/O on `dest`.
fn reading(archive: &Path, e: ExtractError) -> ExtractError {
    match e {
        ExtractError::Io { path, source } => {
            archive_err(archive, format!("extracting to {}: {source}", path.display()))
        }
        other => other,
    }
}

fn extract_zip(
    archive: &Path,
    dest: &Path,
    limit: Limit<'_>,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, ExtractError> {
    let mut zip = zip::ZipArchive::new(open(archive)?).map_err(|e| archive_err(archive, e))?;
    let mut files = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| archive_err(archive, format!("entry {i}: {e}")))?;
        let name = match entry.name() {
            Ok(n) => n.into_owned(),
            Err(_) => String::from_utf8_lossy(entry.name_raw()).into_owned(),
        };
        let rel = entry_path(archive, &name)?;
        if entry.enclosed_name().is_none() {
            return Err(archive_err(archive, format!("entry `{name}` escapes the extraction folder")));
        }
        let Some(rel) = rel else { continue };
        if entry.is_dir() {
            create_dir_all(&dest.join(&rel))?;
            continue;
        }
        if entry.is_symlink() {
            log::debug!("{}: skipping symbolic link `{name}`", archive.display());
            continue;
        }
        if entry.encrypted() {
            return Err(archive_err(archive, format!("entry `{name}` is encrypted")));
        }
        limit.check(&name, entry.size())?;
        write_file(entry, &dest.join(&rel), &name, limit, progress).map_err(|e| reading(archive, e))?;
        files.push(rel);
    }
    Ok(files)
}

fn extract_tar(
    decoded: impl Read,
    archive: &Path,
    dest: &Path,
    limit: Limit<'_>,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, ExtractError> {
    let mut tar = tar::Archive::new(decoded);
    let entries = tar.entries().map_err(|e| archive_err(archive, e))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| archive_err(archive, e))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let Some(rel) = entry_path(archive, &name)? else {
            continue;
        };
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            create_dir_all(&dest.join(&rel))?;
        } else if kind.is_file() || kind.is_contiguous() {
            limit.check(&name, entry.size())?;
            write_file(entry, &dest.join(&rel), &name, limit, progress).map_err(|e| reading(archive, e))?;
            files.push(rel);
        } else {
            log::debug!("{}: skipping special entry `{name}`", archive.display());
        }
    }
    Ok(files)
}

fn extract_gz(
    archive: &Path,
    dest: &Path,
    limit: Limit<'_>,
    progress: &dyn Progress,
) -> Result<Vec<PathBuf>, ExtractError> {
    let name = archive.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = match name.len().checked_sub(3) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".gz") => {
            name[..cut].to_owned()
        }
        _ => format!("{name}.out"),
    };
    let Some(rel) = entry_path(archive, &stem)? else {
        return Err(archive_err(archive, "cannot derive the name of its file"));
    };
    write_file(MultiGzDecoder::new(open(archive)?), &dest.join(&rel), &stem, limit, progress)
        .map_err(|e| reading(archive, e))?;
    Ok(vec![rel])
}

fn extract_rar(archive: &Path, dest: &Path, limit: Limit<'_>) -> Result<Vec<PathBuf>, ExtractError> {
    let rar_err = |e: unrar::error::UnrarError| archive_err(archive, e);
    let mut open = unrar::Archive::new(archive).open_for_processing().map_err(rar_err)?;
    let mut files = Vec::new();
    while let Some(header) = open.read_header().map_err(rar_err)? {
        let entry = header.entry();
        let name = entry.filename.to_string_lossy().into_owned();
        let rel = entry_path(archive, &name)?;
        if entry.is_encrypted() {
            return Err(archive_err(archive, format!("entry `{name}` is encrypted")));
        }
        open = match rel {
            Some(rel) if entry.is_file() => {
                // The library writes the entry itself: its declared size is checked before,
                // the size written after.
                limit.check(&name, entry.unpacked_size)?;
                let target = dest.join(&rel);
                if let Some(parent) = target.parent() {
                    create_dir_all(parent)?;
                }
                files.push(rel);
                let next = header.extract_to(&target).map_err(rar_err)?;
                let written = std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
                if let Err(e) = limit.check(&name, written) {
                    remove_quietly(&target);
                    return Err(e);
                }
                next
            }
            Some(rel) if entry.is_directory() => {
                create_dir_all(&dest.join(&rel))?;
                header.skip().map_err(rar_err)?
            }
            _ => header.skip().map_err(rar_err)?,
        };
    }
    Ok(files)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;
    use crate::progress::NoProgress;

    fn zip_bytes(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts =
            zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    /// A tar stream of regular files written into `out`.
    fn tar_into<W: Write>(out: W, entries: &[(&str, &[u8])]) -> W {
        let mut b = tar::Builder::new(out);
        for (name, data) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            // Write the name bytes directly: `set_path` refuses `..`, which we need to test.
            let raw = &mut h.as_old_mut().name;
            raw[..name.len()].copy_from_slice(name.as_bytes());
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn tar_gz_bytes(entries: &[(&str, &[u8])]) -> Vec<u8> {
        tar_into(GzEncoder::new(Vec::new(), Compression::fast()), entries).finish().unwrap()
    }

    fn tar_bz2_bytes(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let tar = tar_into(Vec::new(), entries);
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn tar_bz2_extracts_and_rejects_traversal() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("ltrc_yahoo.tar.bz2");
        std::fs::write(&a, tar_bz2_bytes(&[("set1.train.txt", b"1 qid:1 1:1\n"), ("set2.test.txt", b"t")]))
            .unwrap();
        let out = dir.path().join("out");
        let files = extract(&a, ArchiveFormat::TarBz2, &out, &NoProgress).unwrap();
        assert_eq!(files, vec![PathBuf::from("set1.train.txt"), PathBuf::from("set2.test.txt")]);
        assert_eq!(std::fs::read(out.join("set1.train.txt")).unwrap(), b"1 qid:1 1:1\n");
        std::fs::write(&a, tar_bz2_bytes(&[("../evil", b"boom")])).unwrap();
        let e = extract(&a, ArchiveFormat::TarBz2, &dir.path().join("sub/o"), &NoProgress).unwrap_err();
        assert!(e.to_string().contains("../evil"), "{e}");
        assert!(!dir.path().join("sub/evil").exists());
        std::fs::write(&a, b"BZh91AY&SY not really").unwrap();
        assert!(matches!(
            extract(&a, ArchiveFormat::TarBz2, &dir.path().join("o3"), &NoProgress),
            Err(ExtractError::Archive { .. })
        ));
    }

    fn gz_bytes(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(safe_relative("a/./b\\c").unwrap(), Some(PathBuf::from("a/b/c")));
        assert_eq!(safe_relative("./").unwrap(), None);
        for bad in ["../evil", "a/../../evil", "/etc/passwd", "\\x", "C:/x", "a\0b"] {
            assert!(safe_relative(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn zip_extracts_and_rejects_traversal() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.zip");
        std::fs::write(&a, zip_bytes(&[("R/Fold1/train.txt", b"1 qid:1 1:1\n"), ("R/x.txt", b"x")])).unwrap();
        let out = dir.path().join("out");
        let files = extract(&a, ArchiveFormat::Zip, &out, &NoProgress).unwrap();
        assert_eq!(files, vec![PathBuf::from("R/Fold1/train.txt"), PathBuf::from("R/x.txt")]);
        assert_eq!(std::fs::read(out.join("R/Fold1/train.txt")).unwrap(), b"1 qid:1 1:1\n");

        let evil = dir.path().join("evil.zip");
        std::fs::write(&evil, zip_bytes(&[("ok.txt", b"ok"), ("../evil", b"boom")])).unwrap();
        let out2 = dir.path().join("sub/out2");
        let e = extract(&evil, ArchiveFormat::Zip, &out2, &NoProgress).unwrap_err();
        assert!(matches!(&e, ExtractError::Archive { .. }) && e.to_string().contains("../evil"), "{e}");
        assert!(!dir.path().join("sub/evil").exists());
        assert!(!dir.path().join("evil").exists());
    }

    #[test]
    fn tar_gz_extracts_and_rejects_traversal() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.tar.gz");
        std::fs::write(&a, tar_gz_bytes(&[("R/S1.txt", b"s1"), ("R/S2.txt", b"s2")])).unwrap();
        let out = dir.path().join("out");
        let files = extract(&a, ArchiveFormat::TarGz, &out, &NoProgress).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(std::fs::read(out.join("R/S2.txt")).unwrap(), b"s2");

        let evil = dir.path().join("evil.tar.gz");
        std::fs::write(&evil, tar_gz_bytes(&[("../evil", b"boom")])).unwrap();
        let out2 = dir.path().join("sub/out2");
        let e = extract(&evil, ArchiveFormat::TarGz, &out2, &NoProgress).unwrap_err();
        assert!(e.to_string().contains("../evil"), "{e}");
        assert!(!dir.path().join("sub/evil").exists());
    }

    #[test]
    fn gz_extracts_one_file_and_reports_damage() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("data.txt.gz");
        std::fs::write(&a, gz_bytes(b"hello\r\n")).unwrap();
        let out = dir.path().join("out");
        let files = extract(&a, ArchiveFormat::Gz, &out, &NoProgress).unwrap();
        assert_eq!(files, vec![PathBuf::from("data.txt")]);
        assert_eq!(std::fs::read(out.join("data.txt")).unwrap(), b"hello\r\n");

        let bad = dir.path().join("bad.gz");
        let mut bytes = gz_bytes(b"hello hello hello hello");
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&bad, bytes).unwrap();
        let e = extract(&bad, ArchiveFormat::Gz, &out, &NoProgress).unwrap_err();
        assert!(matches!(e, ExtractError::Archive { .. }), "{e}");
    }

    /// `data/version.rar` of the `unrar` crate's test suite (MIT OR Apache-2.0): a RAR 2.9
    /// archive holding one file, `VERSION`, containing `unrar-0.4.0`. (No RAR writer exists
    /// here, so this is the only legitimate RAR at hand.)
    const VERSION_RAR: [u8; 87] = [
        0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00, 0xcf, 0x90, 0x73, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x0f, 0x0c, 0x74, 0x20, 0x80, 0x27, 0x00, 0x15, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00,
        0x00, 0x03, 0x45, 0xf3, 0x7d, 0xc6, 0xa4, 0x8a, 0x07, 0x47, 0x1d, 0x33, 0x07, 0x00, 0xa4, 0x81, 0x00,
        0x00, 0x56, 0x45, 0x52, 0x53, 0x49, 0x4f, 0x4e, 0x0c, 0x00, 0x8f, 0xec, 0x8a, 0x45, 0xcc, 0x23, 0xc8,
        0x48, 0x08, 0x83, 0x62, 0xfe, 0x5f, 0xdd, 0x5c, 0x53, 0x88, 0xf0, 0x72, 0xc4, 0x3d, 0x7b, 0x00, 0x40,
        0x07, 0x00,
    ];

    /// `VERSION_RAR` with its 7-byte entry name replaced (and the header CRC fixed).
    fn rar_renamed(name: &[u8; 7]) -> Vec<u8> {
        const HEADER: std::ops::Range<usize> = 0x14..0x14 + 39;
        let mut bytes = VERSION_RAR.to_vec();
        bytes[0x34..0x3b].copy_from_slice(name);
        let mut crc = flate2::Crc::new();
        crc.update(&bytes[HEADER.start + 2..HEADER.end]);
        let crc16 = (crc.sum() & 0xffff) as u16;
        bytes[HEADER.start..HEADER.start + 2].copy_from_slice(&crc16.to_le_bytes());
        bytes
    }

    #[test]
    fn rar_extracts_and_rejects_traversal() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("v.rar");
        std::fs::write(&a, VERSION_RAR).unwrap();
        let out = dir.path().join("out");
        let files = extract(&a, ArchiveFormat::Rar, &out, &NoProgress).unwrap();
        assert_eq!(files, vec![PathBuf::from("VERSION")]);
        assert_eq!(std::fs::read(out.join("VERSION")).unwrap(), b"unrar-0.4.0");

        // Renamed into a sub-folder: extracted there.
        std::fs::write(&a, rar_renamed(b"dir/VER")).unwrap();
        let files = extract(&a, ArchiveFormat::Rar, &dir.path().join("o2"), &NoProgress).unwrap();
        assert_eq!(files, vec![PathBuf::from("dir/VER")]);
        assert_eq!(std::fs::read(dir.path().join("o2/dir/VER")).unwrap(), b"unrar-0.4.0");

        std::fs::write(&a, rar_renamed(b"../evil")).unwrap();
        let e = extract(&a, ArchiveFormat::Rar, &dir.path().join("sub/o3"), &NoProgress).unwrap_err();
        assert!(matches!(&e, ExtractError::Archive { .. }) && e.to_string().contains("../evil"), "{e}");
        assert!(!dir.path().join("sub/evil").exists());
    }

    #[test]
    fn an_entry_over_the_size_limit_is_refused_while_extracting() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'0'; 1 << 20];
        let cases = [
            (ArchiveFormat::Zip, "a.zip", zip_bytes(&[("R/small.txt", b"ok"), ("R/big.txt", &big)])),
            (ArchiveFormat::TarGz, "a.tar.gz", tar_gz_bytes(&[("R/small.txt", b"ok"), ("R/big.txt", &big)])),
            (ArchiveFormat::Gz, "big.txt.gz", gz_bytes(&big)),
        ];
        for (i, (format, name, bytes)) in cases.into_iter().enumerate() {
            let a = dir.path().join(name);
            std::fs::write(&a, bytes).unwrap();
            let out = dir.path().join(format!("out{i}"));
            let e = extract_limited(&a, format, &out, 10_000, &NoProgress).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, ExtractError::Archive { .. }), "{format:?}: {msg}");
            assert!(msg.contains("big.txt") && msg.contains("10000 bytes"), "{format:?}: {msg}");
            let written: u64 = walk(&out).iter().map(|p| std::fs::metadata(p).unwrap().len()).sum();
            assert!(written <= 10_002, "{format:?}: {written} bytes written");
            // Within the limit, all is well.
            assert!(extract_limited(&a, format, &dir.path().join("ok"), 1 << 20, &NoProgress).is_ok());
        }
        let a = dir.path().join("v.rar");
        std::fs::write(&a, VERSION_RAR).unwrap();
        let e = extract_limited(&a, ArchiveFormat::Rar, &dir.path().join("r"), 5, &NoProgress).unwrap_err();
        assert!(e.to_string().contains("VERSION") && e.to_string().contains("5 bytes"), "{e}");
        assert!(!dir.path().join("r/VERSION").exists());
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                out.extend(walk(&e.path()));
            } else {
                out.push(e.path());
            }
        }
        out
    }

    #[test]
    fn damaged_archives_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("junk");
        std::fs::write(&a, b"this is not an archive at all").unwrap();
        for f in [
            ArchiveFormat::Zip,
            ArchiveFormat::TarGz,
            ArchiveFormat::TarBz2,
            ArchiveFormat::Gz,
            ArchiveFormat::Rar,
        ] {
            let e = extract(&a, f, &dir.path().join("o"), &NoProgress).unwrap_err();
            assert!(matches!(e, ExtractError::Archive { .. }), "{f:?}: {e}");
        }
    }
}
