//! The plan: for every wanted file of a dataset, the first source that has it.
//!
//! ```no_run
//! use std::sync::Arc;
//! use ltr_data::Manifest;
//! use ltr_fetch::{FetchOptions, Fetcher, NoProgress, Variants};
//!
//! let manifest = Manifest::builtin("letor3")?;
//! let fetcher = Fetcher::new(FetchOptions::new("/tmp/ltr-data"), Arc::new(NoProgress));
//! for (name, result) in fetcher.fetch_all(&manifest, &["OHSUMED".to_string()], Variants::Default) {
//!     match result {
//!         Ok(report) => println!("{name}: {} installed", report.installed.len()),
//!         Err(e) => eprintln!("{name}: {e}"),
//!     }
//! }
//! # Ok::<(), ltr_fetch::FetchError>(())
//! ```
//!
//! For every file of the wanted variants ([`Variants`], [`Variant::files`](ltr_data::manifest::Variant::files)):
//!
//! 1. **Cache.** A file whose stamp (size, mtime, sha256 in `stamps.json`) matches, whose
//!    hash is the known one (manifest, else recorded locally) and which was last hashed less
//!    than [`FetchOptions::rehash_after`] ago is used as is: no network, no hashing. Any
//!    other file is hashed once; a corrupt one is deleted and fetched again.
//! 2. **Mirror** ([`FetchOptions::mirror`]): `<mirror>/<rel>.gz`, else `<rel>`. A file the mirror does not
//!    have (or a mirror that cannot be reached) goes on to the next source; a file the mirror
//!    has with the wrong content is refused ([`DataError::Checksum`](ltr_format::DataError::Checksum)), and so is one larger
//!    than its bound or a damaged `.gz` ([`FetchError::Refused`](crate::FetchError::Refused)), without fallback.
//! 3. **Embedded data** (OHSUMED QueryLevelNorm, MQ2008), see [`crate::embedded`]: rebuilt
//!    from the pieces compiled into `ltr`, verified, installed.
//! 4. **Official archive**: downloaded once per call (resumable, with retries of stalled
//!    transfers, none for an unreachable host; never past its size, else the collection's
//!    `max_download_bytes`), checked, extracted, each file checked.
//!
//! Files with no published hash are installed with an `UNVERIFIED` warning and their hash is
//! recorded in `recorded-sha256.json`; from then on they are verified against it.
//!
//! Failures are per dataset: [`Fetcher::fetch_all`] reports each dataset's result and goes
//! on with the others. Within a dataset, all files that can be installed are installed, and
//! the first error is returned (the others are logged).

use std::sync::Arc;

use crate::cache::DataCache;
use crate::http::Http;
use crate::options::FetchOptions;
use ltr_extract::Progress;

/// The bound of a download whose size is not published, when its manifest sets none
/// (`max_download_bytes`).
pub const DEFAULT_MAX_DOWNLOAD_BYTES: u64 = 8 << 30;

/// Which variants of a dataset to fetch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Variants {
    /// The default variant only: what experiments read.
    #[default]
    Default,
    /// Every variant the manifest lists (`Feature-min`, ... of OHSUMED).
    All,
}

/// What [`Fetcher::fetch_dataset`] did. File names are paths relative to the collection
/// root (`letor3/OHSUMED/QueryLevelNorm/Fold1/train.txt`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchReport {
    /// The dataset, as the manifest spells it.
    pub dataset: String,
    /// Files installed by this call.
    pub installed: Vec<String>,
    /// Files that were already present and verified.
    pub already_present: Vec<String>,
    /// Files (installed or present) that have no published hash: checked only against the
    /// hash recorded locally on first success.
    pub unverified: Vec<String>,
    /// Files already in the cache that had to be read and hashed (no stamp, or size/mtime
    /// changed). Empty when every cached file was unchanged.
    pub rehashed: Vec<String>,
    /// Where the installed files came from (`cache` when nothing was installed; `mirror
    /// <mirror>`; `embedded`; the address of the archive), comma-separated.
    pub source: String,
}

/// Fetches datasets into a [`DataCache`]. Cheap to share (`&self` everywhere).
pub struct Fetcher {
    pub(crate) opts: FetchOptions,
    pub(crate) cache: DataCache,
    pub(crate) http: Http,
    pub(crate) progress: Arc<dyn Progress>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("opts", &self.opts).finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with its own HTTP client (see [`FetchOptions`]).
    pub fn new(opts: FetchOptions, progress: Arc<dyn Progress>) -> Self {
        Self {
            cache: DataCache::new(opts.data_dir.clone()).with_rehash_after(opts.rehash_after),
            http: Http::new(&opts, Arc::clone(&progress)),
            opts,
            progress,
        }
    }

    /// The options.
    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// The cache it fills.
    pub fn cache(&self) -> &DataCache {
        &self.cache
    }
}
