//! One module per subcommand: `Args` (clap) and `run`.

pub mod eval;
