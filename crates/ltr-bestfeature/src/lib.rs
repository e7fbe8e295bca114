//! The best single feature (id `best-feature`): a baseline that ranks every query by one
//! feature, the one (with its sign) whose ranking has the best validation measure. LETOR
//! publishes the measures of every single feature beside its baselines (T. Qin, T.-Y. Liu,
//! J. Xu, H. Li, "LETOR: A benchmark collection for research on learning to rank for
//! information retrieval", Information Retrieval 13(4), 2010); this row makes the best of them
//! a cell of every report, chosen without the test split as every other row is.
//!
//! # Selection
//!
//! The candidates are `x_0, -x_0, x_1, -x_1, ...` (without `negated`, `x_0, x_1, ...`). Each
//! ranks the validation split by its value, ties in file order (as the metrics order ties),
//! and the one with the highest validation measure (the spec's validation metric, MAP by
//! default) is kept. Of equal values the first candidate in that order wins: the lowest
//! feature index, then the positive sign ([`ltr_core::select_best`]). Without a validation
//! split the training split decides, by MAP under its own convention.
//!
//! The model scores a document `x_f` or `-x_f`: no weight, no bias, no randomness. Scaling a
//! feature by a positive constant changes no candidate's ranking, so nothing depends on
//! feature scales.

use ltr_core::{
    AlgorithmInfo, Dataset, Error, Family, FeatureScale, FeatureWeights, Learner, LossType, Measure,
    ParamInfo, Params, Ranker, Result, Rng, Validation, check_feature, check_width,
};
use ltr_metrics::{Criterion, EvalConfig, Metric};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Metadata for the comparison tables.
///
/// Cost: none measured (its README's "Scale" section has no time at the MSLR-WEB10K shape); `ltr
/// estimate` lists it under "no measurement".
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "best-feature",
    name: "Best feature",
    family: Family::Baseline,
    year: 2010,
    loss: LossType::Listwise,
    optimizer: "exhaustive (every feature and sign on vali)",
    reference: "T. Qin, T.-Y. Liu, J. Xu, H. Li. LETOR: A benchmark collection for research on learning to \
                rank for information retrieval. Information Retrieval 13(4):346-374, 2010.",
    summary: "the single feature with the best validation measure",
    feature_scale: FeatureScale::Free("ranks by one feature, whose order a positive factor leaves unchanged"),
    ..AlgorithmInfo::DEFAULT
};

/// Hyperparameters of the best single feature (`best-feature`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BestFeatureParams {
    /// Also offer every feature negated (lower values ranked first). Default `true`: a feature
    /// such as a document's length or its URL depth may rank best in reverse.
    pub negated: bool,
}

impl Default for BestFeatureParams {
    fn default() -> Self {
        Self { negated: true }
    }
}

impl Params for BestFeatureParams {
    type Checked = BestFeature;

    const TABLE: &'static [ParamInfo] =
        &[ParamInfo::flag("negated", "also offer every feature negated (lower values first)")];

    fn validate(&self) -> Result<BestFeature> {
        Ok(BestFeature { params: self.clone() })
    }
}

/// Validated parameters, ready to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct BestFeature {
    params: BestFeatureParams,
}

/// The fitted model: one feature, possibly negated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestFeatureModel {
    /// Number of features of the training data.
    pub n_features: usize,
    /// The feature ranked by (0-based: the file's feature `feature + 1`).
    pub feature: usize,
    /// Whether it ranks by the negated feature (lower values first).
    pub negated: bool,
}

impl Ranker for BestFeatureModel {
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn check(&self) -> Result<()> {
        check_width(self.n_features)?;
        check_feature("the selected feature", self.feature, self.n_features)
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        let v = row.get(self.feature).map_or(0.0, |&v| f64::from(v));
        if self.negated { -v } else { v }
    }

    /// One weight, `+1` or `-1`, on the selected feature.
    fn feature_weights(&self) -> FeatureWeights<'_> {
        let mut w = vec![0.0; self.n_features];
        if let Some(x) = w.get_mut(self.feature) {
            *x = if self.negated { -1.0 } else { 1.0 };
        }
        FeatureWeights::Linear(w)
    }
}

/// What a fit compared: every candidate's measure, in candidate order.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The kept model.
    pub model: BestFeatureModel,
    /// The candidates, in the order ties are broken by.
    pub candidates: Vec<BestFeatureModel>,
    /// The measure of each candidate on the deciding split.
    pub values: Vec<f64>,
}

impl BestFeature {
    /// The candidates of data of `n_features` features, in tie-breaking order.
    fn candidates(&self, n_features: usize) -> Vec<BestFeatureModel> {
        let signs: &[bool] = if self.params.negated { &[false, true] } else { &[false] };
        (0..n_features)
            .flat_map(|feature| {
                signs.iter().map(move |&negated| BestFeatureModel { n_features, feature, negated })
            })
            .collect()
    }

    /// Measures every candidate on `data` with `measure` and keeps the best.
    fn select(&self, n_features: usize, data: &Dataset, measure: &dyn Measure) -> Result<Selection> {
        if n_features == 0 {
            return Err(Error::fit(INFO.id, "the training data has no feature"));
        }
        if data.n_features() != n_features {
            return Err(Error::FeatureCount { expected: n_features, found: data.n_features() });
        }
        let candidates = self.candidates(n_features);
        // Each candidate is measured on its own; collecting keeps candidate order, so the
        // choice is the same at any thread count.
        let values = candidates
            .par_iter()
            .map(|c| measure.mean(data, &c.score_vec(data)?))
            .collect::<Result<Vec<f64>>>()?;
        let best = ltr_core::select_best(&values)
            .ok_or_else(|| Error::fit(INFO.id, "no candidate feature to measure"))?;
        let model = candidates[best].clone();
        log::debug!(
            "best-feature: {}feature {} ({} {:.6}) of {} candidates",
            if model.negated { "-" } else { "" },
            model.feature + 1,
            measure.name(),
            values[best],
            candidates.len()
        );
        Ok(Selection { model, candidates, values })
    }

    /// Fits and returns every candidate's measure: on `valid` with its measure, else on
    /// `train` by MAP under `train`'s convention.
    pub fn fit_selection(&self, train: &Dataset, valid: Option<&Validation<'_>>) -> Result<Selection> {
        match valid {
            Some(v) => self.select(train.n_features(), v.data, v.measure),
            None => {
                let map = Criterion::new(Metric::Map, EvalConfig::of(train));
                self.select(train.n_features(), train, &map)
            }
        }
    }
}

impl Learner for BestFeature {
    type Model = BestFeatureModel;

    /// Deterministic: `rng` is not used.
    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        _rng: &mut Rng,
    ) -> Result<BestFeatureModel> {
        Ok(self.fit_selection(train, valid)?.model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::ModelSize;
    use ltr_metrics::Convention;
    use ltr_testkit::dataset;

    use super::*;

    /// Two queries, three features, MAP (letor3: relevant means grade >= 1).
    ///
    /// Query A: grades [1, 0, 0]; x0 = [3, 2, 1], x1 = [1, 2, 3], x2 = [5, 5, 5].
    /// Query B: grades [0, 1, 0]; x0 = [1, 2, 3], x1 = [3, 2, 1], x2 = [5, 5, 5].
    ///
    /// x0 ranks A's relevant document first (AP 1) and B's second (AP 1/2): MAP 3/4.
    /// -x0 ranks A's last (1/3), B's second (1/2): 5/12. x1 is -x0 on A and on B: 5/12,
    /// and -x1 is x0: 3/4. x2 ties everything: file order, A first (1), B second (1/2):
    /// 3/4, and -x2 ties alike: 3/4. Best 3/4, reached by x0, -x1, x2 and -x2: the lowest
    /// feature with the positive sign first, x0.
    fn two_queries() -> Dataset {
        dataset(
            3,
            &[
                (&[1, 0, 0], &[[3.0, 1.0, 5.0], [2.0, 2.0, 5.0], [1.0, 3.0, 5.0]]),
                (&[0, 1, 0], &[[1.0, 3.0, 5.0], [2.0, 2.0, 5.0], [3.0, 1.0, 5.0]]),
            ],
        )
    }

    fn map() -> Criterion {
        Criterion::new(Metric::Map, EvalConfig::official(Convention::Letor3))
    }

    #[test]
    fn every_candidate_by_hand_and_ties_broken_by_index_then_sign() {
        let data = two_queries();
        let crit = map();
        let valid = Validation { data: &data, measure: &crit };
        let learner = BestFeatureParams::default().validate().unwrap();
        let s = learner.fit_selection(&data, Some(&valid)).unwrap();
        let expected = [0.75, 5.0 / 12.0, 5.0 / 12.0, 0.75, 0.75, 0.75];
        assert_eq!(s.values.len(), 6);
        for (got, want) in s.values.iter().zip(expected) {
            assert!((got - want).abs() < 1e-15, "{:?}", s.values);
        }
        assert_eq!(s.model, BestFeatureModel { n_features: 3, feature: 0, negated: false });
        let order: Vec<(usize, bool)> = s.candidates.iter().map(|c| (c.feature, c.negated)).collect();
        assert_eq!(order, vec![(0, false), (0, true), (1, false), (1, true), (2, false), (2, true)]);
    }

    #[test]
    fn a_negated_feature_wins_when_it_is_better() {
        // One query, grades [0, 0, 1]: x0 = [3, 2, 1] puts the relevant document last (AP
        // 1/3); -x0 first (AP 1). Without `negated` only x0 is offered.
        let data = dataset(1, &[(&[0, 0, 1], &[[3.0f32], [2.0], [1.0]])]);
        let crit = map();
        let valid = Validation { data: &data, measure: &crit };
        let both = BestFeatureParams::default().validate().unwrap();
        let m = both.fit(&data, Some(&valid), &mut Rng::new(0)).unwrap();
        assert_eq!((m.feature, m.negated), (0, true));
        assert_eq!(m.score_vec(&data).unwrap(), vec![-3.0, -2.0, -1.0]);
        let plain = BestFeatureParams { negated: false }.validate().unwrap();
        let s = plain.fit_selection(&data, Some(&valid)).unwrap();
        assert_eq!((s.model.feature, s.model.negated, s.values.len()), (0, false, 1));
        assert!((s.values[0] - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn validation_decides_and_without_it_the_training_split() {
        // Training: x1 ranks the relevant document first, x0 last. Validation: the reverse.
        let train = dataset(2, &[(&[1, 0], &[[0.0f32, 1.0], [1.0, 0.0]])]);
        let vali = dataset(2, &[(&[1, 0], &[[1.0f32, 0.0], [0.0, 1.0]])]);
        let crit = map();
        let learner = BestFeatureParams { negated: false }.validate().unwrap();
        let on_vali =
            learner.fit(&train, Some(&Validation { data: &vali, measure: &crit }), &mut Rng::new(0));
        assert_eq!(on_vali.unwrap().feature, 0);
        assert_eq!(learner.fit(&train, None, &mut Rng::new(0)).unwrap().feature, 1);
    }

    #[test]
    fn model_checks_weights_size_and_errors() {
        let m = BestFeatureModel { n_features: 4, feature: 2, negated: true };
        assert!(m.check().is_ok());
        assert_eq!(m.feature_weights(), FeatureWeights::Linear(vec![0.0, 0.0, -1.0, 0.0]));
        assert_eq!(m.model_size(), ModelSize { features: Some(1), stages: None });
        assert_eq!(m.score_row(&[1.0, 2.0, 3.5, 4.0]), -3.5);
        let bad = BestFeatureModel { feature: 4, ..m.clone() };
        assert!(bad.check().unwrap_err().to_string().contains("feature 5"));
        let back: BestFeatureModel = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        let empty = dataset(0, &[(&[1, 0], &[[0.0f32; 0], []])]);
        let e = BestFeatureParams::default().validate().unwrap().fit(&empty, None, &mut Rng::new(0));
        assert!(e.unwrap_err().to_string().contains("no feature"));
        let narrow = dataset(1, &[(&[1, 0], &[[0.0f32], [1.0]])]);
        let crit = map();
        let wide = two_queries();
        let e = BestFeatureParams::default().validate().unwrap().fit(
            &wide,
            Some(&Validation { data: &narrow, measure: &crit }),
            &mut Rng::new(0),
        );
        assert!(e.is_err());
        let readme = include_str!("../README.md");
        ltr_core::check_table::<BestFeatureParams>().unwrap();
        ltr_core::check_readme::<BestFeatureParams>(readme).unwrap();
        let p: BestFeatureParams = serde_json::from_str("{}").unwrap();
        assert_eq!(p, BestFeatureParams::default());
    }

    #[test]
    fn the_same_choice_at_any_thread_count() {
        let train = ltr_testkit::random_dataset(3, 30, 12, 3..15, 0.2, 3);
        let vali = ltr_testkit::random_dataset(4, 20, 12, 3..15, 0.2, 3);
        let crit = map();
        let learner = BestFeatureParams::default().validate().unwrap();
        let fit = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| learner.fit_selection(&train, Some(&Validation { data: &vali, measure: &crit })))
                .unwrap()
        };
        let (one, four) = (fit(1), fit(4));
        assert_eq!(one, four);
        let best = one.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let first = one.values.iter().position(|&v| v == best).unwrap();
        assert_eq!(one.model, one.candidates[first]);
    }
}
