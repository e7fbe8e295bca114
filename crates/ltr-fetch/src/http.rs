//! One address into one file over HTTP(S): resumable (`Range`), with bounded retries of
//! stalled, interrupted or too slow transfers, and no retry at all when the host cannot be
//! reached.
//!
//! Too slow: a per-read timeout alone never ends a transfer whose server sends a byte just
//! before each timeout (one byte every 2 s would take weeks for a large archive). So a
//! transfer must also average [`FetchOptions::min_speed`] over every
//! [`FetchOptions::speed_window`]; one that does not is abandoned, keeping what arrived, and
//! resumed by the next attempt.
//!
//! An unresolvable host or a refused connection will not heal within a run: retrying it only
//! made an offline run wait (about 15 s per archive with the default backoff). A transfer
//! that stalls or breaks off has shown that the server is there, so it is retried, resuming
//! after the bytes already received. An address that is not `http://` or `https://` is
//! refused before anything is tried.
//!
//! Bounds: every download has a [`Limit`] (its file's known size, else the collection's cap):
//! an announced length beyond it is refused before the body is read, and a body that goes
//! past it is cut there, nothing past the limit written, and the partial file deleted (it is
//! wrong content, not something to resume). In time: nothing received for
//! [`FetchOptions::max_idle`] over all attempts (a silent server, one that trickles its
//! headers) gives up, and no download of one address takes longer than
//! [`FetchOptions::max_time`], whatever the throughput rule says.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::net::ToSocketAddrs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::options::FetchOptions;
use ltr_extract::Progress;

/// Why one download attempt (or all attempts on an address) failed.
#[derive(Debug)]
pub(crate) enum DlError {
    /// 404 / 410: the address does not have it.
    NotFound(String),
    /// The host cannot be resolved or refuses connections: not retried, and other addresses
    /// on the same host are not tried in the same run.
    Unreachable(String),
    /// Retrying cannot help (other 4xx, a malformed address, a local write error).
    Permanent(String),
    /// Worth retrying (stalls, interrupted transfers, 5xx, 408, 429).
    Transient(String),
    /// Slower than the throughput rule allows: worth retrying, but an attempt that ends this
    /// way counts as one without progress, whatever it received.
    TooSlow(String),
    /// More bytes than the download's [`Limit`]: refused, not retried, nothing kept.
    TooLarge(String),
}

impl DlError {
    pub(crate) fn reason(&self) -> &str {
        match self {
            Self::NotFound(r)
            | Self::Unreachable(r)
            | Self::Permanent(r)
            | Self::Transient(r)
            | Self::TooSlow(r)
            | Self::TooLarge(r) => r,
        }
    }
}

const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// Room a gzip file may need beyond the file it holds: deflate's stored blocks and the
/// members' headers and trailers cost well under 0.1% of incompressible data; 64 KiB more
/// covers the headers of a small file (a stored name, a comment).
const GZIP_ROOM: u64 = 64 << 10;

/// The most bytes a download (or a file decompressed or copied from a mirror) may have, and
/// what sets that bound, for the refusal's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Limit {
    pub(crate) bytes: u64,
    basis: String,
}

impl Limit {
    /// Exactly the size the manifest gives for `what`.
    pub(crate) fn exact(size: u64, what: &str) -> Self {
        Self { bytes: size, basis: format!("the size of {what} in the manifest") }
    }

    /// A gzip file holding `what`, of the size the manifest gives: 0.1% and 64 KiB more.
    pub(crate) fn gzip_of(size: u64, what: &str) -> Self {
        Self {
            bytes: size.saturating_add(size / 1000).saturating_add(GZIP_ROOM),
            basis: format!("the size of {what} in the manifest, plus 0.1% and 64 KiB for gzip"),
        }
    }

    /// The cap of `collection` for downloads whose size is not published.
    pub(crate) fn cap(bytes: u64, collection: &str) -> Self {
        Self {
            bytes,
            basis: format!(
                "`max_download_bytes` of collection {collection}, for downloads whose size is not published"
            ),
        }
    }

    /// "more than N bytes (why)".
    pub(crate) fn exceeded(&self) -> String {
        format!("more than {} bytes ({})", self.bytes, self.basis)
    }
}

/// Whether `url` is an address this client downloads from (`http://`, `https://`).
pub(crate) fn is_http(url: &str) -> bool {
    let lower = url.trim_start().get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The refusal of an address of another scheme (or none).
pub(crate) const ONLY_HTTP: &str = "only http:// and https:// addresses are downloaded";

/// An HTTP client with the retry policy of [`FetchOptions`].
pub(crate) struct Http {
    agent: ureq::Agent,
    retries: u32,
    backoff: Duration,
    /// Throughput rule: at least `min_speed` bytes/s over every `speed_window`.
    min_speed: u64,
    speed_window: Duration,
    /// The stall limit (also the longest wait for a response).
    stall: Option<Duration>,
    /// Give up after this long with nothing received (`None`: never).
    max_idle: Option<Duration>,
    /// Give up one address after this long (`None`: never).
    max_time: Option<Duration>,
    progress: Arc<dyn Progress>,
}

/// When the current download must end, whatever happens.
struct Budget {
    /// [`FetchOptions::max_time`] after the first attempt began.
    deadline: Option<Instant>,
    /// [`FetchOptions::max_idle`] after the last byte arrived (or the first attempt began).
    idle_until: Option<Instant>,
}

impl Http {
    /// A client with its own agent: timeouts from `opts`, non-2xx statuses handled as data,
    /// no transparent compression (so byte ranges are those of the file).
    pub(crate) fn new(opts: &FetchOptions, progress: Arc<dyn Progress>) -> Self {
        let limit = |d: Duration| (!d.is_zero()).then_some(d);
        let (stall, connect) = (limit(opts.timeout), limit(opts.connect_timeout));
        // A read silent for a whole window already breaks the throughput rule: waiting
        // longer for it cannot help.
        let per_read = match (stall, opts.min_speed > 0 && !opts.speed_window.is_zero()) {
            (Some(s), true) => Some(s.min(opts.speed_window)),
            (None, true) => Some(opts.speed_window),
            (s, false) => s,
        };
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .accept_encoding("")
            .user_agent(concat!("ltr/", env!("CARGO_PKG_VERSION")))
            .timeout_resolve(connect)
            .timeout_connect(connect)
            .timeout_send_request(stall)
            .timeout_recv_response(stall)
            .timeout_per_read(per_read)
            .build();
        Self {
            agent: ureq::Agent::new_with_config(config),
            retries: opts.retries,
            backoff: opts.backoff,
            min_speed: opts.min_speed,
            speed_window: opts.speed_window,
            stall,
            max_idle: limit(opts.max_idle),
            max_time: limit(opts.max_time),
            progress,
        }
    }

    /// Downloads one address into `part`, resuming what is there, retrying transient
    /// failures: at most `retries` retries in a row without progress (an attempt abandoned
    /// by the throughput rule makes none), waiting `backoff`, then twice as long each time;
    /// never past `limit`, nor past the idle limit or the deadline of [`FetchOptions`].
    pub(crate) fn get(&self, url: &str, part: &Path, label: &str, limit: &Limit) -> Result<(), DlError> {
        if !is_http(url) {
            return Err(DlError::Permanent(format!("unsupported address: {ONLY_HTTP}")));
        }
        if file_len(part) > limit.bytes {
            // Left by a run that knew no such bound: nothing in it can be kept.
            remove_part(part);
        }
        let started = Instant::now();
        let deadline = self.max_time.map(|d| started + d);
        let mut last_byte = started;
        let mut stalled = 0u32;
        let mut delay = self.backoff;
        // Also bounds servers that trickle a few bytes per connection forever.
        let mut attempts_left = 1000u32.saturating_add(self.retries);
        loop {
            let before = file_len(part);
            let budget = Budget { deadline, idle_until: self.max_idle.map(|d| last_byte + d) };
            let mut received = 0u64;
            let outcome = self.attempt(url, part, label, limit, &budget, &mut received);
            if received > 0 {
                last_byte = Instant::now();
            }
            let (err, slow) = match outcome {
                Ok(()) => return Ok(()),
                Err(DlError::Transient(why)) => (why, false),
                Err(DlError::TooSlow(why)) => (why, true),
                Err(e) => return Err(e),
            };
            attempts_left = attempts_left.saturating_sub(1);
            if !slow && file_len(part) > before {
                stalled = 0;
                delay = self.backoff;
            } else {
                stalled += 1;
            }
            let now = Instant::now();
            if let (Some(d), Some(max)) = (deadline, self.max_time)
                && now + delay >= d
            {
                return Err(DlError::Permanent(format!(
                    "{err}; not finished by the deadline of {} s for one download (what arrived \
                     is kept, and resumed by the next run)",
                    max.as_secs_f64()
                )));
            }
            if let Some(max) = self.max_idle
                && now.duration_since(last_byte) + delay >= max
            {
                return Err(DlError::Permanent(format!(
                    "{err}; nothing received for {:.0} s, given up",
                    now.duration_since(last_byte).as_secs_f64()
                )));
            }
            if stalled > self.retries || attempts_left == 0 {
                let why = format!("{err} (gave up after {} retries)", self.retries);
                return Err(if slow { DlError::TooSlow(why) } else { DlError::Transient(why) });
            }
            log::warn!("{url}: {err}; retrying in {delay:?}");
            std::thread::sleep(delay);
            delay = delay.saturating_mul(2).min(MAX_BACKOFF);
        }
    }

    /// One request: resumes from the size of `part` with a `Range` header. The wait for the
    /// response ends at the idle limit, the whole request at the deadline; `received` counts
    /// the body bytes that arrived.
    fn attempt(
        &self,
        url: &str,
        part: &Path,
        label: &str,
        limit: &Limit,
        budget: &Budget,
        received: &mut u64,
    ) -> Result<(), DlError> {
        let offset = file_len(part);
        let left = |until: Option<Instant>| until.map(|t| t.saturating_duration_since(Instant::now()));
        let mut config = self.agent.get(url).config();
        if let Some(d) = left(budget.deadline) {
            config = config.timeout_global(Some(d.max(Duration::from_millis(1))));
        }
        if let Some(idle) = left(budget.idle_until) {
            let wait = self.stall.map_or(idle, |s| s.min(idle)).max(Duration::from_millis(1));
            config = config.timeout_send_request(Some(wait)).timeout_recv_response(Some(wait));
        }
        let mut req = config.build();
        if offset > 0 {
            req = req.header("Range", format!("bytes={offset}-"));
        }
        let mut resp = req.call().map_err(|e| classify(url, e))?;
        let status = resp.status().as_u16();
        let content_range =
            resp.headers().get("content-range").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let announced = match status {
            200 => resp.body().content_length(),
            206 => content_range.as_deref().and_then(range_total),
            _ => None,
        };
        if let Some(n) = announced.filter(|&n| n > limit.bytes) {
            remove_part(part);
            return Err(DlError::TooLarge(format!("the server announces {n} bytes, {}", limit.exceeded())));
        }
        let start = match status {
            200 => {
                if offset > 0 {
                    log::info!("{url}: the server does not resume (HTTP 200); restarting from zero");
                }
                0
            }
            206 => match content_range.as_deref().and_then(range_start) {
                Some(s) if s == offset => offset,
                other => {
                    remove_part(part);
                    return Err(DlError::Transient(format!(
                        "unexpected Content-Range {other:?} for a resume at byte {offset}; \
                         restarting from zero"
                    )));
                }
            },
            416 if offset > 0 => {
                if content_range.as_deref().and_then(range_total) == Some(offset) {
                    return Ok(());
                }
                remove_part(part);
                return Err(DlError::Transient(
                    "the server refused to resume (HTTP 416); restarting from zero".into(),
                ));
            }
            404 | 410 => return Err(DlError::NotFound(format!("HTTP {status} (not found)"))),
            408 | 429 | 500..=599 => return Err(DlError::Transient(format!("HTTP {status}"))),
            _ => return Err(DlError::Permanent(format!("HTTP {status}"))),
        };
        let io =
            |what: &str, e: std::io::Error| DlError::Permanent(format!("{what} {}: {e}", part.display()));
        let file = if start == 0 { File::create(part) } else { File::options().append(true).open(part) }
            .map_err(|e| io("cannot write", e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let total = resp.body().content_length().map(|n| n.saturating_add(start));
        self.progress.begin(label, total);
        self.progress.advance(start);
        let mut reader = resp.body_mut().as_reader();
        let mut buf = vec![0u8; 1 << 16];
        let mut window = Window::new(self.min_speed, self.speed_window);
        let result = loop {
            if budget.deadline.is_some_and(|d| Instant::now() >= d) {
                break Err(DlError::Transient(format!(
                    "deadline reached after {} bytes",
                    start.saturating_add(*received)
                )));
            }
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    // Checked before writing: nothing past the limit reaches the disk.
                    if start.saturating_add(*received).saturating_add(n as u64) > limit.bytes {
                        break Err(DlError::TooLarge(format!("{}; cut there", limit.exceeded())));
                    }
                    if let Err(e) = out.write_all(&buf[..n]) {
                        break Err(io("cannot write", e));
                    }
                    *received += n as u64;
                    self.progress.advance(n as u64);
                    if let Err(why) = window.add(n as u64) {
                        break Err(DlError::TooSlow(format!(
                            "{why} after {} bytes",
                            start.saturating_add(*received)
                        )));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if window.add(0).is_err() => {
                    break Err(DlError::TooSlow(format!(
                        "slower than {} bytes/s over {:?} ({e}) after {} bytes",
                        self.min_speed,
                        self.speed_window,
                        start.saturating_add(*received)
                    )));
                }
                Err(e) => {
                    break Err(DlError::Transient(format!(
                        "transfer interrupted after {} bytes: {e}",
                        start.saturating_add(*received)
                    )));
                }
            }
        };
        self.progress.end();
        // Keep what arrived, even on failure: the next attempt resumes after it.
        let flushed = out.into_inner().map_err(|e| e.into_error()).and_then(|f| f.sync_all());
        if matches!(result, Err(DlError::TooLarge(_))) {
            // Wrong content: not something the next attempt should resume.
            remove_part(part);
        }
        result?;
        flushed.map_err(|e| io("cannot write", e))?;
        if let (Some(total), Some(expected)) =
            (file_len_opt(part), content_range.as_deref().and_then(range_total))
            && status == 206
            && total != expected
        {
            return Err(DlError::Transient(format!("received {total} bytes of {expected}")));
        }
        Ok(())
    }
}

/// The throughput rule over consecutive windows of one transfer.
struct Window {
    min_speed: u64,
    length: Duration,
    started: std::time::Instant,
    bytes: u64,
}

impl Window {
    fn new(min_speed: u64, length: Duration) -> Self {
        Self { min_speed, length, started: std::time::Instant::now(), bytes: 0 }
    }

    /// Counts `n` more bytes; at the end of a window, fails if it averaged less than the
    /// minimum speed, else starts the next one.
    fn add(&mut self, n: u64) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(n);
        if self.min_speed == 0 || self.length.is_zero() {
            return Ok(());
        }
        let elapsed = self.started.elapsed();
        if elapsed < self.length {
            return Ok(());
        }
        let speed = self.bytes as f64 / elapsed.as_secs_f64();
        if speed < self.min_speed as f64 {
            return Err(format!(
                "slower than {} bytes/s over {:?} ({speed:.0} bytes/s)",
                self.min_speed, self.length
            ));
        }
        self.started = std::time::Instant::now();
        self.bytes = 0;
        Ok(())
    }
}

/// Sorts a failed request (no response) into unreachable (name resolution, refused or
/// unroutable connection, connect timeout), permanent (a malformed address) or transient
/// (anything after the connection was made).
fn classify(url: &str, e: ureq::Error) -> DlError {
    use std::io::ErrorKind as K;
    match e {
        ureq::Error::BadUri(_) => DlError::Permanent(e.to_string()),
        ureq::Error::HostNotFound => DlError::Unreachable(format!("cannot resolve the host ({e})")),
        ureq::Error::ConnectionFailed
        | ureq::Error::Timeout(ureq::Timeout::Resolve | ureq::Timeout::Connect) => {
            DlError::Unreachable(format!("cannot connect ({e})"))
        }
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                K::ConnectionRefused
                    | K::HostUnreachable
                    | K::NetworkUnreachable
                    | K::NetworkDown
                    | K::AddrNotAvailable
            ) =>
        {
            DlError::Unreachable(format!("cannot connect ({io})"))
        }
        // A failed name lookup surfaces as a plain I/O error with no kind of its own; asking
        // the resolver again tells it apart from a connection that broke.
        ureq::Error::Io(io) if !resolves(url) => {
            DlError::Unreachable(format!("cannot resolve the host ({io})"))
        }
        other => DlError::Transient(other.to_string()),
    }
}

/// Whether the host of `url` resolves to at least one address.
fn resolves(url: &str) -> bool {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else { return false };
    let Some(host) = uri.host() else { return false };
    let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
    (host.trim_start_matches('[').trim_end_matches(']'), port)
        .to_socket_addrs()
        .is_ok_and(|mut addrs| addrs.next().is_some())
}

/// The `host:port` part of an address (what "unreachable" is remembered by), lowercased.
pub(crate) fn authority(url: &str) -> Option<String> {
    let uri = url.parse::<ureq::http::Uri>().ok()?;
    uri.authority().map(|a| a.as_str().to_ascii_lowercase())
}

fn remove_part(part: &Path) {
    crate::cache::remove_quietly(part);
}

pub(crate) fn file_len(path: &Path) -> u64 {
    file_len_opt(path).unwrap_or(0)
}

fn file_len_opt(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// `bytes N-M/T` → N.
fn range_start(v: &str) -> Option<u64> {
    let spec = v.trim().strip_prefix("bytes")?.trim_start();
    spec.split_once('-')?.0.trim().parse().ok()
}

/// `bytes N-M/T` or `bytes */T` → T.
fn range_total(v: &str) -> Option<u64> {
    v.rsplit_once('/')?.1.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_range_parses() {
        assert_eq!(range_start("bytes 100-199/200"), Some(100));
        assert_eq!(range_total("bytes 100-199/200"), Some(200));
        assert_eq!(range_total("bytes */200"), Some(200));
        assert_eq!(range_total("bytes 0-1/*"), None);
        assert_eq!(range_start("items 1-2/3"), None);
    }

    #[test]
    fn name_and_connection_failures_are_unreachable() {
        let url = "http://127.0.0.1:9/x";
        assert!(matches!(classify(url, ureq::Error::HostNotFound), DlError::Unreachable(_)));
        assert!(matches!(classify(url, ureq::Error::ConnectionFailed), DlError::Unreachable(_)));
        assert!(matches!(
            classify(url, ureq::Error::Timeout(ureq::Timeout::Connect)),
            DlError::Unreachable(_)
        ));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(matches!(classify(url, ureq::Error::Io(refused)), DlError::Unreachable(_)));
        // The host resolves (a literal address): a broken connection is worth a retry.
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert!(matches!(classify(url, ureq::Error::Io(reset)), DlError::Transient(_)));
        assert!(matches!(
            classify(url, ureq::Error::Timeout(ureq::Timeout::RecvResponse)),
            DlError::Transient(_)
        ));
        assert!(matches!(classify(url, ureq::Error::BadUri("x".into())), DlError::Permanent(_)));
    }

    #[test]
    fn authority_is_host_and_port() {
        assert_eq!(
            authority("http://Research.Microsoft.com/a/b.zip").as_deref(),
            Some("research.microsoft.com")
        );
        assert_eq!(authority("http://127.0.0.1:8080/x").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(authority("not a url"), None);
    }
}
