//! Shared helpers: the project root, the committed fixtures, and the real LETOR data installed
//! from the pieces compiled into `ltr` (no mirror, no network, no `../shared`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ltr_data::Manifest;
use ltr_data::Split;
use ltr_data::embedded::Pieces;
use ltr_data::resolved::DatasetInput;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The official evaluation scripts' recorded outputs, committed with the tests.
pub fn golden_dir() -> PathBuf {
    root().join("tests").join("fixtures").join("eval-golden")
}

/// The data cache the tests share, under `target/`: installing is safe from several test
/// threads and processes at once, and a file already there is verified, not rebuilt.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ltr-data")
}

/// A dataset with embedded data (`("letor3", "OHSUMED")` or `("letor4", "MQ2008")`), installed
/// once per test process into [`data_dir`] and resolved with all its folds.
pub fn installed(collection: &str, dataset: &str) -> &'static DatasetInput {
    static OHSUMED: OnceLock<DatasetInput> = OnceLock::new();
    static MQ2008: OnceLock<DatasetInput> = OnceLock::new();
    let cell = match (collection, dataset) {
        ("letor3", "OHSUMED") => &OHSUMED,
        ("letor4", "MQ2008") => &MQ2008,
        other => panic!("no embedded data for {other:?}"),
    };
    cell.get_or_init(|| {
        ltr_fetch::embedded::install(&data_dir(), collection, dataset)
            .unwrap_or_else(|e| panic!("installing {collection}/{dataset} from the embedded pieces: {e}"))
    })
}

/// The path of one installed fold file, e.g. `fold_file("letor4", "MQ2008", 1, "test")`.
pub fn fold_file(collection: &str, dataset: &str, fold: u32, split: &str) -> PathBuf {
    let input = installed(collection, dataset);
    let files = input.folds.iter().find(|f| f.fold == fold).unwrap_or_else(|| panic!("no fold {fold}"));
    let file = match split {
        "train" => &files.train,
        "vali" => &files.vali,
        "test" => &files.test,
        other => panic!("no split {other}"),
    };
    input.root.join(&file.rel)
}

/// A user's dataset shaped like LETOR 2.0's OHSUMED: OHSUMED QueryLevelNorm (built from the
/// embedded pieces) with features 26..45 dropped, as `<dir>/OHSUMED-L2/Fold1..5/{trainingset,
/// validationset,testset}.txt` with CRLF line endings. Returns the folder.
pub fn letor2_folder(dir: &Path) -> PathBuf {
    let m = Manifest::builtin("letor3").unwrap();
    let v = m.dataset("OHSUMED").unwrap().default_variant();
    let pieces = Pieces::open(v).unwrap();
    let root = dir.join("OHSUMED-L2");
    for k in 1..=5 {
        for (s, name) in Split::ALL.into_iter().zip(["trainingset", "validationset", "testset"]) {
            let bytes = pieces.build(&v.fold_file(k, s)).unwrap().unwrap();
            let mut out = String::new();
            for line in String::from_utf8(bytes).unwrap().lines() {
                let (data, comment) = line.split_once('#').unwrap_or((line, ""));
                let kept: Vec<&str> = data
                    .split_whitespace()
                    .enumerate()
                    .filter(|(i, t)| *i < 2 || t.split(':').next().unwrap().parse::<usize>().unwrap() <= 25)
                    .map(|(_, t)| t)
                    .collect();
                out += &format!("{} #{comment}\r\n", kept.join(" "));
            }
            let p = root.join(format!("Fold{k}/{name}.txt"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, out).unwrap();
        }
    }
    root
}

/// The cells of one GFM table row (`| a | b \| c |`): split at every `|` not escaped by a
/// backslash (a backslash escapes the character after it), trimmed, outer pipes dropped.
pub fn markdown_cells(row: &str) -> Vec<String> {
    let inner = row.trim().strip_prefix('|').unwrap_or(row.trim());
    let (mut cells, mut cell, mut chars) = (Vec::new(), String::new(), inner.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cell.push(c);
                cell.extend(chars.next());
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            _ => cell.push(c),
        }
    }
    if !cell.trim().is_empty() {
        cells.push(cell.trim().to_owned());
    }
    cells
}

/// The text a markdown cell shows: `<br>` as a line break, backslash escapes of ASCII
/// punctuation resolved.
pub fn markdown_text(cell: &str) -> String {
    let cell = cell.replace("<br>", "\n");
    let (mut out, mut chars) = (String::new(), cell.chars().peekable());
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&n) if c == '\\' && n.is_ascii_punctuation() => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every markdown table of `text` (runs of lines starting with `|`), each row split into its
/// cells; panics when a row has another number of cells than its table's header.
pub fn markdown_tables(text: &str) -> Vec<Vec<Vec<String>>> {
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        let cells = markdown_cells(line);
        if !in_table {
            tables.push(Vec::new());
            in_table = true;
        }
        let table = tables.last_mut().unwrap();
        if let Some(header) = table.first() {
            assert_eq!(cells.len(), header.len(), "a row with other columns than its header: {line}\n{text}");
        }
        table.push(cells);
    }
    tables
}

/// Every file under `dir` (recursively), as `/`-separated paths relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// One fold of a made-up dataset under `dir` (`train.txt`, `vali.txt`, `test.txt`: 5
/// features, 16, 8 and 8 queries of 12 documents, noisy grades 0..=2), in milliseconds.
pub fn toy_fold(dir: &Path) {
    let mut state = 99u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as f64 / f64::from(1u32 << 31)
    };
    std::fs::create_dir_all(dir).unwrap();
    for (split, queries) in [("train", 16), ("vali", 8), ("test", 8)] {
        let mut text = String::new();
        for q in 0..queries {
            for d in 0..12 {
                let x: Vec<f64> = (0..5).map(|_| next()).collect();
                let grade = ((x[0] + 0.5 * x[1] + 0.6 * next()) * 1.3).min(2.0) as u8;
                let features: Vec<String> =
                    x.iter().enumerate().map(|(i, v)| format!("{}:{v:.4}", i + 1)).collect();
                text += &format!("{grade} qid:{split}{q} {} #docid = {split}{q}-{d}\n", features.join(" "));
            }
        }
        std::fs::write(dir.join(format!("{split}.txt")), text).unwrap();
    }
}

/// `cmd`'s output, or a failure if it has not finished within `secs` seconds (it is killed).
pub fn output_within(cmd: &mut std::process::Command, secs: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() >= secs {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{cmd:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
