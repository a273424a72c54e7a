//! The tile store: the on-disk pyramid of memory-mapped blocks, the shared block cache and the
//! DEM oracle's worker pool (`docs/earth.md`).

pub mod block;
#[cfg(test)]
mod block_fuzz;
pub mod cache;
pub mod counters;
pub mod datadir;
pub mod oracle;

pub use block::BlockId;
pub use counters::CounterSnapshot;
pub use datadir::{data_dir, DATA_ENV};
pub use oracle::{Oracle, OracleConfig, OracleError};
