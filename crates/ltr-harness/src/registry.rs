//! The closed set of algorithms: one enum variant per algorithm id, typed parameters, typed
//! models. Adding an algorithm is one line in the `registry!` invocation below.

use ltr_core::{AlgorithmInfo, Dataset, Learner, Params, Ranker, Rng, Validation};
use ltr_metrics::Metric;
use serde::{Deserialize, Serialize};

use crate::error::{HarnessError, Result};

macro_rules! registry {
    ($( $variant:ident => $id:literal, $params:ty, $info:expr, $metric:expr; )*) => {
        /// Typed hyperparameters of one algorithm (serialised as
        /// `{"algorithm": "<id>", "params": {...}}`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "algorithm", content = "params")]
        pub enum AlgoConfig {
            $(
                #[doc = concat!("`", $id, "`")]
                #[serde(rename = $id)]
                $variant($params),
            )*
        }

        /// A fitted model of any algorithm (serialised as `{"algorithm": "<id>", "model": {...}}`).
        #[derive(Debug, Clone, Serialize, Deserialize)]
        #[serde(tag = "algorithm", content = "model")]
        pub enum AnyModel {
            $(
                #[doc = concat!("`", $id, "`")]
                #[serde(rename = $id)]
                $variant(<<$params as Params>::Checked as Learner>::Model),
            )*
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

            /// The default parameters of an algorithm id.
            pub fn default_for(id: &str) -> Result<Self> {
                match id {
                    $($id => Ok(Self::$variant(<$params>::default())),)*
                    _ => Err(unknown(id)),
                }
            }

            /// Typed parameters from a key-value table (missing keys take their defaults).
            pub fn from_table(id: &str, table: toml::Table) -> Result<Self> {
                match id {
                    $($id => {
                        let params: $params = toml::Value::Table(table.clone())
                            .try_into()
                            .map_err(|e| param_error(id, &table, &e.to_string(), |t| {
                                toml::Value::Table(t).try_into::<$params>().is_ok()
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

            /// Scores every document of `data` into `out`.
            pub fn score(&self, data: &Dataset, out: &mut [f64]) -> ltr_core::Result<()> {
                match self { $(Self::$variant(m) => m.score(data, out),)* }
            }

            /// Scores into a new vector.
            pub fn score_vec(&self, data: &Dataset) -> ltr_core::Result<Vec<f64>> {
                let mut out = vec![0.0; data.n_docs()];
                self.score(data, &mut out)?;
                Ok(out)
            }
        }

        /// The validation metric an algorithm selects with unless the spec says otherwise.
        pub fn default_validation_metric(id: &str) -> Metric {
            match id {
                $($id => $metric,)*
                _ => Metric::Map,
            }
        }
    };
}

registry! {
    Regression => "regression", ltr_pointwise::RegressionParams, ltr_pointwise::REGRESSION_INFO, Metric::Map;
    Prank => "prank", ltr_pointwise::PrankParams, ltr_pointwise::PRANK_INFO, Metric::Map;
    RankSvm => "ranksvm", ltr_ranksvm::RankSvmParams, ltr_ranksvm::INFO, Metric::Map;
    Crr => "crr", ltr_crr::CrrParams, ltr_crr::INFO, Metric::Map;
    PcRank => "pcrank", ltr_pcrank::PcRankParams, ltr_pcrank::INFO, Metric::Map;
    RankBoost => "rankboost", ltr_rankboost::RankBoostParams, ltr_rankboost::INFO, Metric::Map;
    AdaRankMap => "adarank-map", ltr_adarank::AdaRankMapParams, ltr_adarank::INFO_MAP, Metric::Map;
    AdaRankNdcg => "adarank-ndcg", ltr_adarank::AdaRankNdcgParams, ltr_adarank::INFO_NDCG, Metric::Map;
    LambdaMart => "lambdamart", ltr_lambdamart::LambdaMartParams, ltr_lambdamart::INFO, Metric::Ndcg(10);
    IntervalRank => "intervalrank", ltr_intervalrank::IntervalRankParams, ltr_intervalrank::INFO, Metric::Map;
    RankNet => "ranknet", ltr_ranknet::RankNetParams, ltr_ranknet::INFO_RANKNET, Metric::Ndcg(10);
    LambdaRank => "lambdarank", ltr_ranknet::LambdaRankParams, ltr_ranknet::INFO_LAMBDARANK, Metric::Ndcg(10);
    ListNet => "listnet", ltr_listnet::ListNetParams, ltr_listnet::INFO_LISTNET, Metric::Ndcg(10);
    ListMle => "listmle", ltr_listnet::ListMleParams, ltr_listnet::INFO_LISTMLE, Metric::Ndcg(10);
    RankCosine => "rankcosine", ltr_rankcosine::RankCosineParams, ltr_rankcosine::INFO, Metric::Map;
    Cascade => "cascade", ltr_cascade::CascadeParams, ltr_cascade::INFO, Metric::Map;
    McRank => "mcrank", ltr_mcrank::McRankParams, ltr_mcrank::INFO, Metric::Ndcg(10);
}

/// The registered ids, comma-separated (for messages).
pub fn known_ids() -> String {
    ALGORITHMS.iter().map(|a| a.id).collect::<Vec<_>>().join(", ")
}

/// Metadata by id.
pub fn info(id: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.id == id)
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
