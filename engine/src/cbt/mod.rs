//! The terrain mesh: a concurrent binary tree (CBT) of longest-edge bisectors over the cube's
//! 12 base triangles (TERRAIN.md §3), modelled on the CPU exactly as the GPU runs it.
//!
//! - [`bisector`]: the 160-byte pool entry and the control block (GPU layout, GLSL mirror).
//! - [`leb`], [`base`]: paths, the fixed-point split rule, the root triangles and face seams.
//! - [`stages`]: EVAL, DECIDE, RESOLVE, RESERVE, NEIGHBOURS, COMMIT, FINISH as per-entry
//!   kernels; [`sumtree`] is REDUCE.
//! - [`update`]: the driver (shuffled thread order); [`validate`]: the mesh validator.
//! - [`gain`]: the fine-detail gain (TERRAIN.md §6) that moves the depth cap of L15+.
//! - [`criterion`], [`params`], [`surface`]: what the kernels measure against
//!   (`crate::surface::TileSurface` is the GPU's tile surface in f64); [`oracle`]: the f64
//!   criterion check of a quiet mesh.
//! - [`gpu`]: the same update as frame-graph nodes (`shaders/cbt/*.comp`).
//!
//! Data layout, stage reads/writes, neighbour rules, allocation: `docs/cbt.md`.

pub mod base;
pub mod bisector;
pub mod criterion;
pub mod gain;
pub mod gpu;
pub mod leb;
pub mod oracle;
pub mod params;
pub mod pool;
pub mod stages;
pub mod sumtree;
pub mod surface;
pub mod update;
pub mod validate;

pub use bisector::Bisector;
pub use params::{CbtParams, HiddenLeaves};
pub use pool::{CbtError, Pool};
pub use surface::{AnalyticSurface, Surface};
pub use update::{update_frame, FrameStats, MeshStats};
