//! The steps of `Executor::execute` that record and submit one frame: [`Recording`] (the
//! frame between set-up and hand-off), `reset_slot`, `record_batch` / `record_node`,
//! `submit_batch`, `Recording::carry_states` and `park`.
//!
//! Batches are recorded and submitted one after another in plan order. A batch waits only on
//! earlier batches, so their timeline values are known when it is submitted.

use super::record::{self, Physical};
use super::timing::CpuScope;
use super::{Executor, FrameSync, FRAME_QUERIES};
use crate::compile::{Batch, CompiledGraph};
use crate::context::Context;
use crate::error::{Error, Result, VkCheck};
use crate::graph::{Origin, RawResource, Work};
use crate::shader::Shader;
use ash::vk;
use std::collections::HashMap;

/// One frame being recorded: the compiled plan, the work taken out of it (each node's work is
/// consumed when recorded), the physical resources, and what has been submitted so far.
pub(super) struct Recording<'a> {
    pub g: CompiledGraph<'a>,
    works: Vec<Option<Work<'a>>>,
    phys: Physical,
    sync: FrameSync,
    slot: usize,
    frame: u64,
    /// CPU time of the frame's start, which GPU times are reported against.
    anchor_ns: i64,
    /// The universal batches that wait on the swapchain acquire and signal presentation.
    first_universal: Option<usize>,
    last_universal: Option<usize>,
    /// Timeline (semaphore, value) each submitted batch signals, by batch index.
    signals: Vec<(vk::Semaphore, u64)>,
    /// Whether node i wrote its timestamp pair (per-node mode, and its queue family has
    /// timestamps).
    timed: Vec<bool>,
    /// Whether nodes get a timestamp pair each (TimingMode::PerNode).
    per_node: bool,
    /// Whether the frame-span pair was written.
    span_timed: bool,
}

impl<'a> Recording<'a> {
    /// The compute shaders the frame's nodes will bind (their pipelines are built up front).
    pub(super) fn compute_shaders(&self) -> Vec<&'static Shader> {
        self.works
            .iter()
            .filter_map(|w| match w {
                Some(Work::Compute { shader, .. }) => Some(*shader),
                _ => None,
            })
            .collect()
    }

    pub fn new(
        ctx: &Context,
        mut g: CompiledGraph<'a>,
        raw: Vec<RawResource>,
        sync: FrameSync,
        slot: usize,
        frame: u64,
        per_node: bool,
    ) -> Self {
        let works = std::mem::take(&mut g.work).into_iter().map(Some).collect();
        let universal = |b: &Batch| b.family == ctx.universal.family;
        let first_universal = g.batches.iter().position(universal);
        let last_universal = g.batches.iter().rposition(universal);
        let signals = Vec::with_capacity(g.batches.len());
        let timed = vec![false; g.nodes.len()];
        Recording {
            g,
            works,
            phys: Physical { raw },
            sync,
            slot,
            frame,
            anchor_ns: puffin::now_ns(),
            first_universal,
            last_universal,
            signals,
            timed,
            per_node,
            span_timed: false,
        }
    }

    /// Write each imported resource's final state back to its shared state, where the next
    /// frame's compile reads it.
    pub fn carry_states(&self) {
        for (r, st) in &self.g.final_states {
            if let Origin::Imported { state, .. } = &self.g.resources[*r as usize].origin {
                *state.lock() = *st;
            }
        }
    }

    fn node_names(&self) -> Vec<String> {
        self.g.nodes.iter().map(|n| n.name.clone()).collect()
    }
}

/// A timestamp into `query` once everything recorded before it has finished (ALL_COMMANDS).
fn stamp(ctx: &Context, cmd: vk::CommandBuffer, pool: vk::QueryPool, query: u32) {
    unsafe {
        ctx.device
            .cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::ALL_COMMANDS, pool, query)
    };
}

fn timeline_info(sem: vk::Semaphore, value: u64) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(sem)
        .value(value)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
}

fn binary_info(sem: vk::Semaphore) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(sem)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
}

impl Executor {
    /// Reset the slot's command pools, and grow its timestamp query pool to `queries` before
    /// resetting it.
    pub(super) fn reset_slot(&mut self, ctx: &Context, slot: usize, queries: u32) -> Result<()> {
        let s = &mut self.slots[slot];
        for p in &mut s.pools {
            unsafe {
                ctx.device
                    .reset_command_pool(p.raw, vk::CommandPoolResetFlags::empty())
            }
            .vk("vkResetCommandPool")?;
            p.next = 0;
        }
        if s.query_capacity < queries {
            if s.queries != vk::QueryPool::null() {
                unsafe { ctx.device.destroy_query_pool(s.queries, None) };
            }
            let cap = queries.next_power_of_two().max(64);
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(cap);
            s.queries =
                unsafe { ctx.device.create_query_pool(&info, None) }.vk("vkCreateQueryPool")?;
            ctx.name_object(s.queries, &format!("timestamps.slot{slot}"));
            s.query_capacity = cap;
        }
        unsafe { ctx.device.reset_query_pool(s.queries, 0, s.query_capacity) };
        Ok(())
    }

    /// Record batch `bi` into a fresh command buffer of its queue family.
    pub(super) fn record_batch(
        &mut self,
        ctx: &Context,
        f: &mut Recording,
        bi: usize,
    ) -> Result<vk::CommandBuffer> {
        let family = f.g.batches[bi].family;
        let cmd = self.command_buffer(ctx, f.slot, family)?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        unsafe { ctx.device.begin_command_buffer(cmd, &begin) }.vk("vkBeginCommandBuffer")?;
        let timestamps = ctx.queue(family).timestamp_bits > 0;
        // The frame span: from the start of the first main-queue batch to the end of the last.
        // ALL_COMMANDS at the start waits for earlier submissions, so with frames in flight
        // the span starts where the previous frame's work ended, not while it still runs.
        let queries = self.slots[f.slot].queries;
        if timestamps && Some(bi) == f.first_universal {
            stamp(ctx, cmd, queries, 0);
        }
        for p in f.g.batches[bi].nodes.clone() {
            self.record_node(ctx, f, cmd, p, timestamps && f.per_node)?;
        }
        if timestamps && Some(bi) == f.last_universal {
            stamp(ctx, cmd, queries, 1);
            f.span_timed = true;
        }
        unsafe { ctx.device.end_command_buffer(cmd) }.vk("vkEndCommandBuffer")?;
        Ok(cmd)
    }

    /// Record node `p` inside its debug label and CPU scope: its barriers (acquires included),
    /// a timestamp (when `timestamps`), its commands, a timestamp, its ownership releases.
    fn record_node(
        &mut self,
        ctx: &Context,
        f: &mut Recording,
        cmd: vk::CommandBuffer,
        p: usize,
        timestamps: bool,
    ) -> Result<()> {
        let queries = self.slots[f.slot].queries;
        let node = &f.g.nodes[p];
        let _scope = CpuScope::begin(&mut self.scopes, &node.name);
        self.label_begin(ctx, cmd, &node.name);
        record::barriers(ctx, cmd, &f.g, &f.phys, &node.barriers);
        let q = FRAME_QUERIES + 2 * p as u32;
        if timestamps {
            stamp(ctx, cmd, queries, q);
        }
        let w = f.works[p].take().unwrap_or(Work::None);
        let rec = record::Rec {
            ctx,
            pipelines: &self.pipelines,
            cmd,
            g: &f.g,
            phys: &f.phys,
        };
        record::work(&rec, node, w)?;
        if timestamps {
            stamp(ctx, cmd, queries, q + 1);
            f.timed[p] = true;
        }
        record::barriers(ctx, cmd, &f.g, &f.phys, &node.releases);
        self.label_end(ctx, cmd);
        Ok(())
    }

    /// Submit batch `bi`: it waits on the timelines of the earlier batches it depends on (and
    /// on the swapchain acquire, if it is the first universal batch) and signals its queue's
    /// timeline (and presentation, if it is the last universal batch).
    pub(super) fn submit_batch(
        &mut self,
        ctx: &Context,
        f: &mut Recording,
        bi: usize,
        cmd: vk::CommandBuffer,
    ) -> Result<()> {
        let batch = &f.g.batches[bi];
        let mut waits: Vec<vk::SemaphoreSubmitInfo> = batch
            .waits
            .iter()
            .map(|&w| timeline_info(f.signals[w].0, f.signals[w].1))
            .collect();
        if Some(bi) == f.first_universal {
            waits.extend(f.sync.wait.map(binary_info));
        }
        let tl = self.timeline(batch.family);
        tl.2 += 1;
        let (sem, value) = (tl.1, tl.2);
        f.signals.push((sem, value));
        let mut signals = vec![timeline_info(sem, value)];
        if Some(bi) == f.last_universal {
            signals.extend(f.sync.signal.map(binary_info));
        }
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&cmds)
            .signal_semaphore_infos(&signals);
        let q = ctx.queue(batch.family);
        let r = {
            let _lock = q.lock.lock();
            unsafe {
                ctx.device
                    .queue_submit2(q.raw, &[submit], vk::Fence::null())
            }
        };
        match r {
            Ok(()) => Ok(()),
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.slots[f.slot].names = f.node_names();
                Err(self.device_lost(ctx, f.slot))
            }
            Err(e) => Err(Error::Vk {
                call: "vkQueueSubmit2",
                result: e,
            }),
        }
    }

    /// Leave the submitted frame in its slot: the last timeline value per semaphore (what
    /// `retire` waits for), node names and which nodes are timed (to read the queries), and
    /// the readback buffers.
    pub(super) fn park(&mut self, f: Recording) {
        let s = &mut self.slots[f.slot];
        let mut last: HashMap<vk::Semaphore, u64> = HashMap::new();
        for &(sem, v) in &f.signals {
            let e = last.entry(sem).or_insert(0);
            *e = (*e).max(v);
        }
        s.waits = last.into_iter().collect();
        s.names = f.node_names();
        s.readbacks =
            f.g.readbacks
                .iter()
                .map(|(n, id)| (n.clone(), f.phys.buffer(*id)))
                .collect();
        s.timed = f.timed;
        s.span_timed = f.span_timed;
        s.frame = f.frame;
        s.anchor_ns = f.anchor_ns;
        s.pending = true;
    }
}
