//! The experiment harness of `ltr`: the code that decides the numbers. Specs, the algorithm
//! registry, the cross-validation protocol with its model selection, and the facts about
//! algorithms the protocol and spec loading consult. Running cells, keeping them and
//! scheduling them on clusters is `ltr-runner`'s job; every source file here is part of
//! every cell's key there, so nothing that cannot move a number belongs here.
//!
//! * [`spec`]: `experiments/*.toml` -> a checked [`spec::ExperimentSpec`] with typed grids.
//! * [`registry`]: the closed enum over every algorithm's parameters and models, with their
//!   parameter tables.
//! * [`protocol`]: one cell (a dataset fold and an algorithm entry): fit the grid on train,
//!   select on vali, score and evaluate test. What the reports publish and the tests check.
//! * [`limits`]: the algorithms refused above a training size, checked when a spec loads.
//! * [`feature_scale`]: which algorithms depend on feature scales, and the warning for data
//!   whose features look unnormalised.
//! * [`importance`]: feature importance of a fitted model (tree gains, linear weights).
//!
//! The harness never fetches: it takes datasets already resolved to local files
//! (`ltr_data::resolved`).

pub mod catalogue;
mod error;
pub mod feature_scale;
pub mod importance;
pub mod limits;
pub mod protocol;
pub mod registry;
pub mod spec;

pub use error::{HarnessError, Result};
pub use registry::{ALGORITHMS, AlgoConfig, AnyModel, ModelFile};
pub use spec::{AlgorithmEntry, ExperimentSpec};
