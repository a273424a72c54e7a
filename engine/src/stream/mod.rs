//! Tile streaming on the CPU (TERRAIN.md §5, `docs/streaming.md`): which tiles a view wants
//! (`wanted`), where they live on the GPU (`slots`), the synchronous glue that fetches them
//! from a tile source (`residency`, `TileStream`), and the feed envelope — supply, demand and
//! the lateral speed the feed sustains (`envelope`), and camera cuts, after which tiles show
//! at once (`cut`). f64 throughout; nothing here touches the
//! GPU — the frame's `stream.upload` node copies what `residency` hands back.

pub mod cull;
pub mod cut;
pub mod envelope;
pub mod pool;
pub mod residency;
pub mod slots;
pub mod wanted;

pub use cull::{HeightRange, TileVolume};
pub use residency::{FrameResidency, ResidencyReport, TileStream, Upload};
pub use slots::{Eviction, Load, Plan, SlotEntry, SlotState, SlotTable};
pub use wanted::{wanted_cap, wanted_set, wanted_set_with, WantedParams, WantedSet, WantedTile};
