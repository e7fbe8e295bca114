//! Property tests: the reader returns errors, never panics, on arbitrary input; and valid
//! generated files round-trip exactly.
#![allow(clippy::unwrap_used)]

use ltr_format::ReadOptions;
use ltr_format::reader::{parse_bytes, read_from};
use proptest::prelude::*;

/// Bytes biased towards the format's alphabet, so that the parser gets deep.
fn letor_ish() -> impl Strategy<Value = Vec<u8>> {
    let alphabet: Vec<u8> = b"0123456789 :.-+eEqid#\r\n\tNULLnaf=x\xff\x00".to_vec();
    prop::collection::vec(prop::sample::select(alphabet), 0..400)
}

/// A valid line followed by an arbitrary edit.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let base =
        b"2 qid:10 1:0.5 2:1.25 3:-3e2 #docid = GX1 inc = 1 prob = 0.08\r\n0 qid:10 1:0 3:7\n".to_vec();
    (0..base.len(), any::<u8>(), 0..3u8).prop_map(move |(pos, byte, op)| {
        let mut v = base.clone();
        match op {
            0 => v[pos] = byte,
            1 => v.insert(pos, byte),
            _ => {
                v.remove(pos);
            }
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse_bytes(&bytes, "fuzz", &ReadOptions::default());
    }

    #[test]
    fn letor_alphabet_never_panics(bytes in letor_ish(), limit in prop::option::of(0usize..5)) {
        let opts = ReadOptions {
            n_features: limit,
            missing_token: Some("NULL".into()),
            sha256: true,
            ..ReadOptions::default()
        };
        let _ = parse_bytes(&bytes, "fuzz", &opts);
        let _ = read_from(std::io::Cursor::new(&bytes), "fuzz", &opts);
    }

    #[test]
    fn mutated_lines_never_panic(bytes in mutated()) {
        let _ = parse_bytes(&bytes, "fuzz", &ReadOptions::default());
    }

    #[test]
    fn generated_files_round_trip(
        rows in prop::collection::vec(
            (0u8..5, 0u32..4, prop::collection::btree_map(1usize..30, -1e6f32..1e6f32, 0..8)),
            1..40,
        )
    ) {
        // Queries: consecutive rows with the same small id form one query; make ids strictly
        // increasing per run so that no query id reappears.
        let mut text = String::new();
        let mut qid = 0u32;
        let mut last = None;
        for (label, q, feats) in &rows {
            if last != Some(*q) {
                qid += 1;
                last = Some(*q);
            }
            text += &format!("{label} qid:{qid}");
            for (i, v) in feats {
                text += &format!(" {i}:{v}");
            }
            text += "\n";
        }
        let d = parse_bytes(text.as_bytes(), "gen", &ReadOptions { n_features: Some(30), ..Default::default() }).unwrap();
        prop_assert_eq!(d.n_docs(), rows.len());
        for (r, (label, _, feats)) in rows.iter().enumerate() {
            prop_assert_eq!(d.labels()[r], *label);
            for j in 0..30 {
                let want = feats.get(&(j + 1)).copied().unwrap_or(0.0);
                prop_assert_eq!(d.row(r)[j].to_bits(), want.to_bits());
            }
        }
    }
}
