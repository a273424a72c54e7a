//! One benchmark view on a fresh renderer: setup, first frame, settle, the scored frame,
//! timed frames (frame spans, frames in flight, the SM clock), on request a second timed pass
//! with per-node GPU times, the raster floor.

use super::accuracy;
use super::clock::{self, ClockSampler};
use super::floors::{self, FrameShape};
use super::frame::{Gpu, HostStages, FRAMES_IN_FLIGHT};
use super::pop;
use super::report::{
    Limits, NodeStat, PerNodePass, Settle, SettleFrame, StageMs, Tiles, Timed, ViewResult, Walks,
};
use super::rings;
use super::scene::Scene;
use super::stats::{frame_span, median, per_node, quantile};
use super::Options;
use crate::bookmarks::Bookmark;
use anyhow::Result;
use engine::camera::ViewCamera;
use engine::renderer::{PlanetRenderer, RendererOptions};
use framegraph::exec::timing::TimingMode;
use std::time::Instant;

/// A frame "still changes" when its pop against the previous frame of the same camera
/// exceeds this (px) or any pixel changes coverage. With an unchanged mesh and tiles the image
/// repeats exactly; 0.1 px is far above f32 noise and far below a visible step.
pub const STILL_PX: f64 = 0.1;
/// Read-back frames that confirm a settled image: one pair (the first compared with the
/// second); past the caps no more.
const CONFIRM_FRAMES: u32 = 2;

pub fn renderer(gpu: &Gpu, scene: &Scene) -> Result<PlanetRenderer> {
    let mut opts = RendererOptions::for_device(&gpu.ctx);
    crate::device::publish_options(&mut opts);
    Ok(PlanetRenderer::new(
        &gpu.ctx,
        scene.source(),
        opts,
        FRAMES_IN_FLIGHT,
    )?)
}

/// Run `cam` until the renderer settles and the image stops changing (or `max` frames, or
/// `max_wall_s` seconds). Returns the settle figures, the first frame's wall ms and its GPU
/// span.
///
/// The renderer knows when its image can no longer change ([`PlanetRenderer::settled`]: the
/// mesh quiet, every wanted tile resident with its exact payload, nothing uploading, fading or
/// cross-fading), so the frames until then are cheap ones without readback — a 1080p AOV
/// readback and its comparison take ~100 ms on the H200, far longer than the frame, and would
/// be what a teleport's time measured. The image is then confirmed still by one readback pair;
/// if that pair differs (the renderer called itself settled too early) every later frame is
/// read back and compared until two agree, and the last frame that changed is the still point.
pub fn settle(
    gpu: &mut Gpu,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    max: u32,
    max_wall_s: f64,
    trace: bool,
) -> Result<(Settle, f64, f64)> {
    let mut s = Settle::default();
    let (mut wall_ms, mut first, mut first_gpu) = (0.0, 0.0, 0.0);
    let capped =
        |s: &Settle, wall_ms: f64| s.frames_run >= max.max(1) || wall_ms * 1e-3 >= max_wall_s;
    // Cheap frames until the renderer reports itself settled.
    while !capped(&s, wall_ms) {
        let f = gpu.frame(r, cam, false, false)?;
        s.frames_run += 1;
        wall_ms += f.wall_ms;
        if s.frames_run == 1 {
            let gpu = f.span_ms.unwrap_or_else(|| frame_span(&f.times).0);
            (first, first_gpu) = (f.wall_ms, gpu);
        }
        if trace {
            s.trace.push(trace_frame(r, &f));
        }
        if r.settled() {
            s.settled = true;
            break;
        }
        for part in r.unsettled() {
            *s.held_by.entry(part.to_string()).or_default() += 1;
        }
    }
    (s.frames_to_settled, s.seconds_to_settled) = (s.frames_run, wall_ms * 1e-3);
    (s.frames_to_still, s.seconds_to_still) = (s.frames_run, wall_ms * 1e-3);
    // Confirmation: read back frames until two in a row show the same image (one pair when
    // the renderer was right); a frame that still changed moves the still point to it.
    let mut prev: Option<Vec<Option<f64>>> = None;
    let mut confirm_frames = 0;
    loop {
        let f = gpu.frame(r, cam, true, false)?;
        s.frames_run += 1;
        confirm_frames += 1;
        wall_ms += f.wall_ms;
        let d = f.distances().unwrap_or_default();
        if let Some(p) = &prev {
            let c = pop::change(cam, p, cam, &d);
            if c.max_px <= STILL_PX && c.coverage_changed == 0 {
                s.still_confirmed = true;
                break;
            }
            (s.frames_to_still, s.seconds_to_still) = (s.frames_run, wall_ms * 1e-3);
        }
        prev = Some(d);
        if confirm_frames >= CONFIRM_FRAMES && capped(&s, wall_ms) {
            break;
        }
    }
    Ok((s, first, first_gpu))
}

fn trace_frame(r: &PlanetRenderer, f: &super::frame::Frame) -> SettleFrame {
    let (res, budget) = (&r.stats.residency, r.gpu_tile_budget().unwrap_or_default());
    SettleFrame {
        wall_ms: f.wall_ms,
        host_ms: f.host_ms,
        gpu_ms: f.span_ms.unwrap_or_else(|| frame_span(&f.times).0),
        tiles_gpu_ms: f
            .times
            .iter()
            .filter(|t| t.name.starts_with("tiles."))
            .map(|t| t.duration_ms)
            .sum::<f64>()
            .max(0.0),
        wanted: res.wanted,
        resident: res.resident,
        pending: res.pending,
        loaded: res.loaded_this_frame,
        arrived_waiting: res.arrived_waiting,
        missing: res.missing,
        failed: res.failed,
        provisional: res.provisional,
        cut_window: res.cut_window,
        uploaded: r.stats.uploaded_tiles,
        fading: r.stats.fading,
        mesh_quiet: r.stats.mesh.quiet,
        leaves: r.stats.mesh.leaves,
        budget_ms: budget.ms,
        needed: budget.needed,
        cost_ms: r.gpu_tile_cost_ms(),
    }
}

/// Measure one view; returns the result and the scored frame's RGBA8 image.
pub fn run(
    gpu: &mut Gpu,
    scene: &Scene,
    b: &Bookmark,
    o: &Options,
    limits: &Limits,
    clock: &ClockSampler,
) -> Result<(ViewResult, Vec<u8>)> {
    let t = Instant::now();
    let mut r = renderer(gpu, scene)?;
    let setup_ms = t.elapsed().as_secs_f64() * 1e3;
    let cam = scene.camera(b, o.width, o.height);
    r.sun = o.sun.direction(cam.eye);
    let alt = cam.eye.length() - r.body.radius;
    let result = measure(gpu, scene, &mut r, &cam, &b.name, o, limits, clock);
    r.destroy(&gpu.ctx);
    let (mut v, color) = result?;
    v.name = b.name.clone();
    (v.lat, v.lon, v.alt_m, v.heading, v.pitch, v.fov) =
        (b.lat, b.lon, alt, b.heading, b.pitch, b.fov);
    v.setup_ms = setup_ms;
    Ok((v, color))
}

#[allow(clippy::too_many_arguments)]
fn measure(
    gpu: &mut Gpu,
    scene: &Scene,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    name: &str,
    o: &Options,
    limits: &Limits,
    clock: &ClockSampler,
) -> Result<(ViewResult, Vec<u8>)> {
    let mut v = ViewResult::default();
    (v.settle, v.first_frame_ms, v.first_frame_gpu_ms) =
        settle(gpu, r, cam, o.max_settle_frames, f64::INFINITY, false)?;

    // The scored frame (settled: the same image as the last warm-up frame) with its colour.
    let f = gpu.frame(r, cam, true, true)?;
    let gpu_d = f.distances().unwrap_or_default();
    let t = Instant::now();
    let (w, h) = (cam.width as usize, cam.height as usize);
    let (lod, relief) = (r.lod_params(cam), scene.source().max_relief());
    // Where the reference sees terrain, from a coarse pass: the windows go there, and a view
    // whose windows still score no terrain although the reference sees some is flagged.
    let coarse = accuracy::coarse(w, h, accuracy::COARSE_STEP, |x, y| {
        let d = engine::reference::pixel_ray(cam, x, y);
        engine::reference::cast(r.residency(), &lod, r.body, cam.eye, d, relief).is_some()
    });
    let wins = accuracy::windows_seeing(w, h, o.score_pixels, &coarse);
    v.score = accuracy::score(&gpu_d, w, &wins, |win| {
        accuracy::reference(r.residency(), &lod, r.body, cam, relief, win)
    });
    v.score.reference_sees_terrain = coarse.any_terrain();
    v.score.measured_nothing = coarse.any_terrain() && v.score.terrain == 0.0;
    v.reference_ms = t.elapsed().as_secs_f64() * 1e3;
    v.walks = f
        .aov
        .as_deref()
        .map(|a| Walks::of(a, w))
        .unwrap_or_default();
    println!(
        "  {name}: publish.resolve surface walks per terrain pixel: mean {:.2}, p95 {}, max {}; \
         a warp's slowest pixel, mean over warps {:.2}",
        v.walks.mean, v.walks.p95, v.walks.max, v.walks.warp_max_mean
    );
    let ring_px = f.aov.as_deref().map(rings::samples).unwrap_or_default();
    if ring_px.len() == w * h {
        v.rings = rings::measure(&ring_px, w, h, &|t| lod.lod(t));
    }
    let st = &r.stats;
    v.mesh = st.mesh;
    let rr = &st.residency;
    v.tiles = Tiles {
        resident: rr.resident,
        wanted: rr.wanted,
        pending: rr.pending,
        missing: rr.missing,
        trimmed: rr.trimmed,
    };
    let color = f.color.unwrap_or_default();
    if let (Some(dir), false) = (&o.pop_maps, v.rings.rings.is_empty()) {
        let img = rings::mark(&color, w, h, &ring_px);
        let path = dir.join(format!("rings-{name}.png"));
        std::fs::create_dir_all(dir)?;
        crate::image_out::write_rgba8(&path, cam.width, cam.height, &img)?;
        println!("wrote {}", path.display());
    }

    // Timed frames: the product frame only (no AOV, no readback), frames in flight, one pair
    // of timestamps per frame so that nodes overlap as they would untimed.
    let run = gpu.timed(r, cam, o.warmup, o.frames, TimingMode::Frame)?;
    let spans: Vec<f64> = run.outputs.iter().filter_map(|f| f.span_ms).collect();
    let sm = clock.window(run.window.0, run.window.1);
    let (gpu_median_ms, gpu_p95_ms) = (median(&spans), quantile(&spans, 0.95));
    let busy: Vec<f64> = run.host.iter().map(|h| h.busy_ms()).collect();
    let host_stages = host_stages(&run.host);
    v.timed = Timed {
        frames: spans.len() as u32,
        warmup: o.warmup,
        frames_in_flight: FRAMES_IN_FLIGHT as u32,
        gpu_median_ms,
        gpu_p95_ms,
        wall_per_frame_ms: run.wall_per_frame_ms,
        host_busy_median_ms: median(&busy),
        host_busy_p95_ms: quantile(&busy, 0.95),
        host_stages,
        clock_exposed: clock.exposed(),
        flags: clock::flags(sm.as_ref(), gpu_median_ms, gpu_p95_ms),
        clock: sm,
        per_node: None,
    };
    let st = &r.stats;
    let shape = FrameShape {
        pixels: cam.width as u64 * cam.height as u64,
        high_water: st.mesh.high_water as u64,
        drawn: st.mesh.drawn as u64,
        resident_tiles: st.residency.resident as u64,
        uploaded_tiles: st.uploaded_tiles as u64,
    };
    // Per node, on request: a second pass with a timestamp pair around every node (which
    // serialises them: the sum of the nodes exceeds the frame-mode span).
    let mut nodes: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    if o.per_node {
        let run = gpu.timed(r, cam, o.warmup, o.frames, TimingMode::PerNode)?;
        let (mut spans, mut sums) = (Vec::new(), Vec::new());
        for f in &run.outputs {
            let (span, sum) = frame_span(&f.times);
            spans.push(span);
            sums.push(sum);
            for (name, ms, n) in per_node(&f.times) {
                match nodes.iter_mut().find(|e| e.0 == name) {
                    Some(e) => {
                        e.1.push(ms);
                        e.2.push(n as f64);
                    }
                    None => nodes.push((name, vec![ms], vec![n as f64])),
                }
            }
        }
        v.timed.per_node = Some(PerNodePass {
            frames: spans.len() as u32,
            span_median_ms: median(&spans),
            sum_median_ms: median(&sums),
            wall_per_frame_ms: run.wall_per_frame_ms,
        });
    }
    v.raster_floor = super::limits::raster(gpu, shape.drawn, cam.width, cam.height)?;
    // Iterations recorded per frame (the GPU CBT records up to 4 and runs the ones it needs:
    // a quiet frame's later iterations dispatch nothing) against those that did work.
    let recorded = nodes
        .iter()
        .find(|n| n.0 == "cbt.eval")
        .map(|n| median(&n.2).round() as u32)
        .unwrap_or(1)
        .max(1);
    let worked = (r.stats.mesh.iterations as u32).clamp(1, recorded);
    v.nodes = nodes
        .into_iter()
        .map(|(name, ms, inst)| {
            let mut instances = median(&inst).round() as u32;
            if floors::per_iteration(&name) {
                instances = (instances * worked).div_ceil(recorded);
            }
            let (floor_bytes, floor_ms, basis) =
                floors::floor(&name, instances, &shape, limits, v.raster_floor.grid_ms);
            NodeStat {
                instances,
                median_ms: median(&ms),
                p95_ms: quantile(&ms, 0.95),
                floor_ms,
                floor_bytes,
                floor_basis: basis.to_string(),
                name,
            }
        })
        .collect();
    Ok((v, color))
}

/// Median and p95 host ms of each stage over the timed frames, in loop order.
fn host_stages(frames: &[HostStages]) -> Vec<StageMs> {
    let Some(first) = frames.first() else {
        return Vec::new();
    };
    (0..first.named().len())
        .map(|k| {
            let ms: Vec<f64> = frames.iter().map(|f| f.named()[k].1).collect();
            StageMs {
                stage: first.named()[k].0.to_string(),
                median_ms: median(&ms),
                p95_ms: quantile(&ms, 0.95),
            }
        })
        .collect()
}
