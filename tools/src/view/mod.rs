//! The viewer's pieces that know nothing of the planet: the [`SceneRenderer`] interface the
//! planet frame plugs into, the frame around it (HUD, copy to the swapchain, readback), flight,
//! bookmarks, camera paths, scripts, puffin and RenderDoc.

pub mod app;
pub mod flight;
pub mod font;
pub mod frame;
pub mod ground;
pub mod hud;
pub mod hud_text;
pub mod path;
pub mod planet;
pub mod profiler;
#[cfg(test)]
mod readers_fuzz;
pub mod renderdoc;
pub mod scene;
pub mod script;
pub mod startup;
pub mod stats;
pub mod viewer;

use engine::camera::ViewCamera;
use framegraph::{Context, FrameOutput, Graph, ImageRef};

pub use crate::lines::data_lines;
pub use engine::debug_view::DebugView;

/// Everything a renderer gets for one frame besides the graph. (The test scene reads only
/// part of it; the planet frame reads the rest.)
#[allow(dead_code)]
pub struct FrameInput<'f> {
    /// The view, f64, planet-centred; `cam.width`/`cam.height` equal `extent`.
    pub cam: &'f ViewCamera,
    /// Size of the target, px.
    pub extent: [u32; 2],
    /// `Executor::begin_frame`'s slot: per-slot host resources (staging, constants) indexed by
    /// it are free to rewrite.
    pub frame_slot: usize,
    /// Frames declared so far (0 for the first).
    pub frame: u64,
    /// Seconds since the previous frame (0 for the first and for headless frames).
    pub dt: f64,
    pub debug: DebugView,
    /// The sun's world direction (None: the renderer's default).
    pub sun: Option<glam::DVec3>,
    /// GPU node times of this frame slot's previous frame (empty: not known); a renderer that
    /// budgets GPU work by measured cost reads them.
    pub gpu_times: &'f [framegraph::exec::timing::NodeTime],
}

/// What the planet frame (or the test scene) implements to be shown by `planetfall view`,
/// `render`, `capture` and `graph`.
///
/// The viewer owns the target: a transient RGBA8 colour image of `input.extent`
/// ([`frame::TARGET_FORMAT`], display-ready values, written as colour attachment, storage or
/// transfer destination — the graph derives its usage). The renderer declares its nodes into `g`
/// and must write every pixel of `target` (clear it or cover it); the handle is `&mut` because a
/// write bumps its version and the viewer's HUD and copy nodes read the newest one. The viewer
/// then draws the HUD over it and copies it to the swapchain, so the renderer never depends on
/// the swapchain's format or usage flags.
///
/// Node names follow the design (`cbt.decide`, `raster.hardware`, …); `hud.*`, `present.*` and
/// `readback.color` are the viewer's, so a renderer's own readbacks take other names. To plug a
/// renderer in, add it to [`scene::make`] (and [`scene::SCENES`]); `view`, `render`, `capture`,
/// `graph` and their tests pick it up by `--scene`.
pub trait SceneRenderer {
    /// Short name for captures and the HUD ("test", "earth").
    fn name(&self) -> &str;

    /// The host work of this frame, before its graph is declared: clocks, streaming, staging
    /// writes, constants, counter reads. `input.frame_slot`'s previous frame has finished.
    fn prepare(&mut self, ctx: &Context, input: &FrameInput<'_>) -> anyhow::Result<()>;

    /// Declare the prepared frame's nodes into `g`, drawing into `target`: adds nodes, changes
    /// nothing. Borrows `self` for the graph's lifetime, so node closures may reference the
    /// renderer's persistent resources.
    fn declare<'a>(
        &'a self,
        g: &mut Graph<'a>,
        input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> anyhow::Result<()>;

    /// A frame this renderer declared has finished on the GPU (frames in flight later): its
    /// readbacks and node times. Default: nothing.
    fn frame_done(&mut self, _out: &FrameOutput) {}

    /// Where this scene's tiles come from (None: no terrain). Views given above the ground
    /// stand on it, and its body's radius places them ([`crate::camera`]).
    fn source(&self) -> Option<std::sync::Arc<dyn engine::source::TileSource>> {
        None
    }

    /// The ground under unit direction `dir` as the last frame drew it (metres above the
    /// datum), read at `cam`'s level of detail; None: nothing drawn there. Default: none.
    fn drawn_ground(&self, _cam: &engine::camera::ViewCamera, _dir: glam::DVec3) -> Option<f64> {
        None
    }

    /// Supply per feed class as the renderer has metered it (`engine::stream::envelope`); None:
    /// no tile feed. Default: none.
    fn feed_supply(
        &self,
    ) -> Option<engine::stream::envelope::PerClass<engine::stream::envelope::Supply>> {
        None
    }

    /// The last frame's numbers (mesh counters, tile residency…), for the HUD and
    /// `render --stats`.
    fn stats(&self) -> stats::SceneStats;

    /// Whether the last frame left nothing to refine or load: headless commands run frames
    /// until it is (or a frame limit). Default: a single frame is final.
    fn settled(&self) -> bool {
        true
    }

    /// Ask for (or stop asking for) per-pixel distances: reading them back costs a copy of the
    /// whole frame, so renderers only do it on request. Default: nothing to do.
    fn request_depth(&mut self, _on: bool) {}

    /// Distance along the ray per pixel of the last finished frame (metres; 0 = no terrain),
    /// row-major — for `render --depth-out`, after `request_depth(true)`. Default: none.
    fn depth_m(&self) -> Option<Vec<f32>> {
        None
    }

    /// Restore the fine-detail gain to 1 (it never rises by itself, TERRAIN.md §6). Default:
    /// the scene has none.
    fn reset_fine_detail_gain(&mut self) {}

    /// The next frame follows a camera cut (a bookmark jump): tiles arriving for the new view
    /// show at once instead of fading in (`engine::stream::cut`). Default: nothing to do.
    fn cut(&mut self) {}

    /// The next frame is the viewer's start-up preview (drawn smaller, replaced by the next
    /// frame): it may leave out work that can wait a frame or do it coarser (the planet: the
    /// atmosphere's LUTs, `Atmosphere::preview_next`). Default: nothing to leave out.
    fn preview_next(&mut self) {}

    /// The GPU tile feed's time budget as of the last frame (None: no tiles made on the GPU).
    fn gpu_tile_budget(&self) -> Option<engine::earth::gpu_budget::BudgetState> {
        None
    }

    /// Free every GPU resource the renderer owns (the viewer checks for leaks after this).
    fn destroy(&mut self, _ctx: &Context) {}
}
