//! CBT GPU benchmark (not a test): per-node GPU times of quiet frames (one iteration recorded
//! and run, as the planet frame records after a quiet frame; the camera moves up and down by
//! 0.01 % of its height a frame, as a camera in slow motion, with `cbt.eval`'s surface memo and
//! then without it, then with it under one timestamp pair around the frame, as a frame nobody
//! times) and refining frames (the camera turns 3° a frame: four iterations recorded, up to four
//! run) at several leaf
//! counts, the high-water mark, and the memory-bandwidth floor (bytes the sweeps read ÷ the
//! faster of a measured buffer copy and compute copy). The analytic planet as tiles, resident
//! around one spot to L12.
//!
//! `cargo run --release -p engine --example cbt_bench [-- JSON_PATH [SCALE]]`
//! SCALE divides the viewports (1 = full size, 8 for a quick run on lavapipe). Device:
//! `PLANETFALL_DEVICE`; validation off unless `PLANETFALL_VALIDATION=1`. Prints a table and
//! writes JSON (default target/cbt_bench.json).
//!
//! Before anything is timed the GPU copies buffers for `PLANETFALL_WARMUP_S` seconds (default
//! 2): a GPU that idles at a low clock (the H100 and H200 at 345 MHz) is not measured while it
//! ramps up, as the first view of a run on a freshly started machine was (docs/bench.md). Each
//! figure is the median of 15 frames; a view whose total's p95 is over 1.5× its median is
//! flagged (the samples mixed machine states).

use engine::camera::ViewCamera;
use engine::cbt::gpu::device_capacity;
use engine::cbt::gpu::readback::{self, Readback};
use engine::cbt::gpu::record::{iterations_to_record, Seen, ViewPose};
use engine::cbt::gpu::scene::{residency_around, CbtScene};
use engine::cbt::{AnalyticSurface, CbtParams};
use engine::planet::cube::latlon_to_dir;
use engine::source::AnalyticSource;
use framegraph::exec::timing::TimingMode;
use framegraph::{BufferDesc, Context, ContextOptions, Executor, FrameOutput, Graph};
use std::fmt::Write as _;

const LAT: f64 = 27.9;
const LON: f64 = 86.9;
/// (width, height, metres above ground, pitch): from ~10k leaves to the most the views make.
const VIEWS: [(u32, u32, f64, f64); 5] = [
    (640, 360, 1000.0, -15.0),
    (1920, 1080, 300.0, -15.0),
    (2560, 1440, 100.0, -10.0),
    (3840, 2160, 20.0, -5.0),
    (7680, 4320, 2.0, -5.0),
];
const SAMPLES: usize = 15;
/// The quiet frames' camera moves up or down by this fraction of its height a frame.
const DRIFT: f64 = 1e-4;
/// Seconds of buffer copies before the first timed frame, unless `PLANETFALL_WARMUP_S` says.
const WARMUP_S: f64 = 2.0;
/// Bytes of one pool entry.
const BISECTOR: u64 = std::mem::size_of::<engine::cbt::Bisector>() as u64;

struct Sample {
    iterations: usize,
    /// `cbt.*` nodes the frame recorded.
    recorded: usize,
    leaves: u32,
    high_water: u32,
    nodes: Vec<(String, f64)>,
    total_ms: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let json_path = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "target/cbt_bench.json".into());
    let scale: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let ctx = Context::new(&ContextOptions::from_env()).expect("Vulkan context");
    let mut exec = Executor::new(&ctx, 1).expect("executor");
    let capacity = device_capacity(&ctx);
    let planet = AnalyticSurface::earth();
    let ground = planet.height(latlon_to_dir(LAT, LON));
    let src = AnalyticSource::from_surface(planet);
    let t = std::time::Instant::now();
    let res = residency_around(&src, latlon_to_dir(LAT, LON), 12, 1);
    eprintln!(
        "{}: {} tiles in {:.1} s; pool {capacity} entries",
        ctx.info.name,
        res.tiles.len(),
        t.elapsed().as_secs_f64()
    );
    let warmup_s = std::env::var("PLANETFALL_WARMUP_S")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(WARMUP_S);
    let (copy, copies) = copy_bandwidth(&ctx, &mut exec, capacity as u64 * BISECTOR, warmup_s);
    eprintln!("warm-up: {copies} compute copies in {warmup_s} s");
    let mut rows = Vec::new();
    for (w, h, agl, pitch) in VIEWS {
        let (w, h) = (w / scale, h / scale);
        let cam_at = |heading: f64, rise: f64| {
            ViewCamera::geo(
                LAT,
                LON,
                src.body.radius + ground + agl * (1.0 + rise),
                heading,
                pitch,
                60.0,
                w,
                h,
            )
        };
        let mut scene = CbtScene::new(
            &ctx,
            res.clone(),
            src.body,
            Some(capacity),
            CbtParams::default(),
            1,
        )
        .expect("scene");
        let cam = cam_at(30.0, 0.0);
        let mut seen = None;
        let mut frames = 0;
        while frames < 80 && !frame(&ctx, &mut exec, &mut scene, &mut seen, &cam).quiet {
            frames += 1;
        }
        // Quiet frames of a camera in motion: it moves up and down by DRIFT of its height a
        // frame (under the quiet threshold, `CbtParams::quiet_move_fraction`; a camera that
        // kept rising would coarsen the mesh, and its frames would not be quiet), first with
        // the surface memo, then without it. The mesh settles at both heights first.
        let bob = |k: usize| cam_at(30.0, DRIFT * (k % 2) as f64);
        for k in 0..8 {
            frame(&ctx, &mut exec, &mut scene, &mut seen, &bob(k));
        }
        let mut drift = |scene: &mut CbtScene, seen: &mut Option<Seen>| -> Vec<Sample> {
            (0..SAMPLES)
                .map(|k| sample(&ctx, &mut exec, scene, seen, &bob(k)))
                .collect()
        };
        let quiet = drift(&mut scene, &mut seen);
        scene.cbt.params.surface_memo = false;
        let no_memo = drift(&mut scene, &mut seen);
        scene.cbt.params.surface_memo = true;
        // The same frames timed as an untimed frame runs: one timestamp pair around the whole
        // frame (the slot records' upload, the update, the counters' copy), nodes free to
        // overlap as their barriers allow.
        exec.set_timing(TimingMode::Frame);
        let spans: Vec<f64> = (0..SAMPLES)
            .map(|k| {
                let out = run_frame(&ctx, &mut exec, &mut scene, &mut seen, &bob(k));
                out.span_ms.unwrap_or(f64::NAN)
            })
            .collect();
        exec.set_timing(TimingMode::PerNode);
        let turning: Vec<Sample> = (0..SAMPLES)
            .map(|k| {
                let cam = cam_at(33.0 + 3.0 * k as f64, 0.0);
                sample(&ctx, &mut exec, &mut scene, &mut seen, &cam)
            })
            .collect();
        scene.destroy(&ctx);
        rows.push(((w, h, agl, frames), quiet, no_memo, turning, spans));
    }
    report(&ctx, capacity, &copy, &rows, &json_path);
    exec.destroy(&ctx);
}

struct Quick {
    quiet: bool,
}

/// One frame, recording the iterations the planet frame would after `seen`, the previous frame
/// (one frame in flight: it is the one read back), which this frame then replaces.
fn run_frame(
    ctx: &Context,
    exec: &mut Executor,
    scene: &mut CbtScene,
    seen: &mut Option<Seen>,
    cam: &ViewCamera,
) -> FrameOutput {
    let (slot, _) = exec.begin_frame(ctx).expect("slot");
    scene.prepare(ctx, cam, slot).expect("prepare");
    let view = ViewPose::new(cam, scene.body.radius);
    scene.iterations = iterations_to_record(seen.as_ref(), &view, &scene.cbt.params);
    let mut g = Graph::new();
    let (h, _) = scene.declare_frame(&mut g);
    readback::declare_readback(&mut g, &h, Readback::Counters);
    let out = exec
        .run(ctx, g.compile(ctx.queue_setup()).expect("compiles"))
        .expect("runs");
    let quiet = readback::frame_stats(&readback::control(&out).expect("control")).quiet;
    // The still-frame rule (`record::still`) is not applied: this measures what a quiet
    // frame's update costs when it runs, as for a camera in motion.
    *seen = Some(Seen {
        quiet,
        view,
        frame: 0,
    });
    out
}

fn frame(
    ctx: &Context,
    exec: &mut Executor,
    scene: &mut CbtScene,
    seen: &mut Option<Seen>,
    cam: &ViewCamera,
) -> Quick {
    let out = run_frame(ctx, exec, scene, seen, cam);
    Quick {
        quiet: readback::frame_stats(&readback::control(&out).expect("control")).quiet,
    }
}

fn sample(
    ctx: &Context,
    exec: &mut Executor,
    scene: &mut CbtScene,
    seen: &mut Option<Seen>,
    cam: &ViewCamera,
) -> Sample {
    let out = run_frame(ctx, exec, scene, seen, cam);
    let st = readback::frame_stats(&readback::control(&out).expect("control"));
    let mut nodes: Vec<(String, f64)> = Vec::new();
    for t in out.times.iter().filter(|t| t.name.starts_with("cbt.")) {
        match nodes.iter_mut().find(|(n, _)| *n == t.name) {
            Some(e) => e.1 += t.duration_ms,
            None => nodes.push((t.name.clone(), t.duration_ms)),
        }
    }
    let total_ms = nodes.iter().map(|(_, ms)| ms).sum();
    Sample {
        iterations: st.iterations,
        recorded: out
            .times
            .iter()
            .filter(|t| t.name.starts_with("cbt."))
            .count(),
        leaves: st.leaves,
        high_water: st.high_water,
        nodes,
        total_ms,
    }
}

/// GB/s (read + write counted) of a device-local copy of `bytes`, best of 5, by
/// `vkCmdCopyBuffer` and by a compute copy over as much as one storage binding spans (16-byte
/// words, as `planetfall bench`'s floors): the floors take the faster. On the H200 the
/// transfer copy measured about a tenth of what a compute sweep moves (docs/cbt.md).
struct CopyBandwidth {
    transfer: f64,
    compute: f64,
}

impl CopyBandwidth {
    fn best(&self) -> f64 {
        self.transfer.max(self.compute)
    }
}

/// The copy probes over buffers of `bytes`, after `warmup_s` seconds of compute copies back to
/// back on the same buffers (also returned: how many warm-up copies ran).
fn copy_bandwidth(
    ctx: &Context,
    exec: &mut Executor,
    bytes: u64,
    warmup_s: f64,
) -> (CopyBandwidth, u32) {
    let src = framegraph::GpuBuffer::new(ctx, "bench.src", BufferDesc::gpu(bytes)).expect("buffer");
    let dst = framegraph::GpuBuffer::new(ctx, "bench.dst", BufferDesc::gpu(bytes)).expect("buffer");
    let copied = engine::probe::compute_copy_bytes(bytes, ctx.info.max_storage_buffer_range);
    // One copy as its own frame: by `vkCmdCopyBuffer` (transfer) or by the compute copy.
    let mut run = |name: &str, transfer: bool| {
        let mut g = Graph::new();
        let s = g.import_buffer(&src);
        let mut d = g.import_buffer(&dst);
        if transfer {
            g.transfer(name).copy_buffer(s, &mut d, 0, 0, bytes);
        } else {
            engine::probe::declare_compute_copy(&mut g, name, s, &mut d, copied);
        }
        let out = exec
            .run(ctx, g.compile(ctx.queue_setup()).expect("compiles"))
            .expect("runs");
        out.time_ms(name).unwrap_or(f64::MAX)
    };
    let t = std::time::Instant::now();
    let mut warmups = 0;
    while t.elapsed().as_secs_f64() < warmup_s {
        run("bench.warmup", false);
        warmups += 1;
    }
    let mut best = [f64::MAX; 2];
    for _ in 0..5 {
        best[0] = best[0].min(run("bench.copy", true));
        best[1] = best[1].min(run("bench.copy_compute", false));
    }
    src.destroy(ctx);
    dst.destroy(ctx);
    let gbs = |b: u64, ms: f64| 2.0 * b as f64 / (ms * 1e-3) / 1e9;
    let bandwidth = CopyBandwidth {
        transfer: gbs(bytes, best[0]),
        compute: gbs(copied, best[1]),
    };
    (bandwidth, warmups)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn p95(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() * 95).div_ceil(100).max(1) - 1]
}

/// A p95 over this many medians says the samples mixed machine states (a clock that dipped or
/// ramped within them): the medians are then not to be published as the kernel's cost.
const SPREAD_FLAG: f64 = 1.5;

/// A view's (width, height, metres, frames to quiet), its quiet samples with and without the
/// memo, its turning samples, and the quiet frames' spans (one timestamp pair).
type Row = (
    (u32, u32, f64, usize),
    Vec<Sample>,
    Vec<Sample>,
    Vec<Sample>,
    Vec<f64>,
);

fn report(ctx: &Context, capacity: u32, copy: &CopyBandwidth, rows: &[Row], json_path: &str) {
    let copy_gbs = copy.best();
    println!(
        "device {} ({}), pool {capacity} entries, copy bandwidth {copy_gbs:.0} GB/s (read + write; vkCmdCopyBuffer {:.0}, compute {:.0})",
        ctx.info.name, ctx.info.driver, copy.transfer, copy.compute
    );
    let mut json = format!("{{\n  \"device\": {:?},\n  \"capacity\": {capacity},\n  \"copy_gb_s\": {copy_gbs:.1},\n  \"copy_transfer_gb_s\": {:.1},\n  \"copy_compute_gb_s\": {:.1},\n  \"views\": [\n", ctx.info.name, copy.transfer, copy.compute);
    for (i, ((w, h, agl, frames), quiet, no_memo, turning, spans)) in rows.iter().enumerate() {
        println!("\n{w}×{h} at {agl} m (quiet after {frames} frames)");
        println!(
            "{:<22} {:>14} {:>14} {:>14}",
            "node (median ms)", "quiet", "quiet, no memo", "turning"
        );
        let names: Vec<&String> = quiet[0].nodes.iter().map(|(n, _)| n).collect();
        let med = |s: &[Sample], n: &str| {
            median(
                s.iter()
                    .map(|x| x.nodes.iter().find(|(m, _)| m == n).map_or(0.0, |e| e.1))
                    .collect(),
            )
        };
        let mut jn = Vec::new();
        for n in &names {
            let (q, qn, t) = (med(quiet, n), med(no_memo, n), med(turning, n));
            println!("{n:<22} {q:>14.3} {qn:>14.3} {t:>14.3}");
            jn.push(format!("      {n:?}: [{q:.4}, {t:.4}, {qn:.4}]"));
        }
        let total = |s: &[Sample]| median(s.iter().map(|s| s.total_ms).collect());
        let (q, qn, t) = (total(quiet), total(no_memo), total(turning));
        // One value per sample, "a/b/c".
        let per_sample = |s: &[Sample], f: fn(&Sample) -> usize| {
            s.iter()
                .map(|x| f(x).to_string())
                .collect::<Vec<_>>()
                .join("/")
        };
        let its = |s: &[Sample]| per_sample(s, |x| x.iterations);
        // Floor: every per-entry sweep (5 per iteration + COMMIT) and FINISH reads each bisector
        // below the high-water mark once.
        let floor = |s: &Sample| {
            (6 * s.iterations + 1) as f64 * s.high_water as f64 * BISECTOR as f64
                / (copy_gbs * 0.5e9)
                * 1e3
        };
        let (fq, ft) = (
            floor(&quiet[0]),
            median(turning.iter().map(floor).collect()),
        );
        let total95 = |s: &[Sample]| p95(s.iter().map(|s| s.total_ms).collect());
        let (q95, qn95, t95) = (total95(quiet), total95(no_memo), total95(turning));
        let spread = q95 > SPREAD_FLAG * q || qn95 > SPREAD_FLAG * qn || t95 > SPREAD_FLAG * t;
        println!("{:<22} {q:>14.3} {qn:>14.3} {t:>14.3}", "total");
        println!("{:<22} {q95:>14.3} {qn95:>14.3} {t95:>14.3}", "total p95");
        if spread {
            println!(
                "FLAGGED: p95 over {SPREAD_FLAG}× the median: the samples mixed machine states"
            );
        }
        let (span, span95) = (median(spans.clone()), p95(spans.clone()));
        println!(
            "{:<22} {span:>14.3} (p95 {span95:.3}): quiet frames with the memo, one timestamp pair",
            "frame span"
        );
        println!("{:<22} {fq:>14.3} {:>14} {ft:>14.3}", "bandwidth floor", "");
        println!(
            "{:<22} {:>14} {:>14} {:>14}",
            "leaves / high water",
            format!("{}/{}", quiet[0].leaves, quiet[0].high_water),
            format!("{}/{}", no_memo[0].leaves, no_memo[0].high_water),
            format!("{}/{}", turning[0].leaves, turning[0].high_water)
        );
        println!(
            "{:<22} {:>14} {:>14} {:>14}",
            "iterations run",
            its(quiet),
            its(no_memo),
            its(turning)
        );
        let recorded = |s: &[Sample]| per_sample(s, |x| x.recorded);
        println!(
            "{:<22} {:>14} {:>14} {:>14}",
            "cbt nodes recorded",
            recorded(quiet),
            recorded(no_memo),
            recorded(turning)
        );
        let _ = write!(
            json,
            "    {{\"width\": {w}, \"height\": {h}, \"agl_m\": {agl}, \"frames_to_quiet\": {frames}, \"leaves\": {}, \"high_water\": {}, \"iterations_quiet\": {:?}, \"iterations_turning\": {:?}, \"total_ms\": [{q:.4}, {t:.4}, {qn:.4}], \"total_p95_ms\": [{q95:.4}, {t95:.4}, {qn95:.4}], \"spread_flagged\": {spread}, \"quiet_span_ms\": [{span:.4}, {span95:.4}], \"floor_ms\": [{fq:.4}, {ft:.4}],\n     \"nodes_ms_quiet_turning_nomemo\": {{\n{}\n     }}}}{}\n",
            quiet[0].leaves,
            quiet[0].high_water,
            its(quiet),
            its(turning),
            jn.join(",\n"),
            if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json.push_str("  ]\n}\n");
    if let Some(dir) = std::path::Path::new(json_path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(json_path, json).expect("write JSON");
    println!("\nwrote {json_path}");
}
