//! What the publish tests share: a camera at the origin, triangles rasterised as leaves by
//! `declare_raster` (with occlusion stamps, and `raster.unseen` where asked), and a wall.
#![allow(dead_code)]

use engine::camera::ViewCamera;
use engine::cbt::bisector::Bisector;
use engine::frame_constants::{view_proj, FrameConstants};
use engine::publish::{
    declare_raster, declare_unseen, MeshBindings, OcclusionBindings, PublishOptions, RasterCounts,
};
use framegraph::{BufferDesc, GpuBuffer, Graph};
use glam::DVec3;
use planetfall_tests::Gpu;

pub const W: u32 = 96;
pub const H: u32 = 64;
/// `CbtControl` (shaders/common/bisector.glsl): 224 bytes, the draw's vertex count at 36.
const CONTROL_BYTES: usize = 224;
const DRAW_ARGS_OFFSET: usize = 36;

/// A camera at the origin looking along +z, y up, 60° vertical field of view.
pub fn camera() -> ViewCamera {
    ViewCamera::look(DVec3::ZERO, DVec3::Z, DVec3::Y, 60.0, W, H)
}

/// Camera-relative point `x` right, `y` up, `z` ahead, metres, rounded to the f32 the GPU reads.
pub fn at(cam: &ViewCamera, x: f64, y: f64, z: f64) -> DVec3 {
    let p = cam.right * x + cam.up * y + cam.forward * z;
    p.as_vec3().as_dvec3()
}

/// The camera-relative point at view depth `z` m that [`camera`] sees at pixel (sx, sy), y
/// down (32 / tan 30° = 55.43 px a metre at 1 m).
pub fn screen_at(cam: &ViewCamera, sx: f64, sy: f64, z: f64) -> DVec3 {
    let k = 55.425_625_842_204_07 / z;
    at(cam, (sx - W as f64 / 2.0) / k, (H as f64 / 2.0 - sy) / k, z)
}

/// The visibility buffer after rasterising `tris` (leaf i = triangle i) with `opts`.
pub fn rasterise(
    gpu: &mut Gpu,
    cam: &ViewCamera,
    tris: &[[DVec3; 3]],
    opts: PublishOptions,
) -> Vec<u64> {
    rasterise_with(gpu, cam, tris, opts, None).0
}

/// [`rasterise`] with occlusion stamps (`stamps[i]` for leaf i, and this frame's stamp: the
/// early phase takes the leaves stamped one less); also the raster's counts and the stamps
/// it left (empty where it wrote none).
pub fn rasterise_with(
    gpu: &mut Gpu,
    cam: &ViewCamera,
    tris: &[[DVec3; 3]],
    opts: PublishOptions,
    stamps: Option<(&[u32], u32)>,
) -> (Vec<u64>, RasterCounts, Vec<u32>) {
    rasterise_leaves(gpu, cam, tris, &[], opts, stamps, false)
}

/// [`rasterise_with`] for leaves whose largest edge-midpoint residual is `residual_px[i]` (none
/// given: 0), and with `unseen`, `raster.unseen` after the raster (`declare_unseen`; no resolve
/// runs, so the leaves that win pixels stay stamped unseen too). The planet's centre is
/// 6,400 km below the camera, so a leaf's up is the view's up.
pub fn rasterise_leaves(
    gpu: &mut Gpu,
    cam: &ViewCamera,
    tris: &[[DVec3; 3]],
    residual_px: &[f32],
    opts: PublishOptions,
    stamps: Option<(&[u32], u32)>,
    unseen: bool,
) -> (Vec<u64>, RasterCounts, Vec<u32>) {
    let ctx = &gpu.ctx;
    let mut fc: FrameConstants = bytemuck::Zeroable::zeroed();
    fc.view_proj = view_proj(cam).to_cols_array_2d();
    fc.viewport = [W as f32, H as f32];
    fc.inv_viewport = [1.0 / W as f32, 1.0 / H as f32];
    fc.planet_center = (cam.up * -6.4e6).as_vec3().to_array();
    fc.pixel_angle = cam.pixel_angle() as f32;
    let pool: Vec<Bisector> = tris
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut b = Bisector {
                r_hyp: residual_px.get(i).copied().unwrap_or(0.0),
                ..Default::default()
            };
            for (k, p) in t.iter().enumerate() {
                b.positions[3 * k..3 * k + 3].copy_from_slice(&p.as_vec3().to_array());
            }
            b
        })
        .collect();
    let n = tris.len() as u32;
    let draw_list: Vec<u32> = (0..n).collect();
    let mut control = vec![0u8; CONTROL_BYTES];
    control[DRAW_ARGS_OFFSET..DRAW_ARGS_OFFSET + 4].copy_from_slice(&(3 * n).to_le_bytes());
    let upload = |name: &str, bytes: &[u8]| {
        let mut b = GpuBuffer::new(ctx, name, BufferDesc::upload(bytes.len() as u64)).unwrap();
        b.write(0, bytes).unwrap();
        b
    };
    let zero = vec![0u32; n as usize];
    let bufs = [
        upload("test.frame", bytemuck::bytes_of(&fc)),
        upload("test.pool", bytemuck::cast_slice(&pool)),
        upload("test.draw_list", bytemuck::cast_slice(&draw_list)),
        upload("test.control", &control),
        upload(
            "test.seen",
            bytemuck::cast_slice(stamps.map_or(&zero[..], |s| s.0)),
        ),
    ];
    let mut g = Graph::new();
    let [frame, pool, draw_list, control, seen] = bufs.each_ref().map(|b| g.import_buffer(b));
    let mesh = MeshBindings {
        pool,
        draw_list,
        draw_args: control,
        draw_args_offset: DRAW_ARGS_OFFSET as u64,
        capacity: n,
        occlusion: stamps.map(|(_, frame_stamp)| OcclusionBindings { seen, frame_stamp }),
    };
    let r = declare_raster(&mut g, [W, H], mesh, frame, opts, false);
    g.readback("vis", r.vis);
    let (big, seen) = match r.seen {
        Some(mut s) if unseen => {
            let big = declare_unseen(&mut g, [W, H], frame, &mesh, &r, &mut s, &opts);
            (big, Some(s))
        }
        s => (r.big, s),
    };
    g.readback("big", big);
    if let Some(s) = seen {
        g.readback("seen", s);
    }
    let compiled = g.compile(gpu.ctx.queue_setup()).unwrap();
    let out = gpu.exec.run(&gpu.ctx, compiled).unwrap();
    let vis = bytemuck::cast_slice(out.readback("vis").unwrap()).to_vec();
    let big = out.readback("big").unwrap();
    let counts = bytemuck::pod_read_unaligned(&big[..std::mem::size_of::<RasterCounts>()]);
    let seen = out
        .readback("seen")
        .map_or_else(|_| Vec::new(), |s| bytemuck::cast_slice(s).to_vec());
    for b in bufs {
        b.destroy(&gpu.ctx);
    }
    (vis, counts, seen)
}

/// A wall 10 m ahead: the 0.5 m cells (i, j) over ±7 m × ±4.5 m that `keep` takes, two
/// triangles each (the view is ±8.7 m × ±5.8 m there, 16:10.7: ~3 px cells and a margin of sky).
pub fn wall(cam: &ViewCamera, keep: impl Fn(i32, i32) -> bool) -> Vec<[DVec3; 3]> {
    let p = |x, y| at(cam, x, y, 10.0);
    let cell = 0.5;
    let mut tris = Vec::new();
    for i in -14..14 {
        for j in -9..9 {
            if !keep(i, j) {
                continue;
            }
            let (x0, y0) = (i as f64 * cell, j as f64 * cell);
            let (x1, y1) = (x0 + cell, y0 + cell);
            tris.push([p(x0, y0), p(x1, y0), p(x1, y1)]);
            tris.push([p(x0, y0), p(x1, y1), p(x0, y1)]);
        }
    }
    tris
}

/// This frame's stamp in the occlusion tests (the early phase takes the leaves stamped 6).
pub const STAMP: u32 = 7;
