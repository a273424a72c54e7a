//! One frame without a window — `render`, `capture` and `graph` share it, so `graph` lists
//! exactly the nodes the headless frame runs (and the RenderDoc test expects).

use crate::camera::{view_camera, CameraArgs};
use crate::view::frame::{self, Output};
use crate::view::{scene, DebugView, FrameInput, SceneRenderer};
use anyhow::{Context as _, Result};
use engine::camera::ViewCamera;
use framegraph::{CompiledGraph, Context, Executor, FrameOutput, Graph, QueueSetup};

/// The scene, the size and the camera of a headless frame.
#[derive(clap::Args, Clone, Debug)]
pub struct FrameArgs {
    #[command(flatten)]
    pub camera: CameraArgs,
    /// What to draw.
    #[arg(long, default_value = scene::SCENES[0])]
    pub scene: String,
    #[arg(long, default_value_t = 256)]
    pub width: u32,
    #[arg(long, default_value_t = 256)]
    pub height: u32,
    /// Debug view to request (shaded, levels, slots, wireframe, normals, latlon, water).
    #[arg(long, default_value = "shaded", value_parser = parse_debug)]
    pub debug: DebugView,
    /// An arbitrary output variable instead of the shading: level, slot, normal, latlon, water.
    #[arg(long, value_parser = parse_aov, conflicts_with = "debug")]
    pub aov: Option<DebugView>,
}

fn parse_aov(s: &str) -> Result<DebugView, String> {
    match s {
        "level" => Ok(DebugView::Levels),
        "slot" => Ok(DebugView::Slots),
        "normal" => Ok(DebugView::Normals),
        "latlon" => Ok(DebugView::LatLon),
        "water" => Ok(DebugView::Water),
        _ => Err(format!(
            "unknown --aov {s:?}; known: level, slot, normal, latlon, water"
        )),
    }
}

fn parse_debug(s: &str) -> Result<DebugView, String> {
    DebugView::parse(s).ok_or_else(|| {
        let names: Vec<&str> = DebugView::ALL.iter().map(|d| d.name()).collect();
        format!("unknown debug view {s:?}; known: {}", names.join(", "))
    })
}

impl FrameArgs {
    /// The size and the camera (its bookmark file and ranges) checked before any GPU work: a
    /// bad argument is one clear error, not a device started and torn down.
    pub fn check(&self) -> Result<()> {
        anyhow::ensure!(
            self.width > 0 && self.height > 0 && self.width <= 16384 && self.height <= 16384,
            "--width/--height must be 1..=16384"
        );
        self.camera.resolve()?;
        Ok(())
    }

    /// The view's name and its camera over what `scene` draws ([`crate::camera::view_camera`]).
    pub fn camera(&self, scene: &dyn SceneRenderer) -> Result<(String, ViewCamera)> {
        let (name, b) = self.camera.resolve()?;
        let source = scene.source();
        let cam = view_camera(&b, source.as_deref(), self.width, self.height);
        Ok((name, cam))
    }
}

/// Prepare, declare and compile the headless frame of `renderer` for `queues` (no GPU work
/// is submitted).
pub fn compile<'a>(
    renderer: &'a mut dyn SceneRenderer,
    ctx: &Context,
    queues: QueueSetup,
    cam: &ViewCamera,
    a: &FrameArgs,
) -> Result<CompiledGraph<'a>> {
    let input = FrameInput {
        cam,
        extent: [a.width, a.height],
        frame_slot: 0,
        frame: 0,
        dt: 0.0,
        debug: a.aov.unwrap_or(a.debug),
        sun: a.camera.sun.direction(cam.eye),
        gpu_times: &[],
    };
    renderer.prepare(ctx, &input)?;
    let mut g = Graph::new();
    frame::declare(&mut g, &*renderer, &input, None, Output::Readback)?;
    Ok(g.compile(queues)?)
}

/// Run one headless frame and return its output (readback "color" holds the RGBA8 image).
pub fn run(
    ctx: &Context,
    exec: &mut Executor,
    renderer: &mut dyn SceneRenderer,
    cam: &ViewCamera,
    a: &FrameArgs,
) -> Result<FrameOutput> {
    let compiled = compile(renderer, ctx, ctx.queue_setup(), cam, a)?;
    let out = exec.run(ctx, compiled).context("rendering")?;
    renderer.frame_done(&out);
    Ok(out)
}

/// The GPU side of a headless command: context, executor, renderer. Freed by
/// [`Headless::finish`], which checks for leaks and validation messages, or, on a path that
/// returns an error first, when dropped (so the error is not buried under the allocator's leak
/// reports).
pub struct Headless {
    pub ctx: Context,
    exec: Executor,
    pub renderer: Box<dyn SceneRenderer>,
    freed: bool,
}

impl Drop for Headless {
    fn drop(&mut self) {
        self.free();
    }
}

impl Headless {
    pub fn new(gpu: &crate::device::GpuArgs, a: &FrameArgs) -> Result<Headless> {
        let ctx = gpu.context()?;
        let exec = Executor::new(&ctx, 1)?;
        let renderer = scene::make(&ctx, &a.scene, scene::Purpose::Render)?;
        Ok(Headless {
            ctx,
            exec,
            renderer,
            freed: false,
        })
    }

    fn free(&mut self) {
        if std::mem::replace(&mut self.freed, true) {
            return;
        }
        self.ctx.wait_idle();
        self.renderer.destroy(&self.ctx);
        self.exec.destroy(&self.ctx);
    }

    pub fn frame(&mut self, cam: &ViewCamera, a: &FrameArgs) -> Result<FrameOutput> {
        run(&self.ctx, &mut self.exec, self.renderer.as_mut(), cam, a)
    }

    /// Free everything; fail on validation messages or leaked GPU memory. With
    /// `--pipeline-stats`, first print the driver's statistics of the pipelines built.
    pub fn finish(mut self) -> Result<()> {
        if self.ctx.pipeline_executable.is_some() {
            let rows = crate::pipeline_stats::rows(&[self.exec.pipelines.statistics()]);
            print!("{}", crate::pipeline_stats::markdown(&rows, true));
        }
        self.free();
        let n = self.ctx.messages.count();
        anyhow::ensure!(n == 0, "validation reported {n} message(s)");
        let leaked = self.ctx.allocated_bytes();
        anyhow::ensure!(
            leaked == 0,
            "{leaked} bytes of GPU memory still allocated at shutdown (leak)"
        );
        Ok(())
    }
}
