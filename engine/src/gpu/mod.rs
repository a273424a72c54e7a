//! The planet's GPU side: per-frame constants, the slot table and tile atlas, and (later) the
//! nodes of the planet frame.

pub mod frame;
pub mod slots;
pub mod staging;
pub mod tiles;
