//! Shared pieces of the GPU CBT tests.
#![allow(dead_code)]

pub mod explain;

use engine::cbt::validate::{validate, MeshReport};
use engine::cbt::Pool;

/// The validator must pass on the read-back pool; returns its report.
#[track_caller]
pub fn conforming(pool: &Pool, what: &str) -> MeshReport {
    match validate(pool) {
        Ok(r) => r,
        Err(e) => panic!("{what}: mesh invalid:\n  {}", e.join("\n  ")),
    }
}

/// Two pools are the same bit for bit; on failure, says where.
#[track_caller]
pub fn assert_same_pool(gpu: &Pool, cpu: &Pool, what: &str) {
    if gpu == cpu {
        return;
    }
    let mut diffs = Vec::new();
    for (i, (a, b)) in gpu.entries.iter().zip(&cpu.entries).enumerate() {
        if a != b && diffs.len() < 5 {
            diffs.push(format!("entry {i}:\n    gpu {a:?}\n    cpu {b:?}"));
        }
    }
    let arrays = [
        ("free bits", gpu.free_bits != cpu.free_bits),
        ("free tree", gpu.free_tree != cpu.free_tree),
        ("request bits", gpu.request_bits != cpu.request_bits),
        ("request tree", gpu.request_tree != cpu.request_tree),
        ("draw bits", gpu.draw_bits != cpu.draw_bits),
        ("draw tree", gpu.draw_tree != cpu.draw_tree),
        ("draw list", gpu.draw_list != cpu.draw_list),
    ];
    for (name, differs) in arrays {
        if differs {
            diffs.push(format!("{name} differ"));
        }
    }
    if gpu.control != cpu.control {
        diffs.push(format!(
            "control:\n    gpu {:?}\n    cpu {:?}",
            gpu.control, cpu.control
        ));
    }
    panic!(
        "{what}: GPU pool differs from the model:\n  {}",
        diffs.join("\n  ")
    );
}

use ash::vk;
use engine::atlas::slots::Residency;
use engine::atlas::SurfaceBindings;
use engine::camera::ViewCamera;
use engine::cbt::gpu::debug::{declare_debug_raster, MeshStyle};
use engine::cbt::gpu::layout::CbtPush;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::gpu::scene::{residency_around, CbtScene};
use engine::cbt::gpu::{nodes, CbtHandles};
use engine::cbt::{AnalyticSurface, CbtParams};
use engine::planet::cube::latlon_to_dir;
use engine::planet::Body;
use engine::source::AnalyticSource;
use engine::surface::LodParams;
use engine::surface::TileSurface;
use framegraph::{FrameOutput, Graph, ImageDesc};
use planetfall_tests::Gpu;
use std::sync::OnceLock;

/// Viewport of the GPU tests: small, so lavapipe evaluates few leaves.
pub const W: u32 = 128;
pub const H: u32 = 128;
pub const FOV_DEG: f64 = 60.0;
/// The spot the CPU tests use (any spot works; fixed for reproducibility).
pub const LAT: f64 = 27.9;
pub const LON: f64 = 86.9;
/// Altitudes above ground (m) and pitch (deg) of the static views, orbit to walking height.
pub const VIEWS: [(f64, f64); 6] = [
    (2.0e7, -90.0),
    (1.0e5, -60.0),
    (1.0e4, -30.0),
    (1000.0, -15.0),
    (100.0, -10.0),
    (2.0, -5.0),
];
/// Finest resident level around the spot (texel 4.8 m: the depth cap stops legs at 1.2 m).
pub const FINEST: u8 = 12;

/// The analytic Earth (the CPU model's test planet) and the same planet as tiles, resident
/// around (LAT, LON): the tile holding it at every level to `FINEST` — built once per test
/// binary (tile generation is the slow part).
pub struct World {
    pub planet: AnalyticSurface,
    pub res: Residency,
    pub body: Body,
}

pub fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let planet = AnalyticSurface::earth();
        let src = AnalyticSource::from_surface(planet.clone());
        let t = std::time::Instant::now();
        let res = residency_around(&src, latlon_to_dir(LAT, LON), FINEST, 0);
        println!(
            "residency: {} tiles in {:.1} s",
            res.tiles.len(),
            t.elapsed().as_secs_f64()
        );
        World {
            planet,
            res,
            body: src.body,
        }
    })
}

/// A camera `agl` metres above the analytic ground at (lat, lon).
pub fn camera(lat: f64, lon: f64, agl: f64, heading: f64, pitch: f64) -> ViewCamera {
    let w = world();
    let ground = w.planet.height(latlon_to_dir(lat, lon));
    ViewCamera::geo(
        lat,
        lon,
        w.body.radius + ground + agl,
        heading,
        pitch,
        FOV_DEG,
        W,
        H,
    )
}

/// The level selection the GPU uses for `cam` (frame constants), for the CPU tile surface.
pub fn lod_for(cam: &ViewCamera) -> LodParams {
    LodParams {
        texel0: world().body.texel0(),
        pixel_angle: cam.pixel_angle(),
        lod_bias: 0.0,
        max_level: engine::params::MAX_LEVEL,
    }
}

/// The surface the GPU meshes, in f64.
pub fn tile_surface(cam: &ViewCamera) -> TileSurface<'static> {
    let w = world();
    TileSurface {
        res: &w.res,
        body: w.body,
        lod: lod_for(cam),
    }
}

/// A GPU pool over the world's tiles.
pub struct Scene {
    pub gpu: Gpu,
    pub s: CbtScene,
}

impl Scene {
    pub fn new(capacity: u32, params: CbtParams) -> Scene {
        let gpu = Gpu::new();
        let w = world();
        let frames = gpu.exec.frames_in_flight();
        let s = CbtScene::new(
            &gpu.ctx,
            w.res.clone(),
            w.body,
            Some(capacity),
            params,
            frames,
        )
        .expect("scene");
        Scene { gpu, s }
    }

    /// One frame for `cam` whose CBT nodes `update` declares (given the tile bindings and the
    /// push constants for 4 iterations), reading back `what` at the end, and the debug image
    /// (RGBA8, readback "image") when asked.
    pub fn frame_custom(
        &mut self,
        cam: &ViewCamera,
        what: Readback,
        image: Option<MeshStyle>,
        update: impl FnOnce(&mut Graph<'_>, &mut CbtHandles, &SurfaceBindings, CbtPush),
    ) -> FrameOutput {
        let (slot, _) = self
            .gpu
            .exec
            .begin_frame(&self.gpu.ctx)
            .expect("frame slot");
        self.s.prepare(&self.gpu.ctx, cam, slot).expect("prepare");
        let mut g = Graph::new();
        let t = self.s.declare_tiles(&mut g);
        let mut h = self.s.cbt.import(&mut g);
        update(
            &mut g,
            &mut h,
            &t,
            CbtPush::new(&self.s.cbt.params, self.s.cbt.capacity, 4).with_clock(self.s.clock),
        );
        readback::declare_readback(&mut g, &h, what);
        if let Some(mode) = image {
            let mut target = g.create_image(
                "test.image",
                ImageDesc::d2(cam.width, cam.height, vk::Format::R8G8B8A8_UNORM),
            );
            declare_debug_raster(&mut g, &h, &t, &mut target, [cam.width, cam.height], mode);
            g.readback_image("image", target);
        }
        let compiled = g.compile(self.gpu.ctx.queue_setup()).expect("compiles");
        self.gpu.exec.run(&self.gpu.ctx, compiled).expect("runs")
    }

    /// One ordinary frame (4 iterations recorded).
    pub fn frame_with(
        &mut self,
        cam: &ViewCamera,
        what: Readback,
        image: Option<MeshStyle>,
    ) -> FrameOutput {
        self.frame_custom(cam, what, image, |g, h, t, push| {
            nodes::declare_update(g, h, t, push)
        })
    }

    pub fn frame(&mut self, cam: &ViewCamera, what: Readback) -> FrameOutput {
        self.frame_with(cam, what, None)
    }

    /// Frames until one is quiet (its first iteration neither splits nor merges) with no corner
    /// still morphing; returns the number of frames and the last output (the pool read back).
    /// Panics after `max_frames` plus the morphs' updates.
    pub fn run_to_quiet(&mut self, cam: &ViewCamera, max_frames: usize) -> (usize, FrameOutput) {
        // Quiet and no corner still morphing: the mesh's fixed point.
        let morph = engine::cbt::bisector::MORPH_UPDATES as usize;
        for f in 1..=max_frames + 2 * morph {
            let out = self.frame(cam, Readback::Pool);
            let c = readback::control(&out).expect("control");
            let st = readback::frame_stats(&c);
            if st.quiet && st.morphing == 0 {
                return (f, out);
            }
        }
        panic!("not quiet after {max_frames} frames");
    }

    pub fn destroy(self) {
        let Scene { gpu, s } = self;
        s.destroy(&gpu.ctx);
        gpu.assert_clean();
    }
}

/// Per-node GPU times of a frame, summed by name, in first-seen order.
pub fn node_times(out: &FrameOutput) -> Vec<(String, f64, usize)> {
    let mut v: Vec<(String, f64, usize)> = Vec::new();
    for t in &out.times {
        match v.iter_mut().find(|(n, _, _)| *n == t.name) {
            Some(e) => {
                e.1 += t.duration_ms;
                e.2 += 1;
            }
            None => v.push((t.name.clone(), t.duration_ms, 1)),
        }
    }
    v
}
