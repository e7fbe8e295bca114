//! Parser throughput on MQ2008 Fold1 `train.txt` (uncompressed, in memory, one core).
//!
//! Needs the dataset mirror (`$LTR_MIRROR` or `../shared/datasets`); prints a note and does
//! nothing without it.

use std::io::Read;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ltr_data::ReadOptions;
use ltr_data::reader::parse_bytes;

fn mirror() -> Option<PathBuf> {
    let p = std::env::var_os("LTR_MIRROR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    p.is_dir().then_some(p)
}

fn load(rel: &str) -> Option<Vec<u8>> {
    let m = mirror()?;
    let gz = m.join(format!("{rel}.gz"));
    let mut out = Vec::new();
    if gz.is_file() {
        flate2::read::MultiGzDecoder::new(std::fs::File::open(gz).ok()?).read_to_end(&mut out).ok()?;
    } else {
        out = std::fs::read(m.join(rel)).ok()?;
    }
    Some(out)
}

fn bench_reader(c: &mut Criterion) {
    let Some(bytes) = load("letor4/MQ2008/Fold1/train.txt") else {
        eprintln!("note: no dataset mirror; reader bench skipped");
        return;
    };
    let opts = ReadOptions { n_features: Some(46), ..Default::default() };
    let mut g = c.benchmark_group("reader");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("mq2008_fold1_train", |b| {
        b.iter(|| parse_bytes(std::hint::black_box(&bytes), "train.txt", &opts).map(|d| d.n_docs()))
    });
    let opts_hash = ReadOptions { sha256: true, ..opts.clone() };
    g.bench_function("mq2008_fold1_train_with_sha256", |b| {
        b.iter(|| {
            ltr_data::reader::read_from(std::hint::black_box(&bytes[..]), "train.txt", &opts_hash)
                .map(|l| l.bytes)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_reader);
criterion_main!(benches);
