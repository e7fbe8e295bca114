//! Static algorithm metadata rendered in the comparison tables.

use serde::{Deserialize, Serialize};

/// The family column of a survey's algorithm table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Family {
    /// Regression on the grades, ordinal regression included (PRank's thresholds).
    Regression,
    /// Large-margin methods.
    #[serde(rename = "SVM")]
    Svm,
    /// Boosting over weak rankers.
    Boosting,
    /// Gradient-boosted trees.
    Trees,
    /// Neural networks.
    #[serde(rename = "ANN")]
    Ann,
    /// Evolutionary search: genetic algorithms and genetic programming (the survey's
    /// optimiser "GA").
    Evolutionary,
    /// Bayesian decision methods: a probability model of rankings and the expected loss
    /// (Bayes risk) of its decisions.
    Bayes,
    /// Baselines that learn no combination of features: the best single feature.
    Baseline,
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Regression => "Regression",
            Self::Svm => "SVM",
            Self::Boosting => "Boosting",
            Self::Trees => "Trees",
            Self::Ann => "ANN",
            Self::Evolutionary => "Evolutionary",
            Self::Bayes => "Bayes",
            Self::Baseline => "Baseline",
        })
    }
}

/// The loss column: what the training objective looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossType {
    /// One document at a time.
    Pointwise,
    /// Pairs of documents of one query.
    Pairwise,
    /// Whole ranked lists.
    Listwise,
    /// A mix, e.g. regression plus pairwise (CRR).
    Hybrid,
}

impl std::fmt::Display for LossType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Pointwise => "pointwise",
            Self::Pairwise => "pairwise",
            Self::Listwise => "listwise",
            Self::Hybrid => "pointwise+pairwise",
        })
    }
}

/// Metadata every algorithm crate exports as a `pub const INFO: AlgorithmInfo`: the survey
/// table's columns and every other fact the harness needs about the algorithm, so that the
/// registry line is the only place the harness names it.
///
/// An INFO const states its columns and only the facts that differ from
/// [`AlgorithmInfo::DEFAULT`] (`..AlgorithmInfo::DEFAULT`). The harness-only facts are not
/// serialised: reports carry the table's columns, as they always did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AlgorithmInfo {
    /// The id used in specs, on the command line and in reports (`regression`, `ranksvm`, ...).
    pub id: &'static str,
    /// Display name (`RankSVM`).
    pub name: &'static str,
    /// Family column.
    pub family: Family,
    /// Year of the reference publication.
    pub year: u16,
    /// Loss column.
    pub loss: LossType,
    /// Optimizer column (`Cholesky`, `truncated Newton`, ...).
    pub optimizer: &'static str,
    /// Reference publication, one line.
    pub reference: &'static str,
    /// What it is in a few words, for the README's algorithm table (`ridge`); empty: nothing
    /// beyond its name.
    #[serde(skip)]
    pub summary: &'static str,
    /// The validation metric it selects with unless the spec says otherwise, as a spec writes
    /// it (`map`, `ndcg@10`; the harness parses it).
    #[serde(skip)]
    pub validation_metric: &'static str,
    /// The largest training split it is run on (`None`: any size).
    #[serde(skip)]
    pub scale_limit: Option<ScaleLimit>,
    /// Whether its fits depend on the scale of the features.
    #[serde(skip)]
    pub feature_scale: FeatureScale,
    /// `key=value` settings that make a fit short (a few rounds or epochs), for the fuzzers'
    /// corpus of model files.
    #[serde(skip)]
    pub small_settings: &'static [&'static str],
}

impl AlgorithmInfo {
    /// The base every INFO const completes: no name, selects with MAP, no scale limit,
    /// depends on feature scales, no short settings.
    pub const DEFAULT: Self = Self {
        id: "",
        name: "",
        family: Family::Regression,
        year: 0,
        loss: LossType::Pointwise,
        optimizer: "",
        reference: "",
        summary: "",
        validation_metric: "map",
        scale_limit: None,
        feature_scale: FeatureScale::Matters,
        small_settings: &[],
    };
}

/// The training size above which an algorithm is refused, measured at the MSLR-WEB10K shape
/// (`just bench-budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScaleLimit {
    /// Training rows per fold above which it is refused.
    pub max_train_rows: u64,
    /// What was measured, for the refusal message.
    pub measured: &'static str,
}

/// Whether multiplying a feature by a positive constant (the same for every document) can
/// change an algorithm's rankings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FeatureScale {
    /// It can: the algorithm weighs raw feature values.
    Matters,
    /// It cannot, for the reason given.
    Free(&'static str),
    /// It cannot when the boolean parameter `key` is true, for the reason given.
    FreeWhen {
        /// The parameter.
        key: &'static str,
        /// Why.
        why: &'static str,
    },
}

impl FeatureScale {
    /// Why standardising learners are scale-free.
    pub const STANDARDISES: &'static str = "standardises every feature with the training split's moments";
    /// The learners that standardise every feature themselves.
    pub const STANDARDISED: Self = Self::Free(Self::STANDARDISES);
    /// The tree learners.
    pub const QUANTILE_BINS: Self = Self::Free("trees split on quantile bins of each feature");
}
