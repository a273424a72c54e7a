//! The viewer's pieces that know nothing of the planet: the [`SceneRenderer`] interface the
//! planet frame plugs into, the frame around it (HUD, copy to the swapchain, readback), flight,
//! bookmarks, camera paths, scripts, puffin and RenderDoc.

pub mod app;
pub mod bookmarks;
pub mod flight;
pub mod font;
pub mod frame;
pub mod ground;
pub mod hud;
pub mod hud_text;
pub mod path;
pub mod planet;
pub mod profiler;
pub mod renderdoc;
pub mod scene;
pub mod script;
pub mod stats;
pub mod viewer;

use engine::cbt::camera::ViewCamera;
use framegraph::{Context, FrameOutput, Graph, ImageRef};
use std::path::Path;

/// The lines of our small text formats (bookmarks, scripts, camera paths): `#` starts a
/// comment, blank lines are skipped. Yields the place (`file:line`, for errors), the raw
/// line and its whitespace-separated fields.
pub fn data_lines<'t>(
    text: &'t str,
    file: &'t Path,
) -> impl Iterator<Item = (String, &'t str, Vec<&'t str>)> + 't {
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let fields: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        (!fields.is_empty()).then(|| (format!("{}:{}", file.display(), i + 1), raw, fields))
    })
}

/// Debug views the viewer requests from the renderer (keys 1–8). A renderer that cannot draw
/// one draws `Shaded` instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DebugView {
    #[default]
    Shaded,
    /// Colour by tile/mesh level.
    Levels,
    /// Colour by pool slot id.
    SlotIds,
    /// Wireframe over the shading.
    Wireframe,
    /// World-space normals as colour.
    Normals,
    /// Latitude/longitude as colour (red: latitude, green: longitude).
    LatLon,
    /// Water (blue) and land (brown).
    Water,
    /// The mesh itself: CBT leaves flat-coloured by depth, no shading.
    Cbt,
}

impl DebugView {
    pub const ALL: [DebugView; 8] = [
        DebugView::Shaded,
        DebugView::Levels,
        DebugView::SlotIds,
        DebugView::Wireframe,
        DebugView::Normals,
        DebugView::LatLon,
        DebugView::Water,
        DebugView::Cbt,
    ];

    /// Name used on the command line, in scripts and on the HUD.
    pub fn name(self) -> &'static str {
        match self {
            DebugView::Shaded => "shaded",
            DebugView::Levels => "levels",
            DebugView::SlotIds => "slots",
            DebugView::Wireframe => "wireframe",
            DebugView::Normals => "normals",
            DebugView::LatLon => "latlon",
            DebugView::Water => "water",
            DebugView::Cbt => "cbt",
        }
    }

    pub fn parse(s: &str) -> Option<DebugView> {
        DebugView::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// Everything a renderer gets for one frame besides the graph. (The test scene reads only
/// part of it; the planet frame reads the rest.)
#[allow(dead_code)]
pub struct FrameInput<'f> {
    /// `None` when the frame is only declared (`planetfall graph`): touch no GPU object.
    pub ctx: Option<&'f Context>,
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
/// Node names follow the design (`cbt.decide`, `raster.publish`, …); `hud.*`, `present.*` and
/// `readback.color` are the viewer's, so a renderer's own readbacks take other names. To plug a
/// renderer in, add it to [`scene::make`] (and [`scene::SCENES`]); `view`, `render`, `capture`,
/// `graph` and their tests pick it up by `--scene`.
pub trait SceneRenderer {
    /// Short name for captures and the HUD ("test", "earth").
    fn name(&self) -> &str;

    /// Declare this frame's nodes into `g`, drawing into `target`. Borrows `self` for the
    /// graph's lifetime, so node closures may reference the renderer's persistent resources.
    fn declare<'a>(
        &'a mut self,
        g: &mut Graph<'a>,
        input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> anyhow::Result<()>;

    /// A frame this renderer declared has finished on the GPU (frames in flight later): its
    /// readbacks and node times. Default: nothing.
    fn frame_done(&mut self, _out: &FrameOutput) {}

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

    /// Free every GPU resource the renderer owns (the viewer checks for leaks after this).
    fn destroy(&mut self, _ctx: &Context) {}
}
