//! Which algorithms depend on the scale of the features, and the warning for data whose
//! features look unnormalised ([`ltr_data::normalize::ScaleSpread::looks_unnormalised`]) when
//! such an algorithm is to be fitted on it.
//!
//! An algorithm is scale-free when multiplying a feature by a positive constant and shifting
//! it (the same for every document) changes none of its rankings: tree learners split on
//! quantile bins, RankBoost on thresholds, the neural rankers and ridge regression (with
//! `standardize`) standardise every feature with the training split's moments. The others
//! weigh raw feature values against a penalty or a step size (the SVMs, the linear and
//! ordinal regressions), or add single features or per-query linear rankers with weights
//! that do not see their units (AdaRank, PCRank, RankCosine, the cascade): on features of
//! very different ranges they mostly follow the widest.

use ltr_core::Dataset;
use ltr_data::normalize::scale_spread;

use crate::registry::AlgoConfig;
use crate::spec::AlgorithmEntry;

/// The scale-free algorithm ids, each with why. Every id not listed is taken to depend on
/// the scale of the features (a new algorithm is warned about until it is listed here).
pub const SCALE_FREE: &[(&str, &str)] = &[
    ("lambdamart", "trees split on quantile bins of each feature"),
    ("intervalrank", "trees split on quantile bins of each feature"),
    ("mcrank", "trees split on quantile bins of each feature"),
    ("rankboost", "weak rankers are thresholds on one feature"),
    ("ranknet", "standardises every feature with the training split's moments"),
    ("lambdarank", "standardises every feature with the training split's moments"),
    ("listnet", "standardises every feature with the training split's moments"),
    ("listmle", "standardises every feature with the training split's moments"),
];

/// Why a configuration's fit does not depend on the scale of the features, or `None` when it
/// does. Ridge regression is scale-free only with `standardize = true`.
pub fn scale_free(config: &AlgoConfig) -> Option<&'static str> {
    match config {
        AlgoConfig::Regression(p) if p.standardize => {
            Some("standardises every feature with the training split's moments (standardize = true)")
        }
        AlgoConfig::Regression(_) => None,
        other => SCALE_FREE.iter().find(|(id, _)| *id == other.id()).map(|(_, why)| *why),
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
    fn the_table_names_registered_ids_and_trees_are_scale_free() {
        for (id, _) in SCALE_FREE {
            assert!(crate::registry::info(id).is_some(), "{id} is not registered");
        }
        let free = |id: &str| scale_free(&AlgoConfig::default_for(id).unwrap()).is_some();
        assert!(free("lambdamart") && free("regression") && free("listnet"));
        assert!(!free("ranksvm") && !free("adarank-map") && !free("fenchelrank"));
        let raw = AlgoConfig::from_settings("regression", &["standardize=false".into()]).unwrap();
        assert!(scale_free(&raw).is_none());
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
