//! The experiment harness of `ltr`: specs, the algorithm registry, the cross-validation
//! protocol, and the runner with its result store.
//!
//! * [`spec`]: `experiments/*.toml` -> a checked [`spec::ExperimentSpec`] with typed grids.
//! * [`registry`]: the closed enum over every algorithm's parameters and models, with their
//!   parameter tables.
//! * [`protocol`]: one cell (a dataset fold and an algorithm entry): fit the grid on train,
//!   select on vali, score and evaluate test. What the reports publish and the tests check.
//! * [`runner`]: every cell of a spec, in parallel, persisted as they finish.
//! * [`progress`]: the time a run has left, from its cells' measured times.
//! * [`store`]: the result store, keyed by the sha256 of what determines a cell.
//! * [`cluster`]: a spec's cells as tasks for Slurm, Kubernetes or GNU parallel, and the
//!   merge of the stores they fill.
//! * [`code`]: the source hashes of the crates a cell's numbers go through (build time).
//! * [`limits`]: the algorithms refused above a training size, checked when a spec loads.
//! * [`feature_scale`]: which algorithms depend on feature scales, and the warning for data
//!   whose features look unnormalised.
//! * [`importance`]: feature importance of a fitted model (tree gains, linear weights).
//! * [`trec`]: TREC run and qrels files, written from LETOR data and scores and read back.
//!
//! The harness never fetches: it takes datasets already resolved to local files
//! (`ltr_data::resolved`).

pub mod cluster;
pub mod code;
mod error;
pub mod feature_scale;
pub mod importance;
pub mod limits;
pub mod progress;
pub mod protocol;
pub mod registry;
pub mod runner;
pub mod spec;
pub mod store;
pub mod trec;

pub use code::CodeHashes;
pub use error::{HarnessError, Result};
pub use registry::{ALGORITHMS, AlgoConfig, AnyModel, ModelFile};
pub use spec::{AlgorithmEntry, ExperimentSpec};
