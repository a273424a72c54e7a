//! `planetfall render`: one headless frame to a PNG.

use crate::device::GpuArgs;
use crate::headless::{FrameArgs, Headless};
use anyhow::{Context as _, Result};
use std::path::PathBuf;

mod cbt;
mod stats;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    frame: FrameArgs,
    /// Output PNG.
    #[arg(long, default_value = "captures/out/render.png")]
    out: PathBuf,
    /// Also write the distance along each pixel's ray (f32 metres, 0 = no terrain): a PFM
    /// image if the name ends in .pfm, else raw little-endian f32 rows, top row first.
    #[arg(long)]
    depth_out: Option<PathBuf>,
    /// Frames to run at most while the mesh refines and tiles load (the last one is written).
    #[arg(long, default_value_t = 100)]
    max_frames: u32,
    /// Write the last frame's statistics as JSON, the same numeric keys for every scene (mesh
    /// counters, tiles, GPU ms per node; --scene cbt adds per-iteration counters and the
    /// validator's verdict).
    #[arg(long)]
    stats: Option<PathBuf>,
    /// Bisector pool entries for --scene cbt (default: 2^22, or what the device allows).
    #[arg(long)]
    pool: Option<u32>,
}

pub fn run(a: Args) -> Result<()> {
    a.frame.check()?;
    if a.frame.scene == cbt::SCENE {
        let (gpu, frame, out, stats) = (&a.gpu, &a.frame, &a.out, a.stats.as_deref());
        return cbt::run(cbt::Options {
            gpu,
            frame,
            out,
            stats,
            pool: a.pool,
            max_frames: a.max_frames,
        });
    }
    let mut h = Headless::new(&a.gpu, &a.frame)?;
    let (_, cam) = a.frame.camera(h.renderer.as_ref())?;
    h.renderer.request_depth(a.depth_out.is_some());
    let mut out = h.frame(&cam, &a.frame)?;
    let mut frames = 1;
    while frames < a.max_frames.max(1) && !h.renderer.settled() {
        out = h.frame(&cam, &a.frame)?;
        frames += 1;
    }
    if !h.renderer.settled() {
        log::warn!("not settled after {frames} frames (raise --max-frames); writing the last one");
    }
    if let Some(path) = &a.depth_out {
        let depth = h
            .renderer
            .depth_m()
            .context("this scene has no depth (try --scene earth)")?;
        write_depth(path, a.frame.width, a.frame.height, &depth)?;
    }
    let pixels = out.readback(crate::view::frame::READBACK)?;
    crate::image_out::write_rgba8(&a.out, a.frame.width, a.frame.height, pixels)?;
    for t in &out.times {
        println!("node {:<28} {:9.3} ms", t.name, t.duration_ms);
    }
    if let Some(path) = &a.stats {
        let size = [a.frame.width, a.frame.height];
        let settled = h.renderer.settled();
        stats::StatsFile::new(
            &a.frame.scene,
            size,
            frames,
            settled,
            h.renderer.stats(),
            &out,
        )
        .write(path)?;
        println!("wrote {}", path.display());
    }
    h.finish()?;
    println!("wrote {}", a.out.display());
    Ok(())
}

/// Depth as PFM (`Pf`, bottom row first as the format wants) or raw f32 (top row first).
fn write_depth(path: &std::path::Path, w: u32, h: u32, depth: &[f32]) -> Result<()> {
    let mut bytes = Vec::with_capacity(depth.len() * 4 + 32);
    let pfm = path.extension().and_then(|e| e.to_str()) == Some("pfm");
    if pfm {
        bytes.extend_from_slice(format!("Pf\n{w} {h}\n-1.0\n").as_bytes());
        for row in (0..h as usize).rev() {
            for v in &depth[row * w as usize..(row + 1) * w as usize] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
    } else {
        for v in depth {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
