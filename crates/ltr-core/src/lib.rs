//! Core types shared by every `ltr` crate.
//!
//! * [`Dataset`] / [`QueryView`]: a query-grouped data set with dense row-major `f32`
//!   features, integer relevance grades, query ids and optional document ids.
//! * [`Params`], [`Learner`], [`Ranker`]: the boundary every algorithm implements. Raw,
//!   serde-friendly hyperparameters are validated into a checked form before any data is
//!   touched; fitting produces a separate, serialisable model that scores data sets and
//!   says what its feature importance is computed from ([`FeatureWeights`]).
//! * [`Derived`]: values computed from a data set's contents alone (the tree learner's
//!   binned matrix), cached with it and shared by every fit on it.
//! * [`Convention`]: the metric convention a data set carries into training and evaluation.
//! * [`BestCheckpoint`], [`select_best`]: the one selection rule (highest wins, earliest on
//!   ties, NaN never wins), for grid points and validation checkpoints alike.
//! * [`AlgorithmInfo`]: static metadata for the comparison tables, and every other fact the
//!   harness needs about an algorithm (validation metric, [`ScaleLimit`], [`FeatureScale`],
//!   short settings for the fuzzers).
//! * [`Rng`] and [`derive_seed`]: all randomness flows from one `u64` through a pinned,
//!   portable ChaCha8 stream; child seeds are derived by name.
//!
//! * [`progress`]: how far a fit's outer loop is, for whoever runs the fit to show (learners
//!   call [`progress::tick`]; nothing else).
//!
//! * [`fs::write_atomic`]: the one atomic file write of the workspace (temporary file, fsync,
//!   rename), the only I/O in this crate.

mod convention;
mod dataset;
pub mod derived;
mod error;
pub mod fs;
mod info;
mod order;
pub mod params;
pub mod progress;
mod seed;
pub mod select;
mod traits;

pub use convention::Convention;
pub use dataset::{Dataset, DatasetBuilder, Grade, MAX_FEATURES, QueryView};
pub use derived::Derived;
pub use error::{Error, Result};
pub use fs::write_atomic;
pub use info::{AlgorithmInfo, BudgetKey, Family, FeatureScale, FitCost, LossType, ScaleLimit};
pub use order::rank_order;
pub use params::range::{ParamInfo, ParamRange};
pub use params::{ReadmeRow, check_readme, check_table, param_info, readme_rows};
pub use seed::{Rng, derive_seed, derive_seed_from_values};
pub use select::{BestCheckpoint, Checkpoint, improves, select_best};
pub use traits::{
    FeatureWeights, Learner, Measure, ModelSize, Params, Ranker, TreeSplits, Validation, check_feature,
    check_scoring, check_width,
};
