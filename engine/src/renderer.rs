//! The planet frame: streaming → `stream.upload` → the CBT update (`cbt.*`) → `raster.publish` →
//! `publish.resolve` → `resolve.terrain` (and `resolve.aov` on request), declared into a frame
//! graph each frame. Owns every persistent GPU resource of the planet.

use crate::cbt::camera::ViewCamera;
use crate::cbt::gpu::debug::{declare_debug_edges, DebugMode};
use crate::cbt::gpu::mesh::GpuMesh;
use crate::cbt::params::CbtParams;
use crate::gpu::frame::frame_constants;
use crate::gpu::slots::{Residency, ResidentTile};
use crate::gpu::tiles::{GpuTiles, TileBindings};
use crate::planet::{Body, TileId};
use crate::publish::{declare_aov, declare_publish, declare_terrain, PublishOptions, View};
use crate::source::TileSource;
use crate::stream::residency::{ResidencyReport, TileStream};
use crate::surface::LodParams;
use framegraph::{BufferRef, Context, Graph, ImageRef};
use glam::DVec3;
use std::collections::HashMap;
use std::sync::Arc;

pub type Result<T, E = RenderError> = std::result::Result<T, E>;

/// How the planet frame is set up.
#[derive(Clone, Copy, Debug)]
pub struct RendererOptions {
    /// Tile slots (TERRAIN.md §2: 1,024); +64 reserved pages.
    pub slots: u32,
    /// Bisector pool capacity.
    pub pool_capacity: u32,
    /// A frame waits for all the tiles it wants (synchronous residency).
    pub wait_for_tiles: bool,
    pub cbt: CbtParams,
    pub publish: PublishOptions,
}

impl RendererOptions {
    /// Defaults sized from the device: the storage-buffer range bounds the pool.
    pub fn for_device(ctx: &Context) -> RendererOptions {
        let by_range = (ctx.info.max_storage_buffer_range / 160).min(1 << 22) as u32;
        RendererOptions {
            slots: crate::params::STREAM_SLOTS as u32,
            pool_capacity: by_range & !63,
            wait_for_tiles: true,
            cbt: CbtParams::default(),
            publish: PublishOptions::default(),
        }
    }
}

/// What the last frame did, for HUDs and `--stats`.
#[derive(Clone, Debug, Default)]
pub struct RenderStats {
    pub residency: ResidencyReport,
    pub uploaded_tiles: u32,
    pub leaves: u32,
    pub drawn: u32,
    pub high_water: u32,
    pub iterations: usize,
    pub quiet: bool,
    pub saturated: u32,
    /// Resident tiles still fading in.
    pub fading: u32,
}

pub struct PlanetRenderer {
    pub body: Body,
    pub source: Arc<dyn TileSource>,
    pub opts: RendererOptions,
    stream: TileStream,
    resident: HashMap<TileId, ResidentTile>,
    residency: Residency,
    tiles: GpuTiles,
    mesh: GpuMesh,
    clock: FrameClock,
    frame: u32,
    pub stats: RenderStats,
    /// Fixed sun direction (world), or None: a sun 30° high in the south-east of wherever the
    /// camera is (until the atmosphere brings a time of day, this keeps relief readable).
    pub sun: Option<DVec3>,
}

/// The renderer's time: wall time, or a fixed period per frame.
struct FrameClock {
    now: f64,
    last_wall: std::time::Instant,
    period: Option<f64>,
}

impl FrameClock {
    fn new() -> FrameClock {
        FrameClock {
            now: 0.0,
            last_wall: std::time::Instant::now(),
            period: None,
        }
    }

    /// Advance by one frame: the fixed period, or the wall time since the last tick.
    fn tick(&mut self) {
        let wall = std::time::Instant::now();
        let dt = (wall - self.last_wall).as_secs_f64();
        self.last_wall = wall;
        self.now += self.period.unwrap_or(dt);
    }
}

impl PlanetRenderer {
    pub fn new(
        ctx: &Context,
        source: Arc<dyn TileSource>,
        opts: RendererOptions,
        frames_in_flight: usize,
    ) -> Result<PlanetRenderer> {
        let body = source.body();
        let stream =
            TileStream::for_source(source.as_ref(), opts.slots as usize, opts.wait_for_tiles);
        let pages = opts.slots + crate::params::STREAM_RESERVED_PAGES as u32;
        let tiles = GpuTiles::new(ctx, opts.slots, pages, frames_in_flight)?;
        let mesh = GpuMesh::new(ctx, Some(opts.pool_capacity), opts.cbt, frames_in_flight)
            .map_err(|e| RenderError::Setup(e.to_string()))?;
        Ok(PlanetRenderer {
            body,
            source,
            opts,
            stream,
            resident: HashMap::new(),
            residency: Residency::default(),
            tiles,
            mesh,
            clock: FrameClock::new(),
            frame: 0,
            stats: RenderStats::default(),
            sun: None,
        })
    }

    /// Whether the last frame left nothing to do: the mesh quiet, every wanted tile resident and
    /// faded in.
    pub fn settled(&self) -> bool {
        self.stats.quiet
            && self.stats.residency.pending == 0
            && self.stats.uploaded_tiles == 0
            && self.stats.fading == 0
    }

    pub fn residency(&self) -> &Residency {
        &self.residency
    }

    pub fn lod_params(&self, cam: &ViewCamera) -> LodParams {
        LodParams {
            texel0: self.body.texel0(),
            pixel_angle: cam.pixel_angle(),
            lod_bias: 0.0,
            max_level: crate::params::MAX_LEVEL,
        }
    }

    /// Drive the renderer's clock (fades, animation) by a fixed period per frame instead of
    /// wall time, from the next frame on: what a display at 1/period Hz would show, however
    /// long the device takes per frame (`bench` flights measure pops at 60 Hz this way).
    /// None returns to wall time. The clock stays continuous across the switch.
    pub fn set_frame_period(&mut self, period_s: Option<f64>) {
        self.clock.period = period_s.filter(|p| p.is_finite() && *p > 0.0);
    }

    /// Streaming for this camera: evictions, then uploads; fades from arrival times.
    fn update_residency(&mut self, cam: &ViewCamera) {
        let now = self.clock.now;
        let fr = self.stream.update(cam, now, self.source.as_ref());
        for e in &fr.evictions {
            self.resident.remove(&e.tile);
        }
        for u in &fr.uploads {
            let t = ResidentTile::new(u.tile, u.slot, u.page, 0.0, u.data.clone(), self.body);
            self.resident.insert(u.tile, t);
        }
        let table = self.stream.table();
        let mut fading = 0;
        for t in self.resident.values_mut() {
            // Arrivals fade in over 0.5 s against their parent (TERRAIN.md §5), also when the
            // frame waited for them: a tile appearing at full weight is a pop.
            t.fade = if t.id.level == 0 {
                1.0
            } else {
                table.fade(t.slot, now) as f32
            };
            fading += (t.fade < 1.0) as u32;
        }
        self.stats.fading = fading;
        let mut tiles: Vec<ResidentTile> = self.resident.values().cloned().collect();
        tiles.sort_by_key(|t| t.slot);
        self.residency = Residency::new(tiles);
        self.stats.residency = fr.report;
    }

    /// Declare the planet frame into `g`, shading into `target` (RGBA8 storage). With `aov`,
    /// also declares `resolve.aov` and returns its buffer. With `ctx` None the frame is only
    /// declared (graph dumps): no streaming, no mesh update, no host writes.
    #[allow(clippy::too_many_arguments)]
    pub fn declare<'a>(
        &'a mut self,
        ctx: Option<&Context>,
        g: &mut Graph<'a>,
        cam: &ViewCamera,
        frame_slot: usize,
        target: &mut ImageRef,
        view: View,
        aov: bool,
    ) -> Result<Option<BufferRef>> {
        puffin::profile_function!();
        if ctx.is_some() {
            self.clock.tick();
            self.update_residency(cam);
        }
        let sun = self.sun.unwrap_or_else(|| local_sun(cam.eye, 135.0, 30.0));
        let consts = frame_constants(
            cam,
            self.body.radius,
            self.body.texel0(),
            sun,
            self.clock.now as f32,
            self.frame,
        );
        self.frame += 1;
        let tb: TileBindings =
            self.tiles
                .declare(ctx, g, frame_slot, &self.residency, cam.eye, consts)?;
        self.stats.uploaded_tiles = self.tiles.uploaded_tiles;
        let handles = self.mesh.declare(g, &tb, frame_slot);
        let fs = &self.mesh.stats;
        self.stats.leaves = fs.leaves;
        self.stats.drawn = fs.drawn;
        self.stats.high_water = fs.high_water;
        self.stats.iterations = fs.iterations;
        self.stats.quiet = fs.quiet;
        self.stats.saturated = fs.saturated();
        let mesh = handles.mesh();
        let extent = [cam.width, cam.height];
        if view == View::Cbt {
            GpuMesh::declare_debug(g, &handles, &tb, target, extent, DebugMode::Flat);
            return Ok(None);
        }
        let mut p = declare_publish(g, extent, mesh, tb, self.opts.publish);
        declare_terrain(g, extent, p.hits, tb, target, view);
        if view == View::Wireframe {
            declare_debug_edges(g, &handles, &tb, target, &mut p.depth);
        }
        Ok(aov.then(|| declare_aov(g, extent, p.hits, tb)))
    }

    pub fn destroy(self, ctx: &Context) {
        self.tiles.destroy(ctx);
        self.mesh.destroy(ctx);
    }
}

/// A sun at `azimuth_deg` (clockwise from north) and `elevation_deg` above the horizon of the
/// point under `eye`.
pub fn local_sun(eye: DVec3, azimuth_deg: f64, elevation_deg: f64) -> DVec3 {
    let up = eye.normalize();
    let (east, north) = crate::planet::east_north(up);
    let (az, el) = (azimuth_deg.to_radians(), elevation_deg.to_radians());
    (el.cos() * (az.cos() * north + az.sin() * east) + el.sin() * up).normalize()
}

/// Errors of the planet frame.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Gpu(#[from] framegraph::Error),
    #[error("planet renderer setup: {0}")]
    Setup(String),
}

#[cfg(test)]
mod tests {
    use super::FrameClock;

    #[test]
    fn a_fixed_period_clock_advances_by_the_period_and_stays_continuous() {
        let mut c = FrameClock::new();
        c.period = Some(0.25);
        for _ in 0..4 {
            c.tick();
        }
        assert_eq!(c.now, 1.0);
        // Back to wall time: it goes on from where it was, by a small wall step.
        c.period = None;
        c.tick();
        assert!(c.now >= 1.0 && c.now < 1.5, "{}", c.now);
    }
}
