//! A histogram gradient-boosted tree learner, shared by LambdaMART, IntervalRank and McRank.
//!
//! * [`BinnedData`]: quantile binning of the training features into at most 255 `u8` bins,
//!   once per training set and binning settings, shared through the data set's cache by
//!   every fit on it (missing = NaN reads as 0; see [`bins`]).
//! * [`TreeLearner`]: grows one regression tree from per-document gradients and hessians:
//!   histogram split finding with sibling subtraction, leaf-wise (best-first) growth up to
//!   `max_leaves`, `min_data_in_leaf`, `min_sum_hessian_in_leaf`, `lambda_l2`, Newton leaf
//!   values `-learning_rate * G / (H + lambda_l2)`, optional row and feature subsampling.
//! * [`boost`] with an [`Objective`]: the whole boosting loop, so a ranking algorithm only
//!   supplies gradients and hessians per round; validation picks the number of trees.
//!   [`boost_multi`] with a [`MultiObjective`]: the same loop over `K` score columns, one
//!   tree per column per round (McRank's multi-class boosting).
//! * [`Ensemble`] / [`Tree`]: the fitted model on raw `f32` features (real-valued
//!   thresholds, not bin ids), serde-serialisable (JSON round trips bit for bit), with a
//!   readable [`Ensemble::dump`]. `Ensemble` implements [`ltr_core::Ranker`]; [`TreeModel`]
//!   is the fitted model of the one-column rankers (LambdaMART, IntervalRank).
//!
//! * [`TreeParams`] / [`BaseTreeParams`]: the rankers' tree keys (fields, defaults, table rows,
//!   forwarding to [`BoostConfig`]), embedded flat in each ranker's parameters.
//!
//! Parallel with rayon, bit-identical at any thread count (see [`learner`]).
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bins;
mod boost;
mod config;
pub mod learner;
mod params;
mod tree;

pub use bins::BinnedData;
pub use boost::{
    Boosted, BoostedMulti, MultiObjective, Objective, SquaredError, add_tree, boost, boost_multi,
    gather_outputs, prepare,
};
pub use config::{BoostConfig, MAX_LEAVES, TreeConfig, rows};
pub use learner::TreeLearner;
pub use params::{BaseTreeParams, TreeParams};
pub use tree::{Ensemble, SCORE_BLOCK, Tree, TreeModel};
