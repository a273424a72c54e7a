//! The resident tiles on the GPU: the slot table (448-byte records, [`slots`]), the TileId →
//! slot lookup hash, the height atlas (one R16 page per physical page) and `stream.upload`,
//! which copies what the prepare step staged ([`staging`]) on the async transfer queue.

pub mod slots;
pub mod staging;
mod upload;

pub use upload::{SurfaceBindings, SurfaceClock, TileAtlas, TileBindings, PAGE_BYTES};
