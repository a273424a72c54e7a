//! Planetfall's planet: cube-sphere levels and tiles, Earth data, streaming, the CBT mesh, the
//! visibility-buffer publish and shading, and the frame that puts them into a frame graph
//! (`renderer`: prepare on the host, then declare the nodes).

pub mod atlas;
pub mod atmosphere;
pub mod camera;
pub mod cbt;
pub mod debug_view;
pub mod earth;
pub mod exposure;
pub mod frame_constants;
pub mod frame_shaders;
pub mod ground;
pub mod params;
pub mod planet;
pub mod probe;
pub mod publish;
pub mod reference;
pub mod renderer;
pub mod score;
pub mod shade;
pub mod source;
pub mod store;
pub mod stream;
pub mod sun;
pub mod surface;
#[doc(hidden)]
pub mod testing;
