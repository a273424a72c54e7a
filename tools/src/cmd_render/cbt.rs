//! `planetfall render --scene cbt`: the GPU CBT by itself over the analytic test planet (the
//! model's sum of sines, as tiles resident around the camera down to L12), refined until a frame
//! is quiet (or `--max-frames`), then drawn by `raster.cbt_debug`: flat colour by LEB depth,
//! `--debug wireframe` adds the edges. The read-back pool is validated; `--stats` writes the
//! last frame's counters, the validator's verdict and the per-node GPU times as JSON, with the
//! keys every scene's stats share.

use super::stats::StatsFile;
use crate::camera::view_camera;
use crate::device::GpuArgs;
use crate::headless::FrameArgs;
use crate::view::stats::SceneStats;
use crate::view::DebugView;
use anyhow::Result;
use engine::cbt::bisector::Control;
use engine::cbt::gpu::debug::{declare_debug_raster, MeshStyle};
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::gpu::scene::{residency_around, CbtScene};
use engine::cbt::validate::validate;
use engine::cbt::{AnalyticSurface, CbtParams};
use engine::source::AnalyticSource;
use framegraph::{Executor, FrameOutput, Graph, ImageDesc};
use serde_json::json;
use std::path::Path;

/// The scene name that selects this path.
pub const SCENE: &str = "cbt";
/// Finest resident level around the camera (texel 4.8 m; the depth cap stops at 1.2 m legs).
const FINEST: u8 = 12;

pub struct Options<'a> {
    pub gpu: &'a GpuArgs,
    pub frame: &'a FrameArgs,
    pub out: &'a Path,
    pub stats: Option<&'a Path>,
    pub pool: Option<u32>,
    pub max_frames: u32,
}

pub fn run(o: Options<'_>) -> Result<()> {
    let planet = AnalyticSurface::earth();
    let (_, bookmark) = o.frame.camera.resolve()?;
    let src = AnalyticSource::from_surface(planet);
    let cam = view_camera(&bookmark, Some(&src), o.frame.width, o.frame.height);
    let res = residency_around(&src, cam.eye.normalize(), FINEST, 0);
    let ctx = o.gpu.context()?;
    let mut exec = Executor::new(&ctx, 1)?;
    let mut scene = CbtScene::new(&ctx, res, src.body, o.pool, CbtParams::default(), 1)?;
    let mode = if o.frame.debug == DebugView::Wireframe {
        MeshStyle::FlatEdged
    } else {
        MeshStyle::Flat
    };
    let mut frames = 0;
    let out = loop {
        frames += 1;
        let last = frames >= o.max_frames.max(1);
        let out = frame(&ctx, &mut exec, &mut scene, &cam, last.then_some(mode))?;
        let quiet = readback::frame_stats(&readback::control(&out)?).quiet;
        if last {
            break out;
        }
        if quiet {
            // One more, quiet again, with the image and the pool.
            frames += 1;
            break frame(&ctx, &mut exec, &mut scene, &cam, Some(mode))?;
        }
    };
    let pool = readback::pool(&out)?;
    let verdict = validate(&pool);
    let st = readback::frame_stats(&pool.control);
    println!(
        "cbt: {frames} frames, {} leaves ({} drawn, {} culled, {} offscreen), high water {} of {}, {} iterations{}{}",
        st.leaves,
        st.drawn,
        st.culled,
        st.offscreen,
        st.high_water,
        scene.cbt.capacity,
        st.iterations,
        if st.quiet { ", quiet" } else { "" },
        if st.saturated() > 0 { ", SATURATED" } else { "" }
    );
    crate::image_out::write_rgba8(o.out, cam.width, cam.height, out.readback("cbt.image")?)?;
    for t in &out.times {
        println!("node {:<28} {:9.3} ms", t.name, t.duration_ms);
    }
    if let Some(path) = o.stats {
        let capacity = scene.cbt.capacity;
        write_stats(path, &o, frames, capacity, &pool.control, &verdict, &out)?;
        println!("wrote {}", path.display());
    }
    scene.destroy(&ctx);
    exec.destroy(&ctx);
    anyhow::ensure!(
        ctx.messages.count() == 0,
        "validation reported {} message(s)",
        ctx.messages.count()
    );
    if let Err(e) = &verdict {
        anyhow::bail!("the mesh is invalid:\n  {}", e.join("\n  "));
    }
    println!("wrote {}", o.out.display());
    Ok(())
}

/// One frame: upload, update, counters (and with `image`, the debug raster and the pool).
fn frame(
    ctx: &framegraph::Context,
    exec: &mut Executor,
    scene: &mut CbtScene,
    cam: &engine::camera::ViewCamera,
    image: Option<MeshStyle>,
) -> Result<FrameOutput> {
    let (slot, _) = exec.begin_frame(ctx)?;
    scene.prepare(ctx, cam, slot)?;
    let mut g = Graph::new();
    let (h, t) = scene.declare_frame(&mut g);
    if let Some(mode) = image {
        let mut target = g.create_image(
            "cbt.image",
            ImageDesc::d2(cam.width, cam.height, ash::vk::Format::R8G8B8A8_UNORM),
        );
        declare_debug_raster(&mut g, &h, &t, &mut target, [cam.width, cam.height], mode);
        g.readback_image("cbt.image", target);
        readback::declare_readback(&mut g, &h, Readback::Pool);
    } else {
        readback::declare_readback(&mut g, &h, Readback::Counters);
    }
    Ok(exec.run(ctx, g.compile(ctx.queue_setup())?)?)
}

/// The `--stats` file: the shared keys (`stats.rs`) and the CBT's own — pool capacity, culled,
/// off-screen and free entries, counters per iteration, the validator's verdict.
fn write_stats(
    path: &Path,
    o: &Options<'_>,
    frames: u32,
    capacity: u32,
    c: &Control,
    verdict: &Result<engine::cbt::validate::MeshReport, Vec<String>>,
    out: &FrameOutput,
) -> Result<()> {
    let st = readback::frame_stats(c);
    // The cbt scene has no gain loop: its update runs at the default gain.
    let mesh = st.summary(engine::cbt::CbtParams::default().fine_detail_gain);
    let stats = SceneStats {
        mesh: Some(mesh),
        ..Default::default()
    };
    let size = [o.frame.width, o.frame.height];
    let per_iteration: Vec<_> = c.stats[..st.iterations]
        .iter()
        .map(|i| {
            json!({
                "splits": i.splits, "merges": i.merges, "candidates": i.candidates,
                "saturated": i.saturated, "evaluated": i.evaluated,
                "split_wishes": i.split_wishes, "merge_wishes": i.merge_wishes,
                "high_water": i.high_water,
            })
        })
        .collect();
    let verdict = match verdict {
        Ok(r) => json!({
            "valid": true, "min_depth": r.min_depth, "max_depth": r.max_depth,
            "vertices": r.vertices, "edges": r.edges,
        }),
        Err(e) => json!({"valid": false, "errors": e.len()}),
    };
    let extra = json!({
        "capacity": capacity,
        "culled": st.culled,
        "offscreen": st.offscreen,
        "free": c.free_count,
        "per_iteration": per_iteration,
        "mesh": verdict,
    });
    StatsFile::new(SCENE, size, frames, st.quiet, stats, out)
        .with_extra(extra)
        .write(path)
}
