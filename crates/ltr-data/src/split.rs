//! One LETOR file split into query-disjoint subsets S1..Sn by a seeded shuffle, and the
//! folds built from them by the LETOR rotation ([`crate::rotation::rotation`]), written as
//! files: `S1.txt .. Sn.txt` and `Fold{k}/{train,vali,test}.txt`.
//!
//! The shuffle is a Fisher-Yates pass of the pinned ChaCha8 stream ([`ltr_core::Rng`]) over
//! the queries in file order; after it, the first `n/parts` queries (rounded as
//! `position * parts / n`) form S1, the next S2, and so on. Within a subset, queries and
//! their lines keep their file order. The same file and seed give the same bytes.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use ltr_core::Rng;
use serde::{Deserialize, Serialize};

use ltr_format::{DataError, LineFormat, ParseErrorKind};

use crate::local::{for_each_line, label_and_qid};
use crate::rotation::{Split, rotation};

/// What [`split_file`] did; written beside the files as `split.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitRecord {
    /// The file that was split, as given.
    pub source: String,
    /// Its sha256 (uncompressed).
    pub source_sha256: String,
    /// The shuffle's seed.
    pub seed: u64,
    /// Queries in each subset.
    pub queries: Vec<usize>,
    /// Documents in each subset.
    pub rows: Vec<usize>,
}

/// The subset (0-based) of each of `n` queries: a seeded shuffle, then equal runs.
pub fn assign(n: usize, parts: u32, seed: u64) -> Vec<u32> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng::new(seed);
    for i in (1..n).rev() {
        let j = rng.index(i + 1);
        order.swap(i, j);
    }
    let mut part = vec![0u32; n];
    for (pos, &q) in order.iter().enumerate() {
        part[q] = u32::try_from(pos as u64 * u64::from(parts) / n as u64).unwrap_or(parts - 1);
    }
    part
}

/// Splits `src` (plain or gzip, written in `format`) into `parts` query-disjoint subsets and
/// writes, under `out`, `S1.txt .. S{parts}.txt`, the fold files of the rotation and
/// `split.json`. Needs at least three subsets and one query per subset. Lines are copied as
/// they are (in `format`) and end with `\n` in the output.
pub fn split_file(
    src: &Path,
    out: &Path,
    parts: u32,
    seed: u64,
    format: LineFormat,
) -> Result<SplitRecord, DataError> {
    let name = src.display().to_string();
    let invalid = |reason: String| DataError::Unavailable { dataset: name.clone(), reason };
    if !(3..=crate::manifest::MAX_FOLDS).contains(&parts) {
        return Err(invalid(format!(
            "cannot split into {parts} subsets (3..={})",
            crate::manifest::MAX_FOLDS
        )));
    }
    // Pass 1: the queries in file order, each contiguous.
    let mut first_line: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut last: Option<Vec<u8>> = None;
    let (_, source_sha256) = for_each_line(src, |line_no, line| {
        let Some((_, qid, _)) = label_and_qid(&name, line_no, line, format)? else { return Ok(()) };
        if last.as_deref() == Some(qid) {
            return Ok(());
        }
        if let Some(&first) = first_line.get(qid) {
            return Err(DataError::Parse {
                file: name.clone(),
                line: line_no,
                token: String::from_utf8_lossy(qid).into_owned(),
                kind: ParseErrorKind::QidReappears { first_line: first },
            });
        }
        first_line.insert(qid.to_vec(), line_no);
        last = Some(qid.to_vec());
        Ok(())
    })?;
    let n = first_line.len();
    drop(first_line);
    if n < parts as usize {
        return Err(invalid(format!("{n} queries cannot make {parts} query-disjoint subsets")));
    }
    let part_of = assign(n, parts, seed);

    // Pass 2: every line to its query's subset.
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| DataError::Io { path: path.clone(), source }
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let piece = |p: u32| out.join(format!("S{}.txt", p + 1));
    let mut writers = (0..parts)
        .map(|p| File::create(piece(p)).map(|f| BufWriter::with_capacity(1 << 20, f)).map_err(io(&piece(p))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut queries = vec![0usize; parts as usize];
    let mut rows = vec![0usize; parts as usize];
    let mut q: Option<usize> = None;
    let mut last: Vec<u8> = Vec::new();
    let (_, again) = for_each_line(src, |line_no, line| {
        match label_and_qid(&name, line_no, line, format)? {
            Some((_, qid, _)) => {
                if q.is_none() || qid != last.as_slice() {
                    q = Some(q.map_or(0, |i| i + 1));
                    last.clear();
                    last.extend_from_slice(qid);
                    if let Some(&p) = q.and_then(|i| part_of.get(i)) {
                        queries[p as usize] += 1;
                    }
                }
                if let Some(&p) = q.and_then(|i| part_of.get(i)) {
                    rows[p as usize] += 1;
                }
            }
            None if q.is_none() => return Ok(()), // comments before the first query
            None => {}
        }
        let Some(&p) = q.and_then(|i| part_of.get(i)) else {
            return Err(DataError::Changed { file: name.clone() });
        };
        let w = &mut writers[p as usize];
        w.write_all(line).and_then(|()| w.write_all(b"\n")).map_err(io(&piece(p)))
    })?;
    if again != source_sha256 {
        return Err(DataError::Changed { file: name });
    }
    for (p, w) in writers.into_iter().enumerate() {
        let path = piece(p as u32);
        w.into_inner().map_err(|e| e.into_error()).and_then(|f| f.sync_all()).map_err(io(&path))?;
    }

    // The folds: each split file is its subsets concatenated.
    for k in 1..=parts {
        let r = rotation(k, parts).ok_or_else(|| invalid(format!("no rotation for fold {k}")))?;
        let dir = out.join(format!("Fold{k}"));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for s in Split::ALL {
            let path = dir.join(format!("{s}.txt"));
            let mut w = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(io(&path))?);
            for i in r.of(s) {
                let from = piece(i as u32);
                let mut f = File::open(&from).map_err(io(&from))?;
                std::io::copy(&mut f, &mut w).map_err(io(&path))?;
            }
            w.into_inner().map_err(|e| e.into_error()).and_then(|f| f.sync_all()).map_err(io(&path))?;
        }
    }
    let record = SplitRecord { source: name.clone(), source_sha256, seed, queries, rows };
    let json = serde_json::to_vec_pretty(&record).map_err(|e| invalid(e.to_string()))?;
    let path = out.join("split.json");
    std::fs::write(&path, json).map_err(io(&path))?;
    Ok(record)
}

/// Queries and documents written by [`holdout_file`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldoutCounts {
    /// Queries in train.
    pub train_queries: usize,
    /// Queries in vali.
    pub vali_queries: usize,
}

/// Splits `src` into `train` and `vali` by query: the queries are shuffled with `seed` and
/// the first `n / every` of the shuffle ([`assign`]'s subset 0 of `every`) go to vali.
/// File order is kept within each output; lines (in `format`, as they are) end with `\n`.
pub fn holdout_file(
    src: &Path,
    train: &Path,
    vali: &Path,
    every: u32,
    seed: u64,
    format: LineFormat,
) -> Result<HoldoutCounts, DataError> {
    let name = src.display().to_string();
    let mut n = 0usize;
    let mut last: Option<Vec<u8>> = None;
    for_each_line(src, |line_no, line| {
        if let Some((_, qid, _)) = label_and_qid(&name, line_no, line, format)?
            && last.as_deref() != Some(qid)
        {
            n += 1;
            last = Some(qid.to_vec());
        }
        Ok(())
    })?;
    if n < every as usize {
        return Err(DataError::Unavailable {
            dataset: name,
            reason: format!("{n} queries are too few to hold out one in {every}"),
        });
    }
    let part_of = assign(n, every, seed);
    let open = |p: &Path| {
        File::create(p)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(|source| DataError::Io { path: p.to_owned(), source })
    };
    let (mut wt, mut wv) = (open(train)?, open(vali)?);
    let mut counts = HoldoutCounts { train_queries: 0, vali_queries: 0 };
    let mut q: Option<usize> = None;
    let mut last: Vec<u8> = Vec::new();
    for_each_line(src, |line_no, line| {
        if let Some((_, qid, _)) = label_and_qid(&name, line_no, line, format)?
            && (q.is_none() || qid != last.as_slice())
        {
            q = Some(q.map_or(0, |i| i + 1));
            last.clear();
            last.extend_from_slice(qid);
            match q.and_then(|i| part_of.get(i)) {
                Some(0) => counts.vali_queries += 1,
                Some(_) => counts.train_queries += 1,
                None => return Err(DataError::Changed { file: name.clone() }),
            }
        }
        let Some(&p) = q.and_then(|i| part_of.get(i)) else { return Ok(()) };
        let (w, path) = if p == 0 { (&mut wv, vali) } else { (&mut wt, train) };
        w.write_all(line)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|source| DataError::Io { path: path.to_owned(), source })
    })?;
    for (w, p) in [(wt, train), (wv, vali)] {
        w.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .map_err(|source| DataError::Io { path: p.to_owned(), source })?;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeSet;

    use super::*;
    use ltr_format::{ReadOptions, read_file};

    fn data(queries: usize) -> String {
        let mut s = String::from("# a header comment\n");
        for q in 0..queries {
            for d in 0..(1 + q % 4) {
                s += &format!("{} qid:q{q} 1:{d} 2:{q}\r\n", (q + d) % 3);
            }
        }
        s
    }

    #[test]
    fn assignment_is_balanced_and_seeded() {
        let a = assign(103, 5, 9);
        let mut counts = [0usize; 5];
        for &p in &a {
            counts[p as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c == 20 || c == 21), "{counts:?}");
        assert_eq!(a, assign(103, 5, 9));
        assert_ne!(a, assign(103, 5, 10));
    }

    #[test]
    fn subsets_are_query_disjoint_and_folds_rotate_them() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("all.txt");
        std::fs::write(&src, data(40)).unwrap();
        let out = d.path().join("out");
        let rec = split_file(&src, &out, 5, 7, LineFormat::default()).unwrap();
        assert_eq!(rec.queries.iter().sum::<usize>(), 40);
        assert_eq!(rec.queries, vec![8; 5]);
        let opts = ReadOptions::default();
        let qids = |p: &Path| -> BTreeSet<String> {
            read_file(p, &opts).unwrap().dataset.query_ids().iter().cloned().collect()
        };
        let pieces: Vec<BTreeSet<String>> = (1..=5).map(|i| qids(&out.join(format!("S{i}.txt")))).collect();
        for i in 0..5 {
            for j in i + 1..5 {
                assert!(pieces[i].is_disjoint(&pieces[j]));
            }
        }
        let f2 = |s: &str| qids(&out.join(format!("Fold2/{s}.txt")));
        assert_eq!(f2("test"), pieces[0]);
        assert_eq!(f2("vali"), pieces[4]);
        assert_eq!(f2("train").len(), 24);
        let again = d.path().join("again");
        split_file(&src, &again, 5, 7, LineFormat::default()).unwrap();
        for f in ["S3.txt", "Fold4/train.txt", "split.json"] {
            assert_eq!(std::fs::read(out.join(f)).unwrap(), std::fs::read(again.join(f)).unwrap(), "{f}");
        }
    }

    #[test]
    fn a_file_with_query_ids_in_comments_splits_by_them_and_keeps_its_lines() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("imat2009_learning.txt");
        let mut text = String::new();
        for q in 0..30 {
            text += &format!("{}.5 1:0.{q} # {}\n0 2:1 # {}\n", q % 4, 3000 + q, 3000 + q);
        }
        std::fs::write(&src, &text).unwrap();
        let format =
            LineFormat { qid_in_comment: true, fractional_labels: Some(ltr_format::LabelRounding::Round) };
        assert!(split_file(&src, &d.path().join("letor"), 5, 4, LineFormat::default()).is_err());
        let rec = split_file(&src, &d.path().join("o"), 5, 4, format).unwrap();
        assert_eq!(rec.queries, vec![6; 5]);
        let opts = ReadOptions { format, ..ReadOptions::default() };
        let test = read_file(&d.path().join("o/Fold1/test.txt"), &opts).unwrap().dataset;
        assert_eq!(test.n_queries(), 6);
        let lines = std::fs::read_to_string(d.path().join("o/S1.txt")).unwrap();
        assert!(lines.lines().all(|l| text.lines().any(|t| t == l)), "lines are copied as they are");
    }

    #[test]
    fn holdout_takes_one_query_in_every_to_vali_by_the_seed() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("train.txt");
        std::fs::write(&src, data(50)).unwrap();
        let (t, v) = (d.path().join("t.txt"), d.path().join("v.txt"));
        let c = holdout_file(&src, &t, &v, 5, 3, LineFormat::default()).unwrap();
        assert_eq!((c.train_queries, c.vali_queries), (40, 10));
        let opts = ReadOptions::default();
        let qt: BTreeSet<String> =
            read_file(&t, &opts).unwrap().dataset.query_ids().iter().cloned().collect();
        let qv: BTreeSet<String> =
            read_file(&v, &opts).unwrap().dataset.query_ids().iter().cloned().collect();
        assert!(qt.is_disjoint(&qv) && qt.len() + qv.len() == 50);
        let first = std::fs::read(&v).unwrap();
        holdout_file(&src, &t, &v, 5, 3, LineFormat::default()).unwrap();
        assert_eq!(std::fs::read(&v).unwrap(), first);
    }

    #[test]
    fn too_few_queries_or_a_reappearing_query_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("few.txt");
        std::fs::write(&src, data(4)).unwrap();
        assert!(
            split_file(&src, &d.path().join("o"), 5, 1, LineFormat::default())
                .unwrap_err()
                .to_string()
                .contains("4 queries")
        );
        std::fs::write(&src, "0 qid:1 1:1\n0 qid:2 1:1\n0 qid:1 1:1\n").unwrap();
        let e = split_file(&src, &d.path().join("o"), 3, 1, LineFormat::default()).unwrap_err().to_string();
        assert!(e.contains("few.txt:3") && e.contains("reappears"), "{e}");
    }
}
