//! The mesh as the planet frame uses it: the pool and its update nodes, the draw list handed to
//! the raster (`MeshBindings`), and the frame's counters copied to host memory per frame slot
//! (`cbt.counters`), read when the slot comes round again — no readback stall in the loop.

use super::debug::{declare_debug_raster, DebugMode};
use super::layout::CbtPush;
use super::nodes::{self, CbtHandles};
use super::readback::frame_stats;
use super::{CbtGpu, CbtGpuError};
use crate::cbt::bisector::{Control, MAX_ITERATIONS};
use crate::cbt::params::CbtParams;
use crate::cbt::update::FrameStats;
use crate::gpu::tiles::TileBindings;
use crate::publish::MeshBindings;
use framegraph::{Access, BufferDesc, Context, GpuBuffer, Graph, ImageRef};
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
            stats: FrameStats::default(),
            control: Control::default(),
        })
    }

    /// Declare this frame's update (`params.max_iterations` recorded) after `stream.upload`;
    /// `frame_slot` from `Executor::begin_frame` (its previous frame has finished, so its
    /// counters are read here first).
    pub fn declare(
        &mut self,
        g: &mut Graph<'_>,
        tiles: &TileBindings,
        frame_slot: usize,
    ) -> CbtHandles {
        let slot = frame_slot % self.counters.len();
        if self.written[slot] {
            if let Some(bytes) = self.counters[slot].mapped() {
                self.control = bytemuck::pod_read_unaligned(&bytes[..size_of::<Control>()]);
                self.stats = frame_stats(&self.control);
            }
        }
        let mut h = self.cbt.import(g);
        let iterations = self.cbt.params.max_iterations.clamp(1, MAX_ITERATIONS) as u32;
        nodes::declare_update(
            g,
            &mut h,
            tiles,
            CbtPush::new(&self.cbt.params, self.cbt.capacity, iterations),
        );
        let mut dst = g.import_buffer(&self.counters[slot]);
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
        self.written[slot] = true;
        h
    }

    /// `raster.cbt_debug` over this frame's mesh into `target`.
    pub fn declare_debug(
        g: &mut Graph<'_>,
        h: &CbtHandles,
        tiles: &TileBindings,
        target: &mut ImageRef,
        extent: [u32; 2],
        mode: DebugMode,
    ) {
        declare_debug_raster(g, h, tiles, target, extent, mode);
    }

    pub fn destroy(self, ctx: &Context) {
        self.cbt.destroy(ctx);
        for c in self.counters {
            c.destroy(ctx);
        }
    }
}
