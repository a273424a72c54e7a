//! `planetfall capture --frame N <camera args>`: a RenderDoc capture of headless frame N (the
//! frame `planetfall render` draws), without a window: RenderDoc's library is loaded before
//! the Vulkan instance and the frame is bracketed with StartFrameCapture/EndFrameCapture.

use crate::gpu::GpuArgs;
use crate::headless::{self, FrameArgs};
use crate::view::renderdoc::RenderDocCapture;
use anyhow::{Context as _, Result};
use framegraph::Executor;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    frame: FrameArgs,
    /// Which frame to capture (frames before it run normally, so persistent state warms up).
    #[arg(long = "frame", value_name = "N", default_value_t = 0)]
    frame_index: u64,
    /// Directory for the capture.
    #[arg(long, default_value = "captures")]
    dir: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    a.frame.check()?;
    let (view, cam) = a.frame.camera()?;
    let mut rd = RenderDocCapture::load(&a.dir).context("planetfall capture needs RenderDoc")?;
    let ctx = a.gpu.context()?;
    let mut exec = Executor::new(&ctx, 1)?;
    let mut renderer = crate::view::scene::make(Some(&ctx), &a.frame.scene)?;
    for _ in 0..a.frame_index {
        headless::run(&ctx, &mut exec, renderer.as_mut(), &cam, &a.frame)?;
    }
    rd.start(ctx.instance.handle());
    let out = headless::run(&ctx, &mut exec, renderer.as_mut(), &cam, &a.frame);
    let path = rd.end(ctx.instance.handle(), renderer.name(), &view, a.frame_index);
    out?;
    let path = path?;
    renderer.destroy(&ctx);
    exec.destroy(&ctx);
    anyhow::ensure!(
        ctx.messages.count() == 0,
        "validation reported {} message(s)",
        ctx.messages.count()
    );
    println!("wrote {}", path.display());
    Ok(())
}
