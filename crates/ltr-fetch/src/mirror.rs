//! One file from a mirror (a folder or an HTTP(S) address laid out like a collection root)
//! into the cache: `<mirror>/<rel>.gz` is preferred, then the plain `<rel>`; the file is
//! decompressed into a staging folder, hashed on the way, checked and renamed into place.
//! Downloads from an address go through a partial file kept in the cache, resumed by the
//! next run if this one is killed.
//!
//! What the mirror has is bounded: by the size the manifest gives for the file (a `.gz` by a
//! little more), else by the collection's cap, both for the download and for what it
//! decompresses to. A file past its bound, or a `.gz` that is not valid gzip, is refused
//! ([`FetchError::Refused`]) like a file with the wrong hash: wrong content on a mirror is
//! an error, never a reason to take the file from elsewhere.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use ltr_data::manifest::Variant;
use ltr_format::reader::hex;
use sha2::{Digest, Sha256};

use crate::cache::{CopyError, copy_bounded, create_dir_all, remove_quietly};
use crate::error::FetchError;
use crate::fetcher::Fetcher;
use crate::http::{DlError, Limit, file_len};
use crate::options::Mirror;
use ltr_extract::Progress;

impl Fetcher {
    /// Gets one file from the mirror into the cache. `Ok(None)`: the mirror does not have
    /// it. `Ok(Some(verified))`: installed (`false`: no published hash, recorded now). A
    /// mirror address that cannot be reached is a [`FetchError::Download`]; a file past its
    /// bound (the manifest's size, else `cap`) or a damaged `.gz` is a
    /// [`FetchError::Refused`].
    pub(crate) fn fetch_from_mirror(
        &self,
        mirror: &Mirror,
        variant: &Variant,
        file: &str,
        cap: &Limit,
    ) -> Result<Option<bool>, FetchError> {
        let rel = variant.rel_path(file);
        let bounds = Bounds::of(variant, file, cap);
        let staging = self.cache.staging()?;
        let staged = staging.path().join("file");
        let actual = match mirror {
            Mirror::Dir(d) => {
                let gz = d.join(format!("{rel}.gz"));
                let plain = d.join(&rel);
                let (src, is_gz) = if gz.is_file() {
                    (gz, true)
                } else if plain.is_file() {
                    (plain, false)
                } else {
                    return Ok(None);
                };
                let io = |source| FetchError::io(src.clone(), source);
                let f = File::open(&src).map_err(io)?;
                let size = f.metadata().map(|m| m.len()).ok();
                self.progress.begin(&rel, size);
                let counted = Counting { inner: BufReader::new(f), progress: &*self.progress };
                let origin = src.display().to_string();
                let to = CopyJob { origin: &origin, src: &src, dest: &staged, limit: &bounds.content };
                let r =
                    if is_gz { to.copy(MultiGzDecoder::new(counted), true) } else { to.copy(counted, false) };
                self.progress.end();
                r?
            }
            Mirror::Url(base) => return self.fetch_from_url_mirror(base, variant, file, &bounds, &staged),
        };
        self.cache.commit(variant, file, &staged, &actual).map(Some)
    }

    /// [`Fetcher::fetch_from_mirror`] for an address. The download goes to a partial file
    /// in the cache ([`crate::DataCache::mirror_part`]), not to the staging folder, so that
    /// what a killed or failed run received is resumed by the next one. A resumed file that
    /// then fails its check is downloaded once more from the start (the mirror's copy may
    /// have changed in between).
    fn fetch_from_url_mirror(
        &self,
        base: &str,
        variant: &Variant,
        file: &str,
        bounds: &Bounds,
        staged: &Path,
    ) -> Result<Option<bool>, FetchError> {
        let rel = variant.rel_path(file);
        let mut from_scratch = false;
        loop {
            let mut got = None;
            for (suffix, is_gz) in [(".gz", true), ("", false)] {
                let url = format!("{base}/{rel}{suffix}");
                let part = self.cache.mirror_part(&url);
                if let Some(parent) = part.parent() {
                    create_dir_all(parent)?;
                }
                if from_scratch {
                    remove_quietly(&part);
                }
                let resumed = file_len(&part) > 0;
                let limit = if is_gz { &bounds.gz } else { &bounds.content };
                match self.http.get(&url, &part, &rel, limit) {
                    Ok(()) => {
                        got = Some((is_gz, part, resumed, url));
                        break;
                    }
                    Err(DlError::NotFound(_)) => remove_quietly(&part),
                    Err(DlError::TooLarge(reason)) => return Err(FetchError::Refused { what: url, reason }),
                    // The partial file stays for the next attempt to resume.
                    Err(e) => return Err(FetchError::Download { url, reason: e.reason().to_owned() }),
                }
            }
            let Some((is_gz, part, resumed, url)) = got else { return Ok(None) };
            let to = CopyJob { origin: &url, src: &part, dest: staged, limit: &bounds.content };
            let copied =
                File::open(&part).map_err(|source| FetchError::io(part.clone(), source)).and_then(|f| {
                    if is_gz {
                        to.copy(MultiGzDecoder::new(BufReader::new(f)), true)
                    } else {
                        to.copy(BufReader::new(f), false)
                    }
                });
            let result = copied.and_then(|actual| self.cache.commit(variant, file, staged, &actual));
            // Complete, installed or refused: either way it is not resumed again.
            remove_quietly(&part);
            match result {
                Err(e) if resumed && !from_scratch => {
                    log::warn!("{rel}: the resumed download is not right ({e}); downloading it again");
                    from_scratch = true;
                }
                other => return other.map(Some),
            }
        }
    }
}

/// The bounds of one mirror file: of its content, and of a `.gz` holding it.
struct Bounds {
    content: Limit,
    gz: Limit,
}

impl Bounds {
    /// The manifest's size of the file when it has one, else the collection's cap.
    fn of(variant: &Variant, file: &str, cap: &Limit) -> Self {
        match variant.size_of(file) {
            Some(size) => {
                let rel = variant.rel_path(file);
                Self { content: Limit::exact(size, &rel), gz: Limit::gzip_of(size, &rel) }
            }
            None => Self { content: cap.clone(), gz: cap.clone() },
        }
    }
}

/// One copy of a mirror file into the staging folder.
struct CopyJob<'a> {
    /// The mirror file, as the user knows it (its path or address), for refusals.
    origin: &'a str,
    /// Where it is read from (named by read errors).
    src: &'a Path,
    /// The new file (named by write errors).
    dest: &'a Path,
    /// The most bytes the copy may have.
    limit: &'a Limit,
}

impl CopyJob<'_> {
    /// Copies `reader` into a new file `dest` (flushed to disk), returning the sha256 of
    /// what was copied. Refused ([`FetchError::Refused`]) past the limit, before anything
    /// past it is written, and (`gz`) when the decoder finds the data damaged.
    fn copy(&self, mut reader: impl Read, gz: bool) -> Result<String, FetchError> {
        let write_err = |source| FetchError::io(self.dest.to_owned(), source);
        let refused = |reason: String| FetchError::Refused { what: self.origin.to_owned(), reason };
        let mut out = BufWriter::new(File::create(self.dest).map_err(write_err)?);
        let mut hasher = Sha256::new();
        let copied = copy_bounded(&mut reader, &mut out, self.limit.bytes, |chunk| hasher.update(chunk));
        let failed = match copied {
            Ok(_) => None,
            Err(CopyError::Read(e)) if gz && is_damage(&e) => {
                Some(refused(format!("not a valid gzip file ({e})")))
            }
            Err(CopyError::Read(source)) => Some(FetchError::io(self.src.to_owned(), source)),
            Err(CopyError::Write(e)) => Some(write_err(e)),
            Err(CopyError::TooLarge) => {
                let what = if gz { "decompresses to" } else { "has" };
                Some(refused(format!("{what} {}", self.limit.exceeded())))
            }
        };
        if let Some(e) = failed {
            drop(out);
            remove_quietly(self.dest);
            return Err(e);
        }
        out.into_inner().map_err(|e| write_err(e.into_error()))?.sync_all().map_err(write_err)?;
        Ok(hex(&hasher.finalize()))
    }
}

/// A reader that reports the bytes it yields.
struct Counting<'a, R> {
    inner: R,
    progress: &'a dyn Progress,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

/// Whether a decoder's read error says the compressed data is damaged (a bad header, a
/// corrupt deflate stream, a checksum mismatch, a cut-off end) rather than that the file
/// could not be read.
fn is_damage(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(e.kind(), K::InvalidInput | K::InvalidData | K::UnexpectedEof)
}
