//! The CBT update on the GPU: the persistent pool buffers and the frame-graph nodes that refine
//! and coarsen the mesh every frame, one `shaders/cbt/*.comp` kernel per stage of the CPU model
//! (`stages/`), which stays the specification and the test oracle.
//!
//! - [`CbtGpu`]: the buffers ([`buffers::CbtBuffers`]: pool, control block, sweep arguments,
//!   free/request/draw bits and sum trees, draw list) and their initialisation with the 12 roots.
//! - [`nodes`]: the nodes of one frame, in order (`docs/cbt.md` §6).
//! - [`readback`]: the pool and counters back on the CPU (validator, stats).
//! - [`scene`]: a pool over a fixed residency (tests, `planetfall render --scene cbt`).
//! - [`debug`]: `raster.cbt_debug`, the mesh drawn flat with its edges, coloured by depth.
//! - [`mesh`]: [`mesh::GpuMesh`], the pool as the planet frame uses it (draw list for the
//!   raster, counters read back per frame slot without a stall).
//! - [`record`]: how many iterations a frame records (one after a quiet frame of the same view).

pub mod buffers;
pub mod debug;
pub mod layout;
pub mod mesh;
pub mod nodes;
pub mod readback;
pub mod record;
pub mod scene;

use super::bisector::Bisector;
use super::params::CbtParams;
use super::pool::{
    check_capacity, initial_control, initial_free, root_entries, CbtError, DEFAULT_CAPACITY,
};
use buffers::{label, CbtBuffers};
use framegraph::{BufferDesc, BufferRef, Context, GpuBuffer, Graph};
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
/// words of bisectors as one storage buffer may hold (lavapipe: 128 MiB → 838,848).
pub fn device_capacity(ctx: &Context) -> u32 {
    let fit = ctx.info.max_storage_buffer_range / size_of::<Bisector>() as u64;
    (fit.min(DEFAULT_CAPACITY as u64) as u32) & !63
}

/// The persistent buffers of one pool.
pub struct CbtGpu {
    pub capacity: u32,
    /// Criterion and culling parameters (pushed to every node; change freely between frames).
    pub params: CbtParams,
    buffers: CbtBuffers<GpuBuffer>,
    /// The initial state ([`initial_state`]), each buffer's part after the previous one's;
    /// uploaded by the first frame.
    init: GpuBuffer,
    /// Bytes of each buffer's part of `init`.
    init_bytes: CbtBuffers<u64>,
    /// The pool is due back to its initial state ([`CbtGpu::reset`], or never initialised).
    needs_init: bool,
    /// The prepared frame starts with `cbt.init`.
    init_this_frame: bool,
}

/// What `cbt.init` writes at the start of each buffer (the rest of every buffer is zeroed):
/// the 12 roots, the initial free bits and tree, and the control block.
fn initial_state(capacity: u32) -> CbtBuffers<Vec<u8>> {
    let (bits, tree) = initial_free(capacity);
    let control = initial_control(capacity, tree.total());
    let mut s = CbtBuffers::sizes(capacity).map(|_, _| Vec::new());
    s.pool = bytemuck::cast_slice::<Bisector, u8>(&root_entries()).to_vec();
    s.control = bytemuck::bytes_of(&control).to_vec();
    s.free_bits = bytemuck::cast_slice(&bits).to_vec();
    s.free_tree = bytemuck::cast_slice(&tree.nodes).to_vec();
    s
}

impl CbtGpu {
    /// A pool of `capacity` entries (None: [`device_capacity`]) holding the 12 roots once the
    /// first prepared frame has run.
    pub fn new(
        ctx: &Context,
        capacity: Option<u32>,
        params: CbtParams,
    ) -> Result<CbtGpu, CbtGpuError> {
        let capacity = capacity.unwrap_or_else(|| device_capacity(ctx));
        check_capacity(capacity)?;
        let sizes = CbtBuffers::sizes(capacity);
        if sizes.pool > ctx.info.max_storage_buffer_range {
            return Err(CbtGpuError::TooLarge {
                capacity,
                bytes: sizes.pool,
                max: ctx.info.max_storage_buffer_range,
            });
        }
        let buffers = sizes
            .try_map(|name, &size| GpuBuffer::new(ctx, &label(name), BufferDesc::gpu(size)))?;
        let state = initial_state(capacity);
        let init_bytes = state.map(|_, part| part.len() as u64);
        let total = init_bytes.iter().map(|(_, &n)| n).sum();
        let mut init = GpuBuffer::new(ctx, "cbt.init.staging", BufferDesc::upload(total))?;
        let mut at = 0;
        for (_, part) in state.iter().filter(|(_, part)| !part.is_empty()) {
            init.write(at, part)?;
            at += part.len();
        }
        Ok(CbtGpu {
            capacity,
            params,
            buffers,
            init,
            init_bytes,
            needs_init: true,
            init_this_frame: false,
        })
    }

    /// Host side of a frame: whether it starts with `cbt.init`.
    pub fn prepare(&mut self) {
        self.init_this_frame = std::mem::replace(&mut self.needs_init, false);
    }

    /// The prepared frame starts with `cbt.init` (the pool is back to the 12 roots).
    pub fn init_this_frame(&self) -> bool {
        self.init_this_frame
    }

    /// Back to the 12 roots at the next prepared frame (the GPU buffers are rewritten by
    /// `cbt.init`; call only when no frame using this pool is in flight).
    pub fn reset(&mut self) {
        self.needs_init = true;
    }

    /// Import the buffers into this frame's graph (and upload the initial state if the
    /// prepared frame is due for it).
    pub fn import(&self, g: &mut Graph<'_>) -> CbtHandles {
        let mut h = self.buffers.map(|_, b| g.import_buffer(b));
        if self.init_this_frame {
            self.declare_init(g, &mut h);
        }
        h
    }

    /// `cbt.init`: each buffer's initial part from the staging buffer, zeros after it.
    fn declare_init(&self, g: &mut Graph<'_>, h: &mut CbtHandles) {
        let src: BufferRef = g.import_buffer(&self.init);
        let mut node = g.transfer("cbt.init");
        let mut at = 0;
        for ((_, dst), ((_, &part), (_, b))) in h
            .iter_mut()
            .zip(self.init_bytes.iter().zip(self.buffers.iter()))
        {
            if part > 0 {
                node = node.copy_buffer(src, dst, at, 0, part);
                at += part;
            }
            if part < b.desc.size {
                node = node.fill(dst, part, ash::vk::WHOLE_SIZE, 0);
            }
        }
    }

    /// Bytes of GPU memory the pool holds.
    pub fn bytes(&self) -> u64 {
        self.buffers.iter().map(|(_, b)| b.desc.size).sum()
    }

    pub fn destroy(self, ctx: &Context) {
        for b in self.buffers.into_values().chain([self.init]) {
            b.destroy(ctx);
        }
    }
}
