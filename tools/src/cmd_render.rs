//! `planetfall render`: one headless frame to a PNG.

use crate::gpu::GpuArgs;
use anyhow::{Context as _, Result};
use framegraph::{Executor, Graph};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    /// Output PNG.
    #[arg(long, default_value = "captures/out/render.png")]
    out: PathBuf,
    #[arg(long, default_value_t = 256)]
    width: u32,
    #[arg(long, default_value_t = 256)]
    height: u32,
}

pub fn run(a: Args) -> Result<()> {
    anyhow::ensure!(a.width > 0 && a.height > 0 && a.width <= 16384 && a.height <= 16384, "--width/--height must be 1..=16384");
    let ctx = a.gpu.context()?;
    let mut exec = Executor::new(&ctx, 1)?;
    let mut g = Graph::new();
    crate::test_scene::build(&mut g, a.width, a.height);
    let out = exec.run(&ctx, g.compile(ctx.queue_setup())?).context("rendering")?;
    crate::image_out::write_rgba8(&a.out, a.width, a.height, out.readback("color")?)?;
    for t in &out.times {
        println!("node {:<28} {:9.3} ms", t.name, t.duration_ms);
    }
    anyhow::ensure!(ctx.messages.count() == 0, "validation reported {} message(s)", ctx.messages.count());
    println!("wrote {}", a.out.display());
    exec.destroy(&ctx);
    Ok(())
}
