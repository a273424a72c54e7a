//! `planetfall capture --frame N <camera args>`: a RenderDoc capture of headless frame N (the
//! frame `planetfall render` draws), without a window: RenderDoc's library is loaded before
//! the Vulkan instance and the frame is bracketed with StartFrameCapture/EndFrameCapture.

use crate::device::GpuArgs;
use crate::headless::{FrameArgs, Headless};
use crate::view::renderdoc::RenderDocCapture;
use anyhow::{Context as _, Result};
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
    let mut rd = RenderDocCapture::load(&a.dir).context("planetfall capture needs RenderDoc")?;
    let mut h = Headless::new(&a.gpu, &a.frame)?;
    let (view, cam) = a.frame.camera(h.renderer.as_ref())?;
    for _ in 0..a.frame_index {
        h.frame(&cam, &a.frame)?;
    }
    let instance = h.ctx.instance.handle();
    rd.start(instance);
    let out = h.frame(&cam, &a.frame);
    // End the capture even when the frame failed, then report the frame's error first.
    let path = rd.end(instance, h.renderer.name(), &view, a.frame_index);
    out?;
    let path = path?;
    h.finish()?;
    println!("wrote {}", path.display());
    Ok(())
}
