//! The CBT update on the GPU: the persistent pool buffers and the frame-graph
//! nodes that refine and coarsen the mesh every frame, one `shaders/cbt/*.comp` kernel per stage
//! of the CPU model (`stages/`), which stays the specification and the test oracle.
//!
//! - [`CbtGpu`]: the buffers (pool, control block, sweep arguments, free/request/draw bits and
//!   sum trees, draw list) and their initialisation with the 12 roots.
//! - [`nodes`]: the nodes of one frame, in order (`docs/cbt.md` §6).
//! - [`readback`]: the pool and counters back on the CPU (validator, stats).
//! - [`scene`]: a pool over a fixed residency (tests, `planetfall render --scene cbt`).
//! - [`debug`]: `raster.cbt_debug`, the mesh drawn flat with its edges, coloured by depth.
//! - [`mesh`]: [`mesh::GpuMesh`], the pool as the planet frame uses it (draw list for the
//!   raster, counters read back per frame slot without a stall).

pub mod debug;
pub mod layout;
pub mod mesh;
pub mod nodes;
pub mod readback;
pub mod scene;

use super::bisector::{bit_words, tree_nodes, Bisector, Control};
use super::leb::ROOT_COUNT;
use super::params::CbtParams;
use super::pool::{
    check_capacity, initial_control, initial_free, root_entries, CbtError, DEFAULT_CAPACITY,
};
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};
use layout::Sweeps;
use std::mem::size_of;
use thiserror::Error;

pub use nodes::CbtHandles;

#[derive(Debug, Error)]
pub enum CbtGpuError {
    #[error(transparent)]
    Capacity(#[from] CbtError),
    #[error("CBT pool of {capacity} entries needs {bytes} bytes in one storage buffer; the device allows {max}")]
    TooLarge { capacity: u32, bytes: u64, max: u64 },
    #[error(transparent)]
    Gpu(#[from] framegraph::Error),
}

/// The capacity this device allows: 2²² entries (TERRAIN.md §3), or as many whole 64-entry
/// words of 160-byte bisectors as one storage buffer may hold (lavapipe: 128 MiB → 838,848).
pub fn device_capacity(ctx: &Context) -> u32 {
    let fit = ctx.info.max_storage_buffer_range / size_of::<Bisector>() as u64;
    (fit.min(DEFAULT_CAPACITY as u64) as u32) & !63
}

/// The persistent buffers of one pool.
pub struct CbtGpu {
    pub capacity: u32,
    /// Criterion and culling parameters (pushed to every node; change freely between frames).
    pub params: CbtParams,
    pool: GpuBuffer,
    control: GpuBuffer,
    sweeps: GpuBuffer,
    free_bits: GpuBuffer,
    free_tree: GpuBuffer,
    request_bits: GpuBuffer,
    request_tree: GpuBuffer,
    draw_bits: GpuBuffer,
    draw_tree: GpuBuffer,
    draw_list: GpuBuffer,
    /// The initial state (roots, free bits and tree, control), uploaded by the first frame.
    init: GpuBuffer,
    /// The pool is due back to its initial state ([`CbtGpu::reset`], or never initialised).
    needs_init: bool,
    /// The prepared frame starts with `cbt.init`.
    init_this_frame: bool,
}

/// Byte ranges of the initial-state upload buffer.
struct InitLayout {
    roots: u64,
    free_bits: u64,
    free_tree: u64,
    control: u64,
    total: u64,
}

impl InitLayout {
    fn new(capacity: u32) -> InitLayout {
        let roots = ROOT_COUNT as u64 * size_of::<Bisector>() as u64;
        let free_bits = 8 * bit_words(capacity) as u64;
        let free_tree = 4 * tree_nodes(bit_words(capacity)) as u64;
        let control = size_of::<Control>() as u64;
        InitLayout {
            roots,
            free_bits,
            free_tree,
            control,
            total: roots + free_bits + free_tree + control,
        }
    }
}

impl CbtGpu {
    /// A pool of `capacity` entries (None: [`device_capacity`]) holding the 12 roots once the
    /// first declared frame has run.
    pub fn new(
        ctx: &Context,
        capacity: Option<u32>,
        params: CbtParams,
    ) -> Result<CbtGpu, CbtGpuError> {
        let capacity = capacity.unwrap_or_else(|| device_capacity(ctx));
        check_capacity(capacity)?;
        let bytes = capacity as u64 * size_of::<Bisector>() as u64;
        if bytes > ctx.info.max_storage_buffer_range {
            return Err(CbtGpuError::TooLarge {
                capacity,
                bytes,
                max: ctx.info.max_storage_buffer_range,
            });
        }
        let words = bit_words(capacity) as u64;
        let nodes = tree_nodes(bit_words(capacity)) as u64;
        let buf = |name: &str, size: u64| GpuBuffer::new(ctx, name, BufferDesc::gpu(size));
        let init = InitLayout::new(capacity);
        let mut cbt = CbtGpu {
            capacity,
            params,
            pool: buf("cbt.pool", bytes)?,
            control: buf("cbt.control", size_of::<Control>() as u64)?,
            sweeps: buf("cbt.sweeps", size_of::<Sweeps>() as u64)?,
            free_bits: buf("cbt.free_bits", 8 * words)?,
            free_tree: buf("cbt.free_tree", 4 * nodes)?,
            request_bits: buf("cbt.request_bits", 8 * words)?,
            request_tree: buf("cbt.request_tree", 4 * nodes)?,
            draw_bits: buf("cbt.draw_bits", 8 * words)?,
            draw_tree: buf("cbt.draw_tree", 4 * nodes)?,
            draw_list: buf("cbt.draw_list", 4 * capacity as u64)?,
            init: GpuBuffer::new(ctx, "cbt.init.staging", BufferDesc::upload(init.total))?,
            needs_init: true,
            init_this_frame: false,
        };
        cbt.write_initial_state()?;
        Ok(cbt)
    }

    fn write_initial_state(&mut self) -> Result<(), CbtGpuError> {
        let l = InitLayout::new(self.capacity);
        let (bits, tree) = initial_free(self.capacity);
        let control = initial_control(self.capacity, tree.total());
        let mut at = 0usize;
        for bytes in [
            bytemuck::cast_slice::<Bisector, u8>(&root_entries()),
            bytemuck::cast_slice(&bits),
            bytemuck::cast_slice(&tree.nodes),
            bytemuck::bytes_of(&control),
        ] {
            self.init.write(at, bytes)?;
            at += bytes.len();
        }
        debug_assert_eq!(at as u64, l.total);
        Ok(())
    }

    /// Host side of a frame: whether it starts with `cbt.init`.
    pub fn prepare(&mut self) {
        self.init_this_frame = std::mem::replace(&mut self.needs_init, false);
    }

    /// Back to the 12 roots at the next prepared frame (the GPU buffers are rewritten by
    /// `cbt.init`; call only when no frame using this pool is in flight).
    pub fn reset(&mut self) {
        self.needs_init = true;
    }

    /// Import the buffers into this frame's graph (and upload the initial state if the
    /// prepared frame is due for it).
    pub fn import(&self, g: &mut Graph<'_>) -> CbtHandles {
        let mut h = CbtHandles {
            pool: g.import_buffer(&self.pool),
            control: g.import_buffer(&self.control),
            sweeps: g.import_buffer(&self.sweeps),
            free_bits: g.import_buffer(&self.free_bits),
            free_tree: g.import_buffer(&self.free_tree),
            request_bits: g.import_buffer(&self.request_bits),
            request_tree: g.import_buffer(&self.request_tree),
            draw_bits: g.import_buffer(&self.draw_bits),
            draw_tree: g.import_buffer(&self.draw_tree),
            draw_list: g.import_buffer(&self.draw_list),
            capacity: self.capacity,
        };
        if self.init_this_frame {
            self.declare_init(g, &mut h);
        }
        h
    }

    /// `cbt.init`: the roots into entries 0..12 and zeros after them, the initial free bits,
    /// tree and control block; every other array zero.
    fn declare_init(&self, g: &mut Graph<'_>, h: &mut CbtHandles) {
        let l = InitLayout::new(self.capacity);
        let src: BufferRef = g.import_buffer(&self.init);
        let whole = ash::vk::WHOLE_SIZE;
        g.transfer("cbt.init")
            .copy_buffer(src, &mut h.pool, 0, 0, l.roots)
            .fill(&mut h.pool, l.roots, whole, 0)
            .copy_buffer(src, &mut h.free_bits, l.roots, 0, l.free_bits)
            .copy_buffer(src, &mut h.free_tree, l.roots + l.free_bits, 0, l.free_tree)
            .copy_buffer(
                src,
                &mut h.control,
                l.roots + l.free_bits + l.free_tree,
                0,
                l.control,
            )
            .fill(&mut h.sweeps, 0, whole, 0)
            .fill(&mut h.request_bits, 0, whole, 0)
            .fill(&mut h.request_tree, 0, whole, 0)
            .fill(&mut h.draw_bits, 0, whole, 0)
            .fill(&mut h.draw_tree, 0, whole, 0)
            .fill(&mut h.draw_list, 0, whole, 0);
    }

    /// Bytes of GPU memory the pool holds.
    pub fn bytes(&self) -> u64 {
        [
            &self.pool,
            &self.control,
            &self.sweeps,
            &self.free_bits,
            &self.free_tree,
            &self.request_bits,
            &self.request_tree,
            &self.draw_bits,
            &self.draw_tree,
            &self.draw_list,
        ]
        .iter()
        .map(|b| b.desc.size)
        .sum()
    }

    pub fn destroy(self, ctx: &Context) {
        for b in [
            self.pool,
            self.control,
            self.sweeps,
            self.free_bits,
            self.free_tree,
            self.request_bits,
            self.request_tree,
            self.draw_bits,
            self.draw_tree,
            self.draw_list,
            self.init,
        ] {
            b.destroy(ctx);
        }
    }
}
