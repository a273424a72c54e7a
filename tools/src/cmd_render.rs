//! `planetfall render`: one headless frame to a PNG.

use crate::gpu::GpuArgs;
use crate::headless::{FrameArgs, Headless};
use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    frame: FrameArgs,
    /// Output PNG.
    #[arg(long, default_value = "captures/out/render.png")]
    out: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    a.frame.check()?;
    let (_, cam) = a.frame.camera()?;
    let mut h = Headless::new(&a.gpu, &a.frame)?;
    let out = h.frame(&cam, &a.frame)?;
    let pixels = out.readback(crate::view::frame::READBACK)?;
    crate::image_out::write_rgba8(&a.out, a.frame.width, a.frame.height, pixels)?;
    for t in &out.times {
        println!("node {:<28} {:9.3} ms", t.name, t.duration_ms);
    }
    h.finish()?;
    println!("wrote {}", a.out.display());
    Ok(())
}
