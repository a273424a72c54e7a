//! `planetfall supply [--batch N] [--rounds K]`: how fast the GPU makes tiles (TERRAIN.md §5's
//! supply, per feed class): batches of whole tiles through the generating nodes, timed by the
//! graph's GPU timestamps (every generating node summed), and the host wall time around each submit. The tiles are real
//! Earth tiles around the Himalaya, so the work per sample is what a flight meets.

use crate::device::GpuArgs;
use anyhow::{Context as _, Result};
use engine::earth::gpu::{DeriveJob, GpuTiles, JOB_FLOATS};
use engine::earth::Source;
use engine::params::{LAST_STORED_LEVEL, MAX_LEVEL};
use engine::planet::{dir_to_face, latlon_to_dir, Body, TileId};
use framegraph::{BufferDesc, Executor, GpuBuffer, Graph};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub gpu: GpuArgs,
    /// Tiles per batch (one dispatch).
    #[arg(long, default_value_t = 16)]
    pub batch: u32,
    /// Timed batches per class, after one untimed warm-up batch.
    #[arg(long, default_value_t = 8)]
    pub rounds: u32,
    /// Level to make: L0–L9 derived (`tiles.derive`), L10–L18 amplified (`tiles.amplify.*`).
    #[arg(long, default_value_t = 9)]
    pub level: u8,
    /// ETOPO netCDF file (default: PLANETFALL_ETOPO, then Debian's ferret-datasets path).
    #[arg(long)]
    pub etopo: Option<std::path::PathBuf>,
}

/// `batch` distinct tiles of `level` in a square around (lat, lon), the first `round` rows on.
fn tiles(level: u8, batch: u32, round: u32) -> Vec<TileId> {
    let (face, u, v) = dir_to_face(latlon_to_dir(27.9, 86.8));
    let c = TileId::containing(level, face, u, v);
    let side = (batch as f64).sqrt().ceil() as u32;
    let edge = 1u32 << level;
    (0..batch)
        .map(|k| {
            let x = (c.x + k % side + round * side) % edge;
            let y = (c.y + k / side) % edge;
            TileId::new(level, face, x, y)
        })
        .collect()
}

pub fn run(a: Args) -> Result<()> {
    anyhow::ensure!(
        a.level <= MAX_LEVEL,
        "--level {}: levels run 0–{MAX_LEVEL}",
        a.level
    );
    let ctx = a.gpu.context()?;
    let mut exec = Executor::new(&ctx, 1)?;
    let path = engine::earth::etopo::etopo_path(a.etopo.as_deref());
    let src = Source::open(&path, Body::EARTH)?;
    let mut derive = GpuTiles::new(&ctx, &src).context("tiles.derive")?;
    let cap = a.batch as u64;
    // Kept across batches (an imported buffer's writes are never culled).
    let heights = GpuBuffer::new(
        &ctx,
        "tiles.supply.out",
        BufferDesc::gpu(4 * JOB_FLOATS * cap),
    )?;
    let mut gpu_ms = Vec::new();
    let mut wall_ms = Vec::new();
    for round in 0..=a.rounds {
        let jobs: Vec<DeriveJob> = tiles(a.level, a.batch, round)
            .into_iter()
            .enumerate()
            .map(|(k, tile)| DeriveJob {
                tile,
                out_index: k as u32,
            })
            .collect();
        let mut g = Graph::new();
        let mut out = g.import_buffer(&heights);
        derive.declare(&mut g, &jobs, &mut out, cap)?;
        let compiled = g.compile(ctx.queue_setup())?;
        let t0 = Instant::now();
        let frame = exec.run(&ctx, compiled)?;
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        derive.release_staging(&ctx);
        if round > 0 {
            let nodes = [
                "tiles.derive",
                "tiles.amplify.patch",
                "tiles.amplify",
                "tiles.amplify.fallback",
            ];
            gpu_ms.push(nodes.iter().filter_map(|n| frame.time_ms(n)).sum());
            wall_ms.push(wall);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (g, w) = (median(&mut gpu_ms), median(&mut wall_ms));
    println!(
        "{} L{}: {} tiles per batch, median over {} batches: GPU {g:.3} ms \
         ({:.0} tiles/s), wall {w:.3} ms ({:.0} tiles/s)",
        if a.level > LAST_STORED_LEVEL {
            "amplified"
        } else {
            "derived"
        },
        a.level,
        a.batch,
        a.rounds,
        a.batch as f64 / g * 1e3,
        a.batch as f64 / w * 1e3
    );
    derive.destroy(&ctx);
    heights.destroy(&ctx);
    exec.destroy(&ctx);
    Ok(())
}
