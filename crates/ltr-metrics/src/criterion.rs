//! [`Criterion`]: a metric under a convention, usable as the core [`Measure`].

use ltr_core::{Dataset, Measure};
use serde::{Deserialize, Serialize};

use crate::config::EvalConfig;
use crate::metric::Metric;

/// "MAP under letor3": what model selection optimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Criterion {
    /// The metric.
    pub metric: Metric,
    /// How it is computed.
    pub config: EvalConfig,
}

impl Criterion {
    /// A metric under a configuration.
    pub fn new(metric: Metric, config: EvalConfig) -> Self {
        Self { metric, config }
    }
}

impl Measure for Criterion {
    fn name(&self) -> String {
        format!("{} ({})", self.metric, self.config.convention)
    }

    fn mean(&self, data: &Dataset, scores: &[f64]) -> ltr_core::Result<f64> {
        self.metric.mean(data, scores, &self.config).map_err(|e| ltr_core::Error::Measure(e.to_string()))
    }
}
