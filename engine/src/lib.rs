//! Planetfall's planet: cube-sphere levels and tiles, Earth data, streaming, the CBT mesh,
//! atmosphere, and the frame that puts them into a frame graph.

pub mod params;
pub mod planet;
pub mod earth;
pub mod ground;
pub mod store;
pub mod cbt;
pub mod stream;
pub mod gpu;
pub mod source;
pub mod surface;
pub mod publish;
pub mod renderer;
pub mod reference;
pub mod score;
