//! Planetfall's planet: cube-sphere levels and tiles, Earth data, streaming, the CBT mesh,
//! atmosphere, and the frame that puts them into a frame graph.

pub mod cbt;
pub mod earth;
pub mod gpu;
pub mod ground;
pub mod params;
pub mod planet;
pub mod publish;
pub mod reference;
pub mod renderer;
pub mod score;
pub mod source;
pub mod store;
pub mod stream;
pub mod surface;
#[doc(hidden)]
pub mod testing;
