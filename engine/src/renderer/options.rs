//! How the planet frame is set up ([`RendererOptions`], sized from the device) and what one
//! frame asks of it ([`FrameRequest`]): the inputs a caller fills in, apart from the renderer
//! that consumes them.

use crate::camera::ViewCamera;
use crate::cbt::params::CbtParams;
use crate::debug_view::DebugView;
use crate::exposure::ExposureMode;
use crate::publish::PublishOptions;
use framegraph::Context;

/// How the planet frame is set up.
#[derive(Clone, Copy, Debug)]
pub struct RendererOptions {
    /// Tile slots (TERRAIN.md §2: 1,024); +64 reserved pages.
    pub slots: u32,
    /// Bisector pool capacity.
    pub pool_capacity: u32,
    /// A frame waits for all the tiles it wants (synchronous residency).
    pub wait_for_tiles: bool,
    /// Payloads a frame fetches when it does not wait (0: none — a frame whose graph is only
    /// inspected, whose shape does not depend on which tiles are resident).
    pub fetch_per_frame: usize,
    /// Payloads landing per frame when frames do not wait (the rest land in later frames,
    /// by priority).
    pub max_uploads: usize,
    /// Tiles a non-waiting frame makes on the GPU (`earth::gpu_feed`) when its source has the
    /// Earth's grids; 0: the source's CPU workers make them. A waiting frame (`render`, the
    /// bench's accuracy views) always fetches from the source.
    pub gpu_tiles_per_frame: usize,
    /// GPU ms a frame may spend making tiles while the view has what it needs (measured per
    /// class from the `tiles.*` nodes' timestamps: [`PlanetRenderer::observe_gpu_times`](super::PlanetRenderer::observe_gpu_times)); it
    /// grows while the view misses tiles (`earth::gpu_budget`).
    pub gpu_tile_budget_ms: f64,
    pub cbt: CbtParams,
    pub publish: PublishOptions,
    /// Fixed, or adapted to the image (`crate::exposure`).
    pub exposure: ExposureMode,
    /// Parts of the frame left out to time what they cost (`crate::shade::Skips`; none).
    pub skips: crate::shade::Skips,
}

impl RendererOptions {
    /// Defaults sized from the device: the storage-buffer range bounds the pool.
    pub fn for_device(ctx: &Context) -> RendererOptions {
        RendererOptions {
            slots: crate::params::STREAM_SLOTS as u32,
            pool_capacity: crate::cbt::gpu::device_capacity(ctx),
            wait_for_tiles: true,
            fetch_per_frame: crate::stream::residency::DEFAULT_FETCH_PER_FRAME,
            max_uploads: crate::stream::residency::DEFAULT_MAX_UPLOADS,
            gpu_tiles_per_frame: default_gpu_tiles_per_frame(ctx),
            gpu_tile_budget_ms: crate::earth::gpu_feed::DEFAULT_GPU_TILE_BUDGET_MS,
            cbt: CbtParams::default(),
            publish: PublishOptions::default(),
            exposure: ExposureMode::default(),
            skips: crate::shade::Skips::default(),
        }
    }
}

/// Tiles per frame made on the GPU by default: on a GPU with f64 shaders, the GPU (the H200
/// makes 3,000–9,000 tiles/s against about 8 per second per CPU core); on a CPU device
/// (lavapipe, 1–3 tiles/s) none: its CPU workers make them faster than its emulated GPU.
pub fn default_gpu_tiles_per_frame(ctx: &Context) -> usize {
    let cpu = ctx.info.kind == ash::vk::PhysicalDeviceType::CPU;
    if ctx.info.shader_float64 && !cpu {
        crate::earth::gpu_feed::DEFAULT_GPU_TILES_PER_FRAME
    } else {
        0
    }
}

/// What one frame shows: the camera, the frame slot it runs in, the debug view, and whether
/// `shade.aov` is wanted.
#[derive(Clone, Copy, Debug)]
pub struct FrameRequest {
    pub cam: ViewCamera,
    /// `Executor::begin_frame`'s slot.
    pub frame_slot: usize,
    pub view: DebugView,
    pub aov: bool,
}
