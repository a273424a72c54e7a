//! Frames of the planet renderer as the benchmark runs them: declared straight into a graph
//! (no viewer HUD), with the per-pixel AOV and the colour read back only when asked, so timed
//! frames carry nothing the product frame does not. `Gpu::frame` runs one frame and waits for
//! it (settling, scoring, flights); `Gpu::timed` keeps `FRAMES_IN_FLIGHT` frames in flight so
//! the GPU never idles between frames and its clock stays up.
//!
//! Two executors: the one-at-a-time frames use a single slot, so the mesh counters and GPU
//! tiles a frame reads back are the previous frame's, as before the loop kept frames in flight
//! (through three slots they would be three frames old: settling and the flights' tile
//! arrival would lag by two frames); the timed loop has its own, with three.

use anyhow::{Context as _, Result};
use ash::vk;
use engine::camera::ViewCamera;
use engine::debug_view::DebugView;
use engine::renderer::{FrameRequest, PlanetRenderer, PrepareTimes};
use engine::shade::AovPixel;
use framegraph::exec::timing::{NodeTime, TimingMode};
use framegraph::exec::ExecuteTimes;
use framegraph::{Access, Context, Executor, FrameOutput, FrameSync, Graph, ImageDesc};
use std::time::Instant;

/// Readback names (their copy nodes are `readback.bench.*`) and the sink that keeps the
/// shading alive when nothing is read back; the timing tables leave `bench.*` and
/// `readback.*` out.
const AOV: &str = "bench.aov";
const COLOR: &str = "bench.color";

/// Frames the timed loop keeps in flight: with one, the host waits after every frame and an
/// H200's SM clock sat at its 345 MHz idle in most samples; three leave the host a frame to
/// prepare while two queue on the GPU.
pub const FRAMES_IN_FLIGHT: usize = 3;

/// The device side of the benchmark: `exec` (one slot, per-node timestamps) for frames run
/// one at a time and the limits, `timed` (`FRAMES_IN_FLIGHT` slots) for the timed loops.
/// Renderers are made with `FRAMES_IN_FLIGHT` frame slots; `exec` uses slot 0.
pub struct Gpu {
    pub ctx: Context,
    pub exec: Executor,
    timed: Executor,
}

/// What a frame gives back.
pub struct Frame {
    pub times: Vec<NodeTime>,
    pub aov: Option<Vec<AovPixel>>,
    pub color: Option<Vec<u8>>,
    /// Host wall time of the frame: streaming, mesh update, declare, compile, GPU, readback.
    pub wall_ms: f64,
    /// The frame's CPU side only: prepare (streaming, constants, staging), declare, compile,
    /// record and submit — up to the point where a display loop would start the next frame.
    pub host_ms: f64,
    /// GPU ms around the frame (framegraph's frame span).
    pub span_ms: Option<f64>,
}

/// Host ms of one timed frame, by stage, in the order the loop runs them.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostStages {
    /// `Executor::begin_frame`: waiting for the frame slot's previous frame (the only wait on
    /// the GPU in the loop) and collecting its timestamps.
    pub wait_ms: f64,
    /// `PlanetRenderer::prepare`, by step.
    pub prepare: PrepareTimes,
    pub declare_ms: f64,
    pub compile_ms: f64,
    /// `Executor::execute`, by step: set-up (pools, queries, transients, pipelines), command
    /// recording, `vkQueueSubmit2`.
    pub execute: ExecuteTimes,
}

impl HostStages {
    /// (stage, ms) in loop order; the prepare's steps are named as `PrepareTimes`' fields.
    pub fn named(&self) -> [(&'static str, f64); 11] {
        let (p, e) = (&self.prepare, &self.execute);
        [
            ("wait", self.wait_ms),
            ("prepare.feed", p.feed_ms),
            ("prepare.stream", p.stream_ms),
            ("prepare.constants", p.constants_ms),
            ("prepare.records", p.records_ms),
            ("prepare.mesh", p.mesh_ms),
            ("declare", self.declare_ms),
            ("compile", self.compile_ms),
            ("execute.setup", e.setup_ms),
            ("execute.record", e.record_ms),
            ("execute.submit", e.submit_ms),
        ]
    }

    /// The host's own work: every stage but the wait.
    pub fn busy_ms(&self) -> f64 {
        self.named().iter().skip(1).map(|s| s.1).sum()
    }
}

/// What the timed loop gives back: its frames after the warm-up, oldest first.
pub struct Timed {
    pub outputs: Vec<FrameOutput>,
    /// The kept frames' host stages, oldest first.
    pub host: Vec<HostStages>,
    /// Host wall ms per frame over the frames kept: from the submission of the first kept
    /// frame to the retirement of the last, over their count.
    pub wall_per_frame_ms: f64,
    /// When the kept frames started and ended on the host (the SM clock's window).
    pub window: (Instant, Instant),
}

impl Frame {
    /// Distance per pixel (None: no terrain), row-major, y down.
    pub fn distances(&self) -> Option<Vec<Option<f64>>> {
        let aov = self.aov.as_ref()?;
        Some(
            aov.iter()
                .map(|p| p.is_terrain().then_some(p.dist as f64))
                .collect(),
        )
    }
}

/// Whether a node belongs to the renderer's frame (not to the benchmark's readbacks/sinks).
pub fn is_frame_node(name: &str) -> bool {
    !name.starts_with("bench.") && !name.starts_with("readback.")
}

impl Gpu {
    pub fn new(ctx: Context) -> Result<Gpu> {
        let exec = Executor::new(&ctx, 1)?;
        let timed = Executor::new(&ctx, FRAMES_IN_FLIGHT)?;
        Ok(Gpu { ctx, exec, timed })
    }

    /// One frame, waited for, with per-node GPU times.
    pub fn frame(
        &mut self,
        r: &mut PlanetRenderer,
        cam: &ViewCamera,
        aov: bool,
        color: bool,
    ) -> Result<Frame> {
        let t0 = Instant::now();
        // One slot, drained after every frame: this only picks the slot (0).
        let (slot, _) = self.exec.begin_frame(&self.ctx)?;
        let mut stages = HostStages::default();
        submit(
            &self.ctx,
            &mut self.exec,
            r,
            cam,
            slot,
            aov,
            color,
            &mut stages,
        )?;
        let host_ms = t0.elapsed().as_secs_f64() * 1e3;
        // Draining waits for exactly this frame.
        let out = self
            .exec
            .drain(&self.ctx)
            .context("running the planet frame")?
            .pop()
            .unwrap_or_default();
        r.observe_gpu_times(slot, &out.times);
        let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
        let aov = out.readbacks.get(AOV).map(|b| {
            b.chunks_exact(std::mem::size_of::<AovPixel>())
                .map(bytemuck::pod_read_unaligned)
                .collect()
        });
        let color = out.readbacks.get(COLOR).cloned();
        Ok(Frame {
            times: out.times,
            aov,
            color,
            wall_ms,
            host_ms,
            span_ms: out.span_ms,
        })
    }

    /// `warmup + frames` frames of `cam` (no readbacks) with up to `FRAMES_IN_FLIGHT` in
    /// flight and the timestamps of `mode`; the host waits only for a frame slot to come
    /// round. The first `warmup` frames are dropped.
    pub fn timed(
        &mut self,
        r: &mut PlanetRenderer,
        cam: &ViewCamera,
        warmup: u32,
        frames: u32,
        mode: TimingMode,
    ) -> Result<Timed> {
        self.timed.set_timing(mode);
        // The pipelines built so far serve both executors: lent for the loop.
        std::mem::swap(&mut self.exec.pipelines, &mut self.timed.pipelines);
        let result = timed_loop(&self.ctx, &mut self.timed, r, cam, warmup, frames);
        std::mem::swap(&mut self.exec.pipelines, &mut self.timed.pipelines);
        result
    }

    /// The driver's statistics of the pipelines both executors built (empty unless the context
    /// captures them).
    pub fn pipeline_stats(&self) -> Vec<crate::pipeline_stats::PipelineRow> {
        crate::pipeline_stats::rows(&[
            self.exec.pipelines.statistics(),
            self.timed.pipelines.statistics(),
        ])
    }

    /// Free the executors; fail on validation messages or leaked GPU memory.
    pub fn finish(mut self) -> Result<()> {
        self.timed.destroy(&self.ctx);
        self.exec.destroy(&self.ctx);
        let n = self.ctx.messages.count();
        anyhow::ensure!(n == 0, "validation reported {n} message(s)");
        let leaked = self.ctx.allocated_bytes();
        anyhow::ensure!(
            leaked == 0,
            "{leaked} bytes of GPU memory still allocated at the end (leak)"
        );
        Ok(())
    }
}

/// Prepare, declare, compile and submit one frame through `exec` into `slot` (the slot its
/// `begin_frame` freed); the host ms of each stage go to `stages`.
#[allow(clippy::too_many_arguments)]
fn submit(
    ctx: &Context,
    exec: &mut Executor,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    slot: usize,
    aov: bool,
    color: bool,
    stages: &mut HostStages,
) -> Result<()> {
    let mut t = Instant::now();
    let mut lap = || {
        let now = Instant::now();
        let ms = (now - t).as_secs_f64() * 1e3;
        t = now;
        ms
    };
    let req = FrameRequest {
        cam: *cam,
        frame_slot: slot,
        view: DebugView::Shaded,
        aov,
    };
    r.prepare(ctx, req)?;
    stages.prepare = r.stats.prepare;
    lap();
    let mut g = Graph::new();
    let desc = ImageDesc::d2(cam.width, cam.height, vk::Format::R8G8B8A8_UNORM);
    let mut target = g.create_image("bench.target", desc);
    let aov_buf = r.declare(&mut g, &mut target)?;
    if let Some(a) = aov_buf {
        g.readback(AOV, a);
    }
    if color {
        g.readback_image(COLOR, target);
    } else {
        g.custom("bench.keep")
            .read(target, Access::ComputeRead)
            .side_effect()
            .declare_only();
    }
    stages.declare_ms = lap();
    let compiled = g
        .compile(ctx.queue_setup())
        .context("compiling the planet frame")?;
    stages.compile_ms = lap();
    exec.execute(ctx, compiled, FrameSync::default())
        .context("submitting the planet frame")?;
    stages.execute = exec.last_times;
    Ok(())
}

/// The loop of `Gpu::timed` on the executor with frames in flight.
/// Shortest warm-up before timed frames, seconds of frames at full load.
const WARMUP_MIN_S: f64 = 0.5;

fn timed_loop(
    ctx: &Context,
    exec: &mut Executor,
    r: &mut PlanetRenderer,
    cam: &ViewCamera,
    warmup: u32,
    frames: u32,
) -> Result<Timed> {
    let n = exec.frames_in_flight() as u64;
    let mut outputs = Vec::new();
    let mut host = Vec::new();
    // Frames from `first` on are timed; until the warm-up ends, none is.
    let mut first = u64::MAX;
    // Each retired frame's node times go to the renderer with its slot (the GPU tile budget).
    let keep = |r: &mut PlanetRenderer, o: FrameOutput, first: u64, out: &mut Vec<FrameOutput>| {
        r.observe_gpu_times((o.frame % n) as usize, &o.times);
        if o.frame >= first {
            out.push(o);
        }
    };
    // The warm-up lasts `warmup` frames and at least WARMUP_MIN_S: a GPU coming from the host
    // work between views (settle, scoring) needs that long at full load to raise its clock
    // (H200: 30 frames of ~1 ms left a third of the timed samples at the idle clock).
    let t0 = Instant::now();
    let mut start = t0;
    let mut i = 0u32;
    loop {
        let warming = i < warmup || t0.elapsed().as_secs_f64() < WARMUP_MIN_S;
        if !warming && first == u64::MAX {
            first = exec.frame();
            start = Instant::now();
        }
        if first != u64::MAX && exec.frame() >= first + frames.max(1) as u64 {
            break;
        }
        let waiting = Instant::now();
        let (slot, retired) = exec.begin_frame(ctx)?;
        let mut stages = HostStages {
            wait_ms: waiting.elapsed().as_secs_f64() * 1e3,
            ..HostStages::default()
        };
        if let Some(o) = retired {
            keep(r, o, first, &mut outputs);
        }
        let timed = exec.frame() >= first;
        submit(ctx, exec, r, cam, slot, false, false, &mut stages)?;
        if timed {
            host.push(stages);
        }
        i += 1;
    }
    for o in exec.drain(ctx).context("running the timed frames")? {
        keep(r, o, first, &mut outputs);
    }
    let end = Instant::now();
    let kept = outputs.len().max(1) as f64;
    Ok(Timed {
        outputs,
        host,
        wall_per_frame_ms: (end - start).as_secs_f64() * 1e3 / kept,
        window: (start, end),
    })
}
