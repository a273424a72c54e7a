//! What a frame did, for HUDs, `--stats` and the bench ([`RenderStats`]), and the host time
//! of `prepare`'s steps ([`PrepareTimes`], measured with [`Lap`]): the renderer's reports,
//! apart from the work they report on.

use crate::cbt::update::MeshStats;
use crate::stream::residency::ResidencyReport;

/// What the last frame did, for HUDs and `--stats`.
#[derive(Clone, Debug, Default)]
pub struct RenderStats {
    pub residency: ResidencyReport,
    pub uploaded_tiles: u32,
    /// The mesh counters of the frame slot's last frame (frames in flight old).
    pub mesh: MeshStats,
    /// Resident tiles still fading in or cross-fading.
    pub fading: u32,
    /// Tile failures as reported (each tile once), oldest first; the caller may drain it.
    pub failures: Vec<String>,
    /// Wall seconds the frame spent fetching tiles in this thread (synchronous residency).
    pub fetch_s: f64,
    /// Host ms of the last `prepare`, step by step.
    pub prepare: PrepareTimes,
}

/// Host ms of one [`PlanetRenderer::prepare`](super::PlanetRenderer::prepare), by step (the bench reports them per frame).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrepareTimes {
    /// The feed meter, and the GPU tiles' harvest and plan.
    pub feed_ms: f64,
    /// Streaming: the wanted set, the slot plan, fetches, the resident set and its fades.
    pub stream_ms: f64,
    /// The frame constants and the atmosphere's, written to the frame slot.
    pub constants_ms: f64,
    /// Slot records, lookup hash and payloads staged (`TileAtlas::prepare`).
    pub records_ms: f64,
    /// The mesh counters read back and the update planned (`GpuMesh::prepare`).
    pub mesh_ms: f64,
}

/// Host milliseconds between successive calls.
pub(super) struct Lap(std::time::Instant);

impl Lap {
    pub(super) fn start() -> Lap {
        Lap(std::time::Instant::now())
    }

    /// Milliseconds since the last call (or the start).
    pub(super) fn ms(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let ms = (now - self.0).as_secs_f64() * 1e3;
        self.0 = now;
        ms
    }
}
