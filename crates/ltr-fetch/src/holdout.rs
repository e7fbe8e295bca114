//! Files made locally for releases that lack them: a validation split ([`Holdout`]) for a
//! release without one, or every fold ([`FoldSplit`]) for a release with one labelled file.
//! Once the source file is installed and verified, the derived files are written in a
//! staging folder, hashed, recorded and renamed into the cache.

use ltr_data::Split;
use ltr_data::manifest::{FoldSplit, Holdout, Variant};
use ltr_data::split::{holdout_file, split_file};

use crate::cache::{FileStatus, sha256_file};
use crate::error::FetchError;
use crate::fetcher::{FetchReport, Fetcher};

impl Fetcher {
    /// Makes the derived files of every variant with a [`Holdout`] or a [`FoldSplit`], unless
    /// they are present and match their recorded hashes.
    pub(crate) fn derive_files(
        &self,
        variants: &[&Variant],
        report: &mut FetchReport,
    ) -> Result<(), FetchError> {
        for v in variants {
            let derived: Vec<String> = v.files().into_iter().filter(|f| v.is_derived(f)).collect();
            if derived.is_empty() {
                continue;
            }
            let mut present = true;
            for f in &derived {
                present &= matches!(self.cache.status(v, f)?, FileStatus::Verified { .. });
            }
            if present {
                continue;
            }
            if let Some(h) = &v.holdout {
                self.derive_holdout(v, h)?;
            } else if let Some(sp) = &v.split {
                self.derive_split(v, sp)?;
            }
            report.installed.extend(derived.iter().map(|f| v.rel_path(f)));
        }
        Ok(())
    }

    /// The verified source file a variant's files are derived from.
    fn source_of(&self, v: &Variant, from: &str) -> Result<std::path::PathBuf, FetchError> {
        match self.cache.status(v, from)? {
            FileStatus::Verified { path, .. } => Ok(path),
            _ => Err(FetchError::Unavailable {
                dataset: v.path.clone(),
                reason: format!("{} is needed to make the files derived from it", v.rel_path(from)),
            }),
        }
    }

    /// Hashes a staged file, records its hash and moves it into the cache as `file` of `v`.
    fn install_derived(&self, v: &Variant, staged: &std::path::Path, file: &str) -> Result<(), FetchError> {
        let (hash, _) = sha256_file(staged)?;
        let rel = v.rel_path(file);
        self.cache.commit_rel(&rel, staged, &hash)?;
        self.cache.record_sha256(&rel, &hash)
    }

    fn derive_holdout(&self, v: &Variant, h: &Holdout) -> Result<(), FetchError> {
        let source = self.source_of(v, &h.from)?;
        let (train, vali) = (v.fold_file(1, Split::Train), v.fold_file(1, Split::Vali));
        let staging = self.cache.staging()?;
        let (t, va) = (staging.path().join("train"), staging.path().join("vali"));
        let counts = holdout_file(&source, &t, &va, h.every, h.seed, v.line_format())?;
        log::info!(
            "{}: validation split made from {} (one query in {} by seed {}): {} train, {} vali queries",
            v.path,
            h.from,
            h.every,
            h.seed,
            counts.train_queries,
            counts.vali_queries
        );
        for (staged, file) in [(t, train), (va, vali)] {
            self.install_derived(v, &staged, &file)?;
        }
        Ok(())
    }

    fn derive_split(&self, v: &Variant, sp: &FoldSplit) -> Result<(), FetchError> {
        let source = self.source_of(v, &sp.from)?;
        let staging = self.cache.staging()?;
        let out = staging.path().join("split");
        let record = split_file(&source, &out, v.folds, sp.seed, v.line_format())?;
        log::info!(
            "{}: {} folds made from {} ({} query-disjoint subsets by seed {}: {} queries), by the LETOR rotation",
            v.path,
            v.folds,
            sp.from,
            v.folds,
            sp.seed,
            record.queries.iter().map(usize::to_string).collect::<Vec<_>>().join("/")
        );
        for k in 1..=v.folds {
            for s in Split::ALL {
                let staged = out.join(format!("Fold{k}/{s}.txt"));
                self.install_derived(v, &staged, &v.fold_file(k, s))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::Path;
    use std::sync::Arc;

    use ltr_data::Manifest;

    use crate::{FetchOptions, Fetcher, Mirror, NoProgress, Source, Variants, resolve};

    const MANIFEST: &str = r#"
collection = "lab"
title = "Lab"
homepage = "-"
citation = "-"
convention = "standard"

[[archives]]
name = "lab.tar.gz"
urls = []
format = "tar-gz"

[[datasets]]
name = "Full"
features = 2
labels = [0, 1]
default_variant = "d"

[[datasets.variants]]
name = "d"
archive = "lab.tar.gz"
archive_root = "full"
path = "lab/Full"
folds = 1
fold_dir = ""
train = "holdout/train.txt"
vali = "holdout/vali.txt"
test = "test.txt"
extra_files = ["train.txt"]

[datasets.variants.holdout]
from = "train.txt"
every = 4
seed = 9
"#;

    #[test]
    fn a_release_without_vali_gets_one_carved_out_of_train_once() {
        let m = Manifest::parse(MANIFEST, Path::new("lab.toml")).unwrap();
        let mirror = tempfile::tempdir().unwrap();
        let mut train = String::new();
        for q in 0..20 {
            train += &format!("{} qid:{q} 1:{q} 2:1\n0 qid:{q} 1:0 2:0\n", q % 2);
        }
        std::fs::create_dir_all(mirror.path().join("lab/Full")).unwrap();
        std::fs::write(mirror.path().join("lab/Full/train.txt"), &train).unwrap();
        std::fs::write(mirror.path().join("lab/Full/test.txt"), "1 qid:x 1:1 2:1\n").unwrap();
        let cache = tempfile::tempdir().unwrap();
        let mut opts = FetchOptions::new(cache.path());
        opts.mirror = Some(Mirror::Dir(mirror.path().to_owned()));
        let f = Fetcher::new(opts, Arc::new(NoProgress));
        let r = f.fetch_dataset(&m, "Full", Variants::Default).unwrap();
        assert!(r.installed.contains(&"lab/Full/holdout/vali.txt".to_string()), "{r:?}");
        let vali = std::fs::read_to_string(cache.path().join("lab/Full/holdout/vali.txt")).unwrap();
        assert_eq!(vali.lines().count(), 10, "5 of 20 queries, 2 documents each");
        let again = f.fetch_dataset(&m, "Full", Variants::Default).unwrap();
        assert!(again.installed.is_empty(), "{again:?}");
        let got = resolve(&m, &["Full".to_string()], &[1], Source::Cache(f.cache()));
        let ltr_data::resolved::DatasetStatus::Available(d) = &got[0] else { panic!("{got:?}") };
        assert_eq!(d.folds[0].vali.rel, "lab/Full/holdout/vali.txt");
    }

    /// A release with one labelled file, query ids in comments and real labels, placed by hand
    /// with no stable address.
    const ONE_FILE: &str = r#"
collection = "contest"
title = "Contest"
homepage = "-"
citation = "-"
convention = "standard"

[[archives]]
name = "learning.txt.gz"
urls = []
format = "gz"
placement = "ask the organisers"

[[datasets]]
name = "C"
features = 2
labels = [0, 1, 2]
default_variant = "d"

[[datasets.variants]]
name = "d"
archive = "learning.txt.gz"
archive_root = ""
path = "contest/C"
folds = 3
train = "train.txt"
vali = "vali.txt"
test = "test.txt"
extra_files = ["learning.txt"]
qid_in_comment = true
fractional_labels = "round"
rotation = true

[datasets.variants.split]
from = "learning.txt"
seed = 5
"#;

    #[test]
    fn a_release_with_one_labelled_file_gets_its_folds_made_from_it_once() {
        let m = Manifest::parse(ONE_FILE, Path::new("contest.toml")).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let placed = |mirror: Option<&Path>| {
            let mut opts = FetchOptions::new(cache.path());
            opts.mirror = mirror.map(|d| Mirror::Dir(d.to_owned()));
            Fetcher::new(opts, Arc::new(NoProgress))
        };
        let e = placed(None).fetch_dataset(&m, "C", Variants::Default).unwrap_err().reason();
        assert!(
            e.contains("no stable public address (ask the organisers)") && e.contains(".downloads"),
            "{e}"
        );

        let mirror = tempfile::tempdir().unwrap();
        let mut learning = String::new();
        for q in 0..12 {
            learning += &format!("{}.5 1:0.{q} # {}\n0 2:1 # {}\n", q % 2, 100 + q, 100 + q);
        }
        std::fs::create_dir_all(mirror.path().join("contest/C")).unwrap();
        std::fs::write(mirror.path().join("contest/C/learning.txt"), &learning).unwrap();
        let f = placed(Some(mirror.path()));
        let r = f.fetch_dataset(&m, "C", Variants::Default).unwrap();
        assert_eq!(r.installed.len(), 10, "the learning file and 9 fold files: {r:?}");
        assert_eq!(r.unverified, vec!["contest/C/learning.txt".to_string()]);
        for k in 1..=3 {
            for s in ["train", "vali", "test"] {
                let rel = format!("contest/C/Fold{k}/{s}.txt");
                assert!(f.cache().recorded_sha256(&rel).is_some(), "{rel}: hash recorded");
            }
        }
        let again = f.fetch_dataset(&m, "C", Variants::Default).unwrap();
        assert!(again.installed.is_empty(), "{again:?}");
        let got = resolve(&m, &["C".to_string()], &[1, 2, 3], Source::Cache(f.cache()));
        let ltr_data::resolved::DatasetStatus::Available(d) = &got[0] else { panic!("{got:?}") };
        assert_eq!((d.folds.len(), d.rotation), (3, Some(3)));
        assert!(d.format.qid_in_comment && d.format.fractional_labels.is_some());
        let opts = ltr_format::ReadOptions { format: d.format, ..Default::default() };
        let test = ltr_format::read_file(&d.root.join(&d.folds[0].test.rel), &opts).unwrap().dataset;
        assert_eq!(test.n_queries(), 4);
        assert!(test.labels().iter().all(|&g| g <= 2));
    }
}
