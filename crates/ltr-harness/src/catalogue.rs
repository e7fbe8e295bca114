//! What the registry and the protocol know of every algorithm, as one table: `ltr algorithms
//! --format json` and the Python binding's `ltr.algorithms()`. Apart from the registry, because
//! it also asks the feature-scale analysis, which itself reads the registry's configurations.

use ltr_core::AlgorithmInfo;

use crate::error::Result;
use crate::registry::{AlgoConfig, default_validation_metric, parameters};

/// Why the default configuration of algorithm `id` does not depend on feature scales
/// (`None`: it does).
pub fn scale_free_default(id: &str) -> Result<Option<String>> {
    Ok(crate::feature_scale::scale_free(&AlgoConfig::default_for(id)?))
}

/// The algorithms with what the registry knows of each and every parameter (key, default,
/// valid range, meaning): `ltr algorithms --format json` and the Python binding's
/// `ltr.algorithms()`.
pub fn catalogue(algorithms: &[AlgorithmInfo]) -> Result<serde_json::Value> {
    let mut list = Vec::new();
    for a in algorithms {
        let params: Vec<serde_json::Value> = parameters(a.id)?
            .iter()
            .map(|p| {
                serde_json::json!({
                    "key": p.key,
                    "default": p.default,
                    "range": p.range.map(|r| r.to_string()),
                    "doc": p.doc,
                })
            })
            .collect();
        list.push(serde_json::json!({
            "id": a.id,
            "name": a.name,
            "family": a.family,
            "year": a.year,
            "loss": a.loss,
            "optimizer": a.optimizer,
            "reference": a.reference,
            "validation_metric": default_validation_metric(a.id).to_string(),
            "scale_limit": a.scale_limit,
            "feature_scales_do_not_matter": scale_free_default(a.id)?,
            "parameters": params,
        }));
    }
    Ok(serde_json::Value::Array(list))
}
