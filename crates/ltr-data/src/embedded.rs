//! The LETOR data compiled into `ltr`: the five subsets S1..S5 of OHSUMED QueryLevelNorm
//! (LETOR 3.0) and of MQ2008 (LETOR 4.0), gzip files as released, 3.3 MB in all, taken from
//! `datasets/embedded/` at build time.
//!
//! With them the default experiments run offline, from any directory, and benches of
//! algorithm crates can load a real fold in memory without any I/O ([`load_fold`]). Which
//! pieces a variant has, and their hashes, is said by the manifests ([`Variant::pieces`]);
//! the folds are rebuilt by the LETOR rotation ([`crate::rotation::rotation`]) and every rebuilt
//! file is checked against the manifest's hash before it is handed out.

use std::io::Read;

use flate2::read::MultiGzDecoder;
use sha2::{Digest, Sha256};

use ltr_format::reader::{hex, parse_bytes};
use ltr_format::{DataError, ReadOptions};

use crate::folds::Fold;
use crate::manifest::{Manifest, Variant};
use crate::rotation::{Split, rotation};

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The largest uncompressed piece accepted (the real ones are under 2.5 MB): a damaged build
/// cannot make decompression allocate without bound.
pub const MAX_PIECE_BYTES: u64 = 64 << 20;

/// Paths (relative to `datasets/embedded/`) of every embedded file, sorted.
pub fn paths() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(p, _)| *p)
}

/// The bytes (gzip) of an embedded file, by its path relative to `datasets/embedded/`.
pub fn file(path: &str) -> Option<&'static [u8]> {
    FILES.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// Which pieces (0-based, in concatenation order) make up a variant file, if the variant's
/// pieces can rebuild it: a fold file by the rotation, or the file a piece stands for.
/// Cheap: nothing is decompressed.
pub fn recipe(variant: &Variant, file: &str) -> Option<Vec<usize>> {
    if variant.pieces.is_empty() {
        return None;
    }
    if let Some(i) = variant.pieces.iter().position(|p| p.file.as_deref() == Some(file)) {
        return Some(vec![i]);
    }
    let n = u32::try_from(variant.pieces.len()).ok().filter(|&n| n == variant.folds)?;
    (1..=n).find_map(|k| {
        let r = rotation(k, n)?;
        Split::ALL.into_iter().find(|&s| variant.fold_file(k, s) == file).map(|s| r.of(s))
    })
}

/// The pieces of one variant, decompressed and verified.
#[derive(Debug)]
pub struct Pieces<'v> {
    variant: &'v Variant,
    data: Vec<Vec<u8>>,
}

impl<'v> Pieces<'v> {
    /// Decompresses every piece of `variant` and checks each against its manifest hash.
    /// Fails with [`DataError::Embedded`] if the variant has no pieces or one is not in this
    /// build, and with [`DataError::Checksum`] if one is damaged.
    pub fn open(variant: &'v Variant) -> Result<Self, DataError> {
        if variant.pieces.is_empty() {
            return Err(DataError::Embedded {
                path: variant.path.clone(),
                reason: "the manifest lists no embedded pieces for this variant".into(),
            });
        }
        let data = variant
            .pieces
            .iter()
            .map(|p| {
                let gz = file(&p.embedded).ok_or_else(|| DataError::Embedded {
                    path: p.embedded.clone(),
                    reason: "not embedded in this build of ltr".into(),
                })?;
                let bytes = gunzip_bounded(gz)
                    .map_err(|e| DataError::Embedded { path: p.embedded.clone(), reason: e.to_string() })?;
                let actual = hex(&Sha256::digest(&bytes));
                if actual != p.sha256 {
                    return Err(DataError::Checksum {
                        file: format!("embedded {}", p.embedded),
                        expected: p.sha256.clone(),
                        actual,
                    });
                }
                Ok(bytes)
            })
            .collect::<Result<Vec<_>, DataError>>()?;
        Ok(Self { variant, data })
    }

    /// The variant they belong to.
    pub fn variant(&self) -> &'v Variant {
        self.variant
    }

    /// The bytes of a variant file rebuilt from the pieces, checked against the manifest's
    /// hash of that file. `Ok(None)`: the pieces do not make this file ([`recipe`]).
    pub fn build(&self, file: &str) -> Result<Option<Vec<u8>>, DataError> {
        let Some(parts) = recipe(self.variant, file) else { return Ok(None) };
        let rel = self.variant.rel_path(file);
        let expected = self.variant.sha256_of(file).ok_or_else(|| DataError::Embedded {
            path: rel.clone(),
            reason: "the manifest has no hash for it, so a rebuilt copy cannot be verified".into(),
        })?;
        let mut out = Vec::with_capacity(parts.iter().filter_map(|&i| self.data.get(i)).map(Vec::len).sum());
        for &i in &parts {
            out.extend_from_slice(self.data.get(i).map_or(&[][..], Vec::as_slice));
        }
        let actual = hex(&Sha256::digest(&out));
        if actual != expected {
            return Err(DataError::Checksum { file: rel, expected: expected.to_owned(), actual });
        }
        Ok(Some(out))
    }
}

/// The three splits of fold `fold` of a dataset's default variant, rebuilt in memory from the
/// embedded pieces (verified) and parsed, each carrying the dataset's convention. For
/// benches and tests: `load_fold("letor4", "MQ2008", 1)`.
pub fn load_fold(collection: &str, dataset: &str, fold: u32) -> Result<Fold, DataError> {
    let manifest = Manifest::builtin(collection)?;
    let entry = manifest.dataset(dataset)?;
    let variant = entry.default_variant();
    if fold == 0 || fold > variant.folds {
        return Err(DataError::NotInManifest(format!(
            "{} has folds 1..={}, not {fold}",
            entry.name, variant.folds
        )));
    }
    let pieces = Pieces::open(variant)?;
    let opts = ReadOptions {
        n_features: Some(entry.features),
        missing_token: variant.missing_token.clone(),
        ..ReadOptions::default()
    };
    let convention = Some(manifest.convention_of(entry));
    let read = |split: Split| -> Result<ltr_core::Dataset, DataError> {
        let f = variant.fold_file(fold, split);
        let rel = variant.rel_path(&f);
        let bytes = pieces.build(&f)?.ok_or_else(|| DataError::Embedded {
            path: rel.clone(),
            reason: "the embedded pieces do not make this file".into(),
        })?;
        Ok(parse_bytes(&bytes, &format!("{rel} (embedded)"), &opts)?.with_convention(convention))
    };
    Ok(Fold { fold, train: read(Split::Train)?, vali: read(Split::Vali)?, test: read(Split::Test)? })
}

fn gunzip_bounded(gz: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    MultiGzDecoder::new(gz).take(MAX_PIECE_BYTES + 1).read_to_end(&mut out)?;
    if out.len() as u64 > MAX_PIECE_BYTES {
        return Err(std::io::Error::other(format!("larger than {MAX_PIECE_BYTES} bytes uncompressed")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::manifest::BUILTIN;

    fn embedded_variants() -> Vec<(String, Variant)> {
        BUILTIN
            .iter()
            .flat_map(|(name, _)| {
                let m = Manifest::builtin(name).unwrap();
                m.datasets
                    .iter()
                    .flat_map(|d| d.variants.iter().map(|v| (d.name.clone(), v.clone())))
                    .filter(|(_, v)| !v.pieces.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn the_manifests_name_exactly_the_embedded_files() {
        let named: BTreeSet<String> = embedded_variants()
            .iter()
            .flat_map(|(_, v)| v.pieces.iter().map(|p| p.embedded.clone()))
            .collect();
        let have: BTreeSet<String> = paths().map(str::to_owned).collect();
        assert_eq!(named, have);
        let datasets: BTreeSet<String> = embedded_variants().into_iter().map(|(d, _)| d).collect();
        assert_eq!(datasets, ["MQ2008", "OHSUMED"].map(String::from).into());
    }

    #[test]
    fn every_fold_file_is_rebuilt_byte_for_byte() {
        for (dataset, v) in embedded_variants() {
            let pieces = Pieces::open(&v).unwrap();
            let mut built = 0;
            for f in v.files() {
                if let Some(bytes) = pieces.build(&f).unwrap() {
                    assert_eq!(hex(&Sha256::digest(&bytes)), v.sha256_of(&f).unwrap(), "{dataset} {f}");
                    assert!(bytes.ends_with(b"\r\n"), "{dataset} {f}: the pieces keep their CRLF");
                    built += 1;
                }
            }
            let extras = v.pieces.iter().filter(|p| p.file.is_some()).count();
            assert_eq!(built, 15 + extras, "{dataset}");
        }
    }

    #[test]
    fn a_damaged_piece_or_hash_is_refused() {
        let (_, mut v) = embedded_variants().into_iter().next().unwrap();
        let good = v.clone();
        v.pieces[2].sha256 = "0".repeat(64);
        let e = Pieces::open(&v).unwrap_err().to_string();
        assert!(e.contains(&v.pieces[2].embedded) && e.contains(&"0".repeat(64)), "{e}");

        let mut v = good.clone();
        let f = v.fold_file(1, Split::Train);
        v.sha256.insert(f.clone(), "1".repeat(64));
        let e = Pieces::open(&v).unwrap().build(&f).unwrap_err().to_string();
        assert!(e.contains(&v.rel_path(&f)) && e.contains(&"1".repeat(64)), "{e}");

        let mut v = good;
        v.pieces[0].embedded = "nowhere/S1.txt.gz".into();
        assert!(Pieces::open(&v).unwrap_err().to_string().contains("not embedded"));
    }

    #[test]
    fn recipes_follow_the_rotation_and_the_piece_files() {
        let (_, v) = embedded_variants().into_iter().find(|(d, _)| d == "MQ2008").unwrap();
        assert_eq!(recipe(&v, "Fold1/train.txt"), Some(vec![0, 1, 2]));
        assert_eq!(recipe(&v, "Fold3/vali.txt"), Some(vec![0]));
        assert_eq!(recipe(&v, "Fold3/test.txt"), Some(vec![1]));
        assert_eq!(recipe(&v, "S4.txt"), Some(vec![3]));
        assert_eq!(recipe(&v, "Fold6/test.txt"), None);
    }

    #[test]
    fn load_fold_reads_mq2008_fold1_in_memory() {
        let f = load_fold("letor4", "MQ2008", 1).unwrap();
        assert_eq!(f.fold, 1);
        assert_eq!(f.train.n_features(), 46);
        let queries = f.train.n_queries() + f.vali.n_queries() + f.test.n_queries();
        assert_eq!(queries, 784);
        assert_eq!(f.test.convention(), Some(ltr_core::Convention::Letor4));
        assert!(load_fold("letor4", "MQ2008", 6).is_err());
        assert!(load_fold("letor4", "MQ2007", 1).unwrap_err().to_string().contains("no embedded pieces"));
    }
}
