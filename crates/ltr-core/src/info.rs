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
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
    /// What one fit at the defaults was measured to cost, and how the cost scales (`None`:
    /// no measurement; `ltr estimate` lists it as such and leaves it out of its total).
    #[serde(skip)]
    pub cost: Option<FitCost>,
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
        cost: None,
    };
}

/// The measured cost of one fit of an algorithm at its defaults, and how it scales with the
/// data and the parameters: what `ltr estimate` predicts a spec's time from.
///
/// A fit on `rows` training rows of `features` features, with each [`BudgetKey`] at `value`,
/// is predicted to take `fit_seconds x (rows / train_rows)^row_exponent x (features /
/// self.features) x product(value / default)` seconds at `threads` threads.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitCost {
    /// Wall seconds of one fit at the defaults, parsing excluded (`ltr train`'s "trained ...
    /// in" line, as `just bench-budget` reports it).
    pub fit_seconds: f64,
    /// Training rows of the data it was measured on.
    pub train_rows: u64,
    /// Features of that data.
    pub features: u32,
    /// Threads the fit ran with.
    pub threads: u32,
    /// How the time grows with the training rows: `(rows / train_rows)^row_exponent` (1.0
    /// unless a scaling curve was measured).
    pub row_exponent: f64,
    /// The parameters the time is proportional to, with their defaults: a round, tree or
    /// epoch count. A fit with `trees = 500` where the default is 100 costs 5 times as much.
    pub budget: &'static [BudgetKey],
    /// Which measurement this is, in a few words (date, shape, threads).
    pub measured: &'static str,
}

/// A parameter a fit's time grows with ([`FitCost::budget`]): as `(value / default)^exponent`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BudgetKey {
    /// The parameter, as a spec writes it.
    pub key: &'static str,
    /// Its default, at which [`FitCost::fit_seconds`] was measured.
    pub default: f64,
    /// How the time grows with it: 1 for a round, tree or epoch count; less for a size whose
    /// cost is partly fixed, measured at two values.
    pub exponent: f64,
}

impl BudgetKey {
    /// A count the time is proportional to (rounds, trees, epochs).
    pub const fn linear(key: &'static str, default: f64) -> Self {
        Self { key, default, exponent: 1.0 }
    }

    /// A parameter the time grows with as `(value / default)^exponent`.
    pub const fn power(key: &'static str, default: f64, exponent: f64) -> Self {
        Self { key, default, exponent }
    }

    /// The factor of a fit with this parameter at `value`.
    pub fn factor(&self, value: f64) -> f64 {
        let ratio = value / self.default;
        if self.exponent == 1.0 { ratio } else { ratio.powf(self.exponent) }
    }
}

impl FitCost {
    /// Training rows of Fold1 of `ltr synth --shape mslr-web10k --folds 1 --seed 1`, the
    /// shape `just bench-budget` measures at.
    pub const MSLR_WEB10K_ROWS: u64 = 728_521;
    /// Features of that shape.
    pub const MSLR_WEB10K_FEATURES: u32 = 136;
    /// Training rows of the largest shape within a scale limit of 150,000 rows, at which
    /// `just bench-budget` measures a limited algorithm (fewer queries of the same shape).
    pub const LIMITED_ROWS: u64 = 149_860;

    /// One fit at the MSLR-WEB10K shape taking `fit_seconds` at one thread, linear in the
    /// rows, with no budget keys.
    pub const fn mslr_web10k(fit_seconds: f64, measured: &'static str) -> Self {
        Self {
            fit_seconds,
            train_rows: Self::MSLR_WEB10K_ROWS,
            features: Self::MSLR_WEB10K_FEATURES,
            threads: 1,
            row_exponent: 1.0,
            budget: &[],
            measured,
        }
    }

    /// The same cost, proportional to these parameters.
    pub const fn budget(self, budget: &'static [BudgetKey]) -> Self {
        Self { budget, ..self }
    }

    /// The same cost, measured at `threads` threads.
    pub const fn threads(self, threads: u32) -> Self {
        Self { threads, ..self }
    }

    /// The seconds of one fit on `rows` training rows of `features` features, whose budget
    /// keys have the values `value_of` returns (`None`: the default).
    pub fn seconds(&self, rows: u64, features: u64, value_of: impl Fn(&str) -> Option<f64>) -> f64 {
        let rows = rows as f64 / self.train_rows as f64;
        let features = features as f64 / f64::from(self.features);
        let budget: f64 = self.budget.iter().map(|b| value_of(b.key).map_or(1.0, |v| b.factor(v))).product();
        self.fit_seconds * rows.powf(self.row_exponent) * features * budget
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const TREES: FitCost = FitCost::mslr_web10k(10.0, "test").budget(&[BudgetKey::linear("trees", 100.0)]);

    /// Hand-derived: twice the rows (linear), twice the features, 200 trees of a default 100:
    /// 2 x 2 x 2 = 8 times the base; a key left at its default or another key changes nothing.
    #[test]
    fn a_fit_scales_with_rows_features_and_its_budget_keys() {
        let rows = 2 * FitCost::MSLR_WEB10K_ROWS;
        let at = |key: &str| (key == "trees").then_some(200.0);
        assert_eq!(TREES.seconds(rows, 272, at), 80.0);
        assert_eq!(TREES.seconds(FitCost::MSLR_WEB10K_ROWS, 136, |_| None), 10.0);
        assert_eq!(TREES.seconds(FitCost::MSLR_WEB10K_ROWS, 136, |k| (k == "leaves").then_some(7.0)), 10.0);
        // rows^2: four times the rows cost 16 times as much; two keys multiply.
        let square = FitCost { row_exponent: 2.0, ..FitCost::mslr_web10k(1.0, "test") }.budget(
            const { &[BudgetKey::linear("population", 50.0), BudgetKey::linear("generations", 20.0)] },
        );
        let v = |k: &str| match k {
            "population" => Some(200.0),
            "generations" => Some(10.0),
            _ => None,
        };
        assert_eq!(square.seconds(4 * FitCost::MSLR_WEB10K_ROWS, 136, v), 16.0 * 4.0 * 0.5);
        assert_eq!(TREES.threads(2).threads, 2);
        // A key with exponent 1/2: four times its default costs twice as much, a quarter half.
        let sqrt =
            FitCost::mslr_web10k(10.0, "test").budget(const { &[BudgetKey::power("leaves", 31.0, 0.5)] });
        assert_eq!(sqrt.seconds(FitCost::MSLR_WEB10K_ROWS, 136, |_| Some(124.0)), 20.0);
        assert_eq!(sqrt.seconds(FitCost::MSLR_WEB10K_ROWS, 136, |_| Some(7.75)), 5.0);
    }
}
