//! Dataset manifests (`datasets/*.toml`): where a collection comes from, how it is laid out,
//! and the sha256 of every file we know.
//!
//! Paths are relative to a *collection root*: the data cache, or a mirror laid out like
//! `../shared/datasets` (`letor3/OHSUMED/QueryLevelNorm/Fold1/train.txt[.gz]`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ltr_core::Convention;
use ltr_core::Grade;
use ltr_format::{DataError, LabelRounding, LineFormat};
use serde::{Deserialize, Serialize};

use crate::rotation::Split;

/// The manifests shipped in `datasets/`, compiled in.
pub const BUILTIN: [(&str, &str); 6] = [
    ("letor3", include_str!("../../../datasets/letor3.toml")),
    ("letor4", include_str!("../../../datasets/letor4.toml")),
    ("mslr", include_str!("../../../datasets/mslr.toml")),
    ("yahoo", include_str!("../../../datasets/yahoo.toml")),
    ("istella", include_str!("../../../datasets/istella.toml")),
    ("yandex", include_str!("../../../datasets/yandex.toml")),
];

/// The most folds a variant may have (LETOR and MSLR have 5): the file list is built from
/// the count, so it is bounded before anything is made from it.
pub const MAX_FOLDS: u32 = 100;

/// One collection (`letor3`, `letor4`, `mslr`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Collection id, as on the command line.
    pub collection: String,
    /// Human title.
    pub title: String,
    /// Where the collection is documented.
    pub homepage: String,
    /// How to cite it.
    pub citation: String,
    /// The metric convention its numbers are reported with.
    pub convention: Convention,
    /// The most bytes one download of this collection may bring when the manifest gives no
    /// size for it (an archive of unpublished size, a mirror file with no `size`): past it
    /// the download is cut and refused. `None`: the fetcher's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_download_bytes: Option<u64>,
    /// Downloadable archives.
    #[serde(default)]
    pub archives: Vec<Archive>,
    /// The data sets.
    pub datasets: Vec<DatasetEntry>,
}

/// Archive formats the fetcher unpacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArchiveFormat {
    /// ZIP (LETOR 3.0 OHSUMED, MSLR-WEB).
    Zip,
    /// RAR (LETOR 3.0 Gov, LETOR 4.0).
    Rar,
    /// One gzip-compressed file.
    Gz,
    /// A gzip-compressed tarball.
    TarGz,
    /// A bzip2-compressed tarball (Yahoo! LTR Challenge).
    TarBz2,
}

/// An official download.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Archive {
    /// File name in the download cache (`OHSUMED.zip`).
    pub name: String,
    /// Official addresses, tried in order.
    pub urls: Vec<String>,
    /// How to unpack it.
    pub format: ArchiveFormat,
    /// sha256 of the archive itself, when known.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Who published `sha256`, when it is not the data's own publisher (a third-party
    /// loader): shown with every mismatch, so a refusal says whose hash it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_source: Option<String>,
    /// Size of the archive in bytes, when known (published with `sha256`): a download is
    /// cut and refused past it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The page where the archive is obtained after accepting its license, for archives that
    /// cannot simply be downloaded: when the archive is neither in the download folder nor
    /// downloadable, the error says to get it there and where to put it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Where and how to get an archive that has no stable public address and no license gate
    /// (a contest's files that circulate as copies): when the archive is neither in the
    /// download folder nor downloadable, the error gives this text and where to put it. Such
    /// an archive, like a license-gated one, is placed by hand, so it is never deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// Free-text provenance of the address and hash.
    #[serde(default)]
    pub note: Option<String>,
    /// The largest file accepted from the archive, in bytes (uncompressed): extraction
    /// stops at an entry that is larger, before its hash is checked. `None`: the fetcher's
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entry_bytes: Option<u64>,
}

/// One data set (`OHSUMED`, `MQ2008`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetEntry {
    /// Name, as on the command line and in reports.
    pub name: String,
    /// Feature count.
    pub features: usize,
    /// The grades that occur.
    pub labels: Vec<Grade>,
    /// Number of queries over all folds' test splits (for checks), if known.
    #[serde(default)]
    pub queries: Option<usize>,
    /// Number of documents over all folds' test splits, if known.
    #[serde(default)]
    pub documents: Option<usize>,
    /// Documents of the largest training split of a fold, if known; for releases whose
    /// folds are not rotations of the test splits (Yahoo!, Istella), where `documents` says
    /// nothing about it. The harness's scale limits check it before anything is fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_documents: Option<usize>,
    /// Overrides the collection's convention.
    #[serde(default)]
    pub convention: Option<Convention>,
    /// The variant used by experiments unless told otherwise.
    pub default_variant: String,
    /// Feature variants (`QueryLevelNorm`, `Feature-min`, ...).
    pub variants: Vec<Variant>,
}

/// One feature variant of a data set and its file layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// Name (`QueryLevelNorm`).
    pub name: String,
    /// The archive (by `name`) that carries it.
    pub archive: String,
    /// Folder inside the archive that corresponds to `path`.
    pub archive_root: String,
    /// Folder relative to the collection root (`letor3/OHSUMED/QueryLevelNorm`).
    pub path: String,
    /// Number of folds.
    pub folds: u32,
    /// Fold folder name; `{k}` is the fold number. Empty: the split files lie in the
    /// variant folder itself (single-fold releases such as Yahoo! and Istella).
    #[serde(default = "default_fold_dir")]
    pub fold_dir: String,
    /// Training file name inside a fold folder.
    pub train: String,
    /// Validation file name.
    pub vali: String,
    /// Test file name.
    pub test: String,
    /// Other files of the variant, relative to `path` (`S1.txt`, `ALL/OHSUMED.txt`).
    #[serde(default)]
    pub extra_files: Vec<String>,
    /// Token that marks a missing value (`NULL` in LETOR 3.0 Feature-null), read as 0.
    #[serde(default)]
    pub missing_token: Option<String>,
    /// Feature values are clipped to `[-clip, clip]` when read (Istella marks some values
    /// with 1.79e308, beyond `f32`): see [`ltr_format::ReadOptions::clip`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<f32>,
    /// sha256 of the uncompressed files, keyed by path relative to `path`.
    #[serde(default)]
    pub sha256: BTreeMap<String, String>,
    /// Sizes in bytes of the uncompressed files, keyed like `sha256`: a download from a
    /// mirror is cut and refused past its file's size (a `.gz` past it plus room for the
    /// compression), so a mirror serving an endless body cannot fill the disk.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub size: BTreeMap<String, u64>,
    /// A validation split carved out of another file of the variant, for releases that
    /// have none (Istella LETOR's full set has train and test only): the variant's `train`
    /// and `vali` files are then made locally from `holdout.from`, not fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holdout: Option<Holdout>,
    /// The LETOR subsets S1..S(folds) compiled into `ltr` (see [`crate::embedded`]), in order;
    /// empty for a variant that is only downloadable. Its fold files are rebuilt from them
    /// by [`crate::rotation::rotation`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pieces: Vec<Piece>,
    /// The fold files are the LETOR rotation ([`crate::rotation::rotation`]) of the folds' test
    /// files, byte for byte (LETOR's subsets S1..S5: fold k tests one subset, validates on the
    /// one fold k-1 tests and trains on the next three), so a run over every fold may parse
    /// each subset once and build the folds from them. Set only where that was checked
    /// against the released files; the manifests say where.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rotation: bool,
    /// The folds are made locally from one labelled file of the release (Yandex's IM2009
    /// ships one labelled file and a test file without labels): its queries are split into
    /// `folds` subsets and rotated as LETOR does ([`crate::split::split_file`]); every fold
    /// file is then derived, not fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<FoldSplit>,
    /// The query id is each line's comment (`# 3382`): see [`LineFormat::qid_in_comment`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub qid_in_comment: bool,
    /// How real-valued labels become grades: see [`LineFormat::fractional_labels`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fractional_labels: Option<LabelRounding>,
}

/// How the folds of a variant are made from one file: its queries shuffled with `seed` (the
/// pinned ChaCha8 stream), cut into as many subsets as the variant has folds and rotated into
/// folds ([`crate::split::split_file`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoldSplit {
    /// The file split (one of the variant's `extra_files`).
    pub from: String,
    /// The shuffle's seed.
    pub seed: u64,
}

/// How a validation split is carved out of a training file: the queries are shuffled with
/// `seed` (the pinned ChaCha8 stream) and one in `every` goes to vali
/// ([`crate::split::holdout_file`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Holdout {
    /// The file split (one of the variant's `extra_files`).
    pub from: String,
    /// One query in `every` goes to vali.
    pub every: u32,
    /// The shuffle's seed.
    pub seed: u64,
}

/// One LETOR subset of a variant whose bytes ship inside `ltr`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Piece {
    /// Name (`S1`).
    pub name: String,
    /// The gzip file, relative to `datasets/embedded/`.
    pub embedded: String,
    /// A file of the variant that is exactly this piece (MQ2008's `S1.txt`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// sha256 of the uncompressed piece.
    pub sha256: String,
}

fn default_fold_dir() -> String {
    "Fold{k}".into()
}

impl Manifest {
    /// A built-in manifest by collection id.
    pub fn builtin(collection: &str) -> Result<Self, DataError> {
        let (name, text) = BUILTIN.iter().find(|(n, _)| *n == collection).ok_or_else(|| {
            DataError::NotInManifest(format!(
                "unknown collection `{collection}` (known: {})",
                BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ))
        })?;
        Self::parse(text, Path::new(&format!("datasets/{name}.toml")))
    }

    /// Loads and checks a manifest file.
    pub fn load(path: &Path) -> Result<Self, DataError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| DataError::Io { path: path.to_owned(), source })?;
        Self::parse(&text, path)
    }

    /// Parses and checks manifest text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, DataError> {
        let bad = |reason: String| DataError::Manifest { path: path.to_owned(), reason };
        let m: Manifest = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        m.check().map_err(bad)?;
        Ok(m)
    }

    fn check(&self) -> Result<(), String> {
        let mut names = BTreeSet::new();
        for a in &self.archives {
            if !names.insert(a.name.as_str()) {
                return Err(format!("archive `{}` listed twice", a.name));
            }
            if let Some(h) = &a.sha256 {
                check_hash(h).map_err(|e| format!("archive `{}`: {e}", a.name))?;
            }
            if a.size == Some(0) {
                return Err(format!("archive `{}`: `size` must be positive", a.name));
            }
        }
        if self.max_download_bytes == Some(0) {
            return Err("`max_download_bytes` must be positive".into());
        }
        let mut ds_names = BTreeSet::new();
        for d in &self.datasets {
            if !ds_names.insert(d.name.as_str()) {
                return Err(format!("dataset `{}` listed twice", d.name));
            }
            if d.variant(&d.default_variant).is_err() {
                return Err(format!(
                    "dataset `{}`: default variant `{}` is not listed",
                    d.name, d.default_variant
                ));
            }
            for v in &d.variants {
                if !names.contains(v.archive.as_str()) {
                    return Err(format!("{}/{}: archive `{}` is not listed", d.name, v.name, v.archive));
                }
                if v.folds == 0 || v.folds > MAX_FOLDS {
                    return Err(format!("{}/{}: folds must be 1..={MAX_FOLDS}", d.name, v.name));
                }
                if v.folds > 1 && !v.fold_dir.contains("{k}") {
                    return Err(format!(
                        "{}/{}: `fold_dir` must contain `{{k}}` when there are several folds",
                        d.name, v.name
                    ));
                }
                if let Some(c) = v.clip
                    && !(c.is_finite() && c > 0.0)
                {
                    return Err(format!("{}/{}: `clip` must be a positive finite number", d.name, v.name));
                }
                let files: BTreeSet<String> = v.files().into_iter().collect();
                for (f, h) in &v.sha256 {
                    check_hash(h).map_err(|e| format!("{}/{}: {f}: {e}", d.name, v.name))?;
                    if !files.contains(f) {
                        return Err(format!(
                            "{}/{}: hash for `{f}`, which is not one of the variant's files",
                            d.name, v.name
                        ));
                    }
                }
                for (f, &n) in &v.size {
                    if !files.contains(f) {
                        return Err(format!(
                            "{}/{}: size for `{f}`, which is not one of the variant's files",
                            d.name, v.name
                        ));
                    }
                    if n == 0 {
                        return Err(format!("{}/{}: {f}: `size` must be positive", d.name, v.name));
                    }
                }
                v.check_pieces(&files).map_err(|e| format!("{}/{}: pieces: {e}", d.name, v.name))?;
                if v.rotation && (v.folds < 3 || v.fold_dir.is_empty()) {
                    return Err(format!(
                        "{}/{}: `rotation` needs at least 3 fold folders (it has {} folds{})",
                        d.name,
                        v.name,
                        v.folds,
                        if v.fold_dir.is_empty() { ", no fold folder" } else { "" }
                    ));
                }
                if v.rotation {
                    v.check_rotation().map_err(|e| format!("{}/{}: rotation: {e}", d.name, v.name))?;
                }
                if let Some(sp) = &v.split
                    && (v.folds < 3
                        || !v.fold_dir.contains("{k}")
                        || !v.extra_files.contains(&sp.from)
                        || v.holdout.is_some()
                        || !v.pieces.is_empty())
                {
                    return Err(format!(
                        "{}/{}: split: at least 3 folds in fold folders (`{{k}}`), `from` among \
                         `extra_files`, and neither `holdout` nor `pieces`",
                        d.name, v.name
                    ));
                }
                if let Some(h) = &v.holdout
                    && (v.folds != 1 || !v.extra_files.contains(&h.from) || !(2..=100).contains(&h.every))
                {
                    return Err(format!(
                        "{}/{}: holdout: one fold only, `from` among `extra_files`, `every` in 2..=100",
                        d.name, v.name
                    ));
                }
            }
        }
        Ok(())
    }

    /// A data set by name (case-insensitive).
    pub fn dataset(&self, name: &str) -> Result<&DatasetEntry, DataError> {
        self.datasets.iter().find(|d| d.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
            DataError::NotInManifest(format!(
                "collection `{}` has no dataset `{name}` (it has: {})",
                self.collection,
                self.datasets.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// An archive by name.
    pub fn archive(&self, name: &str) -> Result<&Archive, DataError> {
        self.archives
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| DataError::NotInManifest(format!("no archive `{name}` in `{}`", self.collection)))
    }

    /// The convention a data set is reported with.
    pub fn convention_of(&self, dataset: &DatasetEntry) -> Convention {
        dataset.convention.unwrap_or(self.convention)
    }
}

impl DatasetEntry {
    /// A variant by name (case-insensitive).
    pub fn variant(&self, name: &str) -> Result<&Variant, DataError> {
        self.variants.iter().find(|v| v.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
            DataError::NotInManifest(format!(
                "dataset `{}` has no variant `{name}` (it has: {})",
                self.name,
                self.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })
    }

    /// The default variant.
    pub fn default_variant(&self) -> &Variant {
        self.variants.iter().find(|v| v.name == self.default_variant).unwrap_or(&self.variants[0])
    }
}

impl Variant {
    /// Path of a fold's split relative to the variant folder (`Fold1/train.txt`).
    pub fn fold_file(&self, fold: u32, split: Split) -> String {
        let name = match split {
            Split::Train => &self.train,
            Split::Vali => &self.vali,
            Split::Test => &self.test,
        };
        if self.fold_dir.is_empty() {
            return name.clone();
        }
        format!("{}/{name}", self.fold_dir.replace("{k}", &fold.to_string()))
    }

    /// Every file of the variant relative to its folder: fold files, then extras.
    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        for k in 1..=self.folds {
            for s in Split::ALL {
                out.push(self.fold_file(k, s));
            }
        }
        out.extend(self.extra_files.iter().cloned());
        out
    }

    /// Whether a variant file is made locally (a [`Holdout`]'s train and vali, every fold
    /// file of a [`FoldSplit`]) rather than fetched.
    pub fn is_derived(&self, file: &str) -> bool {
        if self.split.is_some() {
            return !self.extra_files.iter().any(|f| f == file);
        }
        self.holdout.is_some()
            && (file == self.fold_file(1, Split::Train) || file == self.fold_file(1, Split::Vali))
    }

    /// How its files write labels and query ids.
    pub fn line_format(&self) -> LineFormat {
        LineFormat { qid_in_comment: self.qid_in_comment, fractional_labels: self.fractional_labels }
    }

    /// The files that are fetched: [`Variant::files`] without the derived ones.
    pub fn fetched_files(&self) -> Vec<String> {
        self.files().into_iter().filter(|f| !self.is_derived(f)).collect()
    }

    /// The path of a variant file relative to the collection root.
    pub fn rel_path(&self, file: &str) -> String {
        format!("{}/{file}", self.path)
    }

    /// The manifest's sha256 of a variant file, if known.
    pub fn sha256_of(&self, file: &str) -> Option<&str> {
        self.sha256.get(file).map(String::as_str)
    }

    /// The manifest's size in bytes of a variant file, if known.
    pub fn size_of(&self, file: &str) -> Option<u64> {
        self.size.get(file).copied()
    }

    /// Where the manifest knows the hashes, every fold's validation file is the test file of
    /// the fold its rotation names.
    fn check_rotation(&self) -> Result<(), String> {
        for k in 1..=self.folds {
            let r = crate::rotation::rotation(k, self.folds).ok_or("fewer than 3 folds")?;
            let Some(tested) = (1..=self.folds)
                .find(|&j| crate::rotation::rotation(j, self.folds).is_some_and(|rj| rj.test == r.vali))
            else {
                return Err(format!("no fold tests the subset fold {k} validates on"));
            };
            let (vali, test) = (self.fold_file(k, Split::Vali), self.fold_file(tested, Split::Test));
            if let (Some(a), Some(b)) = (self.sha256_of(&vali), self.sha256_of(&test))
                && a != b
            {
                return Err(format!("`{vali}` is not `{test}` (by their hashes)"));
            }
        }
        Ok(())
    }

    /// Rebuilding from pieces is only allowed when every result can be verified: one piece
    /// per fold (the rotation needs at least three), each with a valid hash, and a
    /// manifest hash for every fold file and every file a piece stands for.
    fn check_pieces(&self, files: &BTreeSet<String>) -> Result<(), String> {
        if self.pieces.is_empty() {
            return Ok(());
        }
        if self.pieces.len() != self.folds as usize || self.folds < 3 {
            return Err(format!(
                "{} pieces for {} folds; the rotation needs one per fold, at least 3",
                self.pieces.len(),
                self.folds
            ));
        }
        for p in &self.pieces {
            check_hash(&p.sha256).map_err(|e| format!("{}: {e}", p.name))?;
            if let Some(f) = &p.file {
                if !files.contains(f) {
                    return Err(format!("{}: `{f}` is not one of the variant's files", p.name));
                }
                if self.sha256_of(f) != Some(p.sha256.as_str()) {
                    return Err(format!("{}: its hash is not the manifest's hash of `{f}`", p.name));
                }
            }
        }
        for k in 1..=self.folds {
            for s in Split::ALL {
                let f = self.fold_file(k, s);
                if self.sha256_of(&f).is_none() {
                    return Err(format!("`{f}` has no hash, so a rebuilt copy could not be verified"));
                }
            }
        }
        Ok(())
    }
}

fn check_hash(h: &str) -> Result<(), String> {
    if h.len() == 64 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        Ok(())
    } else {
        Err(format!("`{h}` is not a lowercase hex sha256"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifests_parse() {
        for (name, _) in BUILTIN {
            let m = Manifest::builtin(name).unwrap();
            assert_eq!(m.collection, name);
            assert!(!m.datasets.is_empty());
        }
        assert!(Manifest::builtin("letor9").is_err());
    }

    #[test]
    fn ohsumed_and_mq2008_carry_every_hash() {
        let m = Manifest::builtin("letor3").unwrap();
        let d = m.dataset("ohsumed").unwrap();
        assert_eq!(d.features, 45);
        for v in &d.variants {
            for f in v.files() {
                assert!(v.sha256_of(&f).is_some(), "{}/{f}", v.name);
            }
        }
        let v = d.variant("QueryLevelNorm").unwrap();
        assert_eq!(v.fold_file(3, Split::Vali), "Fold3/vali.txt");
        assert_eq!(v.rel_path("Fold3/vali.txt"), "letor3/OHSUMED/QueryLevelNorm/Fold3/vali.txt");
        let m4 = Manifest::builtin("letor4").unwrap();
        let mq = m4.dataset("MQ2008").unwrap();
        assert_eq!(mq.default_variant().files().len(), 20);
        assert!(mq.default_variant().files().iter().all(|f| mq.default_variant().sha256_of(f).is_some()));
    }

    #[test]
    fn bad_manifests_are_rejected_with_the_reason() {
        let text = Manifest::builtin("letor4").map(|m| toml::to_string(&m).unwrap()).unwrap();
        let broken = text.replacen("archive = \"MQ2008.rar\"", "archive = \"nope.rar\"", 1);
        let e = Manifest::parse(&broken, Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("x.toml") && e.contains("nope.rar"), "{e}");
        let e = Manifest::parse("collection = 1", Path::new("y.toml")).unwrap_err().to_string();
        assert!(e.contains("y.toml"), "{e}");
        let huge = text.replacen("folds = 5", "folds = 4000000000", 1);
        let e = Manifest::parse(&huge, Path::new("z.toml")).unwrap_err().to_string();
        assert!(e.contains("folds must be 1..=100"), "{e}");
    }

    #[test]
    fn every_hashed_builtin_file_and_archive_has_a_size() {
        for (name, _) in BUILTIN {
            let m = Manifest::builtin(name).unwrap();
            for a in &m.archives {
                assert_eq!(a.sha256.is_some(), a.size.is_some(), "{name}: {}", a.name);
            }
            for v in m.datasets.iter().flat_map(|d| &d.variants) {
                let hashed: Vec<&String> = v.sha256.keys().collect();
                let sized: Vec<&String> = v.size.keys().collect();
                assert_eq!(hashed, sized, "{name}: {}", v.path);
            }
            assert!(m.max_download_bytes.is_some(), "{name}: no cap for downloads of unknown size");
        }
        let m = Manifest::builtin("letor4").unwrap();
        assert_eq!(m.dataset("MQ2008").unwrap().default_variant().size_of("S2.txt"), Some(2_237_346));
    }

    #[test]
    fn sizes_must_be_of_variant_files_and_positive() {
        let reparse = |m: &Manifest| Manifest::parse(&toml::to_string(m).unwrap(), Path::new("s.toml"));
        let good = Manifest::builtin("letor4").unwrap();
        let mut m = good.clone();
        m.datasets[1].variants[0].size.insert("Fold9/test.txt".into(), 10);
        let e = reparse(&m).unwrap_err().to_string();
        assert!(e.contains("size for `Fold9/test.txt`, which is not one of the variant's files"), "{e}");
        let mut m = good.clone();
        m.datasets[1].variants[0].size.insert("S1.txt".into(), 0);
        assert!(reparse(&m).unwrap_err().to_string().contains("S1.txt: `size` must be positive"));
        let mut m = good.clone();
        m.archives[0].size = Some(0);
        assert!(reparse(&m).unwrap_err().to_string().contains("`size` must be positive"));
        let mut m = good;
        m.max_download_bytes = Some(0);
        assert!(reparse(&m).unwrap_err().to_string().contains("`max_download_bytes` must be positive"));
    }

    #[test]
    fn im2009_fetches_its_learning_file_and_derives_its_folds() {
        let m = Manifest::builtin("yandex").unwrap();
        let d = m.dataset("im2009").unwrap();
        assert_eq!((d.features, d.queries, d.documents), (245, Some(9124), Some(97290)));
        let v = d.default_variant();
        assert_eq!(v.fetched_files(), vec!["imat2009_learning.txt".to_string()]);
        assert_eq!(v.files().iter().filter(|f| v.is_derived(f)).count(), 15);
        assert_eq!(
            v.line_format(),
            LineFormat { qid_in_comment: true, fractional_labels: Some(LabelRounding::Round) }
        );
        let a = m.archive(&v.archive).unwrap();
        assert!(a.urls.is_empty() && a.license.is_none() && a.placement.is_some());

        let reparse = |m: &Manifest| Manifest::parse(&toml::to_string(m).unwrap(), Path::new("y.toml"));
        assert_eq!(reparse(&m).unwrap(), m);
        for broken in [
            |v: &mut Variant| {
                v.folds = 2;
                v.rotation = false;
            },
            |v: &mut Variant| v.extra_files.clear(),
            |v: &mut Variant| {
                v.holdout = Some(Holdout { from: "imat2009_learning.txt".into(), every: 5, seed: 1 })
            },
        ] {
            let mut bad = m.clone();
            broken(&mut bad.datasets[0].variants[0]);
            let e = reparse(&bad).unwrap_err().to_string();
            assert!(e.contains("split:"), "{e}");
        }
    }

    #[test]
    fn rotation_must_agree_with_the_hashes() {
        let reparse = |m: &Manifest| Manifest::parse(&toml::to_string(m).unwrap(), Path::new("r.toml"));
        let mut m = Manifest::builtin("letor4").unwrap();
        let mq = &mut m.datasets[1].variants[0];
        assert!(mq.rotation);
        // Fold 3 validates on S1, which fold 2 tests; give it fold 1's test file instead.
        let h = mq.sha256.get("Fold1/test.txt").cloned().unwrap();
        mq.sha256.insert("Fold3/vali.txt".into(), h);
        let e = reparse(&m).unwrap_err().to_string();
        assert!(e.contains("rotation: `Fold3/vali.txt` is not `Fold2/test.txt`"), "{e}");
    }

    #[test]
    fn pieces_must_allow_verified_rebuilds() {
        let good = Manifest::builtin("letor4").unwrap();
        let reparse = |m: &Manifest| Manifest::parse(&toml::to_string(m).unwrap(), Path::new("p.toml"));
        assert_eq!(reparse(&good).unwrap(), good);
        fn mq(m: &mut Manifest) -> &mut Variant {
            &mut m.datasets[1].variants[0]
        }

        let mut m = good.clone();
        mq(&mut m).pieces.pop();
        assert!(reparse(&m).unwrap_err().to_string().contains("4 pieces for 5 folds"));
        let mut m = good.clone();
        mq(&mut m).pieces[1].sha256 = "0".repeat(64);
        assert!(
            reparse(&m)
                .unwrap_err()
                .to_string()
                .contains("S2: its hash is not the manifest's hash of `S2.txt`")
        );
        let mut m = good.clone();
        mq(&mut m).sha256.remove("Fold4/vali.txt");
        assert!(reparse(&m).unwrap_err().to_string().contains("`Fold4/vali.txt` has no hash"));
        let mut m = good;
        mq(&mut m).pieces[0].file = Some("S9.txt".into());
        assert!(reparse(&m).unwrap_err().to_string().contains("`S9.txt` is not one of the variant's files"));
    }
}
