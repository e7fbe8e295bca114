//! SSRankBoost (M.-R. Amini, T.-V. Truong, C. Goutte, "A boosting algorithm for learning
//! bipartite ranking functions with partially labeled data", SIGIR 2008), id `ssrankboost`.
//!
//! Semi-supervised RankBoost: the unlabelled documents most similar to a labelled one receive
//! its grade, and the exponential pair loss of RankBoost is minimised over the labelled pairs
//! plus, weighted by `lambda`, the pairs of these automatically labelled documents:
//!
//! ```text
//! L(F) = 1/|P_L| sum_{(x1, x2) in P_L} e^{F(x2) - F(x1)}
//!      + lambda/|P_U| sum_{(x1, x2) in P_U} e^{F(x2) - F(x1)}
//! ```
//!
//! Each round is RankBoost's on the distribution these two terms induce over `P_L` and `P_U`
//! (one distribution per set, mixed by their current totals), on the shared pair loop of
//! `ltr-boosting`. Without unlabelled documents (or with them dropped) it is RankBoost on the
//! labelled documents, exactly.
//!
//! LETOR labels every document, so the unlabelled set is made: a seeded fraction of each
//! training query's documents have their grades hidden ([`hidden_documents`]), drawn from the
//! training split's seed ([`ltr_core::Dataset::split_seed`], which the protocol derives from
//! the master seed and the content of the fold's files), so every grid point and every entry
//! of a fold hides the same documents.

use ltr_boosting::{Ensemble, ExpPairLoss, PairBooster, PairLoopParams, PairSet, ThresholdRanker};
use ltr_core::{
    AlgorithmInfo, Dataset, DatasetBuilder, Error, Family, FeatureWeights, Learner, LossType, ParamInfo,
    Params, Ranker, Result, Rng, Validation, derive_seed, param_info, param_table,
};
use serde::{Deserialize, Serialize};

mod labels;

pub use labels::{hidden_documents, pseudo_grades};

/// Metadata for the comparison tables.
///
/// Cost ([`ltr_core::FitCost`]): one fit at the defaults took 47.1 s at one thread on the
/// MSLR-WEB10K shape (728,521 training rows x 136 features), `just bench-budget` of 2026-11-27, one
/// fit at a time (the most recent row of its README's "Scale" section); linear in the rows and in
/// `rounds`.
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    id: "ssrankboost",
    name: "SSRankBoost",
    family: Family::Boosting,
    year: 2008,
    loss: LossType::Pairwise,
    optimizer: "boosting (exponential pair loss, labelled + nearest-neighbour-labelled pairs)",
    reference: "M.-R. Amini, T.-V. Truong, C. Goutte. A boosting algorithm for learning bipartite ranking \
                functions with partially labeled data. SIGIR 2008, pp. 99-106.",
    summary: "semi-supervised RankBoost (half the grades hidden)",
    // The neighbours that label the hidden documents are the nearest by Euclidean distance,
    // which weighs the features by their scales.
    feature_scale: ltr_core::FeatureScale::Matters,
    small_settings: &["rounds=10"],
    cost: Some(
        ltr_core::FitCost::mslr_web10k(47.1, "just bench-budget 2026-11-27, 1 thread")
            .budget(&[ltr_core::BudgetKey::linear("rounds", 300.0)]),
    ),
    ..AlgorithmInfo::DEFAULT
};

/// What becomes of the documents whose grades are hidden.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unlabeled {
    /// The paper's algorithm: they receive the grade of their nearest labelled documents and
    /// their pairs enter the loss with weight `unlabeled_weight`.
    #[default]
    Used,
    /// The supervised baseline: they are dropped, and RankBoost learns from the labelled
    /// documents alone.
    Dropped,
}

/// Hyperparameters of SSRankBoost (`ssrankboost`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SsRankBoostParams {
    /// Rounds, cuts and the initial pair weights within each pair set: the pair loop's keys
    /// at RankBoost's defaults.
    #[serde(flatten)]
    pub pair_loop: PairLoopParams,
    /// The fraction of each training query's documents whose grades are hidden. Default 0.5.
    pub hidden_fraction: f64,
    /// `used` (the paper) or `dropped` (RankBoost on the labelled documents). Default `used`.
    pub unlabeled: Unlabeled,
    /// `lambda`: the weight of the automatically labelled pairs' loss against the labelled
    /// pairs' (each normalised by its pair count). Default 1.
    pub unlabeled_weight: f64,
    /// How many of the nearest hidden documents each labelled document gives its grade to.
    /// Default 1.
    pub neighbours: usize,
}

impl Default for SsRankBoostParams {
    fn default() -> Self {
        Self {
            pair_loop: PairLoopParams::default(),
            hidden_fraction: 0.5,
            unlabeled: Unlabeled::Used,
            unlabeled_weight: 1.0,
            neighbours: 1,
        }
    }
}

/// The rows of SSRankBoost's own keys.
const OWN: &[ParamInfo] = &[
    ParamInfo::real("hidden_fraction", 0.0, 0.95, "fraction of each training query's grades hidden"),
    ParamInfo::choice(
        "unlabeled",
        &["used", "dropped"],
        "hidden documents labelled by neighbours, or dropped",
    ),
    ParamInfo::positive(
        "unlabeled_weight",
        0.0,
        1000.0,
        "lambda: weight of the neighbour-labelled pairs' loss",
    ),
    ParamInfo::int("neighbours", 1, 1000, "hidden documents each labelled document gives its grade to"),
];

impl Params for SsRankBoostParams {
    type Checked = SsRankBoost;

    const TABLE: &'static [ParamInfo] = param_table!(PairLoopParams::TABLE, OWN);

    fn validate(&self) -> Result<SsRankBoost> {
        self.pair_loop.check()?;
        param_info(Self::TABLE, "hidden_fraction").check_real(self.hidden_fraction)?;
        param_info(Self::TABLE, "unlabeled_weight").check_real(self.unlabeled_weight)?;
        param_info(Self::TABLE, "neighbours").check_int(self.neighbours as u64)?;
        Ok(SsRankBoost { params: self.clone() })
    }
}

/// A fitted SSRankBoost model: the ensemble, with what it was trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SsRankBoostModel {
    /// The fraction of the training documents whose grades were hidden.
    pub hidden_fraction: f64,
    /// The fraction of the training documents that received a grade from a labelled
    /// neighbour (0 with `unlabeled = "dropped"`).
    pub pseudo_labelled_fraction: f64,
    /// `f(x) = sum_t alpha_t h_t(x)`.
    pub ensemble: Ensemble<ThresholdRanker>,
}

impl Ranker for SsRankBoostModel {
    fn n_features(&self) -> usize {
        self.ensemble.n_features
    }

    fn check(&self) -> Result<()> {
        for (name, v) in [
            ("hidden_fraction", self.hidden_fraction),
            ("pseudo_labelled_fraction", self.pseudo_labelled_fraction),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::model(format!("{name} = {v} is not a fraction")));
            }
        }
        self.ensemble.check()
    }

    fn score_row(&self, row: &[f32]) -> f64 {
        self.ensemble.score_row(row)
    }

    fn feature_weights(&self) -> FeatureWeights<'_> {
        self.ensemble.feature_weights()
    }

    fn model_size(&self) -> ltr_core::ModelSize {
        self.ensemble.model_size()
    }
}

/// Validated SSRankBoost.
#[derive(Debug, Clone, PartialEq)]
pub struct SsRankBoost {
    params: SsRankBoostParams,
}

/// The training data of one fit: which documents are hidden and what grades the hidden ones
/// received.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// Per training document, whether its grade is hidden.
    pub hidden: Vec<bool>,
    /// Per training document, the grade a labelled neighbour gave it (hidden documents only;
    /// none with `unlabeled = "dropped"`).
    pub pseudo: Vec<Option<u8>>,
}

impl Partition {
    fn fraction(&self, count: usize) -> f64 {
        if self.hidden.is_empty() { 0.0 } else { count as f64 / self.hidden.len() as f64 }
    }

    /// The fraction of documents hidden.
    pub fn hidden_fraction(&self) -> f64 {
        self.fraction(self.hidden.iter().filter(|&&h| h).count())
    }

    /// The fraction of documents with a neighbour's grade.
    pub fn pseudo_labelled_fraction(&self) -> f64 {
        self.fraction(self.pseudo.iter().filter(|p| p.is_some()).count())
    }
}

impl SsRankBoost {
    /// The parameters this learner was validated from.
    pub fn params(&self) -> &SsRankBoostParams {
        &self.params
    }

    /// The hidden documents of `train` under these parameters and, with `unlabeled = "used"`,
    /// their neighbours' grades. The documents hidden are drawn from `seed` alone (with the
    /// fraction), never from the other parameters.
    pub fn partition(&self, train: &Dataset, seed: u64) -> Partition {
        let hidden = hidden_documents(train, self.params.hidden_fraction, seed);
        let pseudo = match self.params.unlabeled {
            Unlabeled::Used => pseudo_grades(train, &hidden, self.params.neighbours),
            Unlabeled::Dropped => vec![None; train.n_docs()],
        };
        Partition { hidden, pseudo }
    }

    /// [`SsRankBoost::partition`] of `train` as [`Learner::fit`] makes it (the seed from
    /// [`SsRankBoost::hiding_seed`]).
    pub fn fit_partition_of(&self, train: &Dataset, rng: &mut Rng) -> Partition {
        self.partition(train, Self::hiding_seed(train, rng))
    }

    /// The seed the hidden documents are drawn from: the training split's, else (data not
    /// built by the protocol, e.g. `ltr train`) the next value of `rng`.
    pub fn hiding_seed(train: &Dataset, rng: &mut Rng) -> u64 {
        derive_seed(train.split_seed().unwrap_or_else(|| rng.next_u64()), &["ssrankboost hidden grades"])
    }
}

/// The labelled documents of `train` alone (queries left empty are dropped).
fn labelled_only(train: &Dataset, hidden: &[bool]) -> Result<Dataset> {
    let mut b = DatasetBuilder::new(train.n_features());
    for q in train.queries() {
        if q.range().all(|i| hidden[i]) {
            continue;
        }
        b.start_query(q.qid);
        for (k, i) in q.range().enumerate() {
            if !hidden[i] {
                b.push_doc(q.labels[k], q.row(k), None)?;
            }
        }
    }
    Ok(b.finish()?.with_convention(train.convention()))
}

impl Learner for SsRankBoost {
    type Model = SsRankBoostModel;

    /// Hides the grades, labels the hidden documents from their neighbours (or drops them),
    /// and plays up to `rounds` rounds; with `valid`, keeps the best prefix on it. `rng` is
    /// drawn from only when `train` carries no split seed.
    fn fit(
        &self,
        train: &Dataset,
        valid: Option<&Validation<'_>>,
        rng: &mut Rng,
    ) -> Result<SsRankBoostModel> {
        let part = self.fit_partition_of(train, rng);
        self.fit_partition(train, &part, valid)
    }
}

impl SsRankBoost {
    /// [`Learner::fit`] with the hidden documents and their grades given.
    pub fn fit_partition(
        &self,
        train: &Dataset,
        part: &Partition,
        valid: Option<&Validation<'_>>,
    ) -> Result<SsRankBoostModel> {
        let p = &self.params;
        let (hidden_fraction, pseudo_labelled_fraction) =
            (part.hidden_fraction(), part.pseudo_labelled_fraction());
        log::debug!(
            "ssrankboost: {:.3} of the training documents hidden, {:.3} labelled by a neighbour",
            hidden_fraction,
            pseudo_labelled_fraction
        );
        let ensemble = match p.unlabeled {
            Unlabeled::Dropped => {
                let labelled = labelled_only(train, &part.hidden)?;
                let cuts = p.pair_loop.cuts(&labelled, INFO.id)?;
                let loss = ExpPairLoss::new(vec![(p.pair_loop.grade_pairs(&labelled), 1.0)], INFO.id)?;
                PairBooster::new(&labelled, cuts, loss).run(p.pair_loop.rounds, valid, INFO.id)?
            }
            Unlabeled::Used => {
                let cuts = p.pair_loop.cuts(train, INFO.id)?;
                let weighting = p.pair_loop.pair_weighting;
                let grade = |i: usize| f64::from(train.labels()[i]);
                let labelled = PairSet::from_keys(train, weighting, |i| (!part.hidden[i]).then(|| grade(i)));
                let auto = PairSet::from_keys(train, weighting, |i| part.pseudo[i].map(f64::from));
                // Each term normalised by its total initial weight; a set without a pair (no
                // hidden document, say) is dropped by the loss, which is then RankBoost's.
                let (m_labelled, m_auto) = (1.0 / labelled.mass(), p.unlabeled_weight / auto.mass());
                let sets = vec![(labelled, m_labelled), (auto, m_auto)];
                let loss = ExpPairLoss::new(sets, INFO.id)?;
                PairBooster::new(train, cuts, loss).run(p.pair_loop.rounds, valid, INFO.id)?
            }
        };
        Ok(SsRankBoostModel { hidden_fraction, pseudo_labelled_fraction, ensemble })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
