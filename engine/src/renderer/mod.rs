//! The planet frame, in two steps. [`PlanetRenderer::prepare`] does the host work: the clock,
//! streaming (residency), the frame constants, staging writes and the mesh counters of the
//! frame slot's last frame. [`PlanetRenderer::declare`] then only adds nodes: the tiles made
//! on the GPU (`tiles.*`, `earth::gpu_feed`, when the frame makes any) → `stream.upload` →
//! the CBT update (`cbt.*`) → the publish (`publish.clear` … `publish.resolve`) → the
//! atmosphere's LUTs (`atmos.*`) → `shade.terrain` (and `shade.aov` on request). Owns every
//! persistent GPU resource of the planet.
//!
//! Beside it: what a caller sets up and asks for (`options.rs`), what a frame reports
//! (`stats.rs`), the clock (`clock.rs`), and the drawn set `prepare` keeps from the stream's
//! frame (`drawn.rs`).

mod clock;
mod drawn;
mod options;
mod stats;

pub use options::{default_gpu_tiles_per_frame, FrameRequest, RendererOptions};
pub use stats::{PrepareTimes, RenderStats};

use crate::atlas::slots::{Residency, ResidentTile};
use crate::atlas::{SurfaceBindings, TileAtlas};
use crate::atmosphere::{Atmosphere, AtmosphereParams};
use crate::camera::ViewCamera;
use crate::cbt::gpu::debug::{declare_debug_edges, declare_debug_raster, MeshStyle};
use crate::cbt::gpu::mesh::GpuMesh;
use crate::cbt::gpu::record::ViewPose;
use crate::debug_view::DebugView;
use crate::earth::climate::Climate;
use crate::earth::gpu_budget::BudgetState;
use crate::earth::gpu_feed::GpuTileMaker;
use crate::exposure::Exposure;
use crate::frame_constants::{FrameConstantBuffers, FrameConstants};
use crate::params::{LAST_STORED_LEVEL, MAX_LEVEL};
use crate::planet::{Body, TileId};
use crate::publish::{declare_publish, PublishMode, PublishOptions};
use crate::shade::{declare_aov, declare_terrain, ClimateField, Skips};
use crate::source::TileSource;
use crate::stream::envelope::{FeedMeter, LocalFetch};
use crate::stream::residency::TileStream;
use crate::stream::WantedSet;
use crate::surface::LodParams;
use clock::FrameClock;
use framegraph::{BufferRef, Context, Graph, ImageRef};
use glam::DVec3;
use stats::Lap;
use std::collections::HashMap;
use std::sync::Arc;

pub type Result<T, E = RenderError> = std::result::Result<T, E>;

pub struct PlanetRenderer {
    pub body: Body,
    /// Where the stream's tiles come from: the source given, or the GPU feed over it.
    pub source: Arc<dyn TileSource>,
    pub opts: RendererOptions,
    stream: TileStream,
    /// The GPU side of the tile feed, when tiles are made on the GPU.
    gpu_tiles: Option<GpuTileMaker>,
    /// The last frame's wanted set, as the stream computed it.
    wanted: WantedSet,
    /// The tiles drawn this frame (their payloads are in the atlas by the frame's start).
    resident: HashMap<TileId, ResidentTile>,
    /// Tiles landing during this frame, drawn from the next.
    incoming: Vec<ResidentTile>,
    residency: Residency,
    atlas: TileAtlas,
    mesh: GpuMesh,
    constants: FrameConstantBuffers,
    /// The air: parameters and LUTs (`atmos.*`).
    pub atmosphere: Atmosphere,
    /// The exposure the shading applies (`exposure.adapt`).
    pub exposure: Exposure,
    /// The climate's wetness field the materials read (`earth::climate`).
    climate: ClimateField,
    clock: FrameClock,
    /// Supply per feed class (`stream::envelope`), fed from the source once per frame.
    feed: FeedMeter,
    /// What the last [`PlanetRenderer::prepare`] set up for [`PlanetRenderer::declare`].
    prepared: Option<FrameRequest>,
    /// The next frame begins after a camera cut ([`PlanetRenderer::cut`]).
    cut_next: bool,
    pub stats: RenderStats,
    /// Counts frames whose resident surface differed from the frame before (arrivals,
    /// evictions, fades): part of what the mesh compares to skip a still frame's update.
    surface_generation: u64,
    /// Counts rebuilds of `residency` (the atlas restages its records and lookup only then,
    /// or when the eye moved).
    residency_generation: u64,
    /// Fixed sun direction (world), or None: a sun 30° high in the south-east of wherever the
    /// camera is: with no time of day, this keeps relief readable everywhere.
    pub sun: Option<DVec3>,
}

impl PlanetRenderer {
    pub fn new(
        ctx: &Context,
        source: Arc<dyn TileSource>,
        mut opts: RendererOptions,
        frames_in_flight: usize,
    ) -> Result<PlanetRenderer> {
        let body = source.body();
        opts.publish.mode = opts.publish.mode.resolve(&ctx.info);
        // Every page is a layer of the atlas's one image array: refused before anything is made.
        let layers = ctx.info.max_image_array_layers;
        if opts.slots == 0 || opts.slots + crate::params::STREAM_RESERVED_PAGES as u32 > layers {
            return Err(RenderError::Setup(format!(
                "{} tile slots: this device holds 1 to {} (its {} image array layers less the {} reserved pages)",
                opts.slots,
                layers.saturating_sub(crate::params::STREAM_RESERVED_PAGES as u32),
                layers,
                crate::params::STREAM_RESERVED_PAGES
            )));
        }
        // Asked of the source given, before the GPU feed wraps it.
        let (earth, dir) = (source.earth(), source.data_dir());
        let gpu_tiles = match earth.clone() {
            Some(src) if !opts.wait_for_tiles && opts.gpu_tiles_per_frame > 0 => {
                let (per, ms) = (opts.gpu_tiles_per_frame, opts.gpu_tile_budget_ms);
                match GpuTileMaker::new(ctx, &src, source.clone(), per, ms, frames_in_flight) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        log::warn!("tiles are made on the CPU workers: {e}");
                        None
                    }
                }
            }
            _ => None,
        };
        let source: Arc<dyn TileSource> = match &gpu_tiles {
            Some(m) => m.feed.clone(),
            None => source,
        };
        let mut stream =
            TileStream::for_source(source.as_ref(), opts.slots as usize, opts.wait_for_tiles);
        stream.params.max_tiles = crate::stream::wanted_cap(opts.slots as usize);
        stream.fetch_per_frame = opts.fetch_per_frame;
        stream.max_uploads = opts.max_uploads.max(1);
        let pages = opts.slots + crate::params::STREAM_RESERVED_PAGES as u32;
        let atlas = TileAtlas::new(ctx, opts.slots, pages, frames_in_flight)?;
        let mesh = GpuMesh::new(ctx, Some(opts.pool_capacity), opts.cbt, frames_in_flight)
            .map_err(|e| RenderError::Setup(e.to_string()))?;
        let constants = FrameConstantBuffers::new(ctx, frames_in_flight)?;
        let atmosphere = Atmosphere::new(ctx, AtmosphereParams::earth(body), frames_in_flight)?;
        let exposure = Exposure::new(ctx, opts.exposure)?;
        // The Earth's climate from its heights and water, kept in the data directory; where
        // it is not there yet, made on a worker while the latitude belt is drawn (the first
        // frames do not wait for it; waiting renders do: `unsettled`). The latitude belt for
        // other planets.
        let climate = match earth {
            Some(src) => match Climate::read_cached(&src, dir.as_deref()) {
                Some(c) => ClimateField::new(ctx, &c, frames_in_flight)?,
                None => {
                    log::info!(
                        "climate field not in {}: made on a worker, the latitude belt until then",
                        dir.as_deref()
                            .map_or("(no data directory)".into(), |d| d.display().to_string())
                    );
                    ClimateField::new(ctx, &Climate::latitude_belt(), frames_in_flight)?
                        .computing(move || Climate::cached(&src, dir.as_deref()))
                }
            },
            None => ClimateField::new(ctx, &Climate::latitude_belt(), frames_in_flight)?,
        };
        Ok(PlanetRenderer {
            body,
            source,
            opts,
            stream,
            gpu_tiles,
            wanted: WantedSet::default(),
            resident: HashMap::new(),
            incoming: Vec::new(),
            residency: Residency::default(),
            atlas,
            mesh,
            constants,
            atmosphere,
            exposure,
            climate,
            clock: FrameClock::new(),
            feed: FeedMeter::default(),
            prepared: None,
            cut_next: false,
            stats: RenderStats::default(),
            surface_generation: 0,
            residency_generation: 0,
            sun: None,
        })
    }

    /// Whether the last frame left nothing to do: the mesh quiet, every wanted tile resident and
    /// faded in.
    pub fn settled(&self) -> bool {
        self.unsettled().next().is_none()
    }

    /// What the last frame left to do, by name (none: [`PlanetRenderer::settled`]): the mesh
    /// still refining, tiles pending, stand-ins, stale payloads, uploads, fades.
    pub fn unsettled(&self) -> impl Iterator<Item = &'static str> {
        let r = &self.stats.residency;
        [
            (!self.stats.mesh.quiet, "mesh"),
            (r.pending > 0, "pending"),
            (r.provisional > 0, "provisional"),
            (r.stale > 0, "stale"),
            (self.stats.uploaded_tiles > 0, "uploading"),
            (self.stats.fading > 0, "fading"),
            (self.climate.pending(), "climate"),
        ]
        .into_iter()
        .filter_map(|(held, name)| held.then_some(name))
    }

    pub fn residency(&self) -> &Residency {
        &self.residency
    }

    /// The ground under unit direction `dir` as the last frame drew it for `cam`: the resident
    /// tiles' blended surface (levels, arrival fades, same-slot cross-fades), metres above the
    /// datum — what the viewer keeps the camera above. None before the first frame.
    pub fn drawn_ground(&self, cam: &ViewCamera, dir: DVec3) -> Option<f64> {
        if self.residency.tiles.is_empty() {
            return None;
        }
        let (face, x, y) = crate::surface::owning_fixed(dir);
        let p = crate::surface::surface_at_fixed(
            &self.residency,
            &self.lod_params(cam),
            self.body,
            cam.eye,
            face,
            x,
            y,
        );
        Some(p.height)
    }

    /// The tiles the last prepared frame wanted (`stream::wanted`), with the stream's own
    /// height bounds: what readiness is measured against.
    pub fn wanted(&self) -> &WantedSet {
        &self.wanted
    }

    /// The renderer's clock, seconds (wall time, or the fixed frame period's).
    pub fn clock_s(&self) -> f64 {
        self.clock.now
    }

    /// The fine-detail gain the next frame's mesh update runs with (TERRAIN.md §6).
    pub fn fine_detail_gain(&self) -> f64 {
        self.mesh.gain.value()
    }

    /// The detail settings of the amplified levels changed: every resident tile above the
    /// stored levels is made again and replaced in its slot with the 1.5 s cross-fade.
    /// Returns how many are being remade.
    pub fn detail_settings_changed(&mut self) -> usize {
        self.remake_levels(LAST_STORED_LEVEL + 1..=MAX_LEVEL)
    }

    /// Makes the resident tiles of `levels` again (the source forgets its copies) and replaces
    /// each in its slot when it arrives, cross-fading. Returns how many.
    pub fn remake_levels(&mut self, levels: std::ops::RangeInclusive<u8>) -> usize {
        let ids: Vec<TileId> = self
            .stream
            .resident()
            .into_iter()
            .map(|e| e.tile)
            .filter(|id| levels.contains(&id.level))
            .collect();
        self.source.invalidate(&ids);
        self.stream.refresh(&ids)
    }

    /// Restores the fine-detail gain to 1: it never rises by itself (`cbt::gain`).
    pub fn reset_fine_detail_gain(&mut self) {
        self.mesh.gain.reset();
    }

    /// The feed's supply per class (tiles/s) as of the last prepared frame.
    pub fn feed_meter(&self) -> &FeedMeter {
        &self.feed
    }

    /// Whether a resident tile is still drawn from its provisional stand-in (`bench`
    /// readiness counts only exact payloads as the finest level being there).
    pub fn is_provisional(&self, tile: TileId) -> bool {
        self.stream.is_provisional(tile)
    }

    pub fn lod_params(&self, cam: &ViewCamera) -> LodParams {
        LodParams::for_camera(self.body, cam)
    }

    /// Drive the renderer's clock (fades, animation) by a fixed period per frame instead of
    /// wall time, from the next frame on: what a display at 1/period Hz would show, however
    /// long the device takes per frame (`bench` flights measure pops at 60 Hz this way).
    /// None returns to wall time. The clock stays continuous across the switch.
    pub fn set_frame_period(&mut self, period_s: Option<f64>) {
        self.clock.period = period_s.filter(|p| p.is_finite() && *p > 0.0);
    }

    /// The host work of one frame, before its graph is declared: tick the clock, stream
    /// tiles for `req.cam`, build and write the frame constants, stage the slot records and new
    /// payloads, read the mesh counters of `req.frame_slot`'s last frame (from
    /// `Executor::begin_frame`: that slot's previous frame has finished) and update
    /// [`PlanetRenderer::stats`].
    pub fn prepare(&mut self, ctx: &Context, req: FrameRequest) -> Result<()> {
        puffin::profile_function!();
        let cam = &req.cam;
        let mut lap = Lap::start();
        let mut times = PrepareTimes::default();
        self.clock.tick();
        self.climate.poll()?;
        // A waiting frame is a still render's (or a test's): its exposure adapts at once.
        self.exposure.prepare(
            (!self.opts.wait_for_tiles).then(|| self.clock.period.unwrap_or(self.clock.wall_dt)),
        );
        // The interval since the last frame: when it blocked on tiles, those it set out to
        // fetch in this thread (loaded and left pending) were its backlog while it fetched. A
        // frame that did not wait asked only the oracle, whose queue is the backlog.
        if let Some(f) = self.source.feed() {
            let r = &self.stats.residency;
            let here = LocalFetch {
                tiles: if r.waited {
                    (r.pending + r.loaded_this_frame) as u64
                } else {
                    0
                },
                busy_fraction: self.stats.fetch_s / self.clock.wall_dt,
            };
            self.feed.observe(self.clock.now, &f, here);
        }
        if let Some(m) = &mut self.gpu_tiles {
            m.harvest(ctx, req.frame_slot);
        }
        let fetch = std::time::Instant::now();
        times.feed_ms = lap.ms();
        self.update_residency(cam);
        self.stats.fetch_s = fetch.elapsed().as_secs_f64();
        times.stream_ms = lap.ms();
        if let Some(m) = &mut self.gpu_tiles {
            let cut = self.stream.in_cut_window();
            m.plan(req.frame_slot, &self.wanted, self.clock.wall_dt, cut);
        }
        times.feed_ms += lap.ms();
        use crate::params::{SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG};
        let sun = self
            .sun
            .unwrap_or_else(|| local_sun(cam.eye, SUN_AZIMUTH_DEG, SUN_ELEVATION_DEG));
        let lod = self.lod_params(cam);
        let consts = FrameConstants::new(cam, self.body, sun, &lod, self.atlas.lookup_size)
            .at_time(self.clock.now);
        self.constants.write(req.frame_slot, &consts)?;
        let sky = crate::atmosphere::sky_may_show(cam, self.body.radius);
        self.atmosphere.prepare(req.frame_slot, &consts, sky)?;
        times.constants_ms = lap.ms();
        self.atlas.prepare_known(
            ctx,
            req.frame_slot,
            &self.residency,
            Some(self.residency_generation),
            &self.incoming,
            cam.eye,
            self.body.texel0(),
        )?;
        self.mesh.clock = self.atlas.surface_clock(consts.memo_key());
        times.records_ms = lap.ms();
        // New vertices morph only where the image is continuous with a last one: a flying
        // frame (not a waiting one, a still image), after the mesh first came to rest, outside
        // a cut's window (where arrivals show at once too).
        let continuous = !self.opts.wait_for_tiles && self.mesh.rested;
        self.mesh.cbt.params.morph_updates = if continuous && !self.stream.in_cut_window() {
            self.opts.cbt.morph_updates
        } else {
            0
        };
        // The cull's stamps of hidden leaves are read by the next frame's update.
        self.mesh.occlusion = self.opts.publish.occlusion.stamps() && req.view != DebugView::Cbt;
        self.mesh.prepare(
            req.frame_slot,
            ViewPose::new(cam, self.body.radius),
            mesh_inputs(&consts, self.surface_generation),
        );
        self.stats.uploaded_tiles = self.atlas.uploaded_tiles();
        self.stats.mesh = self.mesh.stats.summary(self.mesh.gain.value());
        times.mesh_ms = lap.ms();
        self.stats.prepare = times;
        self.prepared = Some(req);
        Ok(())
    }

    /// Declare the prepared frame into `g`, shading into `target` (RGBA8 storage). With
    /// `req.aov`, also declares `shade.aov` and returns its buffer.
    pub fn declare(&self, g: &mut Graph<'_>, target: &mut ImageRef) -> Result<Option<BufferRef>> {
        puffin::profile_function!();
        let req = self.prepared.as_ref().ok_or(RenderError::NotPrepared)?;
        if let Some(m) = &self.gpu_tiles {
            m.declare(g)
                .map_err(|e| RenderError::Setup(e.to_string()))?;
        }
        let extent = [req.cam.width, req.cam.height];
        let frame = self.constants.import(g, req.frame_slot);
        let surface = SurfaceBindings::new(frame, self.atlas.declare(g));
        let mesh = self.mesh.declare(g, &surface);
        if req.view == DebugView::Cbt {
            declare_debug_raster(g, &mesh, &surface, target, extent, MeshStyle::Flat);
            // The persistent LUTs this frame was prepared to make are made all the same (the
            // per-frame ones, unread, are culled).
            self.atmosphere.declare(g, frame);
            return Ok(None);
        }
        let edges = req.view == DebugView::Wireframe;
        let bindings = self.mesh.bindings(&mesh);
        let mut publish = self.opts.publish;
        publish.no_correction |= self.opts.skips.contains(Skips::ROOT_SEARCH);
        // cbt.decide keeps an unseen leaf the view does not graze whether hidden or not.
        if self.opts.cbt.hidden_leaves == crate::cbt::HiddenLeaves::KeepUnseen {
            publish.unseen_cos = self.opts.cbt.silhouette_cos as f32;
        }
        let p = declare_publish(g, extent, bindings, surface, publish, edges);
        // The late phase's culled leaves, or with stamps alone those raster.unseen found hidden.
        if self.opts.publish.occlusion.stamps() {
            self.mesh.declare_raster_counters(g, p.big);
        }
        let atmos = self.atmosphere.declare(g, frame);
        let exposure = self.exposure.declare(g);
        let climate = self.climate.declare(g);
        declare_terrain(
            g,
            extent,
            p.hits,
            surface,
            atmos,
            exposure,
            climate,
            target,
            req.view,
            self.opts.skips,
        );
        if let (true, Some(mut depth)) = (edges, p.depth) {
            declare_debug_edges(g, &mesh, &surface, target, &mut depth);
        }
        Ok(req.aov.then(|| declare_aov(g, extent, p.hits, surface)))
    }

    /// The GPU times of frame slot `slot`'s last frame (`FrameOutput::times`, from
    /// `Executor::begin_frame` or `drain`), given before that slot's next `prepare`: the tiles
    /// made on the GPU are then budgeted by their measured cost.
    pub fn observe_gpu_times(&mut self, slot: usize, times: &[framegraph::exec::timing::NodeTime]) {
        if let Some(m) = &mut self.gpu_tiles {
            m.observe(slot, times);
        }
    }

    /// Measured GPU ms per tile made in the frames, derived and amplified (None: not measured,
    /// or the CPU workers make the tiles).
    pub fn gpu_tile_cost_ms(&self) -> [Option<f64>; 2] {
        self.gpu_tiles
            .as_ref()
            .map_or([None, None], |m| m.cost_ms())
    }

    /// Tiles a frame makes on the GPU, or None when the source's CPU workers make them.
    pub fn gpu_tiles_per_frame(&self) -> Option<usize> {
        self.gpu_tiles.as_ref().map(|m| m.per_frame())
    }

    /// The GPU tile budget as of the last prepared frame (None when the CPU workers make the
    /// tiles).
    pub fn gpu_tile_budget(&self) -> Option<BudgetState> {
        self.gpu_tiles.as_ref().map(|m| m.budget())
    }

    /// A camera cut: the next frame's view has nothing on screen to be continuous with (a
    /// teleport, a bookmark jump). Tiles arriving until its wanted set is first complete
    /// (at most `params::STREAM_CUT_WINDOW_MAX_S`) show at full weight at once, without the
    /// arrival fade or the same-slot cross-fade (`stream::cut`). Jumps of the eye are found
    /// without it.
    pub fn cut(&mut self) {
        self.cut_next = true;
    }

    /// Who rasterises the leaves `raster.compute` hands over in this renderer's frames
    /// (resolved for the device: never `Auto`).
    pub fn publish_mode(&self) -> PublishMode {
        self.opts.publish.mode
    }

    /// Rasterise the handed-over leaves with `mode` (resolved for `ctx`'s device) from the
    /// next declared frame on; the mesh and tiles are untouched, so a settled view can be
    /// drawn both ways.
    pub fn set_publish_mode(&mut self, ctx: &Context, mode: PublishMode) {
        self.opts.publish.mode = mode.resolve(&ctx.info);
    }

    /// The publish options the next declared frame uses.
    pub fn publish_options(&self) -> PublishOptions {
        self.opts.publish
    }

    /// Publish with `opts` from the next declared frame on (the mode resolved for `ctx`'s
    /// device); the mesh and tiles are untouched, so a settled view can be published several
    /// ways.
    pub fn set_publish_options(&mut self, ctx: &Context, opts: PublishOptions) {
        self.opts.publish = PublishOptions {
            mode: opts.mode.resolve(&ctx.info),
            ..opts
        };
    }

    pub fn destroy(self, ctx: &Context) {
        if let Some(m) = self.gpu_tiles {
            m.destroy(ctx);
        }
        self.atlas.destroy(ctx);
        self.mesh.destroy(ctx);
        self.constants.destroy(ctx);
        self.atmosphere.destroy(ctx);
        self.exposure.destroy(ctx);
        self.climate.destroy(ctx);
    }
}

/// A key of what the mesh update reads besides the view: the frame constants, less what only
/// shading reads (the clock, the sun), and the resident surface's generation.
fn mesh_inputs(consts: &FrameConstants, surface_generation: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let c = FrameConstants {
        time_s: 0.0,
        sun_dir: [0.0; 3],
        ..*consts
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytemuck::bytes_of(&c).hash(&mut h);
    surface_generation.hash(&mut h);
    h.finish()
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
    #[error("the planet frame was declared before it was prepared")]
    NotPrepared,
}
