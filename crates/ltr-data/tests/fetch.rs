//! End-to-end tests of the fetching layer: a tiny HTTP/1.1 server (std only) for the official
//! archive path and URL mirrors, and the real mirror `../shared/datasets` for the folder
//! mirror path.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use ltr_data::fetch::{FetchOptions, Fetcher, Mirror, NoProgress, Progress};
use ltr_data::reader::hex;
use ltr_data::{DataCache, DataError, Manifest};
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
    let (route, truncate) = {
        let mut st = state.lock().unwrap();
        st.log.push((path.clone(), range.clone()));
        let route = st.routes.get(&path).cloned();
        let truncate = match &route {
            Some(Route { truncate_first: Some(k), .. }) if st.truncated.insert(path.clone()) => Some(*k),
            _ => None,
        };
        (route, truncate)
    };
    let mut out = &stream;
    let send = |out: &mut &TcpStream, code: u16, extra: &str, body: &[u8], cut: Option<usize>| {
        let head = format!(
            "HTTP/1.1 {code} {}\r\nContent-Length: {}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n{extra}\r\n",
            reason(code),
            body.len()
        );
        out.write_all(head.as_bytes())?;
        out.write_all(&body[..cut.unwrap_or(body.len()).min(body.len())])?;
        out.flush()
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

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    MultiGzDecoder::new(bytes).read_to_end(&mut out).unwrap();
    out
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
    Manifest::parse(&t, Path::new("toy.toml")).unwrap()
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
    let r = f.fetch_dataset(&m, "toy").unwrap();
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
    let r = f.fetch_dataset(&m, "TOY").unwrap();
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
        let r = fetcher(dir.path()).fetch_dataset(&m, "R").unwrap();
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
    let r = fetcher(dir.path()).fetch_dataset(&m, "P").unwrap();
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
    let e = fetcher(dir.path()).fetch_dataset(&m, "W").unwrap_err();
    match &e {
        DataError::Checksum { file, expected, actual } => {
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
    let e = fetcher(dir.path()).fetch_dataset(&m, "F").unwrap_err();
    match &e {
        DataError::Checksum { file, expected, actual } => {
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
    let out = fetcher(dir.path()).fetch_all(&m, &["GONE".into(), "NOPE".into(), "GOOD".into()]);
    assert_eq!(out.len(), 3);
    match &out[0].1 {
        Err(DataError::Download { reason, .. }) => {
            assert!(
                reason.contains("gone1.zip") && reason.contains("gone2.zip") && reason.contains("404"),
                "{reason}"
            )
        }
        other => panic!("expected a download error, got {other:?}"),
    }
    assert!(matches!(out[1].1, Err(DataError::NotInManifest(_))));
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
    let e = f.fetch_dataset(&m, "B").unwrap_err();
    // 20 + 40 + 80 ms of backoff.
    assert!(t.elapsed() >= Duration::from_millis(140), "{:?}", t.elapsed());
    assert!(matches!(&e, DataError::Download { .. }) && e.to_string().contains("503"), "{e}");
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
    let out = fetcher(dir.path()).fetch_all(&m, &["A".into(), "B".into()]);
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
    let r = f.fetch_dataset(&m, "U").unwrap();
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
    let r = f.fetch_dataset(&m, "U").unwrap();
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
    let r = f.fetch_dataset(&m, "U").unwrap();
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
    let e = f.fetch_dataset(&m, "U").unwrap_err();
    match &e {
        DataError::Checksum { file, expected, actual } => {
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
// Mirrors.

fn real_mirror() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/datasets"));
    if p.join("letor3/OHSUMED").is_dir() {
        Some(p)
    } else {
        println!("note: no dataset mirror at {}; skipping", p.display());
        None
    }
}

/// The built-in letor3 manifest with the official addresses made unreachable (so a bug could
/// never reach the internet), restricted to OHSUMED (and to `variant` if given).
fn letor3_offline(variant: Option<&str>, official: &str) -> Manifest {
    let mut m = Manifest::builtin("letor3").unwrap();
    for a in &mut m.archives {
        a.urls = vec![official.to_owned()];
    }
    m.datasets.retain(|d| d.name == "OHSUMED");
    if let Some(v) = variant {
        m.datasets[0].variants.retain(|x| x.name == v);
    }
    m
}

fn with_mirror(dir: &Path, mirror: Mirror) -> Fetcher {
    Fetcher::new(FetchOptions { mirror: Some(mirror), retries: 0, ..opts(dir) }, Arc::new(NoProgress))
}

#[test]
fn folder_mirror_installs_all_ohsumed_files_once() {
    let Some(mirror) = real_mirror() else { return };
    let m = letor3_offline(None, "http://127.0.0.1:9/none.zip");
    let dir = tempfile::tempdir().unwrap();
    let f = with_mirror(dir.path(), Mirror::Dir(mirror.clone()));
    let r = f.fetch_dataset(&m, "OHSUMED").unwrap();
    assert_eq!(r.installed.len(), 47);
    let count = |prefix: &str| r.installed.iter().filter(|p| p.starts_with(prefix)).count();
    assert_eq!(count("letor3/OHSUMED/QueryLevelNorm/"), 15);
    assert_eq!(count("letor3/OHSUMED/Feature-min/"), 16);
    assert_eq!(count("letor3/OHSUMED/Feature-null/"), 16);
    assert!(r.unverified.is_empty() && r.already_present.is_empty());
    assert_eq!(r.source, format!("mirror {}", mirror.display()));
    let d = m.dataset("OHSUMED").unwrap();
    for v in &d.variants {
        for file in v.files() {
            assert!(f.cache().verified_path(v, &file).is_some(), "{}", v.rel_path(&file));
        }
    }
    assert_no_leftovers(dir.path());

    // Second run: nothing installed, nothing hashed.
    let r = f.fetch_dataset(&m, "OHSUMED").unwrap();
    assert!(r.installed.is_empty(), "{:?}", r.installed);
    assert!(r.rehashed.is_empty(), "{:?}", r.rehashed);
    assert_eq!(r.already_present.len(), 47);
    assert_eq!(r.source, "cache");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::write(&dest, std::fs::read(&p).unwrap()).unwrap();
        }
    }
}

#[test]
fn folder_mirror_with_a_damaged_file_is_refused() {
    let Some(mirror) = real_mirror() else { return };
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&mirror.join("letor3/OHSUMED"), &copy.path().join("letor3/OHSUMED"));
    let rel = "letor3/OHSUMED/QueryLevelNorm/Fold3/vali.txt";
    let gz_path = copy.path().join(format!("{rel}.gz"));
    let mut data = gunzip(&std::fs::read(&gz_path).unwrap());
    let pos = data.iter().position(|b| b.is_ascii_digit() && *b != b'9').unwrap();
    data[pos] += 1;
    std::fs::write(&gz_path, gz(&data)).unwrap();

    let m = letor3_offline(None, "http://127.0.0.1:9/none.zip");
    let expected = m.datasets[0].variants[0].sha256_of("Fold3/vali.txt").unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let e = with_mirror(dir.path(), Mirror::Dir(copy.path().to_owned()))
        .fetch_dataset(&m, "OHSUMED")
        .unwrap_err();
    match &e {
        DataError::Checksum { file, expected: exp, actual } => {
            assert_eq!(file, rel);
            assert_eq!(exp, &expected);
            assert_eq!(actual, &sha(&data));
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    let msg = e.to_string();
    assert!(msg.contains(rel) && msg.contains(&expected) && msg.contains(&sha(&data)), "{msg}");
    assert!(!dir.path().join(rel).exists());
    let left = tree(dir.path());
    assert!(left.iter().all(|f| !f.contains("QueryLevelNorm/Fold3/vali")), "{left:?}");
    assert_no_leftovers(dir.path());
}

#[test]
fn url_mirror_serves_gz_then_plain_files() {
    let Some(mirror) = real_mirror() else { return };
    let server = Server::start();
    let m = letor3_offline(Some("QueryLevelNorm"), &server.url("/official/OHSUMED.zip"));
    let v = m.datasets[0].default_variant().clone();
    for file in v.files() {
        let rel = v.rel_path(&file);
        let bytes = std::fs::read(mirror.join(format!("{rel}.gz"))).unwrap();
        if file == "Fold2/test.txt" {
            // Only the plain file: the .gz request gets a 404 first.
            server.route(&format!("/m/{rel}"), Route::ok(gunzip(&bytes)));
        } else {
            server.route(&format!("/m/{rel}.gz"), Route::ok(bytes));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let f = with_mirror(dir.path(), server.url("/m/").parse().unwrap());
    let r = f.fetch_dataset(&m, "ohsumed").unwrap();
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
    let r = with_mirror(dir.path(), Mirror::Dir(mirror.path().to_owned())).fetch_dataset(&m, "O").unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(r.source, format!("mirror {}, {}", mirror.path().display(), server.url("/o.zip")));

    // A mirror folder that does not exist is an error, not a silent download.
    let dir2 = tempfile::tempdir().unwrap();
    let e =
        with_mirror(dir2.path(), Mirror::Dir(mirror.path().join("nope"))).fetch_dataset(&m, "O").unwrap_err();
    assert!(matches!(e, DataError::Mirror { .. }), "{e}");
}

#[test]
fn unreachable_url_mirror_falls_back_to_the_official_archive() {
    let server = Server::start();
    let files = toy_files("d");
    server.route("/d.zip", Route::ok(zip_bytes(&entries("D", &files))));
    // A port nobody listens on.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mirror", l.local_addr().unwrap())
    };
    let m = toy_manifest(
        &[ToyArchive { name: "d.zip", urls: vec![server.url("/d.zip")], format: "zip", sha256: None }],
        &[ToyDataset { name: "D", archive: "d.zip", archive_root: "D", hashes: hashes(&files) }],
    );
    let dir = tempfile::tempdir().unwrap();
    let r = with_mirror(dir.path(), dead.parse().unwrap()).fetch_dataset(&m, "D").unwrap();
    assert_eq!(r.installed.len(), 3);
    assert_eq!(r.source, server.url("/d.zip"));
    assert_no_leftovers(dir.path());
}
