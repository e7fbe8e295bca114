//! Safe unpacking of the archives LETOR-style collections are published in (`.zip`, `.rar`,
//! `.gz`, `.tar.gz`, `.tar.bz2`) into a staging folder: no entry can land outside it, and
//! every entry is held to a size limit while it is written. Getting the archives (network,
//! cache, hashes) is `ltr-fetch`'s job.
//!
//! * [`extract()`], [`extract_limited`], [`safe_relative`]: unpacking, and the check of an
//!   entry name.
//! * [`Progress`], [`NoProgress`]: byte counts of long operations, for whoever shows them.
//! * [`io`]: the bounded copy and the quiet clean-up, shared with `ltr-fetch`.
//! * [`ExtractError`]: this crate's errors.
//!
//! Libraries log; they never print.

mod error;
mod extract;
pub mod io;
pub mod progress;

pub use error::ExtractError;
pub use extract::{DEFAULT_MAX_ENTRY_BYTES, extract, extract_limited, safe_relative};
pub use progress::{NoProgress, Progress};
