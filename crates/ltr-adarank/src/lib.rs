//! AdaRank (J. Xu and H. Li, "AdaRank: a boosting algorithm for information retrieval",
//! SIGIR 2007): boosting over single-feature weak rankers with query weights driven by an
//! IR measure, in two variants, AdaRank-MAP (`adarank-map`) and AdaRank-NDCG
//! (`adarank-ndcg`).
//!
//! Both variants share one implementation ([`AdaRank`]) on the query-weighted loop of
//! `ltr-boosting`; they differ only in the measure `E(q, .)` (MAP, or NDCG@k) and have one
//! parameter type each ([`AdaRankMapParams`], [`AdaRankNdcgParams`]) because the harness has
//! one closed enum variant per algorithm id. See the README for every default.

pub use ltr_boosting::FeatureRanker;
use ltr_boosting::{BoostConfig, BoostOutcome, Ensemble, FeatureSource, boost};
use ltr_core::{
    AlgorithmInfo, Dataset, Family, Learner, LossType, ParamInfo, Params, Result, Rng, Validation, param_info,
};
use ltr_metrics::{EvalConfig, Metric};
use serde::{Deserialize, Serialize};

/// What the two variants' metadata share: the paper and the method.
const INFO_BASE: AlgorithmInfo = AlgorithmInfo {
    family: Family::Boosting,
    year: 2007,
    loss: LossType::Listwise,
    optimizer: "boosting (query reweighting)",
    reference: "J. Xu, H. Li. AdaRank: a boosting algorithm for information retrieval. SIGIR 2007, 391-398.",
    small_settings: &["rounds=10"],
    ..AlgorithmInfo::DEFAULT
};

/// Metadata of AdaRank-MAP.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 117.7 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO_MAP: AlgorithmInfo = AlgorithmInfo {
    id: "adarank-map",
    name: "AdaRank-MAP",
    cost: Some(
        ltr_core::FitCost::mslr_web10k(117.7, "just bench-budget 2026-11-27, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("rounds", 500.0)]),
    ),
    ..INFO_BASE
};

/// Metadata of AdaRank-NDCG.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 108.6 s at two threads on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO_NDCG: AlgorithmInfo = AlgorithmInfo {
    id: "adarank-ndcg",
    name: "AdaRank-NDCG",
    cost: Some(
        ltr_core::FitCost::mslr_web10k(108.6, "just bench-budget 2026-11-27, 2 threads")
            .threads(2)
            .budget(&[ltr_core::BudgetKey::linear("rounds", 500.0)]),
    ),
    ..INFO_BASE
};

/// Hyperparameters of AdaRank-MAP (`adarank-map`): `E(q, f)` is the average precision of
/// query `q` ranked by `f`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdaRankMapParams {
    /// Maximum number of boosting rounds. Default 500 (RankLib's AdaRank `-round`). With
    /// validation data the model keeps the best prefix on it.
    pub rounds: usize,
    /// Also offer every feature with its sign flipped (`-x_f`) as a weak ranker. Default
    /// `false` (the paper uses the features as they are).
    pub negated_features: bool,
    /// Forbid the feature chosen in the previous round (RankLib's guard against AdaRank
    /// picking one feature forever). Default `true`.
    pub no_reselect: bool,
    /// Accept a weak ranker only if it improves the query-weighted measure of the ensemble;
    /// stop when no feature does. Default `true`.
    pub require_improvement: bool,
    /// Leave out training queries whose measure cannot change with the ranking (e.g. no
    /// relevant document). Default `true`.
    pub skip_uninformative: bool,
}

impl Default for AdaRankMapParams {
    fn default() -> Self {
        Self {
            rounds: 500,
            negated_features: false,
            no_reselect: true,
            require_improvement: true,
            skip_uninformative: true,
        }
    }
}

/// Hyperparameters of AdaRank-NDCG (`adarank-ndcg`): `E(q, f)` is NDCG@k of query `q`
/// ranked by `f`. The keys are those of [`AdaRankMapParams`] plus `k`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdaRankNdcgParams {
    /// The NDCG cut-off. Default 10. Under the official conventions NDCG@k of a query with
    /// fewer than `k` documents is 0 whatever the ranking, so such queries are
    /// uninformative and left out of training (see `skip_uninformative`).
    pub k: usize,
    /// Maximum number of boosting rounds. Default 500.
    pub rounds: usize,
    /// Also offer every feature with its sign flipped. Default `false`.
    pub negated_features: bool,
    /// Forbid the feature chosen in the previous round. Default `true`.
    pub no_reselect: bool,
    /// Accept a weak ranker only if it improves the weighted measure. Default `true`.
    pub require_improvement: bool,
    /// Leave out training queries whose measure cannot change. Default `true`.
    pub skip_uninformative: bool,
}

impl Default for AdaRankNdcgParams {
    fn default() -> Self {
        let m = AdaRankMapParams::default();
        Self {
            k: 10,
            rounds: m.rounds,
            negated_features: m.negated_features,
            no_reselect: m.no_reselect,
            require_improvement: m.require_improvement,
            skip_uninformative: m.skip_uninformative,
        }
    }
}

/// The rows of both variants' parameter tables (AdaRank-NDCG adds `k`).
mod rows {
    use ltr_core::ParamInfo;

    pub(crate) const K: ParamInfo = ParamInfo::int("k", 1, 10_000, "the NDCG cut-off of E");
    pub(crate) const ROUNDS: ParamInfo =
        ParamInfo::int("rounds", 1, 100_000, "round cap; with vali the best prefix is kept");
    pub(crate) const NEGATED_FEATURES: ParamInfo =
        ParamInfo::flag("negated_features", "also offer every feature with its sign flipped");
    pub(crate) const NO_RESELECT: ParamInfo =
        ParamInfo::flag("no_reselect", "forbid the feature chosen in the previous round");
    pub(crate) const REQUIRE_IMPROVEMENT: ParamInfo =
        ParamInfo::flag("require_improvement", "accept a feature only if it improves the weighted measure");
    pub(crate) const SKIP_UNINFORMATIVE: ParamInfo =
        ParamInfo::flag("skip_uninformative", "leave out training queries whose measure cannot change");

    /// AdaRank-NDCG's table: `k`, then the keys both variants share (AdaRank-MAP's table).
    pub(crate) const NDCG: &[ParamInfo] =
        &[K, ROUNDS, NEGATED_FEATURES, NO_RESELECT, REQUIRE_IMPROVEMENT, SKIP_UNINFORMATIVE];
}

impl Params for AdaRankMapParams {
    type Checked = AdaRank;

    const TABLE: &'static [ParamInfo] = rows::NDCG.split_at(1).1;

    fn validate(&self) -> Result<AdaRank> {
        self.learner(INFO_MAP, Metric::Map)
    }
}

impl Params for AdaRankNdcgParams {
    type Checked = AdaRank;

    const TABLE: &'static [ParamInfo] = rows::NDCG;

    fn validate(&self) -> Result<AdaRank> {
        param_info(Self::TABLE, "k").check_int(self.k as u64)?;
        let shared = AdaRankMapParams {
            rounds: self.rounds,
            negated_features: self.negated_features,
            no_reselect: self.no_reselect,
            require_improvement: self.require_improvement,
            skip_uninformative: self.skip_uninformative,
        };
        shared.learner(INFO_NDCG, Metric::Ndcg(self.k))
    }
}

impl AdaRankMapParams {
    /// The learner of these settings (the keys both variants share) for the variant `info`
    /// with measure `metric`.
    fn learner(&self, info: AlgorithmInfo, metric: Metric) -> Result<AdaRank> {
        param_info(Self::TABLE, "rounds").check_int(self.rounds as u64)?;
        Ok(AdaRank { info, metric, shared: self.clone() })
    }
}

/// A fitted AdaRank model: `f(x) = sum_t alpha_t h_t(x)` over single features.
pub type AdaRankModel = Ensemble<FeatureRanker>;

/// The collapsed linear weights of a model (`f(x) = w . x` up to floating-point rounding;
/// the model itself sums round by round).
pub fn linear_weights(model: &AdaRankModel) -> Vec<f64> {
    let mut w = vec![0.0; model.n_features];
    for r in &model.rounds {
        if let Some(slot) = w.get_mut(r.weak.feature) {
            *slot += if r.weak.negated { -r.alpha } else { r.alpha };
        }
    }
    w
}

/// Validated AdaRank (either variant).
#[derive(Debug, Clone, PartialEq)]
pub struct AdaRank {
    info: AlgorithmInfo,
    metric: Metric,
    /// The settings both variants share.
    shared: AdaRankMapParams,
}

impl AdaRank {
    /// The variant's metadata.
    pub fn info(&self) -> AlgorithmInfo {
        self.info
    }

    /// The training measure `E`.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The loop configuration this learner runs on `train`: `E` is computed under the
    /// official configuration of the convention the training data carries
    /// ([`EvalConfig::of`]), the one its numbers are reported under.
    pub fn boost_config(&self, train: &Dataset) -> BoostConfig {
        let p = &self.shared;
        BoostConfig {
            max_rounds: p.rounds,
            no_reselect: p.no_reselect,
            require_improvement: p.require_improvement,
            skip_uninformative: p.skip_uninformative,
            ..BoostConfig::new(self.info.id, self.metric, EvalConfig::of(train))
        }
    }

    /// Fits and returns the loop's full outcome (per-round trace, stop reason).
    pub fn fit_outcome(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
    ) -> Result<BoostOutcome<FeatureRanker>> {
        let mut source = FeatureSource::for_training(self.info.id, train, self.shared.negated_features)?;
        boost(&mut source, train, valid, &self.boost_config(train))
    }
}

impl Learner for AdaRank {
    type Model = AdaRankModel;

    /// Deterministic: `rng` is not used.
    fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, _rng: &mut Rng) -> Result<AdaRankModel> {
        Ok(self.fit_outcome(train, valid)?.model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ltr_boosting::StopReason;
    use ltr_core::{Convention, Ranker};
    use ltr_testkit::dataset;

    #[test]
    fn params_defaults_keys_and_validation() {
        let m: AdaRankMapParams = serde_json::from_str("{}").unwrap();
        assert_eq!(m, AdaRankMapParams::default());
        assert_eq!(m.rounds, 500);
        let n: AdaRankNdcgParams = serde_json::from_str(r#"{"k": 5}"#).unwrap();
        assert_eq!(n.k, 5);
        assert!(serde_json::from_str::<AdaRankMapParams>(r#"{"k": 5}"#).is_err());
        // The convention comes from the data, not from a parameter.
        assert!(serde_json::from_str::<AdaRankMapParams>(r#"{"convention": "mslr"}"#).is_err());
        let e = AdaRankMapParams { rounds: 0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("`rounds`"), "{e}");
        let e = AdaRankNdcgParams { k: 0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("`k`"), "{e}");
        assert_eq!(AdaRankNdcgParams::default().validate().unwrap().metric(), Metric::Ndcg(10));
        assert_eq!(AdaRankMapParams::default().validate().unwrap().info().id, "adarank-map");
        assert_eq!(INFO_NDCG.id, "adarank-ndcg");
    }

    /// Query A: grades [1, 0, 0], x0 = [3, 2, 1] (AP 1), x1 = [2, 1, 3] (AP 1/2).
    /// Query B: grades [0, 0, 1], x0 = [3, 2, 1] (AP 1/3), x1 = [0, 1, 3] (AP 1).
    /// Round 1 picks x1 (W = 3/4 > 2/3), alpha_1 = 1/2 ln 7; round 2 picks x0 with
    /// W = 1/(1 + e^-1/2) + (e^-1/2/(1 + e^-1/2))/3 and makes both queries perfect (worked
    /// through in ltr-boosting's loop test), so the model is alpha_2 x0 + alpha_1 x1.
    #[test]
    fn adarank_map_on_the_two_query_example() {
        let d = dataset(
            2,
            &[
                (&[1, 0, 0], &[[3.0, 2.0], [2.0, 1.0], [1.0, 3.0]]),
                (&[0, 0, 1], &[[3.0, 0.0], [2.0, 1.0], [1.0, 3.0]]),
            ],
        );
        let learner = AdaRankMapParams::default().validate().unwrap();
        let out = learner.fit_outcome(&d, None).unwrap();
        assert_eq!(out.stop, StopReason::Perfect);
        let e = (-0.5f64).exp();
        let w2 = 1.0 / (1.0 + e) + e / (1.0 + e) / 3.0;
        let w = linear_weights(&out.model);
        assert!((w[1] - 0.5 * 7f64.ln()).abs() < 1e-15);
        assert!((w[0] - 0.5 * ((1.0 + w2) / (1.0 - w2)).ln()).abs() < 1e-14);
        let model = learner.fit(&d, None, &mut Rng::new(1)).unwrap();
        let s = model.score_vec(&d).unwrap();
        assert!(s[0] > s[2] && s[2] > s[1]);
        assert!(s[5] > s[4] && s[4] > s[3]);
    }

    #[test]
    fn parameter_tables_match_the_defaults_and_the_readme() {
        let readme = include_str!("../README.md");
        ltr_core::check_table::<AdaRankMapParams>().unwrap();
        ltr_core::check_table::<AdaRankNdcgParams>().unwrap();
        ltr_core::check_readme::<AdaRankMapParams>(readme).unwrap();
        ltr_core::check_readme::<AdaRankNdcgParams>(readme).unwrap();
        // The README has one table for both ids: AdaRank-NDCG's keys.
        for row in ltr_core::readme_rows(readme) {
            assert!(AdaRankNdcgParams::TABLE.iter().any(|p| p.key == row.key), "README row `{}`", row.key);
        }
        assert!(AdaRankNdcgParams { k: 0, ..Default::default() }.validate().is_err());
        assert!(AdaRankMapParams { rounds: 100_001, ..Default::default() }.validate().is_err());
    }

    /// The training measure follows the convention the data carries. Query A has grades
    /// [1, 0], query B grades [2, 1]; feature 0 ranks A's grade 1 first and B's grade 1 first,
    /// feature 1 ranks A's grade 0 first and B's grade 2 first.
    ///
    /// letor3 (relevant from 1, also the default when the data names none): B is all relevant,
    /// so AP cannot change and B is left out; on A, AP(x0) = 1 and AP(x1) = 1/2: round 1 takes
    /// feature 0 with W = 1 and stops. mslr (relevant from 2): A has no relevant document and
    /// is left out; on B, AP(x0) = 1/2 and AP(x1) = 1: feature 1.
    #[test]
    fn the_training_measure_uses_the_data_convention() {
        let d = dataset(2, &[(&[1, 0], &[[1.0, 0.0], [0.0, 1.0]]), (&[2, 1], &[[0.0, 1.0], [1.0, 0.0]])]);
        let learner = AdaRankMapParams::default().validate().unwrap();
        for (data, loop_query, feature) in [
            (d.clone(), 0, 0),
            (d.clone().with_convention(Some(Convention::Letor3)), 0, 0),
            (d.clone().with_convention(Some(Convention::Mslr)), 1, 1),
        ] {
            let out = learner.fit_outcome(&data, None).unwrap();
            assert_eq!(out.loop_queries, vec![loop_query], "{:?}", data.convention());
            assert_eq!(out.stop, StopReason::Perfect);
            assert_eq!(out.model.rounds.len(), 1);
            assert_eq!(out.model.rounds[0].weak, FeatureRanker { feature, negated: false });
            assert_eq!(learner.boost_config(&data).eval, EvalConfig::of(&data));
        }
    }

    /// Only -x1 ranks the relevant documents first: with negated features the first round
    /// takes it, W = 1, and the loop stops; without, the best unflipped feature is used.
    #[test]
    fn negated_features_are_offered_when_asked() {
        let d = dataset(
            2,
            &[
                (&[1, 0, 0], &[[0.5, 0.1], [0.6, 0.9], [0.1, 0.5]]),
                (&[0, 1, 0], &[[0.2, 0.8], [0.1, 0.2], [0.9, 0.3]]),
            ],
        );
        let p = AdaRankMapParams { negated_features: true, ..Default::default() };
        let out = p.validate().unwrap().fit_outcome(&d, None).unwrap();
        assert_eq!(out.stop, StopReason::Perfect);
        assert_eq!(out.model.rounds[0].weak, FeatureRanker { feature: 1, negated: true });
        let out = AdaRankMapParams::default().validate().unwrap().fit_outcome(&d, None).unwrap();
        assert!(out.model.rounds.iter().all(|r| !r.weak.negated));
    }

    #[test]
    fn model_json_round_trip_is_bit_identical() {
        let d = dataset(
            2,
            &[
                (&[1, 0, 2, 0], &[[0.31, 0.17], [0.62, 0.91], [0.13, 0.55], [0.4, 0.4]]),
                (&[0, 1, 0], &[[0.2, 0.8], [0.11, 0.27], [0.93, 0.3]]),
                (&[2, 1, 0, 0], &[[0.7, 0.6], [0.5, 0.5], [0.3, 0.1], [0.35, 0.05]]),
            ],
        );
        // NDCG@10 would leave out every query (all have fewer than 10 documents).
        let ndcg = AdaRankNdcgParams { k: 3, negated_features: true, ..Default::default() };
        for l in [AdaRankMapParams::default().validate().unwrap(), ndcg.validate().unwrap()] {
            let model = l.fit(&d, None, &mut Rng::new(0)).unwrap();
            assert!(!model.rounds.is_empty());
            let json = serde_json::to_string(&model).unwrap();
            let back: AdaRankModel = serde_json::from_str(&json).unwrap();
            assert_eq!(back, model);
            assert_eq!(back.score_vec(&d).unwrap(), model.score_vec(&d).unwrap());
        }
        let err = AdaRankNdcgParams::default().validate().unwrap().fit(&d, None, &mut Rng::new(0));
        assert!(err.is_err());
    }
}
