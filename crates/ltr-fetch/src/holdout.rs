//! Validation splits made locally for releases that have none ([`Holdout`]): once the
//! training file is installed and verified, its train and vali parts are written in a
//! staging folder, hashed, recorded and renamed into the cache.

use ltr_data::manifest::{Holdout, Split, Variant};
use ltr_data::split::holdout_file;

use crate::cache::{FileStatus, sha256_file};
use crate::error::FetchError;
use crate::fetcher::{FetchReport, Fetcher};

impl Fetcher {
    /// Makes the derived train and vali files of every variant with a [`Holdout`], unless
    /// they are present and match their recorded hashes.
    pub(crate) fn derive_holdouts(
        &self,
        variants: &[&Variant],
        report: &mut FetchReport,
    ) -> Result<(), FetchError> {
        for v in variants {
            let Some(h) = &v.holdout else { continue };
            let train = v.fold_file(1, Split::Train);
            let vali = v.fold_file(1, Split::Vali);
            let present = |f: &str| -> Result<bool, FetchError> {
                Ok(matches!(self.cache.status(v, f)?, FileStatus::Verified { .. }))
            };
            if present(&train)? && present(&vali)? {
                continue;
            }
            self.derive_one(v, h, &train, &vali)?;
            for f in [train, vali] {
                report.installed.push(v.rel_path(&f));
            }
        }
        Ok(())
    }

    fn derive_one(&self, v: &Variant, h: &Holdout, train: &str, vali: &str) -> Result<(), FetchError> {
        let source = match self.cache.status(v, &h.from)? {
            FileStatus::Verified { path, .. } => path,
            _ => {
                return Err(FetchError::Unavailable {
                    dataset: v.path.clone(),
                    reason: format!("{} is needed to make its validation split", v.rel_path(&h.from)),
                });
            }
        };
        let staging = self.cache.staging()?;
        let (t, va) = (staging.path().join("train"), staging.path().join("vali"));
        let counts = holdout_file(&source, &t, &va, h.every, h.seed)?;
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
            let (hash, _) = sha256_file(&staged)?;
            let rel = v.rel_path(file);
            self.cache.commit_rel(&rel, &staged, &hash)?;
            self.cache.record_sha256(&rel, &hash)?;
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
}
