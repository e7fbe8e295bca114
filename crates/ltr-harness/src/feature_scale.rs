//! Which algorithms depend on the scale of the features, and the warning for data whose
//! features look unnormalised ([`ltr_data::normalize::ScaleSpread::looks_unnormalised`]) when
//! such an algorithm is to be fitted on it.
//!
//! An algorithm is scale-free when multiplying a feature by a positive constant (the same for
//! every document) changes none of its rankings: tree learners split on quantile bins,
//! RankBoost on thresholds, RankCosine weighs each single-feature weak ranker in closed form
//! (the weight scales inversely with the feature), and the neural rankers and ridge regression
//! (with `standardize`) standardise every feature with the training split's moments. The
//! others weigh raw feature values against a penalty or a step size (the SVMs, the linear and
//! ordinal regressions), or add single features or per-query linear rankers with weights that
//! do not see their units (AdaRank, PCRank, the cascade): on features of very different ranges
//! they mostly follow the widest. (A shift of a feature is another matter: the trees, RankBoost
//! and the standardising learners ignore it, RankCosine's query-level cosine does not.)

use ltr_core::{Dataset, FeatureScale};
use ltr_data::normalize::scale_spread;

use crate::registry::AlgoConfig;
use crate::spec::AlgorithmEntry;

/// Why a configuration's fit does not depend on the scale of the features, or `None` when it
/// does: its INFO's `feature_scale` (an algorithm that states nothing is taken to depend on
/// them), read against the configuration's parameters where it depends on one (ridge
/// regression is scale-free only with `standardize = true`).
pub fn scale_free(config: &AlgoConfig) -> Option<String> {
    match config.info().feature_scale {
        FeatureScale::Matters => None,
        FeatureScale::Free(why) => Some(why.to_owned()),
        FeatureScale::FreeWhen { key, why } => (config.params_json()[key] == serde_json::Value::Bool(true))
            .then(|| format!("{why} ({key} = true)")),
    }
}

/// Whether any grid point of an entry depends on the scale of the features.
pub fn scale_sensitive(entry: &AlgorithmEntry) -> bool {
    entry.grid.iter().any(|c| scale_free(c).is_none())
}

/// The one-line warning for fitting the scale-sensitive `labels` on `train` (the training
/// split of `what`, e.g. `OHSUMED fold 1`) read without normalisation, when its features
/// look unnormalised; `None` when they do not, or no label is sensitive.
pub fn unnormalised_warning(what: &str, train: &Dataset, labels: &[&str], hint: &str) -> Option<String> {
    if labels.is_empty() {
        return None;
    }
    let spread = scale_spread(train).filter(|s| s.looks_unnormalised())?;
    Some(format!(
        "{what}: the features look unnormalised ({spread} on the training split, {:.0} times as \
         wide); {} depend{} on feature scales: {hint}",
        spread.ratio(),
        labels.join(", "),
        if labels.len() == 1 { "s" } else { "" },
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn trees_and_standardising_learners_are_scale_free() {
        let free = |id: &str| scale_free(&AlgoConfig::default_for(id).unwrap()).is_some();
        assert!(free("lambdamart") && free("regression") && free("listnet"));
        assert!(!free("ranksvm") && !free("adarank-map") && !free("fenchelrank"));
        let raw = AlgoConfig::from_settings("regression", &["standardize=false".into()]).unwrap();
        assert!(scale_free(&raw).is_none());
        assert_eq!(
            scale_free(&AlgoConfig::default_for("regression").unwrap()).unwrap(),
            "standardises every feature with the training split's moments (standardize = true)"
        );
        assert_eq!(
            scale_free(&AlgoConfig::default_for("mcrank").unwrap()).unwrap(),
            "trees split on quantile bins of each feature"
        );
    }

    /// 8 queries of 12 documents over 5 features of unit scale, grades from the first two,
    /// and the same with feature `f` multiplied by `2^(3f - 6)` (exact in f32).
    fn toy_and_scaled() -> (Dataset, Dataset) {
        let mut rng = ltr_core::Rng::new(5);
        let (mut a, mut b) = (ltr_core::DatasetBuilder::new(5), ltr_core::DatasetBuilder::new(5));
        for q in 0..8 {
            a.start_query(&format!("q{q}"));
            b.start_query(&format!("q{q}"));
            for _ in 0..12 {
                let x: Vec<f32> = (0..5).map(|_| rng.uniform() as f32).collect();
                let grade = (((x[0] + 0.5 * x[1]) * 2.0) as u8).min(2);
                let scaled: Vec<f32> =
                    x.iter().enumerate().map(|(f, v)| v * 2f32.powi(3 * f as i32 - 6)).collect();
                a.push_doc(grade, &x, None).unwrap();
                b.push_doc(grade, &scaled, None).unwrap();
            }
        }
        (a.finish().unwrap(), b.finish().unwrap())
    }

    /// What the table says is what the learners do: a scale-free algorithm fitted on features
    /// scaled by powers of two ranks the scaled data exactly as it ranks the unscaled data
    /// when fitted on it, and every other algorithm ranks some query otherwise.
    #[test]
    fn scale_free_algorithms_and_no_others_rank_the_same_after_the_features_are_rescaled() {
        let (plain, scaled) = toy_and_scaled();
        let scores = |config: &AlgoConfig, data: &Dataset| {
            config.fit(data, None, &mut ltr_core::Rng::new(1)).unwrap().score_vec(data).unwrap()
        };
        // Each query's documents, best first (ties in file order).
        let ranking = |s: &[f64]| -> Vec<Vec<usize>> {
            plain
                .queries()
                .map(|q| {
                    let mut docs: Vec<usize> = q.range().collect();
                    docs.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
                    docs
                })
                .collect()
        };
        for info in crate::ALGORITHMS {
            let config = AlgoConfig::default_for(info.id).unwrap();
            let (a, b) = (scores(&config, &plain), scores(&config, &scaled));
            match scale_free(&config) {
                Some(why) => {
                    assert!(
                        ranking(&a) == ranking(&b),
                        "{}: said to be scale-free ({why}), but it ranks otherwise",
                        info.id
                    )
                }
                None => assert!(
                    ranking(&a) != ranking(&b),
                    "{}: said to depend on feature scales, but it ranks the same",
                    info.id
                ),
            }
        }
    }

    #[test]
    fn the_warning_names_the_sensitive_labels_once_the_spread_is_over_the_ratio() {
        let mut b = ltr_core::DatasetBuilder::new(2);
        b.start_query("q");
        b.push_doc(0, &[0.0, 0.0], None).unwrap();
        b.push_doc(1, &[500.0, 1.0], None).unwrap();
        let data = b.finish().unwrap();
        let w = unnormalised_warning("D fold 1", &data, &["ranksvm", "ranknet"], "normalise").unwrap();
        assert!(w.starts_with("D fold 1: the features look unnormalised (feature 1 ranges"), "{w}");
        assert!(w.contains("500 times") && w.contains("ranksvm, ranknet depend on"), "{w}");
        assert_eq!(w.lines().count(), 1);
        assert!(unnormalised_warning("D", &data, &[], "x").is_none());
        let mut b = ltr_core::DatasetBuilder::new(2);
        b.start_query("q");
        b.push_doc(0, &[0.0, 0.0], None).unwrap();
        b.push_doc(1, &[50.0, 1.0], None).unwrap();
        assert!(unnormalised_warning("D", &b.finish().unwrap(), &["ranksvm"], "x").is_none());
    }
}
