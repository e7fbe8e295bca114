//! How fetching works: the cache folder, the mirror, retries and timeouts. Built by the
//! caller (the CLI reads the environment and the command line); nothing here reads the
//! environment but [`default_data_dir`], the per-user default every front end shares.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::error::FetchError;

/// The per-user cache folder: `$XDG_CACHE_HOME/ltr`, else `~/.cache/ltr`, else `.ltr-data`.
pub fn default_data_dir() -> PathBuf {
    let var = |name| std::env::var_os(name).filter(|d| !d.is_empty()).map(PathBuf::from);
    if let Some(d) = var("XDG_CACHE_HOME") {
        return d.join("ltr");
    }
    match var("HOME") {
        Some(home) => home.join(".cache").join("ltr"),
        None => PathBuf::from(".ltr-data"),
    }
}

/// Where to get files before the embedded data and the official addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mirror {
    /// A local folder laid out like a collection root (`letor3/OHSUMED/...`, files `.gz` or
    /// plain).
    Dir(PathBuf),
    /// An `http://` or `https://` base address with the same layout (no trailing `/`).
    Url(String),
}

impl FromStr for Mirror {
    type Err = FetchError;

    /// `http://...` or `https://...` (any case) is a [`Mirror::Url`]; another `scheme://`
    /// address (`file://`, `ftp://`) is refused; anything else non-empty is a
    /// [`Mirror::Dir`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.is_empty() {
            return Err(FetchError::Mirror {
                mirror: s.to_owned(),
                reason: "empty; give a folder or an http(s):// address".into(),
            });
        }
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            Ok(Self::Url(s.trim_end_matches('/').to_owned()))
        } else if let Some((scheme, _)) = s.split_once("://")
            && !scheme.is_empty()
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            Err(FetchError::Mirror {
                mirror: s.to_owned(),
                reason: "only http:// and https:// addresses are mirrors; give a local folder as a path"
                    .into(),
            })
        } else {
            Ok(Self::Dir(PathBuf::from(s)))
        }
    }
}

impl std::fmt::Display for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Dir(d) => write!(f, "{}", d.display()),
            Self::Url(u) => f.write_str(u),
        }
    }
}

/// How a [`crate::Fetcher`] works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// The cache root.
    pub data_dir: PathBuf,
    /// A mirror tried before the embedded data and the official addresses.
    pub mirror: Option<Mirror>,
    /// Retries of a download after a stalled or interrupted transfer, or a server error,
    /// that made no progress (per address). A host that cannot be resolved or refuses the
    /// connection is never retried.
    pub retries: u32,
    /// Wait before the first retry; doubled at each further retry (capped at 5 minutes).
    pub backoff: Duration,
    /// Stall limit once connected: sending the request, waiting for the response, each
    /// read. Zero means none.
    pub timeout: Duration,
    /// A download on which nothing has arrived for this long, over all its attempts (a
    /// silent server, or one that trickles its headers), is given up. Zero means none.
    pub max_idle: Duration,
    /// The most one download from one address may take, all attempts together, however
    /// fast it goes (what arrived is kept, and resumed by the next run). Zero means none.
    pub max_time: Duration,
    /// Limit on resolving the host and connecting to it. Zero means none.
    pub connect_timeout: Duration,
    /// Throughput rule: a transfer that receives less than this many bytes per second,
    /// averaged over [`FetchOptions::speed_window`], is abandoned and resumed by the next
    /// attempt (and counts as an attempt without progress). Zero: no rule. A server that
    /// sends a byte just often enough to beat the stall limit is caught this way.
    pub min_speed: u64,
    /// The period the throughput rule averages over.
    pub speed_window: Duration,
    /// Cached files last hashed longer ago than this are hashed again before they are used,
    /// even when their size and modification time still match their stamp (bit rot, or an
    /// edit that kept both). Zero: every file is hashed again on its first use by this
    /// fetcher (`ltr run --verify-data`).
    pub rehash_after: Duration,
}

impl FetchOptions {
    /// Defaults for a cache at `data_dir`: no mirror, 4 retries, 1 s backoff, 20 s stall
    /// limit, given up after 45 s with nothing received, 4 hours at most per download, 10 s
    /// to connect, at least 10 KB/s over 60 s, cached files hashed again after 30 days.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            mirror: None,
            retries: 4,
            backoff: Duration::from_secs(1),
            timeout: Duration::from_secs(20),
            max_idle: Duration::from_secs(45),
            max_time: Duration::from_secs(4 * 3600),
            connect_timeout: Duration::from_secs(10),
            min_speed: 10_000,
            speed_window: Duration::from_secs(60),
            rehash_after: crate::cache::DEFAULT_REHASH_AFTER,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_parses() {
        assert_eq!("https://x.org/d/".parse::<Mirror>().unwrap(), Mirror::Url("https://x.org/d".into()));
        assert_eq!("HTTP://x".parse::<Mirror>().unwrap(), Mirror::Url("HTTP://x".into()));
        assert_eq!("../shared/datasets".parse::<Mirror>().unwrap(), Mirror::Dir("../shared/datasets".into()));
        assert!(" ".parse::<Mirror>().is_err());
    }

    #[test]
    fn addresses_of_other_schemes_are_refused_not_taken_for_folders() {
        for m in ["file:///srv/mirror", "ftp://x.org/d", "FILE://x"] {
            let e = m.parse::<Mirror>().unwrap_err().to_string();
            assert!(e.contains(m) && e.contains("only http:// and https://"), "{e}");
        }
    }
}
