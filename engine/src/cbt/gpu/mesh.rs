//! The mesh as the planet frame uses it: the pool and its update nodes, the draw list handed to
//! the raster (`MeshBindings`), and the frame's counters copied to host memory per frame slot
//! (`cbt.counters`), read when the slot comes round again — no readback stall in the loop. The
//! counters read and the view choose how many iterations the next frame records
//! ([`super::record`]).

use super::buffers::{HIDDEN_STAMP, STAMP_FRAME, UNSEEN_STAMP};
use super::layout::CbtPush;
use super::nodes::{self, CbtHandles};
use super::readback::frame_stats;
use super::record::{iterations_to_record, still, Seen, ViewPose};
use super::{CbtGpu, CbtGpuError};
use crate::atlas::{SurfaceBindings, SurfaceClock};
use crate::cbt::bisector::Control;
use crate::cbt::gain::FineDetailGain;
use crate::cbt::params::{CbtParams, HiddenLeaves};
use crate::cbt::update::FrameStats;
use crate::publish::{MeshBindings, OcclusionBindings, RasterCounts};
use framegraph::{Access, BufferDesc, Context, GpuBuffer, Graph};
use std::mem::size_of;

impl CbtHandles {
    /// What the raster reads: the pool's corner positions, the draw list and its indirect draw
    /// (no occlusion stamps: [`GpuMesh::bindings`] adds them).
    pub fn mesh(&self) -> MeshBindings {
        MeshBindings {
            pool: self.pool,
            draw_list: self.draw_list,
            draw_args: self.control,
            draw_args_offset: Self::DRAW_ARGS_OFFSET,
            capacity: self.capacity,
            occlusion: None,
        }
    }
}

pub struct GpuMesh {
    pub cbt: CbtGpu,
    /// A frame read back since the pool was (re)initialised was quiet: the mesh has come to
    /// rest once, so later splits change something already on screen (docs/cbt.md "Morph").
    pub rested: bool,
    /// Host-visible copies of the control block, one per frame slot.
    counters: Vec<GpuBuffer>,
    /// Host-visible copies of the raster's counts (`raster.counters`), one per frame slot.
    raster_counters: Vec<GpuBuffer>,
    /// The raster stamps leaves in the frames prepared from now on (those it draws unseen, and
    /// with the cull those it culls), so the next frame's `cbt.decide` may keep them from
    /// splitting. Stamps carry their frame, so a frame after one without stamps finds none to
    /// match.
    pub occlusion: bool,
    /// Per slot, the frame declared there and not yet read: its view, the pool epoch and its
    /// frame index.
    declared: Vec<Option<(ViewPose, u64, u64)>>,
    /// Frames prepared so far.
    frames: u64,
    /// The update's inputs as last prepared (the view, a key of the rest and the gain's bits),
    /// and the first frame prepared with them.
    inputs: Option<(ViewPose, (u64, u64))>,
    inputs_since: u64,
    /// Counts `cbt.init`s: counters of a frame before the latest one describe another pool.
    epoch: u64,
    /// The latest frame read back of this epoch.
    seen: Option<Seen>,
    /// The prepared frame's counters slot.
    slot: usize,
    /// Iterations the prepared frame records.
    pub iterations: u32,
    /// The last completed frame's counters (frames in flight old).
    pub stats: FrameStats,
    pub control: Control,
    /// The fine-detail gain: each frame read back with fine split wishes attenuates it; the
    /// next frame's update runs with its value (`cbt.params.fine_detail_gain`).
    pub gain: FineDetailGain,
    /// The surface clock of the prepared frame's slot records (`TileAtlas::surface_clock`), for
    /// `cbt.eval`'s memo; the default keeps no memo.
    pub clock: SurfaceClock,
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
        // Zeroed: a frame declared but never run (`planetfall graph` declares frames without
        // submitting them) reads as one that changed nothing.
        let slots = frames_in_flight.max(1);
        let counters = zeroed_readbacks(ctx, "cbt.counters", size_of::<Control>(), slots)?;
        let raster_counters =
            zeroed_readbacks(ctx, "raster.counters", size_of::<RasterCounts>(), slots)?;
        let declared = vec![None; counters.len()];
        Ok(GpuMesh {
            cbt,
            rested: false,
            counters,
            raster_counters,
            occlusion: false,
            declared,
            frames: 0,
            inputs: None,
            inputs_since: 0,
            epoch: 0,
            seen: None,
            slot: 0,
            iterations: 0,
            stats: FrameStats::default(),
            control: Control::default(),
            gain: FineDetailGain::default(),
            clock: SurfaceClock::default(),
        })
    }

    /// Host side of a frame in `frame_slot` (from `Executor::begin_frame`: that slot's
    /// previous frame has finished) for `view`: read that frame's counters, decide whether the
    /// frame starts with `cbt.init` and how many iterations it records — none when nothing
    /// the update reads changed since a quiet frame (`record::still`). `inputs` keys the rest of
    /// what the update reads (frame constants, the resident surface): equal keys, equal inputs.
    /// The gain is attenuated here, by the counters read, and is part of the update's inputs.
    pub fn prepare(&mut self, frame_slot: usize, view: ViewPose, inputs: u64) {
        let slot = frame_slot % self.counters.len();
        let frame = self.frames;
        self.frames += 1;
        let mut counted = None;
        if let Some((then, epoch, then_frame)) = self.declared[slot].take() {
            if let Some(bytes) = self.counters[slot].mapped() {
                self.control = bytemuck::pod_read_unaligned(&bytes[..size_of::<Control>()]);
                self.stats = frame_stats(&self.control);
                if let Some(r) = self.raster_counters[slot].mapped() {
                    let r: RasterCounts =
                        bytemuck::pod_read_unaligned(&r[..size_of::<RasterCounts>()]);
                    self.stats.occluded = r.occluded;
                    self.stats.early = r.early;
                }
                counted = Some(self.control.fine_split_wishes);
                if epoch == self.epoch {
                    self.rested |= self.stats.quiet;
                    self.seen = Some(Seen {
                        // A morph in progress needs updates to advance: not still.
                        quiet: self.stats.quiet && self.stats.morphing == 0,
                        view: then,
                        frame: then_frame,
                    });
                }
            }
        }
        if let Some(n) = counted {
            self.gain.observe(n);
        }
        self.cbt.params.fine_detail_gain = self.gain.value();
        let inputs = (inputs, self.gain.value().to_bits());
        if self.inputs != Some((view, inputs)) {
            self.inputs = Some((view, inputs));
            self.inputs_since = frame;
        }
        self.cbt.prepare();
        if self.cbt.init_this_frame() {
            self.epoch += 1;
            self.seen = None;
            self.rested = false;
        }
        self.iterations = if still(self.seen.as_ref(), self.inputs_since) {
            0
        } else {
            iterations_to_record(self.seen.as_ref(), &view, &self.cbt.params)
        };
        self.declared[slot] = Some((view, self.epoch, frame));
        self.slot = slot;
    }

    /// The prepared frame's update (`iterations` recorded; none in a still frame, whose pool
    /// and draw list are the last frame's), after `stream.upload`, and `cbt.counters`, the copy
    /// of the control block the next [`GpuMesh::prepare`] of this slot reads.
    pub fn declare(&self, g: &mut Graph<'_>, surface: &SurfaceBindings) -> CbtHandles {
        let mut h = self.cbt.import(g);
        // A frame that starts with `cbt.init` has read nothing back, so it records all
        // iterations: `iterations` is 0 only in a still frame.
        if self.iterations > 0 {
            nodes::declare_update(
                g,
                &mut h,
                surface,
                CbtPush::new(&self.cbt.params, self.cbt.capacity, self.iterations)
                    .with_clock(self.clock)
                    .with_hidden_stamp(self.hidden_stamp()),
            );
        }
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

    /// What `cbt.decide` matches a leaf's stamp against: the last frame's stamp with the kinds
    /// `CbtParams::hidden_leaves` keeps (0: none, without stamps, in the first frame of a
    /// pool or when every leaf refines).
    fn hidden_stamp(&self) -> u32 {
        // `frames` counts the prepared frame: the last one is `frames - 2`.
        if !self.occlusion || self.frames < 2 || self.cbt.init_this_frame() {
            return 0;
        }
        let last = stamp(self.frames - 2);
        match self.cbt.params.hidden_leaves {
            HiddenLeaves::Refine => 0,
            HiddenLeaves::KeepCulled => last | HIDDEN_STAMP,
            HiddenLeaves::KeepUnseen => last | HIDDEN_STAMP | UNSEEN_STAMP,
        }
    }

    /// What the raster reads, with the occlusion stamps: the pool's corners and draw list (of
    /// `h`, this frame's handles from [`GpuMesh::declare`]) and the leaves' stamps (the pool's
    /// `seen`, zeroed by `cbt.init`), this frame's being one more than the last's.
    pub fn bindings(&self, h: &CbtHandles) -> MeshBindings {
        MeshBindings {
            occlusion: Some(OcclusionBindings {
                seen: h.seen,
                frame_stamp: stamp(self.frames.saturating_sub(1)),
            }),
            ..h.mesh()
        }
    }

    /// `raster.counters`: the raster's counts (the start of `big`, `publish::Published::big`)
    /// into this frame slot's host copy, read when the slot comes round.
    pub fn declare_raster_counters(&self, g: &mut Graph<'_>, big: framegraph::BufferRef) {
        let mut dst = g.import_buffer(&self.raster_counters[self.slot]);
        g.transfer("raster.counters").copy_buffer(
            big,
            &mut dst,
            0,
            0,
            size_of::<RasterCounts>() as u64,
        );
        g.custom("raster.counters.host")
            .read(dst, Access::HostRead)
            .side_effect()
            .declare_only();
    }

    pub fn destroy(self, ctx: &Context) {
        self.cbt.destroy(ctx);
        for c in self.counters.into_iter().chain(self.raster_counters) {
            c.destroy(ctx);
        }
    }
}

/// The occlusion stamp of frame `frame` (as counted by [`GpuMesh::prepare`]): ≥ 2, so a zeroed
/// stamp is never "the last frame's", and within [`STAMP_FRAME`] (clear of the kind bits).
fn stamp(frame: u64) -> u32 {
    ((frame as u32).wrapping_add(2) & STAMP_FRAME).max(2)
}

/// `n` host-readable buffers of `bytes` zeros, named `{name}{i}`.
fn zeroed_readbacks(
    ctx: &Context,
    name: &str,
    bytes: usize,
    n: usize,
) -> framegraph::Result<Vec<GpuBuffer>> {
    let zeros = vec![0u8; bytes];
    (0..n)
        .map(|i| {
            let mut b = GpuBuffer::new(
                ctx,
                &format!("{name}{i}"),
                BufferDesc::readback(bytes as u64),
            )?;
            b.write(0, &zeros)?;
            Ok(b)
        })
        .collect()
}
