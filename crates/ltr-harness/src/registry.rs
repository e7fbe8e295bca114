//! The closed set of algorithms: one enum variant per algorithm id, typed parameters, typed
//! models, parameter tables. Adding an algorithm is one line in the `registry!` invocation
//! below (`Variant => "id", crate::ParamsType, crate::INFO, randomness;`); every other fact
//! about it (validation metric, scale limit, feature scales, short settings) is in its INFO
//! const. Its randomness (whether its fits draw from their seed) is stated here, beside the
//! registry's test that fits every algorithm with two seeds and checks it.

use ltr_core::{
    AlgorithmInfo, Dataset, FeatureWeights, Learner, ParamInfo, ParamRange, Params, Ranker, Rng, Validation,
};
use ltr_metrics::Metric;
use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};

macro_rules! registry {
    ($( $variant:ident => $id:literal, $krate:ident :: $params:ident, $info:expr, $random:expr; )*) => {
        /// Typed hyperparameters of one algorithm (serialised as
        /// `{"algorithm": "<id>", "params": {...}}`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "algorithm", content = "params")]
        pub enum AlgoConfig {
            $(
                #[doc = concat!("`", $id, "`")]
                #[serde(rename = $id)]
                $variant($krate::$params),
            )*
        }

        /// A fitted model of any algorithm (serialised as `{"algorithm": "<id>", "model": {...}}`).
        ///
        /// Deserialising checks the model ([`AnyModel::check`]): every model loaded from a
        /// file or the result store is one that scores data of its width without panicking
        /// and reads no feature past it.
        #[derive(Debug, Clone, Serialize, Deserialize)]
        #[serde(tag = "algorithm", content = "model", try_from = "RawAnyModel")]
        pub enum AnyModel {
            $(
                #[doc = concat!("`", $id, "`")]
                #[serde(rename = $id)]
                $variant(<<$krate::$params as Params>::Checked as Learner>::Model),
            )*
        }

        /// [`AnyModel`] as read, before its check.
        #[derive(Deserialize)]
        #[serde(tag = "algorithm", content = "model")]
        enum RawAnyModel {
            $(
                #[serde(rename = $id)]
                $variant(<<$krate::$params as Params>::Checked as Learner>::Model),
            )*
        }

        impl TryFrom<RawAnyModel> for AnyModel {
            type Error = String;
            fn try_from(raw: RawAnyModel) -> std::result::Result<Self, String> {
                let model = match raw { $(RawAnyModel::$variant(m) => Self::$variant(m),)* };
                model.check().map_err(|e| match e {
                    ltr_core::Error::InvalidModel { reason } => format!("{} model: {reason}", model.id()),
                    other => format!("{} model: {other}", model.id()),
                })?;
                Ok(model)
            }
        }

        /// Metadata of every registered algorithm, in registry order.
        pub const ALGORITHMS: &[AlgorithmInfo] = &[$($info),*];

        impl AlgoConfig {
            /// The algorithm id.
            pub fn id(&self) -> &'static str {
                match self { $(Self::$variant(_) => $id,)* }
            }

            /// The algorithm's metadata.
            pub fn info(&self) -> &'static AlgorithmInfo {
                match self { $(Self::$variant(_) => &$info,)* }
            }

            /// Whether the algorithm's fits draw from their seed, and when ([`Randomness`]).
            pub fn randomness(&self) -> Randomness {
                match self { $(Self::$variant(_) => $random,)* }
            }

            /// The default parameters of an algorithm id.
            pub fn default_for(id: &str) -> Result<Self> {
                match id {
                    $($id => Ok(Self::$variant(<$krate::$params>::default())),)*
                    _ => Err(unknown(id)),
                }
            }

            /// Typed parameters from a key-value table (missing keys take their defaults; a
            /// key outside the algorithm's parameter table is refused, naming the valid ones).
            pub fn from_table(id: &str, table: toml::Table) -> Result<Self> {
                check_keys(id, table.keys().map(String::as_str))?;
                match id {
                    $($id => {
                        let params: $krate::$params = toml::Value::Table(table.clone())
                            .try_into()
                            .map_err(|e| param_error(id, &table, &e.to_string(), |t| {
                                toml::Value::Table(t).try_into::<$krate::$params>().is_ok()
                            }))?;
                        Ok(Self::$variant(params))
                    })*
                    _ => Err(unknown(id)),
                }
            }

            /// Checks every parameter constraint (no data touched).
            pub fn validate(&self) -> Result<()> {
                match self {
                    $(Self::$variant(p) => p.validate().map(|_| ()).map_err(|e| core_param_error($id, e)),)*
                }
            }

            /// Fits a model.
            pub fn fit(&self, train: &Dataset, valid: Option<&Validation<'_>>, rng: &mut Rng) -> ltr_core::Result<AnyModel> {
                match self {
                    $(Self::$variant(p) => Ok(AnyModel::$variant(p.validate()?.fit(train, valid, rng)?)),)*
                }
            }

            /// Computes what this configuration's fits derive from `train` alone and share
            /// ([`Learner::prepare`]: the tree learners bin the features).
            pub fn prepare(&self, train: &Dataset) -> ltr_core::Result<()> {
                match self {
                    $(Self::$variant(p) => p.validate()?.prepare(train),)*
                }
            }

            /// The parameters as a JSON object.
            pub fn params_json(&self) -> serde_json::Value {
                match self {
                    $(Self::$variant(p) => serde_json::to_value(p).unwrap_or(serde_json::Value::Null),)*
                }
            }
        }

        impl AnyModel {
            /// The algorithm id.
            pub fn id(&self) -> &'static str {
                match self { $(Self::$variant(_) => $id,)* }
            }

            /// Number of features the model expects.
            pub fn n_features(&self) -> usize {
                match self { $(Self::$variant(m) => m.n_features(),)* }
            }

            /// The model's own checks ([`Ranker::check`]): width bounded, every feature it
            /// reads inside it, parts of matching sizes.
            pub fn check(&self) -> ltr_core::Result<()> {
                match self { $(Self::$variant(m) => Ranker::check(m),)* }
            }

            /// Scores every document of `data` into `out`.
            pub fn score(&self, data: &Dataset, out: &mut [f64]) -> ltr_core::Result<()> {
                match self { $(Self::$variant(m) => m.score(data, out),)* }
            }

            /// What the model's feature importance is computed from
            /// ([`Ranker::feature_weights`]).
            pub fn feature_weights(&self) -> FeatureWeights<'_> {
                match self { $(Self::$variant(m) => m.feature_weights(),)* }
            }

            /// How many features the model reads and how many rounds, stages or trees it
            /// kept ([`Ranker::model_size`]).
            pub fn model_size(&self) -> ltr_core::ModelSize {
                match self { $(Self::$variant(m) => m.model_size(),)* }
            }

            /// Scores into a new vector.
            pub fn score_vec(&self, data: &Dataset) -> ltr_core::Result<Vec<f64>> {
                let mut out = vec![0.0; data.n_docs()];
                self.score(data, &mut out)?;
                Ok(out)
            }
        }

        /// The workspace crate (`ltr-lambdamart`) that implements an algorithm id.
        pub fn crate_of(id: &str) -> Result<String> {
            match id {
                $($id => Ok(stringify!($krate).replace('_', "-")),)*
                _ => Err(unknown(id)),
            }
        }

        /// Whether an algorithm id's fits draw from their seed ([`AlgoConfig::randomness`]).
        pub fn randomness(id: &str) -> Result<Randomness> {
            match id {
                $($id => Ok($random),)*
                _ => Err(unknown(id)),
            }
        }

        /// The parameter table of an algorithm id (`<P as Params>::TABLE`).
        pub fn param_table(id: &str) -> Result<&'static [ParamInfo]> {
            match id {
                $($id => Ok(<$krate::$params as Params>::TABLE),)*
                _ => Err(unknown(id)),
            }
        }
    };
}

/// Whether an algorithm's fits draw from the seed they are given: what fitting a configuration
/// again with another seed can change (a spec's `seeds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Randomness {
    /// Never: every seed gives the same model.
    Never,
    /// Always: initial weights, the order of examples, sampled pairs or mutations. (SSRankBoost
    /// is not one: the grades it hides are drawn from the training split's seed, the same for
    /// every grid point and seed; the RankSVM ensemble draws the order of its members only when
    /// it selects them on a validation split, as the protocol always has it do.)
    Always,
    /// Only when one of these flags is on (a seeded order of examples).
    WhenOn(&'static [&'static str]),
    /// Only when one of these parameters, a fraction sampled for each tree, is below 1.
    WhenSampling(&'static [&'static str]),
}

/// The tree learner's sampling fractions (`ltr-trees`): its only draws from the seed.
const TREE_SAMPLING: Randomness = Randomness::WhenSampling(&["row_subsample", "feature_subsample"]);

/// PRank visits the documents in a seeded order when it shuffles, else in file order.
const PRANK_ORDER: Randomness = Randomness::WhenOn(&["shuffle"]);

impl AlgoConfig {
    /// Whether a fit of these parameters draws from its seed ([`AlgoConfig::randomness`]):
    /// with `false`, every seed gives the same model.
    pub fn draws_from_seed(&self) -> bool {
        match self.randomness() {
            Randomness::Never => false,
            Randomness::Always => true,
            Randomness::WhenOn(keys) => {
                let params = self.params_json();
                keys.iter().any(|k| params.get(*k).and_then(serde_json::Value::as_bool) == Some(true))
            }
            Randomness::WhenSampling(keys) => {
                let params = self.params_json();
                keys.iter()
                    .any(|k| params.get(*k).and_then(serde_json::Value::as_f64).is_some_and(|f| f < 1.0))
            }
        }
    }
}

registry! {
    Regression => "regression", ltr_pointwise::RegressionParams, ltr_pointwise::REGRESSION_INFO, Randomness::Never;
    Prank => "prank", ltr_pointwise::PrankParams, ltr_pointwise::PRANK_INFO, PRANK_ORDER;
    RankSvm => "ranksvm", ltr_ranksvm::RankSvmParams, ltr_ranksvm::INFO, Randomness::Never;
    Crr => "crr", ltr_crr::CrrParams, ltr_crr::INFO, Randomness::Always;
    PcRank => "pcrank", ltr_pcrank::PcRankParams, ltr_pcrank::INFO, Randomness::Never;
    RankBoost => "rankboost", ltr_rankboost::RankBoostParams, ltr_rankboost::INFO, Randomness::Never;
    AdaRankMap => "adarank-map", ltr_adarank::AdaRankMapParams, ltr_adarank::INFO_MAP, Randomness::Never;
    AdaRankNdcg => "adarank-ndcg", ltr_adarank::AdaRankNdcgParams, ltr_adarank::INFO_NDCG, Randomness::Never;
    LambdaMart => "lambdamart", ltr_lambdamart::LambdaMartParams, ltr_lambdamart::INFO, TREE_SAMPLING;
    IntervalRank => "intervalrank", ltr_intervalrank::IntervalRankParams, ltr_intervalrank::INFO, TREE_SAMPLING;
    RankNet => "ranknet", ltr_ranknet::RankNetParams, ltr_ranknet::INFO_RANKNET, Randomness::Always;
    LambdaRank => "lambdarank", ltr_ranknet::LambdaRankParams, ltr_ranknet::INFO_LAMBDARANK, Randomness::Always;
    ListNet => "listnet", ltr_listnet::ListNetParams, ltr_listnet::INFO_LISTNET, Randomness::Always;
    ListMle => "listmle", ltr_listnet::ListMleParams, ltr_listnet::INFO_LISTMLE, Randomness::Always;
    RankSvmEnsemble => "ranksvm-ensemble", ltr_ranksvm_ensemble::EnsembleParams, ltr_ranksvm_ensemble::INFO, Randomness::Always;
    IrSvm => "ir-svm", ltr_irsvm::IrSvmParams, ltr_irsvm::INFO, Randomness::Never;
    RankLr => "ranklr", ltr_ranklr::RankLrParams, ltr_ranklr::INFO, Randomness::Never;
    FenchelRank => "fenchelrank", ltr_fenchelrank::FenchelRankParams, ltr_fenchelrank::INFO, Randomness::Never;
    RankCosine => "rankcosine", ltr_rankcosine::RankCosineParams, ltr_rankcosine::INFO, Randomness::Never;
    Cascade => "cascade", ltr_cascade::CascadeParams, ltr_cascade::INFO, Randomness::Never;
    McRank => "mcrank", ltr_mcrank::McRankParams, ltr_mcrank::INFO, TREE_SAMPLING;
    GbRank => "gbrank", ltr_gbrank::GbRankParams, ltr_gbrank::INFO_GBRANK, TREE_SAMPLING;
    QbRank => "qbrank", ltr_gbrank::QbRankParams, ltr_gbrank::INFO_QBRANK, TREE_SAMPLING;
    RankRls => "rankrls", ltr_rankrls::RankRlsParams, ltr_rankrls::INFO, Randomness::Never;
    Slr => "slr", ltr_slr::SlrParams, ltr_slr::INFO, Randomness::Never;
    RankGp => "rankgp", ltr_rankgp::RankGpParams, ltr_rankgp::INFO, Randomness::Always;
    SvmMap => "svm-map", ltr_svmmap::SvmMapParams, ltr_svmmap::INFO, Randomness::Never;
    PermuRank => "permurank", ltr_permurank::PermuRankParams, ltr_permurank::INFO, Randomness::Never;
    MpBoost => "mpboost", ltr_mpboost::MpBoostParams, ltr_mpboost::INFO, Randomness::Never;
    RankRefine => "rankrefine", ltr_rankrefine::RankRefineParams, ltr_rankrefine::INFO, Randomness::Never;
    SsRankBoost => "ssrankboost", ltr_ssrankboost::SsRankBoostParams, ltr_ssrankboost::INFO, Randomness::Never;
    FRank => "frank", ltr_frank::FRankParams, ltr_frank::INFO, Randomness::Never;
    NdcgBoost => "ndcgboost", ltr_ndcgboost::NdcgBoostParams, ltr_ndcgboost::INFO, Randomness::Never;
    SoftRank => "softrank", ltr_softrank::SoftRankParams, ltr_softrank::INFO, Randomness::Always;
    BayesRank => "bayesrank", ltr_bayesrank::BayesRankParams, ltr_bayesrank::INFO, Randomness::Always;
    BoltzRank => "boltzrank", ltr_boltzrank::BoltzRankParams, ltr_boltzrank::INFO, Randomness::Always;
    SortNet => "sortnet", ltr_sortnet::SortNetParams, ltr_sortnet::INFO, Randomness::Always;
    BestFeature => "best-feature", ltr_bestfeature::BestFeatureParams, ltr_bestfeature::INFO, Randomness::Never;
}

/// A model file, as `ltr train` writes it and `ltr predict` reads it: the fitted model with
/// what produced it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelFile {
    /// ltr version that wrote it.
    pub ltr_version: String,
    /// Parameters.
    pub config: AlgoConfig,
    /// Seed.
    pub seed: u64,
    /// Feature count of the training data.
    pub n_features: usize,
    /// The model.
    pub model: AnyModel,
    /// The feature normalisation fitted on the training data, applied to any data before the
    /// model scores it (absent in files without one, as in those written before it existed).
    #[serde(default, skip_serializing_if = "ltr_data::normalize::Normalizer::is_none")]
    pub normalizer: ltr_data::normalize::Normalizer,
}

/// The largest model file read (1 GiB): far above the largest model the registry's parameter
/// ranges allow, small enough to refuse a wrong file before it fills the memory.
pub const MAX_MODEL_BYTES: u64 = 1 << 30;

impl ModelFile {
    /// `data` through the model's feature normalisation, the one its training data went
    /// through (as given when it has none): what the model scores.
    pub fn prepare(&self, data: Dataset) -> Result<Dataset> {
        if self.normalizer.is_none() {
            return Ok(data);
        }
        Ok(self.normalizer.apply(&data)?)
    }

    /// The file's text: one line of JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string(self)
            .map(|t| t + "\n")
            .map_err(|e| HarnessError::Serialize { what: "the model".into(), reason: e.to_string() })
    }

    /// Reads a model file's text and checks it ([`ModelFile::check`]): a file that parses
    /// but does not hold together is refused here, before any data is read for it.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        let file: Self = serde_json::from_slice(bytes).map_err(|e| ltr_core::Error::model(e.to_string()))?;
        // The parameter types embed shared keys flat, which serde cannot combine with refusing
        // unknown fields: the keys are checked against the parameter table, as in specs.
        let keys: ParamKeys =
            serde_json::from_slice(bytes).map_err(|e| ltr_core::Error::model(e.to_string()))?;
        check_keys(file.config.id(), keys.config.params.keys().map(String::as_str))?;
        file.check()?;
        Ok(file)
    }

    /// The declared feature count is at most [`ltr_core::MAX_FEATURES`] and is the model's
    /// own; the parameters and the model are of one algorithm; the model passes its own
    /// checks ([`AnyModel::check`]).
    pub fn check(&self) -> Result<()> {
        if self.n_features > ltr_core::MAX_FEATURES {
            return Err(ltr_core::Error::model(format!(
                "n_features = {} is above the largest supported, {}",
                self.n_features,
                ltr_core::MAX_FEATURES
            ))
            .into());
        }
        if self.model.n_features() != self.n_features {
            return Err(ltr_core::Error::model(format!(
                "the file declares n_features = {} but its {} model has {}",
                self.n_features,
                self.model.id(),
                self.model.n_features()
            ))
            .into());
        }
        if self.config.id() != self.model.id() {
            return Err(ltr_core::Error::model(format!(
                "the parameters are {}'s but the model is {}'s",
                self.config.id(),
                self.model.id()
            ))
            .into());
        }
        self.model.check()?;
        self.normalizer.check(self.n_features)?;
        Ok(())
    }
}

/// The parameter keys of a model file, as written (the model itself is skipped unread).
#[derive(Deserialize)]
struct ParamKeys {
    config: ParamKeysOf,
}

/// `config` of [`ParamKeys`].
#[derive(Deserialize)]
struct ParamKeysOf {
    #[serde(default)]
    params: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

/// One parameter as `ltr algorithms` prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDoc {
    /// The key in specs and `--set`.
    pub key: String,
    /// Its default (from `Params::default()`).
    pub default: serde_json::Value,
    /// Valid values, from the parameter table (`None`: the table has no row for the key).
    pub range: Option<ParamRange>,
    /// One line, from the parameter table.
    pub doc: Option<&'static str>,
}

/// Every parameter of an algorithm id: the table's rows in table order with their defaults,
/// then any key of the defaults the table lacks.
pub fn parameters(id: &str) -> Result<Vec<ParamDoc>> {
    let defaults = AlgoConfig::default_for(id)?.params_json();
    Ok(join_table(param_table(id)?, defaults.as_object().cloned().unwrap_or_default()))
}

fn join_table(
    table: &'static [ParamInfo],
    defaults: serde_json::Map<String, serde_json::Value>,
) -> Vec<ParamDoc> {
    let mut out: Vec<ParamDoc> = table
        .iter()
        .map(|p| ParamDoc {
            key: p.key.to_owned(),
            default: defaults.get(p.key).cloned().unwrap_or(serde_json::Value::Null),
            range: Some(p.range),
            doc: Some(p.doc),
        })
        .collect();
    for (key, value) in &defaults {
        if !table.iter().any(|p| p.key == key) {
            out.push(ParamDoc { key: key.clone(), default: value.clone(), range: None, doc: None });
        }
    }
    out
}

/// The registered ids, comma-separated (for messages).
pub fn known_ids() -> String {
    ALGORITHMS.iter().map(|a| a.id).collect::<Vec<_>>().join(", ")
}

/// Metadata by id.
pub fn info(id: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.id == id)
}

/// The validation metric an algorithm selects with unless the spec says otherwise (its
/// INFO's `validation_metric`; MAP for an unknown id).
pub fn default_validation_metric(id: &str) -> Metric {
    info(id).and_then(|i| i.validation_metric.parse().ok()).unwrap_or(Metric::Map)
}

fn unknown(id: &str) -> HarnessError {
    HarnessError::UnknownAlgorithm { id: id.to_owned(), known: known_ids() }
}

fn core_param_error(id: &str, e: ltr_core::Error) -> HarnessError {
    match e {
        ltr_core::Error::InvalidParam { name, value, reason } => HarnessError::Param {
            algorithm: id.to_owned(),
            key: name.to_owned(),
            reason: format!("{value} is invalid: {reason}"),
        },
        other => HarnessError::Param { algorithm: id.to_owned(), key: "-".into(), reason: other.to_string() },
    }
}

/// Refuses a key that is not a row of the algorithm's parameter table ([`param_table`]), the
/// one list of its keys: the parameter types embed shared keys flat (`serde(flatten)`), so
/// they cannot refuse unknown keys themselves.
fn check_keys<'a>(id: &str, keys: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let rows = param_table(id)?;
    match keys.into_iter().find(|k| !rows.iter().any(|r| r.key == *k)) {
        None => Ok(()),
        Some(key) => Err(HarnessError::Param {
            algorithm: id.to_owned(),
            key: key.to_owned(),
            reason: format!(
                "unknown parameter; the parameters of {id} are {}",
                rows.iter().map(|r| r.key).collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}

/// Pins a deserialisation failure on one key: the first key that fails on its own (with every
/// other key at its default) is the culprit.
fn param_error(
    id: &str,
    table: &toml::Table,
    message: &str,
    parses: impl Fn(toml::Table) -> bool,
) -> HarnessError {
    let key = table
        .iter()
        .find(|(k, v)| {
            let mut single = toml::Table::new();
            single.insert((*k).clone(), (*v).clone());
            !parses(single)
        })
        .map(|(k, _)| k.clone())
        .unwrap_or_else(|| "-".into());
    HarnessError::Param { algorithm: id.to_owned(), key, reason: message.trim().replace('\n', " ") }
}

impl AlgoConfig {
    /// Parameters from `key=value` settings on top of the defaults (`ltr train --set`).
    /// Values are TOML literals (`0.1`, `true`, `"linear"`); a bare word is a string.
    pub fn from_settings(id: &str, settings: &[String]) -> Result<Self> {
        let mut table = toml::Table::new();
        for s in settings {
            let (k, v) = s.split_once('=').ok_or_else(|| HarnessError::Param {
                algorithm: id.to_owned(),
                key: s.clone(),
                reason: "expected key=value".into(),
            })?;
            let (k, v) = (k.trim(), v.trim());
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.to_owned()));
            table.insert(k.to_owned(), value);
        }
        let cfg = Self::from_table(id, table)?;
        cfg.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// One row of a README parameter table: key, the id qualifier (`(NDCG only)`), default.
    #[derive(Debug)]
    struct ReadmeRow {
        key: String,
        only: Option<String>,
        default: String,
    }

    /// The `| key | default | meaning |` tables of a README, each with the heading above it.
    fn readme_tables(text: &str) -> Vec<(String, Vec<ReadmeRow>)> {
        let mut tables = Vec::new();
        let mut heading = String::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            if line.starts_with('#') {
                heading = line.to_owned();
                continue;
            }
            let cells =
                |l: &str| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_owned()).collect();
            let header: Vec<String> = cells(line);
            if !line.trim_start().starts_with('|') || header.first().map(String::as_str) != Some("key") {
                continue;
            }
            assert_eq!(header.get(1).map(String::as_str), Some("default"), "{line}");
            lines.next(); // |---|---|
            let mut rows = Vec::new();
            while let Some(l) = lines.next_if(|l| l.trim_start().starts_with('|')) {
                let c: Vec<String> = cells(l);
                let key_cell = &c[0];
                let (key, rest) = match key_cell.strip_prefix('`').and_then(|k| k.split_once('`')) {
                    Some((k, rest)) => (k.to_owned(), rest.trim()),
                    None => (key_cell.clone(), ""),
                };
                let only = rest
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix("only)"))
                    .map(|q| q.trim().to_ascii_lowercase());
                let default = c[1].trim_matches('`').trim_matches('"').to_owned();
                rows.push(ReadmeRow { key, only, default });
            }
            tables.push((heading.clone(), rows));
        }
        tables
    }

    fn same_value(readme: &str, value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Number(n) => readme.parse::<f64>().ok() == n.as_f64(),
            serde_json::Value::Bool(b) => readme == b.to_string(),
            serde_json::Value::String(s) => readme == s,
            other => *other == readme,
        }
    }

    /// Each algorithm crate's README documents every parameter key with the default of
    /// `Params::default()`. A crate with several ids has a section per id whose heading names
    /// it in backticks, or one table whose rows say which id they apply to (`k` (NDCG only)).
    #[test]
    fn readme_parameter_tables_match_the_defaults() {
        let crates_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut problems = Vec::new();
        for info in ALGORITHMS {
            let id = info.id;
            let readme = crates_dir.join(crate_of(id).unwrap()).join("README.md");
            let text = std::fs::read_to_string(&readme).unwrap();
            let tables = readme_tables(&text);
            let named: Vec<_> = tables.iter().filter(|(h, _)| h.contains(&format!("`{id}`"))).collect();
            let chosen = if named.is_empty() { tables.iter().collect() } else { named };
            assert_eq!(chosen.len(), 1, "{}: expected one parameter table for `{id}`", readme.display());
            let rows: Vec<&ReadmeRow> = chosen[0]
                .1
                .iter()
                .filter(|r| r.only.as_ref().is_none_or(|q| id.contains(q.as_str())))
                .collect();
            let defaults = AlgoConfig::default_for(id).unwrap().params_json();
            let defaults = defaults.as_object().unwrap();
            for r in &rows {
                match defaults.get(&r.key) {
                    None => problems.push(format!("{id}: README key `{}` is not a parameter", r.key)),
                    Some(v) if !same_value(&r.default, v) => {
                        problems.push(format!("{id}: `{}` README default {} != {v}", r.key, r.default))
                    }
                    Some(_) => {}
                }
            }
            for k in defaults.keys() {
                if !rows.iter().any(|r| &r.key == k) {
                    problems.push(format!("{id}: parameter `{k}` is missing from {}", readme.display()));
                }
            }
        }
        assert!(problems.is_empty(), "README parameter tables out of date:\n{}", problems.join("\n"));
    }

    /// 8 queries of 12 documents over 5 features, grades 0..=2 from the first two features.
    fn toy() -> Dataset {
        let mut b = ltr_core::DatasetBuilder::new(5);
        let mut rng = Rng::new(3);
        for q in 0..8 {
            b.start_query(&format!("q{q}"));
            for _ in 0..12 {
                let x: Vec<f32> = (0..5).map(|_| rng.uniform() as f32).collect();
                let grade = ((x[0] + 0.5 * x[1]) * 2.0) as u8;
                b.push_doc(grade.min(2), &x, None).unwrap();
            }
        }
        b.finish().unwrap()
    }

    /// The stated randomness is what fits do: two seeds give the same model exactly when
    /// [`AlgoConfig::draws_from_seed`] says they draw nothing, for every algorithm at its
    /// defaults and at its short settings, and for the parameters that switch drawing on or off.
    /// Fits run as the protocol runs them: with a validation split, on a training split
    /// carrying its split seed.
    #[test]
    fn the_stated_randomness_is_what_two_seeds_do() {
        let data = toy().with_split_seed(Some(7));
        let criterion = ltr_metrics::Criterion::new(
            Metric::Map,
            ltr_metrics::EvalConfig::official(ltr_metrics::Convention::Letor3),
        );
        let valid = Validation { data: &data, measure: &criterion };
        let settings = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let mut configs = Vec::new();
        for info in ALGORITHMS {
            configs.push(AlgoConfig::default_for(info.id).unwrap());
            configs.push(AlgoConfig::from_settings(info.id, &settings(info.small_settings)).unwrap());
        }
        for (id, set) in [
            ("lambdamart", "row_subsample=0.5"),
            ("mcrank", "feature_subsample=0.5"),
            ("prank", "shuffle=false"),
        ] {
            let mut s = settings(AlgoConfig::default_for(id).unwrap().info().small_settings);
            s.push(set.to_owned());
            configs.push(AlgoConfig::from_settings(id, &s).unwrap());
        }
        let mut wrong = Vec::new();
        let (mut drawing, mut not) = (0, 0);
        for config in &configs {
            let model = |seed: u64| {
                serde_json::to_string(&config.fit(&data, Some(&valid), &mut Rng::new(seed)).unwrap()).unwrap()
            };
            let differ = model(1) != model(2);
            if differ != config.draws_from_seed() {
                wrong.push(format!("{} {}: two seeds differ: {differ}", config.id(), config.params_json()));
            }
            if differ { drawing += 1 } else { not += 1 }
        }
        assert!(wrong.is_empty(), "stated randomness is wrong:\n{}", wrong.join("\n"));
        assert!(drawing > 10 && not > 10, "{drawing} configurations draw, {not} do not");
        assert_eq!(randomness("ranksvm").unwrap(), Randomness::Never);
        assert_eq!(randomness("listnet").unwrap(), Randomness::Always);
        assert!(randomness("no-such-ranker").is_err());
    }

    /// A model file of every registered algorithm, trained on [`toy`] with its defaults.
    fn toy_model_files() -> Vec<ModelFile> {
        let data = toy();
        ALGORITHMS
            .iter()
            .map(|info| {
                let config = AlgoConfig::default_for(info.id).unwrap();
                let model = config.fit(&data, None, &mut Rng::new(1)).unwrap();
                let normalizer = Default::default();
                ModelFile { ltr_version: "test".into(), config, seed: 1, n_features: 5, model, normalizer }
            })
            .collect()
    }

    /// Sets every feature index in a model's JSON (`feature`, `split_feature`) to 10^9, and
    /// lengthens every per-feature vector nested below the top level (a weak ranker's or a
    /// standardisation's weights); returns whether anything changed.
    fn corrupt_widths(v: &mut serde_json::Value, depth: usize) -> bool {
        let mut changed = false;
        match v {
            serde_json::Value::Object(map) => {
                for (k, x) in map.iter_mut() {
                    match (k.as_str(), &mut *x) {
                        ("feature", serde_json::Value::Number(_)) => {
                            *x = serde_json::json!(1_000_000_000u64);
                            changed = true;
                        }
                        ("split_feature", serde_json::Value::Array(a)) if !a.is_empty() => {
                            a[0] = serde_json::json!(1_000_000_000u64);
                            changed = true;
                        }
                        ("weights" | "mean", serde_json::Value::Array(a)) if depth > 0 => {
                            a.push(serde_json::json!(0.5));
                            changed = true;
                        }
                        _ => changed |= corrupt_widths(x, depth + 1),
                    }
                }
            }
            serde_json::Value::Array(a) => {
                for x in a {
                    changed |= corrupt_widths(x, depth + 1);
                }
            }
            _ => {}
        }
        changed
    }

    /// Every model type checks at load that each feature it reads is within its width, as
    /// the tree models always did: a model pointing at feature 10^9 is refused, not read as 0.
    #[test]
    fn a_model_reading_a_feature_past_its_width_is_refused_at_load() {
        let (mut without_indices, mut accepted) = (Vec::new(), Vec::new());
        for file in toy_model_files() {
            let id = file.model.id();
            let text = file.to_json().unwrap();
            let back = ModelFile::from_json(text.as_bytes()).unwrap();
            assert_eq!(back.to_json().unwrap(), text, "{id}: round trip");
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            if !corrupt_widths(&mut v["model"]["model"], 0) {
                without_indices.push((id, file.model));
                continue;
            }
            match ModelFile::from_json(v.to_string().as_bytes()) {
                Err(e) if e.to_string().contains("feature") => {}
                other => accepted.push(format!("{id}: {:?}", other.map(|_| ()).map_err(|e| e.to_string()))),
            }
        }
        assert!(accepted.is_empty(), "corrupt models accepted:\n{}", accepted.join("\n"));
        // A model without feature indices must be a linear one: it reads every feature once,
        // by position, so its width is its length, which the file's n_features must match.
        assert!(without_indices.iter().any(|(id, _)| *id == "regression"));
        for (id, model) in &without_indices {
            match model.feature_weights() {
                FeatureWeights::Linear(w) => assert_eq!(w.len(), model.n_features(), "{id}"),
                _ => panic!("{id}: a model without feature indices that is not linear"),
            }
        }
    }

    /// Each model says what its feature importance is computed from: the trees their splits,
    /// the linear models and the boosters whose rounds collapse to one weight vector their
    /// weights (one per feature), the others why none is defined.
    #[test]
    fn every_model_says_what_its_feature_importance_is_computed_from() {
        let mut kinds = std::collections::BTreeMap::new();
        for file in toy_model_files() {
            let id = file.model.id();
            let kind = match file.model.feature_weights() {
                FeatureWeights::Trees(t) => {
                    assert!(!t.is_empty() && t.iter().all(|s| s.features.len() == s.gains.len()), "{id}");
                    "trees".to_owned()
                }
                FeatureWeights::Linear(w) => {
                    assert_eq!(w.len(), 5, "{id}");
                    "linear".to_owned()
                }
                FeatureWeights::Undefined(why) => why.to_owned(),
            };
            kinds.insert(id, kind);
        }
        let net = "a neural network, whose weights do not rank features";
        for (id, want) in [
            ("lambdamart", "trees"),
            ("mcrank", "trees"),
            ("ranksvm", "linear"),
            ("crr", "linear"),
            ("pcrank", "linear"),
            ("adarank-map", "linear"),
            ("rankcosine", "linear"),
            (
                "rankboost",
                "a sum of threshold functions, neither trees with split gains nor a linear function",
            ),
            ("cascade", "a cascade of pruning stages, not a linear function of the features"),
            ("ranknet", net),
            ("listmle", net),
        ] {
            assert_eq!(kinds[id], want, "{id}");
        }
    }

    /// The declared feature count is the model's own, and the parameters are the model's.
    /// A model file's parameters are read as strictly as a spec's: a key no algorithm has is
    /// refused, also for the parameter types that embed shared keys flat.
    #[test]
    fn a_model_file_with_an_unknown_parameter_is_refused() {
        for file in toy_model_files() {
            let id = file.model.id();
            let mut v: serde_json::Value = serde_json::from_str(&file.to_json().unwrap()).unwrap();
            v["config"]["params"]["no_such_key"] = serde_json::json!(1);
            let err = ModelFile::from_json(v.to_string().as_bytes()).map(|_| ()).unwrap_err().to_string();
            assert!(err.contains("no_such_key"), "{id}: {err}");
        }
    }

    #[test]
    fn a_model_file_that_contradicts_its_model_is_refused() {
        for file in toy_model_files() {
            let id = file.model.id();
            let mut wider = file.clone();
            wider.n_features = 6;
            let err = ModelFile::from_json(wider.to_json().unwrap().as_bytes()).unwrap_err().to_string();
            assert!(err.contains("n_features = 6"), "{id}: {err}");
            let mut other = file.clone();
            let other_id = if id == "regression" { "ranksvm" } else { "regression" };
            other.config = AlgoConfig::default_for(other_id).unwrap();
            let err = ModelFile::from_json(other.to_json().unwrap().as_bytes()).unwrap_err().to_string();
            assert!(err.contains("parameters"), "{id}: {err}");
        }
    }

    /// Each registry line names its INFO's id, and each INFO's facts are usable: its
    /// validation metric parses, its short settings are valid parameters, its scale limit
    /// and feature-scale reasons say something, its measured cost is positive and finite and
    /// each budget key of it is a numeric parameter whose default is the one it was measured
    /// at.
    #[test]
    fn every_info_states_usable_facts_under_its_own_id() {
        for (i, info) in ALGORITHMS.iter().enumerate() {
            let id = info.id;
            assert_eq!(AlgoConfig::default_for(id).unwrap().info().id, id);
            assert!(ALGORITHMS[..i].iter().all(|a| a.id != id), "{id} twice");
            assert!(!info.name.is_empty() && info.year > 0, "{id}");
            let metric: std::result::Result<Metric, _> = info.validation_metric.parse();
            assert_eq!(metric.ok(), Some(default_validation_metric(id)), "{id}: {}", info.validation_metric);
            let small: Vec<String> = info.small_settings.iter().map(|s| (*s).to_owned()).collect();
            AlgoConfig::from_settings(id, &small).unwrap_or_else(|e| panic!("{id}: {e}"));
            if let Some(l) = info.scale_limit {
                assert!(l.max_train_rows > 0 && !l.measured.is_empty(), "{id}");
            }
            if let Some(c) = info.cost {
                let positive = |x: f64| x.is_finite() && x > 0.0;
                assert!(positive(c.fit_seconds) && positive(c.row_exponent), "{id}: {c:?}");
                assert!(c.train_rows > 0 && c.features > 0 && c.threads > 0, "{id}: {c:?}");
                assert!(!c.measured.is_empty(), "{id}");
                let defaults = AlgoConfig::default_for(id).unwrap().params_json();
                for b in c.budget {
                    assert!(positive(b.default), "{id}: budget key `{}`", b.key);
                    assert_eq!(defaults[b.key].as_f64(), Some(b.default), "{id}: budget key `{}`", b.key);
                }
            }
            match info.feature_scale {
                ltr_core::FeatureScale::Matters => {}
                ltr_core::FeatureScale::Free(why) => assert!(!why.is_empty(), "{id}"),
                ltr_core::FeatureScale::FreeWhen { key, why } => {
                    assert!(!why.is_empty(), "{id}");
                    let defaults = AlgoConfig::default_for(id).unwrap().params_json();
                    assert!(defaults[key].is_boolean(), "{id}: `{key}` is not a boolean parameter");
                }
            }
        }
        // Every algorithm has a measured cost but those `just bench-budget` has no time for.
        let unmeasured: Vec<&str> = ALGORITHMS.iter().filter(|a| a.cost.is_none()).map(|a| a.id).collect();
        assert_eq!(unmeasured, ["frank", "best-feature"]);
        assert_eq!(default_validation_metric("lambdamart"), Metric::Ndcg(10));
        assert_eq!(default_validation_metric("ranksvm"), Metric::Map);
        assert_eq!(default_validation_metric("no-such-ranker"), Metric::Map);
    }

    #[test]
    fn every_parameter_has_a_range_and_a_description() {
        for info in ALGORITHMS {
            for p in parameters(info.id).unwrap() {
                assert!(p.range.is_some() && p.doc.is_some(), "{}: `{}` has no table row", info.id, p.key);
            }
            for row in param_table(info.id).unwrap() {
                assert!(
                    parameters(info.id).unwrap().iter().any(|p| p.key == row.key && !p.default.is_null()),
                    "{}: table row `{}` is not a parameter",
                    info.id,
                    row.key
                );
            }
        }
    }

    /// Every algorithm refuses a key outside its parameter table, naming it and listing the
    /// valid keys, and takes every key of its table.
    #[test]
    fn an_unknown_key_is_refused_with_the_valid_ones_listed() {
        for info in ALGORITHMS {
            let rows = param_table(info.id).unwrap();
            let mut table = toml::Table::new();
            table.insert("hiden".into(), toml::Value::Integer(5));
            let e = AlgoConfig::from_table(info.id, table).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{}: parameter `hiden`: unknown parameter", info.id)), "{e}");
            for row in rows {
                assert!(e.contains(row.key), "{}: `{}` not listed in: {e}", info.id, row.key);
            }
            let defaults = AlgoConfig::default_for(info.id).unwrap();
            let all: toml::Table = toml::Value::try_from(defaults.params_json()).unwrap().try_into().unwrap();
            assert_eq!(all.len(), rows.len(), "{}", info.id);
            assert_eq!(AlgoConfig::from_table(info.id, all).unwrap(), defaults, "{}", info.id);
        }
        let e = AlgoConfig::from_settings("ranknet", &["hidden=4".into(), "learning_rat=0.1".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`learning_rat`") && e.contains("learning_rate, momentum"), "{e}");
    }

    /// A network or tree key given alone keeps the algorithm's own defaults for the others.
    #[test]
    fn shared_keys_left_out_take_the_algorithms_defaults() {
        for (id, key, value) in [
            ("ranknet", "hidden", toml::Value::Integer(3)),
            ("listmle", "hidden", toml::Value::Integer(3)),
            ("lambdamart", "leaves", toml::Value::Integer(7)),
            ("intervalrank", "leaves", toml::Value::Integer(7)),
        ] {
            let mut table = toml::Table::new();
            table.insert(key.into(), value.clone());
            let got = AlgoConfig::from_table(id, table).unwrap().params_json();
            let mut expected = AlgoConfig::default_for(id).unwrap().params_json();
            expected[key] = serde_json::to_value(&value).unwrap();
            assert_eq!(got, expected, "{id}");
        }
    }

    /// An empty table is every algorithm's `Default`: a crate that flattens a shared
    /// parameter struct and overrides one of its defaults in its own `Default` would otherwise
    /// run specs with the shared struct's value for every key they leave out.
    #[test]
    fn an_empty_table_gives_every_algorithms_defaults() {
        for info in ALGORITHMS {
            let got = AlgoConfig::from_table(info.id, toml::Table::new()).unwrap().params_json();
            let expected = AlgoConfig::default_for(info.id).unwrap().params_json();
            assert_eq!(got, expected, "{}", info.id);
        }
    }

    #[test]
    fn a_table_is_joined_with_the_defaults_in_table_order() {
        const TABLE: &[ParamInfo] = &[
            ParamInfo::int("trees", 1, 100_000, "boosting rounds"),
            ParamInfo::positive("learning_rate", 0.0, 1.0, "shrinkage"),
        ];
        let defaults = serde_json::json!({"learning_rate": 0.1, "leaves": 31, "trees": 100});
        let docs = join_table(TABLE, defaults.as_object().cloned().unwrap());
        let keys: Vec<&str> = docs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["trees", "learning_rate", "leaves"]);
        assert_eq!(docs[0].default, serde_json::json!(100));
        assert_eq!(docs[1].range.unwrap().to_string(), "(0, 1]");
        assert_eq!(docs[1].doc, Some("shrinkage"));
        assert_eq!((docs[2].range, docs[2].doc), (None, None));
    }

    #[test]
    fn parameters_join_the_table_with_the_defaults() {
        let params = parameters("lambdamart").unwrap();
        let trees = params.iter().find(|p| p.key == "trees").unwrap();
        assert_eq!(trees.default, serde_json::json!(100));
        assert_eq!(
            params.len(),
            AlgoConfig::default_for("lambdamart").unwrap().params_json().as_object().unwrap().len()
        );
        assert_eq!(crate_of("adarank-ndcg").unwrap(), "ltr-adarank");
        assert!(crate_of("no-such-ranker").is_err() && param_table("no-such-ranker").is_err());
    }
}
