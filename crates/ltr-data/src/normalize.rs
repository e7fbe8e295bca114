//! Feature normalisation as a data step, between reading a split and fitting or scoring on
//! it. No I/O: a [`Normalization`] names the method, [`Normalization::fit`] learns what it
//! needs from a training split alone, and the fitted [`Normalizer`] (stored in model files)
//! transforms any split of the same width the same way.
//!
//! * `none`: every value as read.
//! * `query-minmax`: LETOR's `QueryLevelNorm`. Within each query, each feature is mapped to
//!   `(x - min) / (max - min)` over the query's documents; a feature constant within the
//!   query becomes 0. Nothing is fitted: each query of each split is normalised on its own.
//!   LETOR 3.0's OHSUMED `QueryLevelNorm` files are exactly this map of its `Feature-min`
//!   files (to their six printed decimals, constant features 0 included).
//! * `zscore`: `(x - mean) / std` per feature, with the mean and the population standard
//!   deviation of the training split; a feature constant on the training split becomes 0.
//! * `log1p-zscore`: `sign(x) ln(1 + |x|)`, then `zscore` fitted on the transformed
//!   training split. A data-set-agnostic form of allRank's MSLR-WEB recipe, which takes
//!   `ln(x + 0.01)` of most features (a hand-made list of 108 of MSLR's 136, negating 13
//!   first, skipping the log of a feature with a negative value in any split) before
//!   standardising with the training split's moments.
//!
//! The arithmetic is in `f64`, rounded once to the `f32` the data sets hold; the global
//! methods clamp to the finite `f32` range, so a test value far outside the training
//! split's spread stays a number.

use ltr_core::{Dataset, Error, Result};
use serde::{Deserialize, Serialize};

/// A normalisation method (spec key `normalize`, `--normalize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// Every value as read.
    #[default]
    None,
    /// Per-query min-max to [0, 1] (LETOR's `QueryLevelNorm`), constant features 0.
    QueryMinmax,
    /// Per-feature z-score with the training split's mean and standard deviation.
    Zscore,
    /// `sign(x) ln(1 + |x|)`, then [`Normalization::Zscore`].
    Log1pZscore,
}

impl Normalization {
    /// Every method, in the order help texts list them.
    pub const ALL: [Self; 4] = [Self::None, Self::QueryMinmax, Self::Zscore, Self::Log1pZscore];

    /// The name in specs, flags, cell keys and reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::QueryMinmax => "query-minmax",
            Self::Zscore => "zscore",
            Self::Log1pZscore => "log1p-zscore",
        }
    }

    /// What the method does, in a few words (reports, `ltr explain`).
    pub fn describe(self) -> &'static str {
        match self {
            Self::None => "features as read",
            Self::QueryMinmax => {
                "min-max within each query to [0, 1], a feature constant within its query 0 (LETOR's QueryLevelNorm)"
            }
            Self::Zscore => {
                "z-score per feature with the training split's mean and standard deviation (constant features 0)"
            }
            Self::Log1pZscore => {
                "sign(x) ln(1 + |x|), then z-score per feature with the training split's moments (constant features 0)"
            }
        }
    }

    /// Whether this is [`Normalization::None`].
    pub fn is_none(&self) -> bool {
        *self == Self::None
    }

    /// Learns what the method needs from `train` alone (nothing for `none` and
    /// `query-minmax`; each feature's mean and standard deviation for the z-scores).
    pub fn fit(self, train: &Dataset) -> Result<Normalizer> {
        Ok(match self {
            Self::None => Normalizer::None,
            Self::QueryMinmax => Normalizer::QueryMinmax,
            Self::Zscore => Normalizer::Zscore(Moments::fit(train, |x| x)?),
            Self::Log1pZscore => Normalizer::Log1pZscore(Moments::fit(train, signed_log1p)?),
        })
    }
}

impl std::fmt::Display for Normalization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Normalization {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Self::ALL.into_iter().find(|n| n.name() == s.trim()).ok_or_else(|| {
            format!("unknown normalisation `{s}` (expected one of {})", Self::ALL.map(Self::name).join(", "))
        })
    }
}

/// A fitted normalisation: the method and what it learnt from the training split. Model
/// files carry it (`{"method": "zscore", "mean": [...], "std": [...]}`), so that scoring raw
/// data applies what training applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum Normalizer {
    /// Every value as read.
    #[default]
    None,
    /// Per-query min-max (nothing fitted).
    QueryMinmax,
    /// z-score with the training split's moments.
    Zscore(Moments),
    /// `sign(x) ln(1 + |x|)`, then z-score with the moments of the transformed training split.
    Log1pZscore(Moments),
}

/// Per-feature mean and population standard deviation over a training split's documents
/// (0 for a feature constant on it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    /// Mean of each feature.
    pub mean: Vec<f64>,
    /// Standard deviation of each feature (0: constant, normalised to 0).
    pub std: Vec<f64>,
}

impl Moments {
    /// The moments of `t(x)` per feature over every document of `data` (sums in document
    /// order). A feature whose values are all equal gets `std = 0`, exactly, whatever the
    /// rounding of its mean.
    fn fit(data: &Dataset, t: fn(f64) -> f64) -> Result<Self> {
        let (d, n) = (data.n_features(), data.n_docs());
        if n == 0 {
            return Err(Error::InvalidDataset {
                reason: "cannot fit a normalisation on no documents".into(),
            });
        }
        let mut mean = vec![0.0f64; d];
        let mut constant = vec![true; d];
        let first = data.row(0);
        for row in data.rows() {
            for (f, &x) in row.iter().enumerate() {
                mean[f] += t(f64::from(x));
                constant[f] &= x == first[f];
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let mut var = vec![0.0f64; d];
        for row in data.rows() {
            for (f, &x) in row.iter().enumerate() {
                let c = t(f64::from(x)) - mean[f];
                var[f] += c * c;
            }
        }
        let std =
            var.iter().zip(&constant).map(|(&v, &c)| if c { 0.0 } else { (v / n as f64).sqrt() }).collect();
        let moments = Self { mean, std };
        moments.check(d)?;
        Ok(moments)
    }

    fn check(&self, n_features: usize) -> Result<()> {
        if self.mean.len() != n_features || self.std.len() != n_features {
            return Err(Error::model(format!(
                "the normalisation has {} means and {} standard deviations for {n_features} features",
                self.mean.len(),
                self.std.len()
            )));
        }
        if let Some(f) = self.mean.iter().position(|m| !m.is_finite()) {
            return Err(Error::model(format!("the normalisation's mean of feature {} is not finite", f + 1)));
        }
        if let Some(f) = self.std.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
            return Err(Error::model(format!(
                "the normalisation's standard deviation of feature {} is not a finite number >= 0",
                f + 1
            )));
        }
        Ok(())
    }

    fn apply(&self, x: f64, f: usize) -> f64 {
        let s = self.std[f];
        if s > 0.0 { (x - self.mean[f]) / s } else { 0.0 }
    }
}

impl Normalizer {
    /// The method.
    pub fn method(&self) -> Normalization {
        match self {
            Self::None => Normalization::None,
            Self::QueryMinmax => Normalization::QueryMinmax,
            Self::Zscore(_) => Normalization::Zscore,
            Self::Log1pZscore(_) => Normalization::Log1pZscore,
        }
    }

    /// Whether this is [`Normalizer::None`] (model files leave it out).
    pub fn is_none(&self) -> bool {
        matches!(self, Self::None)
    }

    /// The width it was fitted on (`None` for the methods that fit nothing).
    pub fn n_features(&self) -> Option<usize> {
        match self {
            Self::None | Self::QueryMinmax => None,
            Self::Zscore(m) | Self::Log1pZscore(m) => Some(m.mean.len()),
        }
    }

    /// Checks a normaliser read from a file for a model of `n_features` features: one finite
    /// mean and one finite, non-negative standard deviation per feature.
    pub fn check(&self, n_features: usize) -> Result<()> {
        match self {
            Self::None | Self::QueryMinmax => Ok(()),
            Self::Zscore(m) | Self::Log1pZscore(m) => m.check(n_features),
        }
    }

    /// `data` normalised: a new data set with the same queries, grades, ids and convention.
    /// Data of another width than the fitted one is refused.
    pub fn apply(&self, data: &Dataset) -> Result<Dataset> {
        if let Some(expected) = self.n_features()
            && expected != data.n_features()
        {
            return Err(Error::FeatureCount { expected, found: data.n_features() });
        }
        let features = match self {
            Self::None => data.features().to_vec(),
            Self::QueryMinmax => query_minmax(data),
            Self::Zscore(m) => per_value(data, |x, f| m.apply(x, f)),
            Self::Log1pZscore(m) => per_value(data, |x, f| m.apply(signed_log1p(x), f)),
        };
        Ok(Dataset::from_parts(
            data.n_features(),
            features,
            data.labels().to_vec(),
            data.query_offsets().to_vec(),
            data.query_ids().to_vec(),
            data.doc_ids().map(<[String]>::to_vec),
        )?
        .with_convention(data.convention()))
    }
}

/// `sign(x) ln(1 + |x|)`: monotone, odd, the identity's slope at 0, logarithmic in the tails.
pub fn signed_log1p(x: f64) -> f64 {
    x.signum() * x.abs().ln_1p()
}

/// Rounds to `f32`, clamped to its finite range.
fn to_f32(x: f64) -> f32 {
    x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32
}

fn per_value(data: &Dataset, g: impl Fn(f64, usize) -> f64) -> Vec<f32> {
    let d = data.n_features().max(1);
    data.features().iter().enumerate().map(|(i, &x)| to_f32(g(f64::from(x), i % d))).collect()
}

fn query_minmax(data: &Dataset) -> Vec<f32> {
    let d = data.n_features();
    let mut out = Vec::with_capacity(data.features().len());
    let (mut lo, mut hi) = (vec![0.0f32; d], vec![0.0f32; d]);
    for q in data.queries() {
        lo.copy_from_slice(q.row(0));
        hi.copy_from_slice(q.row(0));
        for i in 1..q.len() {
            for (f, &x) in q.row(i).iter().enumerate() {
                lo[f] = lo[f].min(x);
                hi[f] = hi[f].max(x);
            }
        }
        for i in 0..q.len() {
            out.extend(q.row(i).iter().enumerate().map(|(f, &x)| {
                if hi[f] > lo[f] {
                    // In f64, where the difference of two f32 values of like size is exact: values scaled by a
                    // power of two and shifted, where the shifted values are exact in f32,
                    // give back the unshifted ones bit for bit.
                    let (x, lo, hi) = (f64::from(x), f64::from(lo[f]), f64::from(hi[f]));
                    ((x - lo) / (hi - lo)) as f32
                } else {
                    0.0
                }
            }));
        }
    }
    out
}

/// The widest and the narrowest feature of a split by range (`max - min` over all its
/// documents), features constant on it left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleSpread {
    /// The feature of the largest range (0-based) and that range.
    pub widest: (usize, f64),
    /// The feature of the smallest non-zero range (0-based) and that range.
    pub narrowest: (usize, f64),
}

impl ScaleSpread {
    /// How many times the narrowest range the widest is.
    pub fn ratio(&self) -> f64 {
        self.widest.1 / self.narrowest.1
    }

    /// Whether the ratio exceeds [`UNNORMALISED_RATIO`]: features of such different scales
    /// that a scale-sensitive learner weighs them by their units.
    pub fn looks_unnormalised(&self) -> bool {
        self.ratio() > UNNORMALISED_RATIO
    }
}

impl std::fmt::Display for ScaleSpread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "feature {} ranges over {:.4e}, feature {} over {:.4e}",
            self.widest.0 + 1,
            self.widest.1,
            self.narrowest.0 + 1,
            self.narrowest.1
        )
    }
}

/// A split's features look unnormalised when one's range exceeds this many times another's.
pub const UNNORMALISED_RATIO: f64 = 100.0;

/// The widest and narrowest features of `data` by range; `None` when fewer than one feature
/// varies.
pub fn scale_spread(data: &Dataset) -> Option<ScaleSpread> {
    let d = data.n_features();
    let first = data.rows().next()?;
    let (mut lo, mut hi) = (first.to_vec(), first.to_vec());
    for row in data.rows() {
        for (f, &x) in row.iter().enumerate() {
            lo[f] = lo[f].min(x);
            hi[f] = hi[f].max(x);
        }
    }
    let ranges = (0..d).map(|f| (f, f64::from(hi[f]) - f64::from(lo[f]))).filter(|(_, r)| *r > 0.0);
    let widest = ranges.clone().fold(None, |b: Option<(usize, f64)>, x| match b {
        Some(b) if b.1 >= x.1 => Some(b),
        _ => Some(x),
    })?;
    let narrowest = ranges.fold(None, |b: Option<(usize, f64)>, x| match b {
        Some(b) if b.1 <= x.1 => Some(b),
        _ => Some(x),
    })?;
    Some(ScaleSpread { widest, narrowest })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::float_cmp)]
    use ltr_core::DatasetBuilder;

    use super::*;

    /// Two queries over three features: feature 1 varies within each query, feature 2 is
    /// constant within query `a` only, feature 3 is constant everywhere.
    fn data() -> Dataset {
        let mut b = DatasetBuilder::new(3);
        b.start_query("a");
        b.push_doc(1, &[2.0, 5.0, 7.0], Some("a1")).unwrap();
        b.push_doc(0, &[4.0, 5.0, 7.0], Some("a2")).unwrap();
        b.push_doc(2, &[3.0, 5.0, 7.0], Some("a3")).unwrap();
        b.start_query("b");
        b.push_doc(0, &[-10.0, 1.0, 7.0], Some("b1")).unwrap();
        b.push_doc(1, &[10.0, 3.0, 7.0], Some("b2")).unwrap();
        b.finish().unwrap().with_convention(Some(ltr_core::Convention::Letor4))
    }

    #[test]
    fn names_parse_and_print_back() {
        for n in Normalization::ALL {
            assert_eq!(n.name().parse::<Normalization>().unwrap(), n);
            assert_eq!(serde_json::to_string(&n).unwrap(), format!("\"{n}\""));
        }
        let e = "minmax".parse::<Normalization>().unwrap_err();
        assert!(e.contains("query-minmax") && e.contains("log1p-zscore"), "{e}");
        assert!(Normalization::default().is_none());
    }

    #[test]
    fn query_minmax_maps_each_query_to_zero_one_and_constants_to_zero() {
        let d = data();
        let n = Normalization::QueryMinmax.fit(&d).unwrap();
        let out = n.apply(&d).unwrap();
        let want: [f32; 15] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0];
        assert_eq!(out.features(), want);
        // Everything but the features is kept.
        assert_eq!(out.labels(), d.labels());
        assert_eq!(out.query_ids(), d.query_ids());
        assert_eq!(out.doc_ids(), d.doc_ids());
        assert_eq!(out.convention(), d.convention());
        assert_eq!(out.query_offsets(), d.query_offsets());
    }

    #[test]
    fn query_minmax_undoes_a_power_of_two_scale_and_an_offset_bit_for_bit() {
        // A query already in [0, 1], scaled by 2^16 and shifted by -16384: every shifted
        // value is exact in f32 (none grows past its scaled value's binade), so the map
        // gives back the very same values.
        let xs = [0.0f32, 0.719_697, 1.0, 0.25, 0.5, 0.333_333];
        let one_query = |t: &dyn Fn(f32) -> f32| {
            let mut b = DatasetBuilder::new(1);
            b.start_query("q");
            for &x in &xs {
                b.push_doc(0, &[t(x)], None).unwrap();
            }
            b.finish().unwrap()
        };
        let shifted = |x: f32| {
            let v = f64::from(x) * 65536.0 - 16384.0;
            assert_eq!(f64::from(v as f32), v, "{x}: the shifted value is exact");
            v as f32
        };
        let n = Normalizer::QueryMinmax;
        let plain = n.apply(&one_query(&|x| x)).unwrap();
        let undone = n.apply(&one_query(&shifted)).unwrap();
        let bits = |d: &Dataset| d.features().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&plain), bits(&undone));
        assert_eq!(plain.features(), xs, "already in [0, 1] with min 0 and max 1: unchanged");
    }

    #[test]
    fn zscore_uses_the_training_moments_and_zeroes_constant_features() {
        let d = data();
        let n = Normalization::Zscore.fit(&d).unwrap();
        let Normalizer::Zscore(m) = &n else { panic!() };
        // Feature 1: 2, 4, 3, -10, 10 -> mean 1.8, population variance 42.56.
        assert!((m.mean[0] - 1.8).abs() < 1e-12 && (m.std[0] - 42.56f64.sqrt()).abs() < 1e-12);
        assert_eq!((m.mean[2], m.std[2]), (7.0, 0.0));
        let out = n.apply(&d).unwrap();
        assert!((f64::from(out.row(4)[0]) - (10.0 - 1.8) / 42.56f64.sqrt()).abs() < 1e-6);
        assert!(out.rows().all(|r| r[2] == 0.0));
        // Other data is transformed with the training moments, far values clamped finite.
        let mut b = DatasetBuilder::new(3);
        b.start_query("t");
        b.push_doc(0, &[f32::MAX, 1.0, 8.0], None).unwrap();
        let t = n.apply(&b.finish().unwrap()).unwrap();
        assert!(t.features().iter().all(|v| v.is_finite()));
        assert_eq!(t.row(0)[2], 0.0);
    }

    #[test]
    fn log1p_zscore_takes_the_signed_log_first() {
        assert_eq!(signed_log1p(0.0), 0.0);
        assert_eq!(signed_log1p(-3.0), -(4.0f64.ln()));
        assert_eq!(signed_log1p(std::f64::consts::E - 1.0), 1.0);
        let d = data();
        let Normalizer::Log1pZscore(m) = Normalization::Log1pZscore.fit(&d).unwrap() else { panic!() };
        let logs = [2.0f64, 4.0, 3.0, -10.0, 10.0].map(signed_log1p);
        let mean = logs.iter().sum::<f64>() / 5.0;
        assert!((m.mean[0] - mean).abs() < 1e-12);
    }

    #[test]
    fn a_fitted_normaliser_round_trips_and_checks_its_width() {
        let d = data();
        for method in Normalization::ALL {
            let n = method.fit(&d).unwrap();
            assert_eq!(n.method(), method);
            let text = serde_json::to_string(&n).unwrap();
            assert!(text.starts_with(&format!("{{\"method\":\"{method}\"")), "{text}");
            let back: Normalizer = serde_json::from_str(&text).unwrap();
            assert_eq!(back, n);
            back.check(3).unwrap();
        }
        let n = Normalization::Zscore.fit(&d).unwrap();
        assert!(n.check(4).unwrap_err().to_string().contains("4 features"));
        let mut b = DatasetBuilder::new(2);
        b.start_query("q");
        b.push_doc(0, &[1.0, 2.0], None).unwrap();
        let e = n.apply(&b.finish().unwrap()).unwrap_err();
        assert!(matches!(e, Error::FeatureCount { expected: 3, found: 2 }), "{e}");
        let bad: Normalizer =
            serde_json::from_str(r#"{"method":"zscore","mean":[0,0,0],"std":[1,-1,1]}"#).unwrap();
        assert!(bad.check(3).unwrap_err().to_string().contains("feature 2"));
    }

    #[test]
    fn the_spread_names_the_widest_and_narrowest_varying_features() {
        let s = scale_spread(&data()).unwrap();
        assert_eq!((s.widest, s.narrowest), ((0, 20.0), (1, 4.0)));
        assert!(!s.looks_unnormalised());
        let mut b = DatasetBuilder::new(2);
        b.start_query("q");
        b.push_doc(0, &[0.0, 0.0], None).unwrap();
        b.push_doc(0, &[1000.0, 1.0], None).unwrap();
        let s = scale_spread(&b.finish().unwrap()).unwrap();
        assert!(s.looks_unnormalised() && s.ratio() == 1000.0);
        assert_eq!(s.to_string(), "feature 1 ranges over 1.0000e3, feature 2 over 1.0000e0");
    }
}
