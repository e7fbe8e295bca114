//! Parser throughput on MQ2008 Fold1 `train.txt` (uncompressed, in memory, one core).
//!
//! The file is rebuilt (and verified) from the MQ2008 pieces compiled into `ltr-data`. Also one
//! 50 MB line read through the chunked reader (line-end search cost), and the file read from
//! disk with and without checking its hash.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ltr_format::ReadOptions;
use ltr_format::reader::parse_bytes;

fn load(file: &str) -> Vec<u8> {
    let manifest = ltr_data::Manifest::builtin("letor4").expect("built-in manifest");
    let variant = manifest.dataset("MQ2008").expect("MQ2008").default_variant();
    let pieces = ltr_data::embedded::Pieces::open(variant).expect("embedded MQ2008");
    pieces.build(file).expect("verified rebuild").expect("a fold file")
}

fn bench_reader(c: &mut Criterion) {
    let bytes = load("Fold1/train.txt");
    let opts = ReadOptions { n_features: Some(46), ..Default::default() };
    let mut g = c.benchmark_group("reader");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("mq2008_fold1_train", |b| {
        b.iter(|| parse_bytes(std::hint::black_box(&bytes), "train.txt", &opts).map(|d| d.n_docs()))
    });
    let opts_hash = ReadOptions { sha256: true, ..opts.clone() };
    g.bench_function("mq2008_fold1_train_with_sha256", |b| {
        b.iter(|| {
            ltr_format::reader::read_from(
                std::io::Cursor::new(std::hint::black_box(&bytes[..])),
                "train.txt",
                &opts_hash,
            )
            .map(|l| l.bytes)
        })
    });
    g.finish();

    // The protocol's read of a split from disk: before and after hashing what is parsed
    // against the hash its cell keys record (read_file_as_hashed), the same two passes.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("train.txt");
    std::fs::write(&path, &bytes).expect("written");
    let recorded =
        ltr_data::local::inspect(&path, ltr_format::LineFormat::default()).expect("inspected").sha256;
    let mut g = c.benchmark_group("reader_file");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("mq2008_fold1_train", |b| {
        b.iter(|| ltr_format::read_file(&path, &opts).map(|l| l.bytes))
    });
    g.bench_function("mq2008_fold1_train_as_hashed", |b| {
        b.iter(|| ltr_format::reader::read_file_as_hashed(&path, &opts, &recorded).map(|l| l.bytes))
    });
    g.finish();

    // One 50 MB line (a long comment): the cost of finding line ends must stay linear in the
    // line's length when the line spans many read chunks.
    let mut long = b"0 qid:1 1:1 #docid = x ".to_vec();
    long.resize(50 << 20, b'a');
    long.push(b'\n');
    let mut g = c.benchmark_group("reader_long_line");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(long.len() as u64));
    g.bench_function("one_50mb_line", |b| {
        b.iter(|| {
            let cursor = std::io::Cursor::new(std::hint::black_box(&long[..]));
            ltr_format::reader::read_from(cursor, "long.txt", &ReadOptions::default()).map(|l| l.bytes)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_reader);
criterion_main!(benches);
