//! The planet frame behind the [`SceneRenderer`] interface: "earth" (ETOPO5 through the DEM
//! oracle) and "analytic" (the CBT's sum-of-sines test planet as tiles).

use super::scene::Purpose;
use super::startup;
use super::stats::{SceneStats, TileStats};
use super::{FrameInput, SceneRenderer};
use anyhow::{Context as _, Result};
use engine::earth::water::WaterMap;
use engine::renderer::{FrameRequest, PlanetRenderer, RendererOptions};
use engine::shade::AovPixel;
use engine::source::{AnalyticSource, EarthSource, TileSource};
use engine::store::oracle::{Oracle, OracleConfig};
use engine::stream::envelope::{PerClass, Supply};
use engine::stream::pool::Pooled;
use framegraph::{Context, FrameOutput, Graph, ImageRef};
use parking_lot::{Condvar, Mutex};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

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

/// Where the Earth's data lives: ETOPO5 (`--etopo`, else `PLANETFALL_ETOPO` or Debian's path)
/// and the tile store (`--data`, else `PLANETFALL_DATA` or the XDG cache).
#[derive(Clone, Debug, Default)]
pub struct EarthPaths {
    pub etopo: Option<PathBuf>,
    pub data: Option<PathBuf>,
    /// A water mask not yet built is built on a thread for the next start, and this one runs
    /// with water below the datum (the viewer: its first frame must not wait a minute for
    /// `gmt`). Otherwise the build is waited for (render, bench: their images are the result).
    pub mask_in_background: bool,
}

/// The Earth at the default paths.
pub fn earth_source() -> Result<Arc<dyn TileSource>> {
    Ok(earth()?)
}

/// [`earth_source`] with its oracle reachable (the benchmark's ground query).
pub fn earth() -> Result<Arc<EarthSource>> {
    earth_at(&EarthPaths::default())
}

/// The Earth from `paths`: ETOPO5 read once, its relief grid, the DEM oracle over the store.
pub fn earth_at(paths: &EarthPaths) -> Result<Arc<EarthSource>> {
    let body = engine::planet::Body::EARTH;
    let path = engine::earth::etopo::etopo_path(paths.etopo.as_deref());
    let t = Instant::now();
    let etopo = engine::earth::etopo::Etopo::open(&path)
        .with_context(|| format!("opening ETOPO5 at {}", path.display()))?;
    startup::step("ETOPO5 load", t);
    let t = Instant::now();
    let src = engine::earth::derive::Source::from_etopo(etopo, body);
    startup::step("ETOPO5 relief grid", t);
    let data_dir = engine::store::datadir::data_dir(paths.data.as_deref());
    let t = Instant::now();
    let mask = engine::earth::water::mask_path(None, &data_dir);
    let src = if paths.mask_in_background {
        let (water, _build) = WaterMap::open_or_build_later(&mask, &src.etopo);
        src.with_water(water)
    } else {
        src.with_mask_at(&mask)
    };
    startup::step("water mask", t);
    let cfg = OracleConfig {
        data_dir: Some(data_dir),
        memory_fallback: true,
        ..Default::default()
    };
    let t = Instant::now();
    let oracle = Oracle::new(Arc::new(src), cfg).context("starting the DEM oracle")?;
    startup::step("DEM oracle start", t);
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

/// A source seen by a frame that is only inspected (`planetfall graph`): it draws the coarse
/// stand-ins and asks for nothing, so the graph's shape does not depend on what the workers
/// happen to finish.
struct StandInsOnly(Arc<dyn TileSource>);

impl TileSource for StandInsOnly {
    fn body(&self) -> engine::planet::Body {
        self.0.body()
    }
    fn finest_level(&self) -> u8 {
        self.0.finest_level()
    }
    fn tile(&self, id: engine::planet::TileId) -> Arc<engine::earth::Tile> {
        self.0.tile(id)
    }
    fn max_relief(&self) -> f64 {
        self.0.max_relief()
    }
    fn is_async(&self) -> bool {
        true
    }
    fn provisional(&self, id: engine::planet::TileId) -> Option<Arc<engine::earth::Tile>> {
        self.0.provisional(id)
    }
}

/// The scene's source; for flight, a source without workers of its own is put behind a
/// pool so frames never make tiles themselves.
fn source_of(name: &str, purpose: Purpose) -> Result<Arc<dyn TileSource>> {
    match name {
        "analytic" if purpose == Purpose::Fly => {
            Ok(Arc::new(Pooled::beside_the_frame(analytic_source())))
        }
        "analytic" => Ok(analytic_source()),
        _ => earth_source(),
    }
}

type Opened = Option<Result<Arc<dyn TileSource>, String>>;

/// A scene's tile source, opened once on its own thread and shared by whoever needs it (the
/// viewer's renderer and its ground probe): ETOPO5 is read once and each tile derived once,
/// and the window and Vulkan context are made while it loads.
#[derive(Clone)]
pub struct SharedSource(Arc<(Mutex<Opened>, Condvar)>);

impl SharedSource {
    /// Start opening the source of scene `scene` ("earth" from `paths`, "analytic"); the test
    /// scene has none (waiting on it says so).
    pub fn open(scene: &str, paths: EarthPaths) -> SharedSource {
        let shared = SharedSource(Arc::default());
        let s = shared.clone();
        let scene = scene.to_string();
        let open = move || -> Result<Arc<dyn TileSource>, String> {
            match scene.as_str() {
                "analytic" => Ok(analytic_source()),
                "test" => Err("the test scene has no terrain".into()),
                _ => match earth_at(&paths) {
                    Ok(e) => Ok(e),
                    Err(e) => Err(format!("{e:#}")),
                },
            }
        };
        let spawned = std::thread::Builder::new()
            .name("source-open".into())
            .spawn(move || s.set(open()));
        if let Err(e) = spawned {
            shared.set(Err(format!("cannot start the source thread: {e}")));
        }
        shared
    }

    /// A source that is already open.
    #[cfg(test)]
    pub fn ready(source: Arc<dyn TileSource>) -> SharedSource {
        let shared = SharedSource(Arc::default());
        shared.set(Ok(source));
        shared
    }

    fn set(&self, r: Result<Arc<dyn TileSource>, String>) {
        let (m, cv) = &*self.0;
        *m.lock() = Some(r);
        cv.notify_all();
    }

    /// The source, once open (blocks until then), or why there is none.
    pub fn wait(&self) -> Result<Arc<dyn TileSource>, String> {
        let (m, cv) = &*self.0;
        let mut st = m.lock();
        loop {
            if let Some(r) = &*st {
                return r.clone();
            }
            cv.wait(&mut st);
        }
    }
}

/// The renderer options of a planet scene used for `purpose` on `ctx`'s device.
pub fn options(ctx: &Context, purpose: Purpose) -> RendererOptions {
    let mut opts = RendererOptions::for_device(ctx);
    crate::device::frame_options(ctx, &mut opts);
    match purpose {
        Purpose::Inspect => (opts.wait_for_tiles, opts.fetch_per_frame) = (false, 0),
        Purpose::Fly => opts.wait_for_tiles = false,
        Purpose::Render => {}
    }
    opts
}

impl PlanetScene {
    /// The planet frame of scene `name` over `source` (`None`: the scene's own at the
    /// default paths).
    pub fn new(
        ctx: &Context,
        name: &str,
        purpose: Purpose,
        source: Option<Arc<dyn TileSource>>,
    ) -> Result<PlanetScene> {
        let opts = options(ctx, purpose);
        let source: Arc<dyn TileSource> = match source {
            Some(s) if purpose == Purpose::Inspect => Arc::new(StandInsOnly(s)),
            // A shared source without workers of its own is pooled for flight, as `source_of`
            // does for the ones it opens.
            Some(s) if purpose == Purpose::Fly && !s.is_async() => {
                Arc::new(Pooled::beside_the_frame(s))
            }
            Some(s) => s,
            None if purpose == Purpose::Inspect => {
                Arc::new(StandInsOnly(source_of(name, purpose)?))
            }
            None => source_of(name, purpose)?,
        };
        let mut renderer = PlanetRenderer::new(ctx, source, opts, MAX_FRAMES_IN_FLIGHT)?;
        if purpose == Purpose::Inspect {
            // Inspected frames are declared, not shown: each advances the clock by the longest
            // fade, so frame N's nodes do not depend on how fast this machine declares frames
            // (a fading surface records the mesh update, a still one does not).
            let fades = engine::params::STREAM_FADE_S.max(engine::params::STREAM_XFADE_S);
            renderer.set_frame_period(Some(fades));
        }
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
        r.sun = input.sun;
        r.observe_gpu_times(input.frame_slot, input.gpu_times);
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
            notes: vec![match r.gpu_tiles_per_frame() {
                Some(_) => "tiles made on the GPU (tiles.derive, tiles.amplify)",
                None => "tiles made by the CPU workers",
            }],
            ..Default::default()
        }
    }

    fn drawn_ground(&self, cam: &engine::camera::ViewCamera, dir: glam::DVec3) -> Option<f64> {
        self.renderer.as_ref()?.drawn_ground(cam, dir)
    }

    fn settled(&self) -> bool {
        self.renderer.as_ref().map(|r| r.settled()).unwrap_or(true)
    }

    fn reset_fine_detail_gain(&mut self) {
        if let Some(r) = &mut self.renderer {
            r.reset_fine_detail_gain();
        }
    }

    fn cut(&mut self) {
        if let Some(r) = &mut self.renderer {
            r.cut();
        }
    }

    fn preview_next(&mut self) {
        if let Some(r) = &mut self.renderer {
            r.atmosphere.preview_next();
        }
    }

    fn gpu_tile_budget(&self) -> Option<engine::earth::gpu_budget::BudgetState> {
        self.renderer.as_ref()?.gpu_tile_budget()
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
