//! The device's ceilings, measured in the same run (shaders/bench/): device-local copy
//! bandwidth by `vkCmdCopyBuffer` and by a compute copy (the floors take the faster),
//! host→device copy bandwidth, and the raster rate of a full-screen triangle grid.

use super::frame::Gpu;
use super::report::{Limits, RasterFloor};
use super::stats::median;
use anyhow::{Context as _, Result};
use ash::vk;
use framegraph::{Access, BufferDesc, GpuBuffer, Graph, ImageDesc, LoadOp, RasterState};

/// Runs per probe; the median is kept.
const REPS: usize = 5;

/// GPU time (ms) of node `name` in one run of the graph `build` declares.
fn timed(gpu: &mut Gpu, name: &str, build: impl for<'a> FnOnce(&mut Graph<'a>)) -> Result<f64> {
    let mut g = Graph::new();
    build(&mut g);
    let compiled = g
        .compile(gpu.ctx.queue_setup())
        .with_context(|| format!("compiling {name}"))?;
    let out = gpu
        .exec
        .run(&gpu.ctx, compiled)
        .with_context(|| format!("running {name}"))?;
    out.time_ms(name)
        .with_context(|| format!("no GPU timestamps for {name} (queue without timestamps?)"))
}

/// GPU time (ms) of node `name`: the median of REPS runs after one warm-up.
fn median_ms(gpu: &mut Gpu, name: &str, build: impl for<'a> Fn(&mut Graph<'a>)) -> Result<f64> {
    let mut ms = Vec::new();
    for rep in 0..=REPS {
        let t = timed(gpu, name, &build)?;
        if rep > 0 {
            ms.push(t);
        }
    }
    Ok(median(&ms))
}

/// `vkCmdCopyBuffer` of `bytes` from `src` to `dst`; median GPU ms.
fn copy_ms(gpu: &mut Gpu, src: &GpuBuffer, dst: &GpuBuffer, bytes: u64, name: &str) -> Result<f64> {
    median_ms(gpu, name, |g| {
        let s = g.import_buffer(src);
        let mut d = g.import_buffer(dst);
        g.transfer(name).copy_buffer(s, &mut d, 0, 0, bytes);
        g.custom("bench.keep")
            .read(d, Access::TransferRead)
            .side_effect()
            .declare_only();
    })
}

/// `bench.copy_compute` of `bytes` (from [`engine::probe::compute_copy_bytes`]) from `src` to
/// `dst`; median GPU ms.
fn compute_copy_ms(gpu: &mut Gpu, src: &GpuBuffer, dst: &GpuBuffer, bytes: u64) -> Result<f64> {
    let name = "bench.copy_compute";
    median_ms(gpu, name, |g| {
        let s = g.import_buffer(src);
        let mut d = g.import_buffer(dst);
        engine::probe::declare_compute_copy(g, name, s, &mut d, bytes);
        g.custom("bench.keep")
            .read(d, Access::ComputeRead)
            .side_effect()
            .declare_only();
    })
}

/// (Read + written) GB/s of a copy of `bytes` in `ms`.
fn gbps(bytes: u64, ms: f64) -> f64 {
    2.0 * bytes as f64 / (ms.max(1e-9) * 1e6)
}

/// Device copy bandwidth over `device_bytes` (the compute copy over as much as a storage
/// binding spans), upload bandwidth over `upload_bytes`.
pub fn measure(gpu: &mut Gpu, device_bytes: u64, upload_bytes: u64) -> Result<Limits> {
    let a = GpuBuffer::new(&gpu.ctx, "bench.copy.src", BufferDesc::gpu(device_bytes))?;
    let b = GpuBuffer::new(&gpu.ctx, "bench.copy.dst", BufferDesc::gpu(device_bytes))?;
    let up = GpuBuffer::new(
        &gpu.ctx,
        "bench.upload.src",
        BufferDesc::upload(upload_bytes),
    )?;
    let cbytes =
        engine::probe::compute_copy_bytes(device_bytes, gpu.ctx.info.max_storage_buffer_range);
    let copy = copy_ms(gpu, &a, &b, device_bytes, "bench.copy");
    let compute = compute_copy_ms(gpu, &a, &b, cbytes);
    let upload = copy_ms(gpu, &up, &b, upload_bytes, "bench.upload");
    a.destroy(&gpu.ctx);
    b.destroy(&gpu.ctx);
    up.destroy(&gpu.ctx);
    let (copy_ms, compute_ms, upload_ms) = (copy?, compute?, upload?);
    // A copy reads and writes every byte.
    let (transfer_gbps, compute_gbps) = (gbps(device_bytes, copy_ms), gbps(cbytes, compute_ms));
    Ok(Limits {
        copy_bytes: device_bytes,
        copy_ms,
        transfer_gbps,
        compute_copy_bytes: cbytes,
        compute_copy_ms: compute_ms,
        compute_gbps,
        device_gbps: transfer_gbps.max(compute_gbps),
        upload_bytes,
        upload_ms,
        upload_gbps: upload_bytes as f64 / (upload_ms.max(1e-9) * 1e6),
    })
}

/// Grid of cells (two triangles each) covering a `w`×`h` viewport with ≥ `triangles`/2
/// square-ish cells.
pub fn grid(triangles: u64, w: u32, h: u32) -> (u32, u32) {
    let cells = triangles.div_ceil(2).max(1) as f64;
    let cols = (cells * w as f64 / h as f64).sqrt().ceil().max(1.0);
    let rows = (cells / cols).ceil().max(1.0);
    (cols as u32, rows as u32)
}

/// `bench.grid`: `triangles` triangles over the whole `w`×`h` viewport, the fragment work of
/// `raster.hardware` (early depth test, 64-bit atomicMin into a visibility buffer).
pub fn raster(gpu: &mut Gpu, triangles: u64, w: u32, h: u32) -> Result<RasterFloor> {
    if triangles == 0 {
        return Ok(RasterFloor::default());
    }
    let (cols, rows) = grid(triangles, w, h);
    let vertices = u32::try_from(3 * triangles).context("triangle count")?;
    let grid_ms = median_ms(gpu, "bench.grid", |g| {
        let mut vis = g.create_buffer("bench.vis", BufferDesc::gpu(8 * w as u64 * h as u64));
        let mut depth = g.create_image("bench.depth", ImageDesc::d2(w, h, vk::Format::D32_SFLOAT));
        g.transfer("bench.grid.clear")
            .fill(&mut vis, 0, vk::WHOLE_SIZE, u32::MAX);
        let state = RasterState {
            depth_test: true,
            depth_write: true,
            depth_compare: vk::CompareOp::GREATER,
            ..Default::default()
        };
        g.raster(
            "bench.grid",
            &shaders::BENCH_GRID_VERT,
            &shaders::BENCH_GRID_FRAG,
        )
        .write("vis", &mut vis)
        .push(&[cols, rows, w, h])
        .state(state)
        .depth(&mut depth, LoadOp::Clear([0.0; 4]))
        .draw(vertices, 1);
        g.custom("bench.keep")
            .read(vis, Access::TransferRead)
            .side_effect()
            .declare_only();
    })?;
    Ok(RasterFloor {
        triangles,
        grid_ms,
        tris_per_s: triangles as f64 / (grid_ms.max(1e-9) * 1e-3),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_copy_counts_what_it_reads_and_writes() {
        assert!((super::gbps(1_000_000, 1.0) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn grid_holds_the_triangles_in_square_cells() {
        for (n, w, h) in [(1u64, 96, 64), (1_000_000, 1920, 1080), (777, 96, 64)] {
            let (c, r) = super::grid(n, w, h);
            assert!(2 * c as u64 * r as u64 >= n);
            let cell = (w as f64 / c as f64, h as f64 / r as f64);
            assert!(n < 8 || (cell.0 / cell.1 - 1.0).abs() < 0.5, "{n}: {c}×{r}");
        }
    }
}
