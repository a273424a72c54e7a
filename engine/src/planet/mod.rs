//! Planet geometry in f64: the body, the cube-sphere map, tiles, tangent frames and charts.

pub mod body;
pub mod chart;
pub mod cube;
pub mod frame;
pub mod tile;

pub use body::Body;
pub use cube::{dir_to_face, dir_to_latlon, east_north, face_of, latlon_to_dir, Face};
pub use tile::TileId;
