//! `planetfall render`: one headless frame to a PNG.

use crate::gpu::GpuArgs;
use crate::headless::{self, FrameArgs};
use anyhow::Result;
use framegraph::Executor;
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
    let ctx = a.gpu.context()?;
    let mut exec = Executor::new(&ctx, 1)?;
    let mut renderer = crate::view::scene::make(Some(&ctx), &a.frame.scene)?;
    let out = headless::run(&ctx, &mut exec, renderer.as_mut(), &cam, &a.frame)?;
    crate::image_out::write_rgba8(
        &a.out,
        a.frame.width,
        a.frame.height,
        out.readback(crate::view::frame::READBACK)?,
    )?;
    for t in &out.times {
        println!("node {:<28} {:9.3} ms", t.name, t.duration_ms);
    }
    renderer.destroy(&ctx);
    exec.destroy(&ctx);
    anyhow::ensure!(
        ctx.messages.count() == 0,
        "validation reported {} message(s)",
        ctx.messages.count()
    );
    println!("wrote {}", a.out.display());
    Ok(())
}
