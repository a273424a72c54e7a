//! The planet frame behind the [`SceneRenderer`] interface: "earth" (ETOPO5 through the DEM
//! oracle) and "analytic" (the CBT's sum-of-sines test planet as tiles).

use super::stats::{MeshStats, SceneStats, TileStats};
use super::{DebugView, FrameInput, SceneRenderer};
use anyhow::{Context as _, Result};
use engine::publish::{AovPixel, View};
use engine::renderer::{PlanetRenderer, RendererOptions};
use engine::source::{AnalyticSource, EarthSource, TileSource};
use engine::store::oracle::{Oracle, OracleConfig};
use framegraph::{Context, FrameOutput, Graph, ImageRef};
use std::sync::Arc;

/// Readback name of the per-pixel AOV buffer.
const AOV: &str = "planet.aov";

/// Frame slots the renderer keeps per-frame host resources for (the viewer allows 1–4 frames
/// in flight).
const MAX_FRAMES_IN_FLIGHT: usize = 4;

pub struct PlanetScene {
    name: &'static str,
    renderer: Option<PlanetRenderer>,
    /// A context of our own when the scene was made without one (graph dumps): the renderer's
    /// persistent objects must exist for the frame to be declared.
    own_ctx: Option<Context>,
    depth: Option<Vec<f32>>,
    /// Read the per-pixel AOV back (only when asked: it is a copy of the whole frame).
    want_depth: bool,
}

/// The Earth: ETOPO5 (`PLANETFALL_ETOPO` or Debian's path), tiles in the data directory
/// (`PLANETFALL_DATA` or the XDG cache).
pub fn earth_source() -> Result<Arc<dyn TileSource>> {
    Ok(earth()?)
}

/// [`earth_source`] with its oracle reachable (the benchmark's ground query).
pub fn earth() -> Result<Arc<EarthSource>> {
    let body = engine::planet::Body::EARTH;
    let path = engine::earth::etopo::etopo_path(None);
    let src = engine::earth::derive::Source::open(&path, body)
        .with_context(|| format!("opening ETOPO5 at {}", path.display()))?;
    let cfg = OracleConfig {
        data_dir: Some(engine::store::datadir::data_dir(None)),
        memory_fallback: true,
        ..Default::default()
    };
    let oracle = Oracle::new(Arc::new(src), cfg).context("starting the DEM oracle")?;
    Ok(Arc::new(EarthSource {
        oracle: Arc::new(oracle),
        body,
    }))
}

pub fn analytic_source() -> Arc<dyn TileSource> {
    Arc::new(AnalyticSource::from_surface(
        engine::cbt::surface::AnalyticSurface::earth(),
    ))
}

fn source_of(name: &str) -> Result<Arc<dyn TileSource>> {
    match name {
        "analytic" => Ok(analytic_source()),
        _ => earth_source(),
    }
}

impl PlanetScene {
    /// With a context, the renderer is built now; without one (name checks, graph dumps) only
    /// when a frame is first declared, on a context of its own.
    pub fn lazy(ctx: Option<&Context>, name: &'static str) -> Result<PlanetScene> {
        let mut s = PlanetScene {
            name,
            renderer: None,
            own_ctx: None,
            depth: None,
            want_depth: false,
        };
        if let Some(ctx) = ctx {
            s.renderer = Some(Self::build(ctx, name)?);
        }
        Ok(s)
    }

    fn build(ctx: &Context, name: &str) -> Result<PlanetRenderer> {
        let opts = RendererOptions::for_device(ctx);
        Ok(PlanetRenderer::new(
            ctx,
            source_of(name)?,
            opts,
            MAX_FRAMES_IN_FLIGHT,
        )?)
    }
}

impl Drop for PlanetScene {
    fn drop(&mut self) {
        if let (Some(ctx), Some(r)) = (self.own_ctx.as_ref(), self.renderer.take()) {
            r.destroy(ctx);
        }
    }
}

fn view_of(d: DebugView) -> View {
    match d {
        DebugView::Shaded => View::Shaded,
        DebugView::Wireframe => View::Wireframe,
        DebugView::Cbt => View::Cbt,
        DebugView::Levels => View::Level,
        DebugView::SlotIds => View::Slot,
        DebugView::Normals => View::Normal,
        DebugView::LatLon => View::LatLon,
        DebugView::Water => View::Water,
    }
}

impl SceneRenderer for PlanetScene {
    fn name(&self) -> &str {
        self.name
    }

    fn declare<'a>(
        &'a mut self,
        g: &mut Graph<'a>,
        input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> Result<()> {
        if self.renderer.is_none() {
            let ctx = crate::gpu::GpuArgs::default().context()?;
            self.renderer = Some(Self::build(&ctx, self.name)?);
            self.own_ctx = Some(ctx);
        }
        let r = self
            .renderer
            .as_mut()
            .context("the planet renderer was destroyed")?;
        if let Some(aov) = r.declare(
            input.ctx,
            g,
            input.cam,
            input.frame_slot,
            target,
            view_of(input.debug),
            self.want_depth,
        )? {
            g.readback(AOV, aov);
        }
        Ok(())
    }

    fn frame_done(&mut self, out: &FrameOutput) {
        if let Ok(bytes) = out.readback(AOV) {
            let px: &[AovPixel] = bytemuck::cast_slice(bytes);
            self.depth = Some(
                px.iter()
                    .map(|p| if p.is_terrain() { p.dist } else { 0.0 })
                    .collect(),
            );
        }
    }

    fn stats(&self) -> SceneStats {
        let Some(r) = &self.renderer else {
            return SceneStats::default();
        };
        let s = &r.stats;
        SceneStats {
            mesh: Some(MeshStats {
                leaves: s.leaves,
                drawn: s.drawn,
                high_water: s.high_water,
                iterations: s.iterations,
                quiet: s.quiet,
                saturated: s.saturated,
            }),
            tiles: Some(TileStats {
                resident: s.residency.resident,
                pending: s.residency.pending,
                wanted: s.residency.wanted,
            }),
            ..Default::default()
        }
    }

    fn settled(&self) -> bool {
        self.renderer.as_ref().map(|r| r.settled()).unwrap_or(true)
    }

    fn request_depth(&mut self, on: bool) {
        self.want_depth = on;
    }

    fn depth_m(&self) -> Option<Vec<f32>> {
        self.depth.clone()
    }

    fn destroy(&mut self, ctx: &Context) {
        if self.own_ctx.is_none() {
            if let Some(r) = self.renderer.take() {
                r.destroy(ctx);
            }
        }
    }
}
