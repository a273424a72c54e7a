//! The planet frame behind the [`SceneRenderer`] interface: "earth" (ETOPO5 through the DEM
//! oracle) and "analytic" (the CBT's sum-of-sines test planet as tiles).

use super::scene::Purpose;
use super::stats::{SceneStats, TileStats};
use super::{FrameInput, SceneRenderer};
use anyhow::{Context as _, Result};
use engine::renderer::{FrameRequest, PlanetRenderer, RendererOptions};
use engine::shade::AovPixel;
use engine::source::{AnalyticSource, EarthSource, TileSource};
use engine::store::oracle::{Oracle, OracleConfig};
use engine::stream::envelope::{PerClass, Supply};
use engine::stream::pool::Pooled;
use framegraph::{Context, FrameOutput, Graph, ImageRef};
use std::sync::Arc;
use std::time::Duration;

/// Readback name of the per-pixel AOV buffer.
const AOV: &str = "planet.aov";

/// Frame slots the renderer keeps per-frame host resources for (the viewer allows 1–4 frames
/// in flight).
const MAX_FRAMES_IN_FLIGHT: usize = 4;

pub struct PlanetScene {
    name: String,
    /// `None` once destroyed.
    renderer: Option<PlanetRenderer>,
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

/// The scene's source; for flight, a source without workers of its own is put behind a
/// pool so frames never make tiles themselves.
fn source_of(name: &str, purpose: Purpose) -> Result<Arc<dyn TileSource>> {
    match name {
        "analytic" if purpose == Purpose::Fly => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let pool = Pooled::new(
                analytic_source(),
                cores.saturating_sub(1).max(1),
                Duration::ZERO,
            );
            Ok(Arc::new(pool))
        }
        "analytic" => Ok(analytic_source()),
        _ => earth_source(),
    }
}

impl PlanetScene {
    pub fn new(ctx: &Context, name: &str, purpose: Purpose) -> Result<PlanetScene> {
        let mut opts = RendererOptions::for_device(ctx);
        match purpose {
            Purpose::Inspect => (opts.wait_for_tiles, opts.fetch_per_frame) = (false, 0),
            Purpose::Fly => opts.wait_for_tiles = false,
            Purpose::Render => {}
        }
        let source = source_of(name, purpose)?;
        let renderer = PlanetRenderer::new(ctx, source, opts, MAX_FRAMES_IN_FLIGHT)?;
        Ok(PlanetScene {
            name: name.to_string(),
            renderer: Some(renderer),
            depth: None,
            want_depth: false,
        })
    }
}

impl SceneRenderer for PlanetScene {
    fn name(&self) -> &str {
        &self.name
    }

    fn prepare(&mut self, ctx: &Context, input: &FrameInput<'_>) -> Result<()> {
        let r = self
            .renderer
            .as_mut()
            .context("the planet renderer was destroyed")?;
        let req = FrameRequest {
            cam: *input.cam,
            frame_slot: input.frame_slot,
            view: input.debug,
            aov: self.want_depth,
        };
        Ok(r.prepare(ctx, req)?)
    }

    fn declare<'a>(
        &'a self,
        g: &mut Graph<'a>,
        _input: &FrameInput<'_>,
        target: &mut ImageRef,
    ) -> Result<()> {
        let r = self
            .renderer
            .as_ref()
            .context("the planet renderer was destroyed")?;
        if let Some(aov) = r.declare(g, target)? {
            g.readback(AOV, aov);
        }
        Ok(())
    }

    fn source(&self) -> Option<Arc<dyn TileSource>> {
        self.renderer.as_ref().map(|r| r.source.clone())
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

    fn feed_supply(&self) -> Option<PerClass<Supply>> {
        Some(self.renderer.as_ref()?.feed_meter().meter().supplies())
    }

    fn stats(&self) -> SceneStats {
        let Some(r) = &self.renderer else {
            return SceneStats::default();
        };
        let s = &r.stats;
        SceneStats {
            mesh: Some(s.mesh),
            tiles: Some(TileStats::from(&s.residency)),
            alerts: r
                .source
                .faults()
                .map(|f| format!("STORE: {f}"))
                .into_iter()
                .chain(s.failures.last().cloned())
                .collect(),
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
        if let Some(r) = self.renderer.take() {
            r.destroy(ctx);
        }
    }
}
