//! A self-contained CBT scene for inspection and tests: a fixed residency around a point (the
//! tile holding it at every level down to a finest one, with a ring of neighbours, closed under
//! ancestors, the six roots always), those tiles on the GPU, and a pool. The planet frame streams
//! its tiles instead (`crate::renderer`); this keeps the surface fixed, so a mesh can go quiet
//! and be compared with the model.

use super::layout::CbtPush;
use super::nodes::{self, CbtHandles};
use super::{CbtGpu, CbtGpuError};
use crate::atlas::slots::{Residency, ResidentTile};
use crate::atlas::{SurfaceBindings, SurfaceClock, TileAtlas};
use crate::camera::ViewCamera;
use crate::cbt::bisector::MAX_ITERATIONS;
use crate::cbt::params::CbtParams;
use crate::frame_constants::{FrameConstantBuffers, FrameConstants};
use crate::planet::cube::dir_to_face;
use crate::planet::{Body, Face, TileId};
use crate::source::TileSource;
use crate::surface::{LodParams, TileSurface};
use framegraph::{Context, Graph};
use glam::DVec3;

/// Tiles around the ground point under `dir`: at every level 1..=`max_level` the tile holding it
/// and its neighbours within `ring` tiles (folded across face edges), closed under ancestors,
/// plus the six roots. Slots and pages in order; tiles are generated on all cores.
pub fn residency_around(src: &dyn TileSource, dir: DVec3, max_level: u8, ring: i32) -> Residency {
    let (face, u, v) = dir_to_face(dir);
    let mut ids: Vec<TileId> = Face::ALL.iter().map(|&f| TileId::new(0, f, 0, 0)).collect();
    for level in 1..=max_level {
        let c = TileId::containing(level, face, u, v);
        for dy in -ring..=ring {
            for dx in -ring..=ring {
                let mut t = c.neighbour(dx, dy);
                while let Some(id) = t {
                    if ids.contains(&id) {
                        break;
                    }
                    ids.push(id);
                    t = id.parent();
                }
            }
        }
    }
    ids.sort_by_key(|t| (t.level, t.face, t.y, t.x));
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let chunk = ids.len().div_ceil(threads);
    let tiles: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|&id| src.tile(id)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("tile generation"))
            .collect()
    });
    let body = src.body();
    let resident = ids
        .iter()
        .zip(tiles)
        .enumerate()
        .map(|(i, (&id, t))| ResidentTile::new(id, i as u32, i as u32, 1.0, t, body))
        .collect();
    Residency::new(resident)
}

/// A pool over a fixed residency.
pub struct CbtScene {
    pub res: Residency,
    pub body: Body,
    pub tiles: TileAtlas,
    pub cbt: CbtGpu,
    constants: FrameConstantBuffers,
    frame_slot: usize,
    /// Frames prepared.
    pub frames: u32,
    /// Iterations the next declared frame records (4; callers that read the counters back may
    /// apply `record::iterations_to_record`, as the planet frame does).
    pub iterations: u32,
    /// The surface clock of the prepared frame's slot records (`cbt.eval`'s memo).
    pub clock: SurfaceClock,
}

impl CbtScene {
    pub fn new(
        ctx: &Context,
        res: Residency,
        body: Body,
        capacity: Option<u32>,
        params: CbtParams,
        frames_in_flight: usize,
    ) -> Result<CbtScene, CbtGpuError> {
        let n = res.tiles.len() as u32;
        let tiles = TileAtlas::new(ctx, n, n, frames_in_flight)?;
        let cbt = CbtGpu::new(ctx, capacity, params)?;
        let constants = FrameConstantBuffers::new(ctx, frames_in_flight)?;
        Ok(CbtScene {
            res,
            body,
            tiles,
            cbt,
            constants,
            frame_slot: 0,
            frames: 0,
            iterations: MAX_ITERATIONS as u32,
            clock: SurfaceClock::default(),
        })
    }

    /// Host side of a frame: the constants for `cam`, the slot records (and the tiles, on the
    /// first frame) staged in `frame_slot`, whether the pool starts with `cbt.init`.
    pub fn prepare(
        &mut self,
        ctx: &Context,
        cam: &ViewCamera,
        frame_slot: usize,
    ) -> framegraph::Result<()> {
        let sun = DVec3::new(0.3, 0.4, 0.8);
        let consts =
            FrameConstants::new(cam, self.body, sun, &self.lod(cam), self.tiles.lookup_size);
        self.constants.write(frame_slot, &consts)?;
        self.tiles
            .prepare(ctx, frame_slot, &self.res, &[], cam.eye, self.body.texel0())?;
        self.clock = self.tiles.surface_clock(consts.memo_key());
        self.cbt.prepare();
        self.frame_slot = frame_slot;
        self.frames += 1;
        Ok(())
    }

    /// `stream.upload` of the prepared frame: the surface bindings.
    pub fn declare_tiles(&self, g: &mut Graph<'_>) -> SurfaceBindings {
        let frame = self.constants.import(g, self.frame_slot);
        SurfaceBindings::new(frame, self.tiles.declare(g))
    }

    /// `stream.upload` and the whole update (`iterations` recorded) of the prepared frame: the
    /// handles after FINISH and the surface bindings, for readbacks and rasters.
    pub fn declare_frame(&self, g: &mut Graph<'_>) -> (CbtHandles, SurfaceBindings) {
        let t = self.declare_tiles(g);
        let mut h = self.cbt.import(g);
        nodes::declare_update(
            g,
            &mut h,
            &t,
            CbtPush::new(&self.cbt.params, self.cbt.capacity, self.iterations)
                .with_clock(self.clock),
        );
        (h, t)
    }

    /// The level selection the GPU uses for `cam` (frame constants), for CPU-side checks.
    pub fn lod(&self, cam: &ViewCamera) -> LodParams {
        LodParams::for_camera(self.body, cam)
    }

    /// The surface the GPU meshes, in f64.
    pub fn surface(&self, cam: &ViewCamera) -> TileSurface<'_> {
        TileSurface {
            res: &self.res,
            lod: self.lod(cam),
            body: self.body,
        }
    }

    pub fn destroy(self, ctx: &Context) {
        self.cbt.destroy(ctx);
        self.tiles.destroy(ctx);
        self.constants.destroy(ctx);
    }
}
