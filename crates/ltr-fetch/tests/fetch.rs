//! End-to-end tests of the fetching layer: a tiny HTTP/1.1 server (std only, on 127.0.0.1)
//! for the official archive path and URL mirrors, closed ports for unreachable hosts, and
//! mirrors and caches built from the embedded OHSUMED pieces. Nothing here leaves the
//! machine.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

use flate2::Compression;
use flate2::write::GzEncoder;
use ltr_data::Manifest;
use ltr_fetch::{DataCache, FetchError, FetchOptions, Fetcher, Mirror, NoProgress, Progress, Variants};
use ltr_format::DataError;
use ltr_format::reader::hex;
use sha2::{Digest, Sha256};

// ---------------------------------------------------------------------------------------
// A tiny HTTP/1.1 server.

/// How one path is served.
#[derive(Clone, Default)]
struct Route {
    body: Vec<u8>,
    /// Answer every request with this status and an empty body (e.g. 503).
    status: Option<u16>,
    /// The first request gets the full Content-Length but only this many bytes.
    truncate_first: Option<usize>,
    /// Answer 200 with the whole body even to a Range request.
    ignore_range: bool,
    /// Every request gets at most this many bytes of its body, then the connection drops.
    truncate_each: Option<usize>,
    /// The first request gets this many bytes, then the server stalls (sends nothing more
    /// for 5 s) before dropping the connection.
    stall_first: Option<usize>,
    /// The first request gets this many bytes at once, then one byte every 200 ms: never
    /// silent long enough for a read timeout.
    trickle_first: Option<usize>,
    /// Every request gets this many bytes at once, then one byte every 200 ms.
    trickle_each: Option<usize>,
    /// Every request gets a 200 with no Content-Length and this many bytes of `0`, as fast
    /// as the client takes them, then the connection closes: an endless body, as far as a
    /// bounded client can tell (finite here so that a client without bounds ends too).
    flood: Option<usize>,
    /// The Content-Length header announces this many bytes (the body sent is `body`).
    claim_length: Option<u64>,
    /// The request is read, then nothing at all is sent for 20 s.
    silent: bool,
    /// The status line is sent, then one byte of a header line every 200 ms for 20 s.
    trickle_headers: bool,
}

impl Route {
    fn ok(body: Vec<u8>) -> Self {
        Self { body, ..Self::default() }
    }
}

#[derive(Default)]
struct State {
    routes: HashMap<String, Route>,
    /// (path, Range header) of every request, in order.
    log: Vec<(String, Option<String>)>,
    truncated: HashSet<String>,
    stalled: HashSet<String>,
    trickled: HashSet<String>,
}

struct Server {
    base: String,
    state: Arc<Mutex<State>>,
}

impl Server {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let state = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let _ = handle(stream, &state);
                });
            }
        });
        Self { base, state }
    }

    fn route(&self, path: &str, route: Route) {
        self.state.lock().unwrap().routes.insert(path.to_owned(), route);
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn requests(&self) -> Vec<(String, Option<String>)> {
        self.state.lock().unwrap().log.clone()
    }

    fn requests_for(&self, path: &str) -> Vec<Option<String>> {
        self.requests().into_iter().filter(|(p, _)| p == path).map(|(_, r)| r).collect()
    }
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        206 => "Partial Content",
        404 => "Not Found",
        416 => "Range Not Satisfiable",
        503 => "Service Unavailable",
        _ => "Other",
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut range = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.trim().eq_ignore_ascii_case("range")
        {
            range = Some(v.trim().to_owned());
        }
    }
    let (route, truncate, stall, trickle) = {
        let mut st = state.lock().unwrap();
        st.log.push((path.clone(), range.clone()));
        let route = st.routes.get(&path).cloned();
        let trickle = match &route {
            Some(Route { trickle_first: Some(k), .. }) if st.trickled.insert(path.clone()) => Some(*k),
            Some(Route { trickle_each: Some(k), .. }) => Some(*k),
            _ => None,
        };
        let (truncate, stall) = match &route {
            Some(Route { truncate_first: Some(k), .. }) if st.truncated.insert(path.clone()) => {
                (Some(*k), false)
            }
            Some(Route { stall_first: Some(k), .. }) if st.stalled.insert(path.clone()) => (Some(*k), true),
            Some(Route { truncate_each: Some(k), .. }) => (Some(*k), false),
            _ => (None, false),
        };
        (route, truncate, stall, trickle)
    };
    let mut out = &stream;
    if let Some(r) = &route
        && (r.silent || r.trickle_headers || r.flood.is_some())
    {
        return misbehave(&stream, r);
    }
    let claimed = route.as_ref().and_then(|r| r.claim_length);
    let send = |out: &mut &TcpStream, code: u16, extra: &str, body: &[u8], cut: Option<usize>| {
        let head = format!(
            "HTTP/1.1 {code} {}\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n{extra}\r\n",
            reason(code),
            claimed.unwrap_or(body.len() as u64)
        );
        out.write_all(head.as_bytes())?;
        let end = cut.unwrap_or(body.len()).min(body.len());
        match trickle {
            Some(k) if k < end => {
                out.write_all(&body[..k])?;
                out.flush()?;
                for b in &body[k..end] {
                    std::thread::sleep(Duration::from_millis(200));
                    out.write_all(std::slice::from_ref(b))?;
                    out.flush()?;
                }
            }
            _ => out.write_all(&body[..end])?,
        }
        out.flush()?;
        if stall {
            std::thread::sleep(Duration::from_secs(5));
        }
        Ok::<(), std::io::Error>(())
    };
    match route {
        None => send(&mut out, 404, "", b"not found", None)?,
        Some(Route { status: Some(code), .. }) => send(&mut out, code, "", b"", None)?,
        Some(r) => {
            let len = r.body.len();
            let start = range
                .as_deref()
                .filter(|_| !r.ignore_range)
                .and_then(|v| v.strip_prefix("bytes="))
                .and_then(|v| v.strip_suffix('-'))
                .and_then(|v| v.parse::<usize>().ok());
            match start {
                Some(s) if s >= len => {
                    send(&mut out, 416, &format!("Content-Range: bytes */{len}\r\n"), b"", None)?
                }
                Some(s) => send(
                    &mut out,
                    206,
                    &format!("Content-Range: bytes {s}-{}/{len}\r\n", len - 1),
                    &r.body[s..],
                    truncate,
                )?,
                None => send(&mut out, 200, "", &r.body, truncate)?,
            }
        }
    }
    stream.shutdown(Shutdown::Both)
}

/// The routes that never give a proper answer: silent, trickling headers, flooding.
fn misbehave(stream: &TcpStream, r: &Route) -> std::io::Result<()> {
    let mut out = stream;
    let until = Instant::now() + Duration::from_secs(20);
    if r.silent {
        std::thread::sleep(Duration::from_secs(20));
    } else if r.trickle_headers {
        out.write_all(b"HTTP/1.1 200 OK\r\nX-Slow: ")?;
        while Instant::now() < until {
            out.write_all(b"a")?;
            out.flush()?;
            std::thread::sleep(Duration::from_millis(200));
        }
    } else if let Some(n) = r.flood {
        out.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")?;
        let chunk = vec![b'0'; 1 << 16];
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            out.write_all(&chunk[..k])?;
            left -= k;
        }
    }
    out.flush()?;
    stream.shutdown(Shutdown::Both)
}

// ---------------------------------------------------------------------------------------
// Helpers.

fn sha(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zip_bytes(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(name.as_str(), opts).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn tar_gz_bytes(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (name, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// The three files of a one-fold toy variant (CRLF, like the real ones); `salt` varies them.
fn toy_files(salt: &str) -> Vec<(&'static str, Vec<u8>)> {
    ["train.txt", "vali.txt", "test.txt"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let text = format!(
                "2 qid:{i}0 1:0.5 2:0.25 #docid = {salt}a\r\n0 qid:{i}0 1:0.125 2:1 #docid = {salt}b\r\n\
                 1 qid:{i}1 1:0 2:0.75 #docid = {salt}c\r\n"
            );
            let path: &'static str = match *name {
                "train.txt" => "Fold1/train.txt",
                "vali.txt" => "Fold1/vali.txt",
                _ => "Fold1/test.txt",
            };
            (path, text.into_bytes())
        })
        .collect()
}

/// Entries of an archive holding `files` under `root`.
fn entries(root: &str, files: &[(&str, Vec<u8>)]) -> Vec<(String, Vec<u8>)> {
    files.iter().map(|(p, d)| (format!("{root}/{p}"), d.clone())).collect()
}

struct ToyArchive<'a> {
    name: &'a str,
    urls: Vec<String>,
    format: &'a str,
    sha256: Option<String>,
}

struct ToyDataset<'a> {
    name: &'a str,
    archive: &'a str,
    archive_root: &'a str,
    /// File hashes (variant-relative); empty: unknown.
    hashes: Vec<(&'a str, String)>,
}

fn toy_manifest(archives: &[ToyArchive<'_>], datasets: &[ToyDataset<'_>]) -> Manifest {
    Manifest::parse(&toy_manifest_text(archives, datasets), Path::new("toy.toml")).unwrap()
}

/// The text of [`toy_manifest`]: the last dataset's tables come last, so a test may append
/// to them.
fn toy_manifest_text(archives: &[ToyArchive<'_>], datasets: &[ToyDataset<'_>]) -> String {
    let mut t = String::from(
        "collection = \"toy\"\ntitle = \"Toy\"\nhomepage = \"h\"\ncitation = \"c\"\nconvention = \"letor3\"\n",
    );
    for a in archives {
        let urls: Vec<String> = a.urls.iter().map(|u| format!("{u:?}")).collect();
        t += &format!(
            "[[archives]]\nname = {:?}\nurls = [{}]\nformat = {:?}\n",
            a.name,
            urls.join(", "),
            a.format
        );
        if let Some(h) = &a.sha256 {
            t += &format!("sha256 = {h:?}\n");
        }
    }
    for d in datasets {
        t += &format!(
            "[[datasets]]\nname = {:?}\nfeatures = 2\nlabels = [0, 1, 2]\ndefault_variant = \"v\"\n\
             [[datasets.variants]]\nname = \"v\"\narchive = {:?}\narchive_root = {:?}\npath = \"toy/{}\"\n\
             folds = 1\ntrain = \"train.txt\"\nvali = \"vali.txt\"\ntest = \"test.txt\"\n",
            d.name, d.archive, d.archive_root, d.name
        );
        if !d.hashes.is_empty() {
            t += "[datasets.variants.sha256]\n";
            for (f, h) in &d.hashes {
                t += &format!("{f:?} = {h:?}\n");
            }
        }
    }
    t
}

fn hashes(files: &[(&'static str, Vec<u8>)]) -> Vec<(&'static str, String)> {
    files.iter().map(|(p, d)| (*p, sha(d))).collect()
}

fn opts(dir: &Path) -> FetchOptions {
    FetchOptions {
        retries: 2,
        backoff: Duration::from_millis(5),
        timeout: Duration::from_secs(10),
        ..FetchOptions::new(dir)
    }
}

fn fetcher(dir: &Path) -> Fetcher {
    Fetcher::new(opts(dir), Arc::new(NoProgress))
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn assert_no_leftovers(dir: &Path) {
    let files = tree(dir);
    assert!(
        files.iter().all(|f| !f.ends_with(".part") && !f.starts_with(".staging/") && !f.ends_with(".tmp")),
        "leftovers: {files:?}"
    );
}

/// Sets a file's mtime far in the past, so a same-size edit is seen as a change whatever the
/// clock granularity.
fn touch_old(path: &Path) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_secs(1_000_000_000)).unwrap();
}

#[derive(Default)]
struct Counting {
    begun: AtomicU64,
    bytes: AtomicU64,
}

impl Progress for Counting {
    fn begin(&self, _label: &str, _total: Option<u64>) {
        self.begun.fetch_add(1, Ordering::Relaxed);
    }
    fn advance(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

// ---------------------------------------------------------------------------------------
// Official archive path.

#[test]
fn official_zip_is_downloaded_verified_and_installed_once() {
    let server = Server::start();
    let files = toy_files("z");
    let archive = zip_bytes(&entries("TOY/Data", &files));
    server.route("/toy.zip", Route::ok(archive.clone()));
    let m = toy_manifest(
        &[ToyArchive {
            name: "toy.zip",
            urls: vec![server.url("/toy.zip")],
            format: "zip",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "TOY", archive: "toy.zip", archive_root: "TOY/Data", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let progress = Arc::new(Counting::default());
    let f = Fetcher::new(opts(dir.path()), progress.clone());
    let r = f.fetch_dataset(&m, "toy", Variants::Default).unwrap();
    assert_eq!(r.dataset, "TOY");
    assert_eq!(
        r.installed,
        vec!["toy/TOY/Fold1/train.txt", "toy/TOY/Fold1/vali.txt", "toy/TOY/Fold1/test.txt"]
    );
    assert!(r.already_present.is_empty() && r.unverified.is_empty());
    assert_eq!(r.source, server.url("/toy.zip"));
    for (p, d) in &files {
        assert_eq!(&std::fs::read(dir.path().join("toy/TOY").join(p)).unwrap(), d);
    }
    let v = m.dataset("TOY").unwrap().default_variant();
    let cache = DataCache::new(dir.path());
    for file in v.files() {
        assert!(cache.verified_path(v, &file).is_some(), "{file}");
    }
    assert!(progress.begun.load(Ordering::Relaxed) >= 1);
    assert!(progress.bytes.load(Ordering::Relaxed) >= archive.len() as u64);
    assert_no_leftovers(dir.path());

    // Again: nothing to do, no request.
    let before = server.requests().len();
    let r = f.fetch_dataset(&m, "TOY", Variants::Default).unwrap();
    assert!(r.installed.is_empty() && r.rehashed.is_empty());
    assert_eq!(r.already_present.len(), 3);
    assert_eq!(r.source, "cache");
    assert_eq!(server.requests().len(), before);
}

#[test]
fn truncated_transfer_is_resumed_with_range() {
    for ignore_range in [false, true] {
        let server = Server::start();
        let files = toy_files("r");
        // Content large enough to cut in the middle.
        let mut big = files.clone();
        big[0].1 = big[0].1.repeat(2000);
        let archive = zip_bytes(&entries("R", &big));
        let cut = archive.len() / 3;
        server
            .route("/r.zip", Route { truncate_first: Some(cut), ignore_range, ..Route::ok(archive.clone()) });
        let m = toy_manifest(
            &[ToyArchive {
                name: "r.zip",
                urls: vec![server.url("/r.zip")],
                format: "zip",
                sha256: Some(sha(&archive)),
            }],
            &[ToyDataset { name: "R", archive: "r.zip", archive_root: "R", hashes: hashes(&big) }],
        );
        let dir = tempfile::tempdir().unwrap();
        let r = fetcher(dir.path()).fetch_dataset(&m, "R", Variants::Default).unwrap();
        assert_eq!(r.installed.len(), 3);
        let reqs = server.requests_for("/r.zip");
        assert_eq!(reqs.len(), 2, "{reqs:?}");
        assert_eq!(reqs[0], None);
        assert_eq!(reqs[1].as_deref(), Some(format!("bytes={cut}-").as_str()), "ignore_range={ignore_range}");
        assert_eq!(std::fs::read(dir.path().join(".downloads/r.zip")).unwrap(), archive);
        assert_eq!(std::fs::read(dir.path().join("toy/R/Fold1/train.txt")).unwrap(), big[0].1);
        assert_no_leftovers(dir.path());
    }
}

#[test]
fn partial_file_from_an_earlier_run_is_resumed() {
    let server = Server::start();
    let files = toy_files("p");
    let archive = tar_gz_bytes(&entries("P", &files));
    server.route("/p.tar.gz", Route::ok(archive.clone()));
    let m = toy_manifest(
        &[ToyArchive {
            name: "p.tar.gz",
            urls: vec![server.url("/p.tar.gz")],
            format: "tar-gz",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "P", archive: "p.tar.gz", archive_root: "P", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".downloads")).unwrap();
    std::fs::write(dir.path().join(".downloads/p.tar.gz.part"), &archive[..10]).unwrap();
    let r = fetcher(dir.path()).fetch_dataset(&m, "P", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(server.requests_for("/p.tar.gz"), vec![Some("bytes=10-".to_owned())]);
    assert_no_leftovers(dir.path());
}

#[test]
fn wrong_archive_hash_is_refused_and_nothing_stays() {
    let server = Server::start();
    let files = toy_files("w");
    let archive = zip_bytes(&entries("W", &files));
    server.route("/w.zip", Route::ok(archive.clone()));
    let wrong = sha(b"something else");
    let m = toy_manifest(
        &[ToyArchive {
            name: "w.zip",
            urls: vec![server.url("/w.zip")],
            format: "zip",
            sha256: Some(wrong.clone()),
        }],
        &[ToyDataset { name: "W", archive: "w.zip", archive_root: "W", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let e = fetcher(dir.path()).fetch_dataset(&m, "W", Variants::Default).unwrap_err();
    match &e {
        FetchError::Data(DataError::Checksum { file, expected, actual }) => {
            assert_eq!(file, "w.zip");
            assert_eq!(expected, &wrong);
            assert_eq!(actual, &sha(&archive));
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("w.zip") && msg.contains(&wrong) && msg.contains(&sha(&archive)), "{msg}");
    let left = tree(dir.path());
    assert!(left.iter().all(|f| !f.starts_with(".downloads/") && !f.starts_with("toy/")), "{left:?}");
    assert_no_leftovers(dir.path());
}

#[test]
fn wrong_file_hash_is_refused_and_only_good_files_stay() {
    let server = Server::start();
    let files = toy_files("f");
    let archive = zip_bytes(&entries("F", &files));
    server.route("/f.zip", Route::ok(archive.clone()));
    let mut h = hashes(&files);
    let wrong = sha(b"not the file");
    h[1].1 = wrong.clone(); // Fold1/vali.txt
    let m = toy_manifest(
        &[ToyArchive { name: "f.zip", urls: vec![server.url("/f.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "F", archive: "f.zip", archive_root: "F", hashes: h }],
    );
    let dir = tempfile::tempdir().unwrap();
    let e = fetcher(dir.path()).fetch_dataset(&m, "F", Variants::Default).unwrap_err();
    match &e {
        FetchError::Data(DataError::Checksum { file, expected, actual }) => {
            assert_eq!(file, "toy/F/Fold1/vali.txt");
            assert_eq!(expected, &wrong);
            assert_eq!(actual, &sha(&files[1].1));
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    assert!(!dir.path().join("toy/F/Fold1/vali.txt").exists());
    // The archive has no published hash and gave a bad file: it is not kept either.
    assert!(!dir.path().join(".downloads/f.zip").exists());
    assert!(dir.path().join("toy/F/Fold1/train.txt").exists());
    assert_no_leftovers(dir.path());
}

#[test]
fn missing_archive_fails_its_dataset_only() {
    let server = Server::start();
    let files = toy_files("g");
    let good = zip_bytes(&entries("G", &files));
    server.route("/good.zip", Route::ok(good));
    let m = toy_manifest(
        &[
            ToyArchive {
                name: "gone.zip",
                urls: vec![server.url("/gone1.zip"), server.url("/gone2.zip")],
                format: "zip",
                sha256: None,
            },
            ToyArchive { name: "good.zip", urls: vec![server.url("/good.zip")], format: "zip", sha256: None },
        ],
        &[
            ToyDataset { name: "GONE", archive: "gone.zip", archive_root: "G", hashes: hashes(&files) },
            ToyDataset { name: "GOOD", archive: "good.zip", archive_root: "G", hashes: hashes(&files) },
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out =
        fetcher(dir.path()).fetch_all(&m, &["GONE".into(), "NOPE".into(), "GOOD".into()], Variants::Default);
    assert_eq!(out.len(), 3);
    match &out[0].1 {
        Err(FetchError::Download { reason, .. }) => {
            assert!(
                reason.contains("gone1.zip") && reason.contains("gone2.zip") && reason.contains("404"),
                "{reason}"
            )
        }
        other => panic!("expected a download error, got {other:?}"),
    }
    assert!(matches!(out[1].1, Err(FetchError::Data(DataError::NotInManifest(_)))));
    let good = out[2].1.as_ref().unwrap();
    assert_eq!(good.installed.len(), 3);
    // A 404 is final: no retries.
    assert_eq!(server.requests_for("/gone1.zip").len(), 1);
    assert_eq!(server.requests_for("/gone2.zip").len(), 1);
    assert_no_leftovers(dir.path());
}

#[test]
fn server_errors_are_retried_a_bounded_number_of_times_with_backoff() {
    let server = Server::start();
    server.route("/busy.zip", Route { status: Some(503), ..Route::default() });
    let files = toy_files("b");
    let m = toy_manifest(
        &[ToyArchive { name: "busy.zip", urls: vec![server.url("/busy.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "B", archive: "busy.zip", archive_root: "B", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = Fetcher::new(
        FetchOptions { retries: 3, backoff: Duration::from_millis(20), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let t = Instant::now();
    let e = f.fetch_dataset(&m, "B", Variants::Default).unwrap_err();
    // 20 + 40 + 80 ms of backoff.
    assert!(t.elapsed() >= Duration::from_millis(140), "{:?}", t.elapsed());
    assert!(matches!(&e, FetchError::Download { .. }) && e.to_string().contains("503"), "{e}");
    assert_eq!(server.requests_for("/busy.zip").len(), 4);
}

#[test]
fn one_archive_serves_several_datasets_and_is_downloaded_once() {
    let server = Server::start();
    let a = toy_files("a");
    let b = toy_files("b");
    // A different top folder than the manifest's archive_root: found by path suffix.
    let mut e = entries("release-2/Gov/QLN/2003_a", &a);
    e.extend(entries("release-2/Gov/QLN/2003_b", &b));
    let archive = tar_gz_bytes(&e);
    server.route("/gov.tar.gz", Route::ok(archive));
    let m = toy_manifest(
        &[ToyArchive {
            name: "gov.tar.gz",
            urls: vec![server.url("/gov.tar.gz")],
            format: "tar-gz",
            sha256: None,
        }],
        &[
            ToyDataset {
                name: "A",
                archive: "gov.tar.gz",
                archive_root: "Gov/QLN/2003_a",
                hashes: hashes(&a),
            },
            ToyDataset {
                name: "B",
                archive: "gov.tar.gz",
                archive_root: "Gov/QLN/2003_b",
                hashes: hashes(&b),
            },
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = fetcher(dir.path()).fetch_all(&m, &["A".into(), "B".into()], Variants::Default);
    for (name, r) in &out {
        assert_eq!(r.as_ref().unwrap().installed.len(), 3, "{name}");
    }
    assert_eq!(std::fs::read(dir.path().join("toy/B/Fold1/test.txt")).unwrap(), b[2].1);
    assert_eq!(server.requests_for("/gov.tar.gz").len(), 1);
    assert_no_leftovers(dir.path());
}

// ---------------------------------------------------------------------------------------
// Unknown hashes: recorded on first success, then enforced.

#[test]
fn unknown_hashes_are_recorded_then_enforced() {
    let server = Server::start();
    let files = toy_files("u");
    let archive = zip_bytes(&entries("U", &files));
    server.route("/u.zip", Route::ok(archive));
    let m = toy_manifest(
        &[ToyArchive { name: "u.zip", urls: vec![server.url("/u.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "U", archive: "u.zip", archive_root: "U", hashes: vec![] }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = fetcher(dir.path());
    let r = f.fetch_dataset(&m, "U", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(r.unverified, r.installed);
    let rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("recorded-sha256.json")).unwrap()).unwrap();
    for (p, d) in &files {
        assert_eq!(rec["files"][format!("toy/U/{p}")], serde_json::Value::String(sha(d)), "{p}");
    }
    let v = m.dataset("U").unwrap().default_variant();
    assert_eq!(f.cache().known_sha256(v, "Fold1/vali.txt"), Some(sha(&files[1].1)));

    // Unchanged: present, still reported unverified, nothing re-hashed.
    let r = f.fetch_dataset(&m, "U", Variants::Default).unwrap();
    assert!(r.installed.is_empty() && r.rehashed.is_empty());
    assert_eq!(r.unverified.len(), 3);

    // A damaged cached file (same size) is detected and repaired from the kept download.
    let target = dir.path().join("toy/U/Fold1/vali.txt");
    let mut bad = files[1].1.clone();
    bad[0] = b'0';
    std::fs::write(&target, &bad).unwrap();
    touch_old(&target);
    assert!(f.cache().verified_path(v, "Fold1/vali.txt").is_none());
    let before = server.requests().len();
    let r = f.fetch_dataset(&m, "U", Variants::Default).unwrap();
    assert_eq!(r.rehashed, vec!["toy/U/Fold1/vali.txt"]);
    assert_eq!(r.installed, vec!["toy/U/Fold1/vali.txt"]);
    assert_eq!(std::fs::read(&target).unwrap(), files[1].1);
    assert_eq!(server.requests().len(), before, "repaired from .downloads");

    // The source now serves different content: refused against the recorded hash.
    std::fs::write(&target, &bad).unwrap();
    touch_old(&target);
    std::fs::remove_file(dir.path().join(".downloads/u.zip")).unwrap();
    let other = toy_files("other");
    server.route("/u.zip", Route::ok(zip_bytes(&entries("U", &other))));
    let e = f.fetch_dataset(&m, "U", Variants::Default).unwrap_err();
    match &e {
        FetchError::Data(DataError::Checksum { file, expected, actual }) => {
            // Only the damaged file was needed; the others are still verified.
            assert_eq!(file, "toy/U/Fold1/vali.txt");
            assert_eq!(expected, &sha(&files[1].1));
            assert_eq!(actual, &sha(&other[1].1));
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    assert!(!target.exists(), "the damaged file was deleted");
    assert_no_leftovers(dir.path());
}

// ---------------------------------------------------------------------------------------
// Unreachable hosts fail at once; stalled and broken transfers are resumed.

/// An address on 127.0.0.1 where nothing listens (the port was bound, then released).
fn closed_port_url(path: &str) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}{path}", l.local_addr().unwrap())
}

#[test]
fn a_refused_connection_is_not_retried() {
    let files = toy_files("c");
    let url = closed_port_url("/c.zip");
    let m = toy_manifest(
        &[ToyArchive { name: "c.zip", urls: vec![url.clone()], format: "zip", sha256: None }],
        &[ToyDataset { name: "C", archive: "c.zip", archive_root: "C", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    // A backoff that would make any retry obvious.
    let f = Fetcher::new(
        FetchOptions { retries: 4, backoff: Duration::from_secs(2), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let t = Instant::now();
    let e = f.fetch_dataset(&m, "C", Variants::Default).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    match &e {
        FetchError::Download { url: u, reason } => {
            assert_eq!(u, &url);
            assert!(reason.contains("cannot connect") && !reason.contains("retries"), "{reason}");
        }
        other => panic!("expected a download error, got {other}"),
    }
    assert_no_leftovers(dir.path());
}

#[test]
fn an_unreachable_host_is_tried_once_per_run() {
    let a = toy_files("a");
    let b = toy_files("b");
    let dead = closed_port_url("");
    let m = toy_manifest(
        &[
            ToyArchive { name: "a.zip", urls: vec![format!("{dead}/a.zip")], format: "zip", sha256: None },
            ToyArchive { name: "b.zip", urls: vec![format!("{dead}/b.zip")], format: "zip", sha256: None },
        ],
        &[
            ToyDataset { name: "A", archive: "a.zip", archive_root: "A", hashes: hashes(&a) },
            ToyDataset { name: "B", archive: "b.zip", archive_root: "B", hashes: hashes(&b) },
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = fetcher(dir.path()).fetch_all(&m, &["A".into(), "B".into()], Variants::Default);
    let msg = |i: usize| out[i].1.as_ref().unwrap_err().to_string();
    assert!(msg(0).contains("cannot connect") && !msg(0).contains("earlier in this run"), "{}", msg(0));
    assert!(msg(1).contains("earlier in this run"), "{}", msg(1));
}

#[test]
fn a_transfer_dropped_mid_body_is_resumed_until_complete() {
    let server = Server::start();
    let mut files = toy_files("m");
    files[0].1 = files[0].1.repeat(500);
    let archive = zip_bytes(&entries("M", &files));
    let chunk = archive.len() / 4 + 1;
    server.route("/m.zip", Route { truncate_each: Some(chunk), ..Route::ok(archive.clone()) });
    let m = toy_manifest(
        &[ToyArchive {
            name: "m.zip",
            urls: vec![server.url("/m.zip")],
            format: "zip",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "M", archive: "m.zip", archive_root: "M", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    // Each attempt makes progress, so even one retry per stall is enough.
    let f = Fetcher::new(FetchOptions { retries: 1, ..opts(dir.path()) }, Arc::new(NoProgress));
    let r = f.fetch_dataset(&m, "M", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);
    let reqs = server.requests_for("/m.zip");
    let want: Vec<Option<String>> =
        (0..4).map(|i| (i > 0).then(|| format!("bytes={}-", i * chunk))).collect();
    assert_eq!(reqs, want);
    assert_eq!(std::fs::read(dir.path().join(".downloads/m.zip")).unwrap(), archive);
    assert_no_leftovers(dir.path());
}

#[test]
fn a_stalled_transfer_times_out_and_is_resumed() {
    let server = Server::start();
    let mut files = toy_files("s");
    files[0].1 = files[0].1.repeat(200);
    let archive = zip_bytes(&entries("S", &files));
    let cut = archive.len() / 2;
    server.route("/s.zip", Route { stall_first: Some(cut), ..Route::ok(archive.clone()) });
    let m = toy_manifest(
        &[ToyArchive {
            name: "s.zip",
            urls: vec![server.url("/s.zip")],
            format: "zip",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "S", archive: "s.zip", archive_root: "S", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = Fetcher::new(
        FetchOptions { timeout: Duration::from_secs(1), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let t = Instant::now();
    let r = f.fetch_dataset(&m, "S", Variants::Default).unwrap();
    assert!(t.elapsed() < Duration::from_secs(4), "waited for the stalled server: {:?}", t.elapsed());
    assert_eq!(r.installed.len(), 3);
    assert_eq!(server.requests_for("/s.zip"), vec![None, Some(format!("bytes={cut}-"))]);
    assert_no_leftovers(dir.path());
}

// ---------------------------------------------------------------------------------------
// The embedded data and mirrors built from it.

/// The built-in letor3 manifest with the official addresses made unreachable (so a bug could
/// never reach the internet), restricted to OHSUMED.
fn letor3_offline(official: &str) -> Manifest {
    let mut m = Manifest::builtin("letor3").unwrap();
    for a in &mut m.archives {
        a.urls = vec![official.to_owned()];
    }
    m.datasets.retain(|d| d.name == "OHSUMED");
    m
}

/// A folder mirror of OHSUMED QueryLevelNorm, every fold file gzipped, rebuilt from the
/// embedded pieces; returns it with the uncompressed files by variant-relative name.
fn embedded_mirror(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let m = Manifest::builtin("letor3").unwrap();
    let v = m.dataset("OHSUMED").unwrap().default_variant();
    let pieces = ltr_data::embedded::Pieces::open(v).unwrap();
    let mut files = Vec::new();
    for f in v.files() {
        let bytes = pieces.build(&f).unwrap().unwrap();
        let to = dir.join(format!("{}.gz", v.rel_path(&f)));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, gz(&bytes)).unwrap();
        files.push((f, bytes));
    }
    files
}

fn with_mirror(dir: &Path, mirror: Mirror) -> Fetcher {
    Fetcher::new(FetchOptions { mirror: Some(mirror), retries: 0, ..opts(dir) }, Arc::new(NoProgress))
}

#[test]
fn embedded_data_installs_ohsumed_offline_once() {
    let m = letor3_offline(&closed_port_url("/OHSUMED.zip"));
    let dir = tempfile::tempdir().unwrap();
    let f = fetcher(dir.path());
    let r = f.fetch_dataset(&m, "OHSUMED", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 15);
    assert!(r.installed.iter().all(|p| p.starts_with("letor3/OHSUMED/QueryLevelNorm/Fold")));
    assert!(r.unverified.is_empty() && r.already_present.is_empty());
    assert_eq!(r.source, "embedded");
    let v = m.datasets[0].default_variant();
    for file in v.files() {
        let path = f.cache().verified_path(v, &file).unwrap();
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(Some(sha(&bytes).as_str()), v.sha256_of(&file), "{file}");
    }
    assert_no_leftovers(dir.path());
    let r = f.fetch_dataset(&m, "OHSUMED", Variants::Default).unwrap();
    assert!(r.installed.is_empty() && r.rehashed.is_empty());
    assert_eq!((r.already_present.len(), r.source.as_str()), (15, "cache"));
}

#[test]
fn every_variant_offline_installs_what_is_embedded_and_names_what_is_not() {
    let dead = closed_port_url("/OHSUMED.zip");
    let m = letor3_offline(&dead);
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let e = fetcher(dir.path()).fetch_dataset(&m, "OHSUMED", Variants::All).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(matches!(&e, FetchError::Download { url, .. } if *url == dead), "{e}");
    let have = tree(dir.path());
    assert_eq!(have.iter().filter(|p| p.starts_with("letor3/OHSUMED/QueryLevelNorm/")).count(), 15);
    assert!(!have.iter().any(|p| p.contains("Feature-")), "{have:?}");
}

#[test]
fn folder_mirror_comes_before_the_embedded_data() {
    let mirror = tempfile::tempdir().unwrap();
    embedded_mirror(mirror.path());
    let m = letor3_offline(&closed_port_url("/OHSUMED.zip"));
    let dir = tempfile::tempdir().unwrap();
    let f = with_mirror(dir.path(), Mirror::Dir(mirror.path().to_owned()));
    let r = f.fetch_dataset(&m, "OHSUMED", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 15);
    assert_eq!(r.source, format!("mirror {}", mirror.path().display()));
    assert_no_leftovers(dir.path());

    // Files the mirror lacks come from the embedded data.
    std::fs::remove_file(mirror.path().join("letor3/OHSUMED/QueryLevelNorm/Fold2/train.txt.gz")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let r = with_mirror(dir.path(), Mirror::Dir(mirror.path().to_owned()))
        .fetch_dataset(&m, "OHSUMED", Variants::Default)
        .unwrap();
    assert_eq!(r.installed.len(), 15);
    assert_eq!(r.source, format!("mirror {}, embedded", mirror.path().display()));
}

#[test]
fn folder_mirror_with_a_damaged_file_is_refused() {
    let copy = tempfile::tempdir().unwrap();
    let files = embedded_mirror(copy.path());
    let rel = "letor3/OHSUMED/QueryLevelNorm/Fold3/vali.txt";
    let mut data = files.iter().find(|(f, _)| f == "Fold3/vali.txt").unwrap().1.clone();
    let pos = data.iter().position(|b| b.is_ascii_digit() && *b != b'9').unwrap();
    data[pos] += 1;
    std::fs::write(copy.path().join(format!("{rel}.gz")), gz(&data)).unwrap();

    let m = letor3_offline(&closed_port_url("/OHSUMED.zip"));
    let expected = m.datasets[0].variants[0].sha256_of("Fold3/vali.txt").unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let e = with_mirror(dir.path(), Mirror::Dir(copy.path().to_owned()))
        .fetch_dataset(&m, "OHSUMED", Variants::Default)
        .unwrap_err();
    match &e {
        FetchError::Data(DataError::Checksum { file, expected: exp, actual }) => {
            assert_eq!(file, rel);
            assert_eq!(exp, &expected);
            assert_eq!(actual, &sha(&data));
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    let msg = e.to_string();
    assert!(msg.contains(rel) && msg.contains(&expected) && msg.contains(&sha(&data)), "{msg}");
    // Refused without falling back to the embedded copy: a mirror serving wrong data is
    // worth an error.
    assert!(!dir.path().join(rel).exists());
    let left = tree(dir.path());
    assert!(left.iter().all(|f| !f.contains("QueryLevelNorm/Fold3/vali")), "{left:?}");
    assert_eq!(left.iter().filter(|f| f.starts_with("letor3/")).count(), 14, "{left:?}");
    assert_no_leftovers(dir.path());
}

#[test]
fn a_damaged_gz_on_a_mirror_is_an_error_not_a_fallback_to_the_embedded_data() {
    let local = tempfile::tempdir().unwrap();
    let files = embedded_mirror(local.path());
    let m = letor3_offline(&closed_port_url("/OHSUMED.zip"));
    let v = m.datasets[0].default_variant().clone();
    let rel = v.rel_path("Fold3/vali.txt");
    let check = |e: FetchError, dir: &Path, origin: &str| {
        let msg = e.to_string();
        assert!(matches!(e, FetchError::Refused { .. }), "{msg}");
        // Depending on where the damage is, the decoder fails, or yields more than the file.
        let damaged = msg.contains("not a valid gzip file") || msg.contains("decompresses to more than");
        assert!(msg.contains(origin) && damaged, "{msg}");
        // Not replaced by the embedded copy: the mirror's wrong content is the answer.
        assert!(!dir.join(&rel).exists(), "{:?}", tree(dir));
        assert_eq!(tree(dir).iter().filter(|f| f.starts_with("letor3/")).count(), 14);
        assert_no_leftovers(dir);
    };

    // An address serving a cut-off .gz (a valid start, no end).
    let server = Server::start();
    for (file, bytes) in &files {
        let mut body = gz(bytes);
        if *file == "Fold3/vali.txt" {
            body.truncate(body.len() / 2);
        }
        server.route(&format!("/m/{}.gz", v.rel_path(file)), Route::ok(body));
    }
    let dir = tempfile::tempdir().unwrap();
    let e = with_mirror(dir.path(), server.url("/m").parse().unwrap())
        .fetch_dataset(&m, "OHSUMED", Variants::Default)
        .unwrap_err();
    check(e, dir.path(), &server.url(&format!("/m/{rel}.gz")));

    // A folder holding a .gz whose compressed data was altered.
    let gz_path = local.path().join(format!("{rel}.gz"));
    let mut body = std::fs::read(&gz_path).unwrap();
    let mid = body.len() / 2;
    for b in &mut body[mid..mid + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&gz_path, &body).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = with_mirror(dir.path(), Mirror::Dir(local.path().to_owned()))
        .fetch_dataset(&m, "OHSUMED", Variants::Default)
        .unwrap_err();
    check(e, dir.path(), &gz_path.display().to_string());
}

#[test]
fn url_mirror_serves_gz_then_plain_files() {
    let local = tempfile::tempdir().unwrap();
    let files = embedded_mirror(local.path());
    let server = Server::start();
    let m = letor3_offline(&server.url("/official/OHSUMED.zip"));
    let v = m.datasets[0].default_variant().clone();
    for (file, bytes) in &files {
        let rel = v.rel_path(file);
        if file == "Fold2/test.txt" {
            // Only the plain file: the .gz request gets a 404 first.
            server.route(&format!("/m/{rel}"), Route::ok(bytes.clone()));
        } else {
            server.route(&format!("/m/{rel}.gz"), Route::ok(gz(bytes)));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let f = with_mirror(dir.path(), server.url("/m/").parse().unwrap());
    let r = f.fetch_dataset(&m, "ohsumed", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 15);
    assert_eq!(r.source, format!("mirror {}", server.url("/m")));
    for file in v.files() {
        assert!(f.cache().verified_path(&v, &file).is_some(), "{file}");
    }
    let plain = "/m/letor3/OHSUMED/QueryLevelNorm/Fold2/test.txt";
    assert_eq!(server.requests_for(&format!("{plain}.gz")).len(), 1);
    assert_eq!(server.requests_for(plain).len(), 1);
    assert!(server.requests_for("/official/OHSUMED.zip").is_empty());
    assert_no_leftovers(dir.path());
}

#[test]
fn files_missing_from_the_mirror_come_from_the_official_archive() {
    let server = Server::start();
    let files = toy_files("o");
    let archive = zip_bytes(&entries("O", &files));
    server.route("/o.zip", Route::ok(archive));
    // The mirror has only the training file.
    let mirror = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(mirror.path().join("toy/O/Fold1")).unwrap();
    std::fs::write(mirror.path().join("toy/O/Fold1/train.txt.gz"), gz(&files[0].1)).unwrap();
    let m = toy_manifest(
        &[ToyArchive { name: "o.zip", urls: vec![server.url("/o.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "O", archive: "o.zip", archive_root: "O", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let r = with_mirror(dir.path(), Mirror::Dir(mirror.path().to_owned()))
        .fetch_dataset(&m, "O", Variants::Default)
        .unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(r.source, format!("mirror {}, {}", mirror.path().display(), server.url("/o.zip")));

    // A mirror folder that does not exist is an error, not a silent download.
    let dir2 = tempfile::tempdir().unwrap();
    let e = with_mirror(dir2.path(), Mirror::Dir(mirror.path().join("nope")))
        .fetch_dataset(&m, "O", Variants::Default)
        .unwrap_err();
    assert!(matches!(e, FetchError::Mirror { .. }), "{e}");
}

#[test]
fn unreachable_url_mirror_falls_back_to_the_official_archive() {
    let server = Server::start();
    let files = toy_files("d");
    server.route("/d.zip", Route::ok(zip_bytes(&entries("D", &files))));
    let dead = closed_port_url("/mirror");
    let m = toy_manifest(
        &[ToyArchive { name: "d.zip", urls: vec![server.url("/d.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "D", archive: "d.zip", archive_root: "D", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let r = with_mirror(dir.path(), dead.parse().unwrap()).fetch_dataset(&m, "D", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(r.source, server.url("/d.zip"));
    assert_no_leftovers(dir.path());
}

// ---------------------------------------------------------------------------------------
// The install helper for tests, and resolution.

#[test]
fn embedded_install_is_safe_from_many_threads_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let inputs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| ltr_fetch::embedded::install(dir.path(), "letor4", "MQ2008").unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(inputs.windows(2).all(|w| w[0] == w[1]));
    let d = &inputs[0];
    assert_eq!((d.name.as_str(), d.features, d.folds.len()), ("MQ2008", 46, 5));
    assert_eq!(d.root, dir.path());
    let m = Manifest::builtin("letor4").unwrap();
    let v = m.dataset("MQ2008").unwrap().default_variant();
    for fold in &d.folds {
        for file in [&fold.train, &fold.vali, &fold.test] {
            let bytes = std::fs::read(d.root.join(&file.rel)).unwrap();
            assert_eq!(sha(&bytes), file.sha256, "{}", file.rel);
            assert_eq!(
                Some(file.sha256.as_str()),
                v.sha256_of(file.rel.trim_start_matches("letor4/MQ2008/"))
            );
        }
    }
    // The five subsets themselves are installed too (they are files of the variant).
    assert!(dir.path().join("letor4/MQ2008/S3.txt").is_file());
    assert_no_leftovers(dir.path());
    // Again: nothing to do.
    let again = ltr_fetch::embedded::install(dir.path(), "letor4", "MQ2008").unwrap();
    assert_eq!(&again, d);
    let e = ltr_fetch::embedded::install(dir.path(), "letor4", "MQ2007").unwrap_err();
    assert!(e.to_string().contains("no embedded data"), "{e}");
}

#[test]
fn resolve_reports_each_dataset_and_never_touches_the_network_for_embedded_ones() {
    let dead = closed_port_url("/x.rar");
    let mut m = Manifest::builtin("letor4").unwrap();
    for a in &mut m.archives {
        a.urls = vec![dead.clone()];
    }
    let dir = tempfile::tempdir().unwrap();
    let names = vec!["MQ2008".to_string(), "MQ2007".to_string(), "NOPE".to_string()];

    // Cache only, empty cache: nothing is available.
    let cache = DataCache::new(dir.path());
    let out = ltr_fetch::resolve(&m, &names, &[1, 2], ltr_fetch::Source::Cache(&cache));
    assert!(out.iter().all(|d| matches!(d, ltr_data::resolved::DatasetStatus::Unavailable { .. })));

    let f = fetcher(dir.path());
    let t = Instant::now();
    let out = ltr_fetch::resolve(&m, &names, &[1, 2, 9], ltr_fetch::Source::Fetch(&f));
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let names_out: Vec<&str> = out.iter().map(|d| d.name()).collect();
    assert_eq!(names_out, ["MQ2008", "MQ2007", "NOPE"]);
    match &out[0] {
        ltr_data::resolved::DatasetStatus::Available(d) => {
            assert_eq!(d.folds.iter().map(|f| f.fold).collect::<Vec<_>>(), [1, 2]);
            assert_eq!(d.convention, ltr_data::Manifest::builtin("letor4").unwrap().convention);
        }
        other => panic!("MQ2008 should be available: {other:?}"),
    }
    for d in &out[1..] {
        assert!(matches!(d, ltr_data::resolved::DatasetStatus::Unavailable { .. }), "{d:?}");
    }
    // Now cache-only resolution finds MQ2008.
    let out = ltr_fetch::resolve(&m, &names[..1], &[1], ltr_fetch::Source::Cache(&cache));
    assert!(matches!(out[0], ltr_data::resolved::DatasetStatus::Available(_)));
}

// ---------------------------------------------------------------------------------------
// Damaged caches.

/// Changes one digit of a cached file in place, keeping its size (and setting an old mtime,
/// so a stale stamp is noticed whatever the clock granularity). Returns the new content.
fn damage(path: &Path) -> Vec<u8> {
    let mut data = std::fs::read(path).unwrap();
    let pos = data.iter().position(|b| b.is_ascii_digit() && *b != b'9').unwrap();
    data[pos] += 1;
    std::fs::write(path, &data).unwrap();
    touch_old(path);
    data
}

#[test]
fn cache_only_resolution_names_a_damaged_file_as_failing_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    ltr_fetch::embedded::install(dir.path(), "letor4", "MQ2008").unwrap();
    let m = Manifest::builtin("letor4").unwrap();
    let rel = "letor4/MQ2008/Fold1/vali.txt";
    let expected = m.dataset("MQ2008").unwrap().default_variant().sha256_of("Fold1/vali.txt").unwrap();
    let actual = sha(&damage(&dir.path().join(rel)));
    let cache = DataCache::new(dir.path());
    let out = ltr_fetch::resolve(&m, &["MQ2008".into()], &[1], ltr_fetch::Source::Cache(&cache));
    match &out[0] {
        ltr_data::resolved::DatasetStatus::Unavailable { reason, .. } => {
            assert!(!reason.contains("not in the data cache"), "{reason}");
            for part in [rel, "fails its sha256 check", expected, actual.as_str()] {
                assert!(reason.contains(part), "{part:?} not in {reason}");
            }
        }
        other => panic!("a damaged file must make the dataset unavailable: {other:?}"),
    }
}

/// A cache holding MQ2008 (installed and stamped just now) whose `Fold2/test.txt` was then
/// edited in place keeping its size and modification time: what a stamp cannot see. Returns
/// the folder, the file (relative), its manifest hash and the hash of its new content.
fn silently_damaged_cache() -> (tempfile::TempDir, &'static str, String, String) {
    let dir = tempfile::tempdir().unwrap();
    ltr_fetch::embedded::install(dir.path(), "letor4", "MQ2008").unwrap();
    let rel = "letor4/MQ2008/Fold2/test.txt";
    let path = dir.path().join(rel);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mut data = std::fs::read(&path).unwrap();
    let pos = data.iter().position(|b| b.is_ascii_digit() && *b != b'9').unwrap();
    data[pos] += 1;
    std::fs::write(&path, &data).unwrap();
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    let m = Manifest::builtin("letor4").unwrap();
    let expected =
        m.dataset("MQ2008").unwrap().default_variant().sha256_of("Fold2/test.txt").unwrap().to_owned();
    (dir, rel, expected, sha(&data))
}

fn assert_fails_its_hash(out: &[ltr_data::resolved::DatasetStatus], rel: &str, actual: &str) {
    match &out[0] {
        ltr_data::resolved::DatasetStatus::Unavailable { reason, .. } => {
            assert!(
                reason.contains(rel) && reason.contains("fails its sha256") && reason.contains(actual),
                "{reason}"
            );
        }
        other => panic!("the edited file went unnoticed: {other:?}"),
    }
}

#[test]
fn verify_data_rehashes_files_whose_stamp_still_matches() {
    let (dir, rel, _, actual) = silently_damaged_cache();
    let m = Manifest::builtin("letor4").unwrap();
    let f =
        Fetcher::new(FetchOptions { rehash_after: Duration::ZERO, ..opts(dir.path()) }, Arc::new(NoProgress));
    let out = ltr_fetch::resolve(&m, &["MQ2008".into()], &[2], ltr_fetch::Source::Cache(f.cache()));
    assert_fails_its_hash(&out, rel, &actual);
    // Fetching replaces it (from the embedded data), and every file is hashed once per
    // process only: a second resolution by the same fetcher does not hash again.
    let r = f.fetch_dataset(&m, "MQ2008", Variants::Default).unwrap();
    assert_eq!(r.installed, vec![rel.to_owned()]);
    let r = f.fetch_dataset(&m, "MQ2008", Variants::Default).unwrap();
    assert!(r.rehashed.is_empty() && r.installed.is_empty(), "{r:?}");
}

#[test]
fn files_verified_longer_ago_than_the_recheck_age_are_rehashed() {
    let (dir, rel, _, actual) = silently_damaged_cache();
    // Every stamp says its file was last hashed two hours ago.
    let stamps = dir.path().join("stamps.json");
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stamps).unwrap()).unwrap();
    let two_hours_ago = (std::time::SystemTime::now() - Duration::from_secs(7200))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    for (_, stamp) in json["files"].as_object_mut().unwrap() {
        stamp["verified_ms"] = two_hours_ago.into();
    }
    std::fs::write(&stamps, serde_json::to_vec(&json).unwrap()).unwrap();
    let m = Manifest::builtin("letor4").unwrap();
    let hour = Fetcher::new(
        FetchOptions { rehash_after: Duration::from_secs(3600), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let out = ltr_fetch::resolve(&m, &["MQ2008".into()], &[2], ltr_fetch::Source::Cache(hour.cache()));
    assert_fails_its_hash(&out, rel, &actual);
    // Within the age, stamps are trusted: only the file found damaged (whose stamp is gone)
    // is read, and replaced.
    let day = Fetcher::new(
        FetchOptions { rehash_after: Duration::from_secs(86400), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let r = day.fetch_dataset(&m, "MQ2008", Variants::Default).unwrap();
    assert_eq!((r.installed, r.rehashed), (vec![rel.to_owned()], vec![rel.to_owned()]));
}

#[test]
fn cache_verification_rehashes_every_file_and_reports_each() {
    let (dir, rel, expected, actual) = silently_damaged_cache();
    // A stray file nobody knows a hash for, and a stamped file that is gone.
    std::fs::write(dir.path().join("letor4/MQ2008/notes.txt"), b"mine").unwrap();
    let gone = "letor4/MQ2008/Fold5/vali.txt";
    std::fs::remove_file(dir.path().join(gone)).unwrap();
    let cache = DataCache::new(dir.path());
    let findings = cache.verify_all(&[Manifest::builtin("letor4").unwrap()]).unwrap();
    let of = |r: &str| findings.iter().find(|f| f.rel == r).map(|f| f.check.clone());
    assert_eq!(of(rel), Some(ltr_fetch::cache::Check::Mismatch { expected, actual }));
    assert_eq!(of("letor4/MQ2008/notes.txt"), Some(ltr_fetch::cache::Check::Unknown));
    assert_eq!(of(gone), Some(ltr_fetch::cache::Check::Missing));
    let ok = findings.iter().filter(|f| f.check == ltr_fetch::cache::Check::Ok).count();
    // MQ2008: 5 folds x 3 files and S1..S5, less the two above.
    assert_eq!((ok, findings.len()), (18, 21), "{findings:?}");
    assert!(findings.windows(2).all(|w| w[0].rel < w[1].rel), "sorted by path");
    // The damaged file lost its stamp: the next use hashes it and refuses it.
    let out = ltr_fetch::resolve(
        &Manifest::builtin("letor4").unwrap(),
        &["MQ2008".into()],
        &[2],
        ltr_fetch::Source::Cache(&cache),
    );
    assert!(matches!(&out[0], ltr_data::resolved::DatasetStatus::Unavailable { .. }), "{out:?}");
}

// ---------------------------------------------------------------------------------------
// Slow servers, killed downloads, leftovers.

/// Runs `f` on a thread and waits at most `limit` for it: a hang fails the test instead of
/// blocking it.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("still running after {limit:?}"))
}

/// Throughput rule scaled down: abort below 1,000 bytes/s over 1 s.
fn slow_opts(dir: &Path) -> FetchOptions {
    FetchOptions { min_speed: 1000, speed_window: Duration::from_secs(1), ..opts(dir) }
}

#[test]
fn a_trickling_transfer_is_abandoned_by_the_throughput_rule_and_resumed() {
    let server = Server::start();
    let mut files = toy_files("t");
    files[0].1 = files[0].1.repeat(300);
    let archive = zip_bytes(&entries("T", &files));
    let cut = archive.len() / 2;
    server.route("/t.zip", Route { trickle_first: Some(cut), ..Route::ok(archive.clone()) });
    let m = toy_manifest(
        &[ToyArchive {
            name: "t.zip",
            urls: vec![server.url("/t.zip")],
            format: "zip",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "T", archive: "t.zip", archive_root: "T", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = Fetcher::new(slow_opts(dir.path()), Arc::new(NoProgress));
    let t = Instant::now();
    let r = within(Duration::from_secs(30), move || f.fetch_dataset(&m, "T", Variants::Default)).unwrap();
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(r.installed.len(), 3);
    let reqs = server.requests_for("/t.zip");
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let resumed_at: usize =
        reqs[1].as_deref().and_then(|r| r.strip_prefix("bytes=")?.strip_suffix('-')?.parse().ok()).unwrap();
    assert!(resumed_at >= cut, "resumed at {resumed_at}, had {cut}");
    assert_no_leftovers(dir.path());
}

#[test]
fn a_server_that_only_trickles_fails_in_bounded_time() {
    let server = Server::start();
    let files = toy_files("u");
    let archive = zip_bytes(&entries("U", &files));
    server.route("/u.zip", Route { trickle_each: Some(0), ..Route::ok(archive) });
    let m = toy_manifest(
        &[ToyArchive { name: "u.zip", urls: vec![server.url("/u.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "U", archive: "u.zip", archive_root: "U", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = Fetcher::new(FetchOptions { retries: 1, ..slow_opts(dir.path()) }, Arc::new(NoProgress));
    let t = Instant::now();
    let e = within(Duration::from_secs(30), move || f.fetch_dataset(&m, "U", Variants::Default)).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // Each slow attempt counts as one without progress, however many bytes it got.
    assert_eq!(server.requests_for("/u.zip").len(), 2);
    assert!(matches!(&e, FetchError::Download { .. }) && e.to_string().contains("slower than"), "{e}");
}

/// The one-fold toy dataset `K` served by a URL mirror at `base` (its official archive is
/// not there), with a training file large enough to be killed in the middle of.
fn killable() -> (Manifest, Vec<(&'static str, Vec<u8>)>) {
    let mut files = toy_files("k");
    files[0].1 = files[0].1.repeat(5000);
    let m = toy_manifest(
        &[ToyArchive { name: "k.zip", urls: vec![closed_port_url("/k.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "K", archive: "k.zip", archive_root: "K", hashes: hashes(&files) }],
    );
    (m, files)
}

const CHILD_MIRROR: &str = "LTR_FETCH_TEST_CHILD_MIRROR";
const CHILD_DIR: &str = "LTR_FETCH_TEST_CHILD_DIR";

/// Not a test of its own: the process that
/// `a_url_mirror_download_killed_midway_is_resumed_not_restarted` starts and kills.
#[test]
#[ignore = "run as a child process by another test"]
fn child_fetching_from_a_url_mirror() {
    let (Some(mirror), Some(dir)) = (std::env::var_os(CHILD_MIRROR), std::env::var_os(CHILD_DIR)) else {
        return;
    };
    let mirror: Mirror = mirror.to_string_lossy().parse().unwrap();
    let f = with_mirror(Path::new(&dir), mirror);
    let _ = f.fetch_dataset(&killable().0, "K", Variants::Default);
}

#[test]
fn a_url_mirror_download_killed_midway_is_resumed_not_restarted() {
    let (m, files) = killable();
    let server = Server::start();
    let train = "/m/toy/K/Fold1/train.txt";
    // The first request sends 300 KB at once, then trickles: the child is killed there.
    server.route(train, Route { trickle_first: Some(300_000), ..Route::ok(files[0].1.clone()) });
    for (p, d) in &files[1..] {
        server.route(&format!("/m/toy/K/{p}"), Route::ok(d.clone()));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_fetching_from_a_url_mirror", "--ignored", "--nocapture"])
        .env(CHILD_MIRROR, server.url("/m"))
        .env(CHILD_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a good part of the file is on disk, then kill the child (SIGKILL).
    let deadline = Instant::now() + Duration::from_secs(30);
    let biggest = |d: &Path| {
        tree(d).iter().filter_map(|f| std::fs::metadata(d.join(f)).ok()).map(|m| m.len()).max().unwrap_or(0)
    };
    while biggest(dir.path()) < 200_000 {
        assert!(Instant::now() < deadline, "the child never got far: {:?}", tree(dir.path()));
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = biggest(dir.path());

    let r =
        with_mirror(dir.path(), server.url("/m").parse().unwrap()).fetch_dataset(&m, "K", Variants::Default);
    assert_eq!(r.unwrap().installed.len(), 3);
    let reqs = server.requests_for(train);
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert_eq!(reqs[1], Some(format!("bytes={kept}-")), "the download restarted instead of resuming");
    assert_eq!(std::fs::read(dir.path().join("toy/K/Fold1/train.txt")).unwrap(), files[0].1);
    // The killed process's staging folder went at the start of the second run.
    assert_no_leftovers(dir.path());
}

#[test]
fn a_resumed_archive_that_fails_its_hash_is_downloaded_again_from_the_start() {
    let server = Server::start();
    let files = toy_files("x");
    let archive = zip_bytes(&entries("X", &files));
    server.route("/x.zip", Route::ok(archive.clone()));
    let m = toy_manifest(
        &[ToyArchive {
            name: "x.zip",
            urls: vec![server.url("/x.zip")],
            format: "zip",
            sha256: Some(sha(&archive)),
        }],
        &[ToyDataset { name: "X", archive: "x.zip", archive_root: "X", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".downloads")).unwrap();
    // Left by an earlier run, from another version of the archive.
    std::fs::write(dir.path().join(".downloads/x.zip.part"), b"0123456789").unwrap();
    let r = fetcher(dir.path()).fetch_dataset(&m, "X", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(server.requests_for("/x.zip"), vec![Some("bytes=10-".to_owned()), None]);
    assert_no_leftovers(dir.path());
}

#[test]
fn staging_folders_of_dead_processes_are_removed_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let staging = dir.path().join(".staging");
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let dead_dir = staging.join(format!("fetch-{dead}-abc123"));
    std::fs::create_dir_all(&dead_dir).unwrap();
    std::fs::write(dead_dir.join("file"), b"half an extraction").unwrap();
    let live_dir = staging.join(format!("fetch-{}-def456", std::process::id()));
    std::fs::create_dir_all(&live_dir).unwrap();
    // A stamp record being written by a process that died before renaming it.
    let dead_tmp = dir.path().join(format!(".stamps.json.{dead}.1.0.tmp"));
    std::fs::write(&dead_tmp, b"{").unwrap();
    let _ = fetcher(dir.path()).fetch_dataset(&killable().0, "NOPE", Variants::Default);
    assert!(!dead_dir.exists(), "{:?}", tree(dir.path()));
    assert!(!dead_tmp.exists(), "{:?}", tree(dir.path()));
    assert!(live_dir.exists(), "a live process's folder was removed");
}

// ---------------------------------------------------------------------------------------
// Bounded downloads: sizes, caps, deadlines, schemes.

/// `text` (from [`toy_manifest_text`]) with a `size` table for its last dataset's files.
fn sized(text: String, files: &[(&str, Vec<u8>)]) -> Manifest {
    let mut t = text + "[datasets.variants.size]\n";
    for (p, d) in files {
        t += &format!("{p:?} = {}\n", d.len());
    }
    Manifest::parse(&t, Path::new("toy.toml")).unwrap()
}

#[test]
fn an_endless_body_from_a_url_mirror_is_cut_at_the_file_size_and_refused() {
    let files = toy_files("e");
    let official = closed_port_url("/e.zip");
    let text = toy_manifest_text(
        &[ToyArchive { name: "e.zip", urls: vec![official.clone()], format: "zip", sha256: None }],
        &[ToyDataset { name: "E", archive: "e.zip", archive_root: "E", hashes: hashes(&files) }],
    );
    let m = sized(text, &files);
    let size = files[0].1.len() as u64;
    // A .gz may be a little larger than the file it holds (0.1% and 64 KiB at most); the
    // plain file never.
    for (path, bound) in
        [("/m/toy/E/Fold1/train.txt.gz", size + size / 1000 + 65_536), ("/m/toy/E/Fold1/train.txt", size)]
    {
        let server = Server::start();
        server.route(path, Route { flood: Some(64 << 20), ..Route::default() });
        let dir = tempfile::tempdir().unwrap();
        let progress = Arc::new(Counting::default());
        let f = Fetcher::new(
            FetchOptions { mirror: Some(server.url("/m").parse().unwrap()), ..opts(dir.path()) },
            progress.clone(),
        );
        let m = m.clone();
        let t = Instant::now();
        let e =
            within(Duration::from_secs(30), move || f.fetch_dataset(&m, "E", Variants::Default)).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let msg = e.to_string();
        assert!(msg.contains(&server.url(path)) && msg.contains("refused"), "{msg}");
        assert!(msg.contains(&format!("more than {bound} bytes")), "{msg}");
        // No fallback to the official address: a mirror serving too much is wrong content.
        assert!(!msg.contains(&official), "{msg}");
        let written = progress.bytes.load(Ordering::Relaxed);
        assert!(written <= bound, "{written} bytes written, bound {bound}");
        assert!(!dir.path().join("toy/E/Fold1/train.txt").exists());
        // Refused content is not kept for a resume.
        assert_no_leftovers(dir.path());
        assert!(tree(dir.path()).iter().all(|f| !f.contains("/mirror/")), "{:?}", tree(dir.path()));
    }
}

#[test]
fn an_archive_is_bounded_by_its_manifest_size_and_an_announced_length_beyond_it_is_refused_at_once() {
    let files = toy_files("n");
    let archive = zip_bytes(&entries("N", &files));
    let manifest = |url: String| {
        let text = toy_manifest_text(
            &[ToyArchive { name: "n.zip", urls: vec![url], format: "zip", sha256: Some(sha(&archive)) }],
            &[ToyDataset { name: "N", archive: "n.zip", archive_root: "N", hashes: hashes(&files) }],
        );
        let text =
            text.replacen("format = \"zip\"\n", &format!("format = \"zip\"\nsize = {}\n", archive.len()), 1);
        Manifest::parse(&text, Path::new("toy.toml")).unwrap()
    };
    // Exactly its size: installed.
    let server = Server::start();
    server.route("/n.zip", Route::ok(archive.clone()));
    let dir = tempfile::tempdir().unwrap();
    let r =
        fetcher(dir.path()).fetch_dataset(&manifest(server.url("/n.zip")), "N", Variants::Default).unwrap();
    assert_eq!(r.installed.len(), 3);

    // A server announcing a thousand times as much: refused before any byte of the body.
    let server = Server::start();
    let claimed = archive.len() as u64 * 1000;
    server.route("/n.zip", Route { claim_length: Some(claimed), ..Route::ok(archive.clone()) });
    let dir = tempfile::tempdir().unwrap();
    let progress = Arc::new(Counting::default());
    let f = Fetcher::new(opts(dir.path()), progress.clone());
    let e = f.fetch_dataset(&manifest(server.url("/n.zip")), "N", Variants::Default).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("refused") && msg.contains(&claimed.to_string()), "{msg}");
    assert!(msg.contains(&format!("more than {} bytes", archive.len())), "{msg}");
    assert_eq!(progress.bytes.load(Ordering::Relaxed), 0);
    assert_eq!(server.requests_for("/n.zip").len(), 1, "a refusal is not retried");
    assert!(!dir.path().join(".downloads/n.zip").exists());
    assert_no_leftovers(dir.path());
}

#[test]
fn an_archive_of_unpublished_size_is_bounded_by_the_collection_cap() {
    let files = toy_files("c");
    let server = Server::start();
    server.route("/c.zip", Route { flood: Some(64 << 20), ..Route::default() });
    let text = toy_manifest_text(
        &[ToyArchive { name: "c.zip", urls: vec![server.url("/c.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "C", archive: "c.zip", archive_root: "C", hashes: hashes(&files) }],
    );
    let text = text.replacen(
        "convention = \"letor3\"\n",
        "convention = \"letor3\"\nmax_download_bytes = 100000\n",
        1,
    );
    let m = Manifest::parse(&text, Path::new("toy.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let progress = Arc::new(Counting::default());
    let f = Fetcher::new(opts(dir.path()), progress.clone());
    let e = within(Duration::from_secs(30), move || f.fetch_dataset(&m, "C", Variants::Default)).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("refused") && msg.contains("more than 100000 bytes"), "{msg}");
    assert!(msg.contains("max_download_bytes"), "{msg}");
    assert!(progress.bytes.load(Ordering::Relaxed) <= 100_000);
    assert_eq!(server.requests_for("/c.zip").len(), 1, "a refusal is not retried");
    assert_no_leftovers(dir.path());
}

#[test]
fn with_no_speed_rule_a_trickling_transfer_is_ended_by_the_deadline() {
    let server = Server::start();
    let files = toy_files("l");
    // About 600 bytes at one byte per 200 ms: two minutes, without the deadline.
    let archive = zip_bytes(&entries("L", &files));
    server.route("/l.zip", Route { trickle_each: Some(0), ..Route::ok(archive) });
    let m = toy_manifest(
        &[ToyArchive { name: "l.zip", urls: vec![server.url("/l.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "L", archive: "l.zip", archive_root: "L", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let f = Fetcher::new(
        FetchOptions { min_speed: 0, max_time: Duration::from_secs(2), ..opts(dir.path()) },
        Arc::new(NoProgress),
    );
    let t = Instant::now();
    let e = within(Duration::from_secs(30), move || f.fetch_dataset(&m, "L", Variants::Default)).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    assert!(matches!(&e, FetchError::Download { .. }) && e.to_string().contains("deadline"), "{e}");
}

#[test]
fn a_silent_or_header_trickling_server_is_given_up_after_the_idle_limit() {
    for route in
        [Route { silent: true, ..Route::default() }, Route { trickle_headers: true, ..Route::default() }]
    {
        let server = Server::start();
        server.route("/q.zip", route);
        let files = toy_files("q");
        let m = toy_manifest(
            &[ToyArchive { name: "q.zip", urls: vec![server.url("/q.zip")], format: "zip", sha256: None }],
            &[ToyDataset { name: "Q", archive: "q.zip", archive_root: "Q", hashes: hashes(&files) }],
        );
        let dir = tempfile::tempdir().unwrap();
        // Four retries of a 1 s wait would take 5 s; nothing at all arrives, so the idle
        // limit ends it after 1.5 s.
        let f = Fetcher::new(
            FetchOptions {
                retries: 4,
                timeout: Duration::from_secs(1),
                max_idle: Duration::from_millis(1500),
                ..opts(dir.path())
            },
            Arc::new(NoProgress),
        );
        let t = Instant::now();
        let e =
            within(Duration::from_secs(30), move || f.fetch_dataset(&m, "Q", Variants::Default)).unwrap_err();
        assert!(t.elapsed() < Duration::from_millis(2500), "{:?}", t.elapsed());
        assert!(
            matches!(&e, FetchError::Download { .. }) && e.to_string().contains("nothing received"),
            "{e}"
        );
    }
}

#[test]
fn unsupported_address_schemes_are_refused_at_once() {
    for url in ["file:///tmp/ltr-test-none/x.zip", "ftp://127.0.0.1/x.zip", "x.zip"] {
        let files = toy_files("s");
        let m = toy_manifest(
            &[ToyArchive { name: "x.zip", urls: vec![url.to_owned()], format: "zip", sha256: None }],
            &[ToyDataset { name: "X", archive: "x.zip", archive_root: "X", hashes: hashes(&files) }],
        );
        let dir = tempfile::tempdir().unwrap();
        // A backoff that would make any retry obvious.
        let f = Fetcher::new(
            FetchOptions { retries: 4, backoff: Duration::from_secs(2), ..opts(dir.path()) },
            Arc::new(NoProgress),
        );
        let t = Instant::now();
        let e = f.fetch_dataset(&m, "X", Variants::Default).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(1), "{url}: {:?}", t.elapsed());
        let msg = e.to_string();
        assert!(msg.contains(url) && msg.contains("only http:// and https://"), "{msg}");
        assert!(!msg.contains("retries"), "{msg}");
    }
}

#[test]
fn every_file_rebuilt_from_the_embedded_pieces_has_its_manifest_size() {
    for (collection, dataset) in [("letor3", "OHSUMED"), ("letor4", "MQ2008")] {
        let m = Manifest::builtin(collection).unwrap();
        let v = m.dataset(dataset).unwrap().default_variant();
        let pieces = ltr_data::embedded::Pieces::open(v).unwrap();
        for f in v.files() {
            let bytes = pieces.build(&f).unwrap().unwrap();
            assert_eq!(Some(bytes.len() as u64), v.size_of(&f), "{collection}/{dataset}/{f}");
        }
    }
}
