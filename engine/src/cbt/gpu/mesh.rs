//! The mesh as the planet frame uses it: the pool and its update nodes, the draw list handed to
//! the raster (`MeshBindings`), and the frame's counters copied to host memory per frame slot
//! (`cbt.counters`), read when the slot comes round again — no readback stall in the loop.

use super::layout::CbtPush;
use super::nodes::{self, CbtHandles};
use super::readback::frame_stats;
use super::{CbtGpu, CbtGpuError};
use crate::atlas::SurfaceBindings;
use crate::cbt::bisector::{Control, MAX_ITERATIONS};
use crate::cbt::params::CbtParams;
use crate::cbt::update::FrameStats;
use crate::publish::MeshBindings;
use framegraph::{Access, BufferDesc, Context, GpuBuffer, Graph};
use std::mem::size_of;

impl CbtHandles {
    /// What the raster reads: the pool's corner positions, the draw list and its indirect draw.
    pub fn mesh(&self) -> MeshBindings {
        MeshBindings {
            pool: self.pool,
            draw_list: self.draw_list,
            draw_args: self.control,
            draw_args_offset: Self::DRAW_ARGS_OFFSET,
            capacity: self.capacity,
        }
    }
}

pub struct GpuMesh {
    pub cbt: CbtGpu,
    /// Host-visible copies of the control block, one per frame slot.
    counters: Vec<GpuBuffer>,
    written: Vec<bool>,
    /// The prepared frame's counters slot.
    slot: usize,
    /// The last completed frame's counters (frames in flight old).
    pub stats: FrameStats,
    pub control: Control,
}

impl GpuMesh {
    /// A pool of `capacity` entries (None: what the device allows) for `frames_in_flight` slots.
    pub fn new(
        ctx: &Context,
        capacity: Option<u32>,
        params: CbtParams,
        frames_in_flight: usize,
    ) -> Result<GpuMesh, CbtGpuError> {
        let cbt = CbtGpu::new(ctx, capacity, params)?;
        let counters = (0..frames_in_flight.max(1))
            .map(|i| {
                GpuBuffer::new(
                    ctx,
                    &format!("cbt.counters{i}"),
                    BufferDesc::readback(size_of::<Control>() as u64),
                )
            })
            .collect::<framegraph::Result<Vec<_>>>()?;
        let written = vec![false; counters.len()];
        Ok(GpuMesh {
            cbt,
            counters,
            written,
            slot: 0,
            stats: FrameStats::default(),
            control: Control::default(),
        })
    }

    /// Host side of a frame in `frame_slot` (from `Executor::begin_frame`: that slot's
    /// previous frame has finished): read its counters, decide whether the frame starts with
    /// `cbt.init`.
    pub fn prepare(&mut self, frame_slot: usize) {
        let slot = frame_slot % self.counters.len();
        if self.written[slot] {
            if let Some(bytes) = self.counters[slot].mapped() {
                self.control = bytemuck::pod_read_unaligned(&bytes[..size_of::<Control>()]);
                self.stats = frame_stats(&self.control);
            }
        }
        self.written[slot] = true;
        self.slot = slot;
        self.cbt.prepare();
    }

    /// The prepared frame's update (`params.max_iterations` recorded), after `stream.upload`,
    /// and `cbt.counters`, the copy of the control block the next [`GpuMesh::prepare`] of this
    /// slot reads.
    pub fn declare(&self, g: &mut Graph<'_>, surface: &SurfaceBindings) -> CbtHandles {
        let mut h = self.cbt.import(g);
        let iterations = self.cbt.params.max_iterations.clamp(1, MAX_ITERATIONS) as u32;
        nodes::declare_update(
            g,
            &mut h,
            surface,
            CbtPush::new(&self.cbt.params, self.cbt.capacity, iterations),
        );
        let mut dst = g.import_buffer(&self.counters[self.slot]);
        g.transfer("cbt.counters").copy_buffer(
            h.control,
            &mut dst,
            0,
            0,
            size_of::<Control>() as u64,
        );
        g.custom("cbt.counters.host")
            .read(dst, Access::HostRead)
            .side_effect()
            .declare_only();
        h
    }

    pub fn destroy(self, ctx: &Context) {
        self.cbt.destroy(ctx);
        for c in self.counters {
            c.destroy(ctx);
        }
    }
}
