//! The tile store: the on-disk pyramid of blocks, the shared block cache, the DEM oracle's
//! worker pool (`docs/earth.md`) and how they survive faults (`faults.rs`).

pub mod block;
#[cfg(test)]
mod block_fuzz;
pub mod cache;
pub mod counters;
pub mod datadir;
pub mod faults;
#[cfg(test)]
mod faults_tests;
pub mod oracle;

pub use block::BlockId;
pub use counters::CounterSnapshot;
pub use datadir::{data_dir, DATA_ENV};
pub use faults::{FaultHook, FaultSummary, TileFault};
pub use oracle::{Oracle, OracleConfig, OracleError};
