//! Earth data: the ETOPO5 source, its smooth reconstruction, residual bands and the derived
//! tile levels (`docs/earth.md`).

pub mod amplify;
#[cfg(test)]
mod amplify_tests;
pub mod bands;
pub mod climate;
pub mod coast;
pub mod derive;
pub mod etopo;
pub mod fmath;
pub mod gpu;
pub mod gpu_amplify;
pub mod gpu_budget;
pub mod gpu_feed;
pub mod lakes;
pub mod netcdf;
#[cfg(test)]
mod netcdf_fuzz;
pub mod rocks;
#[cfg(test)]
mod rocks_tests;
pub mod tile;
pub mod water;
mod water_mask;

pub use derive::Source;
pub use etopo::{etopo_path, Etopo, EtopoError};
pub use tile::Tile;
pub use water::{Water, WaterMap, WaterMask};
