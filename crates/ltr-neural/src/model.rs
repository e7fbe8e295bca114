//! The fitted model: the standardisation and the network.

use ltr_core::{Dataset, Error, Ranker, Result, check_scoring};
use serde::{Deserialize, Serialize};

use crate::net::{NetScratch, Network};
use crate::standardize::Standardizer;

/// A fitted neural ranker: `score(x) = f(standardise(x))`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeuralModel {
    /// The feature standardisation fitted on the training split.
    pub standardizer: Standardizer,
    /// The scoring network.
    pub network: Network,
    /// The epoch this model was taken after.
    pub epoch: usize,
}

impl NeuralModel {
    /// Whether the parts fit together (a model read from a file may not).
    pub fn is_consistent(&self) -> bool {
        self.network.is_consistent()
            && self.network.n_inputs() == self.standardizer.n_features()
            && self.standardizer.scale.len() == self.standardizer.mean.len()
    }
}

/// Documents scored per block by [`Ranker::score`].
const BLOCK: usize = 256;

impl Ranker for NeuralModel {
    fn n_features(&self) -> usize {
        self.standardizer.n_features()
    }

    fn check(&self) -> Result<()> {
        ltr_core::check_width(self.n_features())?;
        if !self.is_consistent() {
            return Err(Error::model(format!(
                "neural model: layer sizes {:?}, {} parameters and a standardisation of {} features do not fit together",
                self.network.sizes,
                self.network.params.len(),
                self.n_features()
            )));
        }
        Ok(())
    }

    /// NaN for an inconsistent model (see [`NeuralModel::is_consistent`]).
    fn score_row(&self, row: &[f32]) -> f64 {
        if !self.is_consistent() || row.len() != self.n_features() {
            return f64::NAN;
        }
        let mut x = vec![0.0; row.len()];
        self.standardizer.transform_row(row, &mut x);
        self.network.score_one(&x)
    }

    fn score(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        check_scoring(self.n_features(), data, out)?;
        if !self.is_consistent() {
            return Err(Error::InvalidDataset {
                reason: "neural model: layer sizes, parameters and standardisation do not fit together"
                    .into(),
            });
        }
        let mut x = Vec::with_capacity(BLOCK * self.n_features());
        let mut s = NetScratch::default();
        for (b, o) in out.chunks_mut(BLOCK).enumerate() {
            self.standardizer.transform_rows(data, b * BLOCK, o.len(), &mut x);
            self.network.forward(&x, o.len(), &mut s, o);
        }
        Ok(())
    }

    fn feature_weights(&self) -> ltr_core::FeatureWeights<'_> {
        ltr_core::FeatureWeights::Undefined("a neural network, whose weights do not rank features")
    }
}
