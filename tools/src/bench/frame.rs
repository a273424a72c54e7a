//! One frame of the planet renderer as the benchmark runs it: declared straight into a graph
//! (no viewer HUD), with the per-pixel AOV and the colour read back only when asked, so timed
//! frames carry nothing the product frame does not.

use anyhow::{Context as _, Result};
use ash::vk;
use engine::camera::ViewCamera;
use engine::debug_view::DebugView;
use engine::renderer::{FrameRequest, PlanetRenderer};
use engine::shade::AovPixel;
use framegraph::exec::timing::NodeTime;
use framegraph::{Access, Context, Executor, FrameSync, Graph, ImageDesc};
use std::time::Instant;

/// Readback names (their copy nodes are `readback.bench.*`) and the sink that keeps the
/// shading alive when nothing is read back; the timing tables leave `bench.*` and
/// `readback.*` out.
const AOV: &str = "bench.aov";
const COLOR: &str = "bench.color";

/// The device side of the benchmark: one frame in flight, so each frame's wall time is its own.
pub struct Gpu {
    pub ctx: Context,
    pub exec: Executor,
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
        Ok(Gpu { ctx, exec })
    }

    pub fn frame(
        &mut self,
        r: &mut PlanetRenderer,
        cam: &ViewCamera,
        aov: bool,
        color: bool,
    ) -> Result<Frame> {
        let t0 = Instant::now();
        let (slot, _) = self.exec.begin_frame(&self.ctx)?;
        let req = FrameRequest {
            cam: *cam,
            frame_slot: slot,
            view: DebugView::Shaded,
            aov,
        };
        r.prepare(&self.ctx, req)?;
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
        let compiled = g
            .compile(self.ctx.queue_setup())
            .context("compiling the planet frame")?;
        self.exec
            .execute(&self.ctx, compiled, FrameSync::default())
            .context("submitting the planet frame")?;
        let host_ms = t0.elapsed().as_secs_f64() * 1e3;
        // One frame in flight: draining waits for exactly this frame.
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
        })
    }

    /// Free the executor; fail on validation messages or leaked GPU memory.
    pub fn finish(mut self) -> Result<()> {
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
