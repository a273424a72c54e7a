//! Execution: records a compiled graph batch by batch — every node inside a debug-utils label
//! and a puffin CPU scope, a pair of GPU timestamps around the frame on the main queue and, in
//! [`TimingMode::PerNode`], around every node — submits batches with timeline-semaphore waits
//! between queues, and collects readbacks, the frame span and node times when a frame finishes.
//!
//! Holds [`Executor`] (frame slots, timelines, the pipeline cache, `retire`), [`FrameSync`]
//! and [`FrameOutput`]. The steps of `Executor::execute` are in `submit.rs`, node recording in
//! `record.rs`, transients in `transient.rs`, timing in `timing.rs`.

mod record;
mod submit;
pub mod timing;
mod transient;

use crate::compile::CompiledGraph;
use crate::context::Context;
use crate::dump::family_color;
use crate::error::{Error, Result, VkCheck};
use crate::pipeline::Pipelines;
use crate::shader::Shader;
use ash::vk;
use std::collections::HashMap;
use std::ffi::CString;
use submit::Recording;
use timing::{crash_marker, node_times, report_gpu, span_ms, NodeTime, ScopeIds, TimingMode};
use transient::Transients;

/// Semaphores tying a frame to a swapchain.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameSync {
    /// Binary semaphore the first universal batch waits on (image acquired).
    pub wait: Option<vk::Semaphore>,
    /// Binary semaphore the last universal batch signals (ready to present).
    pub signal: Option<vk::Semaphore>,
}

/// What a finished frame gives back.
#[derive(Debug, Default)]
pub struct FrameOutput {
    pub frame: u64,
    /// GPU time of every node that wrote timestamps, in execution order (empty in
    /// [`TimingMode::Frame`]).
    pub times: Vec<NodeTime>,
    /// GPU ms from the start of the frame's first command buffer on the main queue to the end
    /// of its last (None: that queue has no timestamps). The start timestamp is taken at
    /// ALL_COMMANDS, so it waits for the work submitted before it: with frames in flight,
    /// consecutive spans do not overlap and add up to the time the queue was busy.
    pub span_ms: Option<f64>,
    pub readbacks: HashMap<String, Vec<u8>>,
}

impl FrameOutput {
    pub fn readback(&self, name: &str) -> Result<&[u8]> {
        self.readbacks
            .get(name)
            .map(|v| v.as_slice())
            .ok_or_else(|| Error::NoReadback(name.into()))
    }
    pub fn time_ms(&self, node: &str) -> Option<f64> {
        self.times
            .iter()
            .filter(|t| t.name == node)
            .map(|t| t.duration_ms)
            .reduce(|a, b| a + b)
    }
    pub fn total_ms(&self) -> f64 {
        self.times.iter().map(|t| t.duration_ms).sum()
    }
}

struct Pool {
    family: u32,
    raw: vk::CommandPool,
    buffers: Vec<vk::CommandBuffer>,
    next: usize,
}

#[derive(Default)]
struct Slot {
    pools: Vec<Pool>,
    queries: vk::QueryPool,
    query_capacity: u32,
    /// Queries the frame in flight wrote: the span pair, and the node pairs in per-node mode.
    queries_used: u32,
    /// Timeline values to wait for before reusing this slot.
    waits: Vec<(vk::Semaphore, u64)>,
    transients: Transients,
    /// Node names of the frame in flight (query pair i belongs to node i).
    names: Vec<String>,
    /// Whether node i wrote timestamps (per-node mode, and its queue family has them).
    timed: Vec<bool>,
    /// Whether the frame-span pair (queries 0 and 1) was written.
    span_timed: bool,
    readbacks: Vec<(String, vk::Buffer)>,
    frame: u64,
    anchor_ns: i64,
    pending: bool,
}

impl Slot {
    /// (value, availability) of the frame's timestamp pairs, without waiting; None when the
    /// frame recorded no node or the results cannot be read (a lost device may refuse).
    fn query_results(&self, ctx: &Context) -> Option<Vec<[u64; 2]>> {
        if self.names.is_empty() || self.queries == vk::QueryPool::null() {
            return None;
        }
        let mut data = vec![[0u64; 2]; self.queries_used as usize];
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        let r = unsafe {
            ctx.device
                .get_query_pool_results(self.queries, 0, &mut data, flags)
        };
        (r.is_ok() || r == Err(vk::Result::NOT_READY)).then_some(data)
    }
}

/// Host ms of the last [`Executor::execute`], by step.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecuteTimes {
    /// Retiring the slot's previous frame (when `begin_frame` has not), resetting its pools
    /// and queries, realizing the transients, building missing pipelines.
    pub setup_ms: f64,
    /// Recording every batch's commands.
    pub record_ms: f64,
    /// `vkQueueSubmit2` of every batch.
    pub submit_ms: f64,
}

pub struct Executor {
    slots: Vec<Slot>,
    frame: u64,
    timelines: Vec<(u32, vk::Semaphore, u64)>,
    pub pipelines: std::sync::Arc<Pipelines>,
    /// Pipelines being built on threads of their own ([`Executor::prebuild_in_background`]).
    background: Option<Background>,
    scopes: ScopeIds,
    timing: TimingMode,
    /// The last `execute`'s host times.
    pub last_times: ExecuteTimes,
}

/// Queries 0 and 1 of a slot's pool hold the frame span; node i's pair follows at
/// `FRAME_QUERIES + 2 i`.
const FRAME_QUERIES: u32 = 2;

const WAIT_TIMEOUT_NS: u64 = 10_000_000_000;
/// Give up on a frame after this many timeouts (10 minutes): treated as a lost device.
const MAX_WAITS: u64 = 60;
/// The same on a CPU device (30 minutes): llvmpipe compiles a pipeline's shader when it is
/// first dispatched, inside the queue, so the first frame to bind a large shader waits for its
/// compile. The resolve's search variant takes minutes on two cores; beside other work on
/// them it has passed 10 minutes, and the frame was reported lost.
const MAX_WAITS_CPU: u64 = 180;

/// Timeouts of `WAIT_TIMEOUT_NS` a frame may take on `ctx`'s device before it is lost.
fn max_waits(ctx: &Context) -> u64 {
    if ctx.info.kind == vk::PhysicalDeviceType::CPU {
        MAX_WAITS_CPU
    } else {
        MAX_WAITS
    }
}

/// [`Executor::prebuild_in_background`]'s list and threads.
struct Background {
    job: std::sync::Arc<crate::pipeline::Prebuild>,
    handles: Vec<std::thread::JoinHandle<Result<()>>>,
    started: std::time::Instant,
}

impl Drop for Executor {
    /// The thread building pipelines uses the device: it must end before the context can go,
    /// also on paths that leave without [`Executor::destroy`].
    fn drop(&mut self) {
        self.join_background(true);
    }
}

impl Executor {
    pub fn new(ctx: &Context, frames_in_flight: usize) -> Result<Executor> {
        let mut families = vec![ctx.universal.family];
        if let Some(t) = &ctx.transfer {
            families.push(t.family);
        }
        let mut timelines = Vec::new();
        for &f in &families {
            let mut ti = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            let info = vk::SemaphoreCreateInfo::default().push_next(&mut ti);
            let s = unsafe { ctx.device.create_semaphore(&info, None) }.vk("vkCreateSemaphore")?;
            ctx.name_object(s, &format!("timeline.family{f}"));
            timelines.push((f, s, 0));
        }
        let mut slots = Vec::new();
        for i in 0..frames_in_flight.max(1) {
            let mut slot = Slot::default();
            for &f in &families {
                let info = vk::CommandPoolCreateInfo::default()
                    .queue_family_index(f)
                    .flags(vk::CommandPoolCreateFlags::TRANSIENT);
                let raw = unsafe { ctx.device.create_command_pool(&info, None) }
                    .vk("vkCreateCommandPool")?;
                ctx.name_object(raw, &format!("frame{i}.family{f}"));
                slot.pools.push(Pool {
                    family: f,
                    raw,
                    buffers: Vec::new(),
                    next: 0,
                });
            }
            slots.push(slot);
        }
        Ok(Executor {
            slots,
            frame: 0,
            timelines,
            pipelines: Default::default(),
            background: None,
            scopes: ScopeIds::default(),
            timing: TimingMode::default(),
            last_times: ExecuteTimes::default(),
        })
    }

    /// Start building the compute pipelines of `shaders` on threads of their own, one fewer
    /// than the cores, so that they are ready, or nearly, when the first frame that binds them
    /// is recorded: a cold start builds a few dozen, which is a second or more on a CPU device,
    /// while its host work (loading data, the first tiles) keeps about one core busy. The next
    /// [`Executor::execute`] takes part in what is left of the list and then waits for the
    /// threads; a failure there is only logged, since its own build of whatever is still
    /// missing meets the same error and returns it.
    pub fn prebuild_in_background(&mut self, ctx: &Context, shaders: Vec<&'static Shader>) {
        self.join_background(false);
        let job = std::sync::Arc::new(crate::pipeline::Prebuild::new(
            &self.pipelines,
            crate::pipeline::Builder::of(ctx),
            &shaders,
        ));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = cores.saturating_sub(1).max(1).min(job.len());
        let started = std::time::Instant::now();
        let mut handles = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (job, pipelines) = (job.clone(), self.pipelines.clone());
            let spawned = std::thread::Builder::new()
                .name("pipelines".into())
                .spawn(move || job.work(&pipelines));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    log::warn!("no thread for the pipelines ({e}): the first frame builds them")
                }
            }
        }
        self.background = Some(Background {
            job,
            handles,
            started,
        });
    }

    /// Take part in [`Executor::prebuild_in_background`]'s list, if one is being built, then
    /// wait for its threads; with `cancel`, build nothing more and only wait.
    fn join_background(&mut self, cancel: bool) {
        let Some(b) = self.background.take() else {
            return;
        };
        if cancel {
            b.job.cancel();
        }
        let mut failed = b.job.work(&self.pipelines).err();
        for h in b.handles {
            match h.join() {
                Ok(r) => failed = failed.or(r.err()),
                Err(_) => log::warn!("a thread building pipelines panicked"),
            }
        }
        match failed {
            Some(e) => log::warn!("building pipelines in the background: {e}"),
            None => log::info!(
                "built {} compute pipelines, started in the background, in {:.2} s",
                b.job.len(),
                b.started.elapsed().as_secs_f64()
            ),
        }
    }

    /// The timestamps the next frames write (per node by default).
    pub fn set_timing(&mut self, mode: TimingMode) {
        self.timing = mode;
    }

    pub fn timing(&self) -> TimingMode {
        self.timing
    }

    /// Frames executed so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    fn timeline(&mut self, family: u32) -> &mut (u32, vk::Semaphore, u64) {
        let i = self
            .timelines
            .iter()
            .position(|t| t.0 == family)
            .unwrap_or(0);
        &mut self.timelines[i]
    }

    /// Wait until a slot's previous frame has finished; collect its results.
    fn retire(&mut self, ctx: &Context, slot: usize) -> Result<Option<FrameOutput>> {
        let s = &mut self.slots[slot];
        if !s.pending {
            return Ok(None);
        }
        if !s.waits.is_empty() {
            let sems: Vec<vk::Semaphore> = s.waits.iter().map(|w| w.0).collect();
            let vals: Vec<u64> = s.waits.iter().map(|w| w.1).collect();
            let info = vk::SemaphoreWaitInfo::default()
                .semaphores(&sems)
                .values(&vals);
            // A slow device (lavapipe under validation) may take long; only a lost device or a
            // frame that never finishes is an error.
            let mut waited = 0;
            let most = max_waits(ctx);
            loop {
                match unsafe { ctx.device.wait_semaphores(&info, WAIT_TIMEOUT_NS) } {
                    Ok(()) => break,
                    Err(vk::Result::TIMEOUT) if waited < most => {
                        waited += 1;
                        log::warn!(
                            "GPU frame {} still running after {} s",
                            s.frame,
                            waited * WAIT_TIMEOUT_NS / 1_000_000_000
                        );
                    }
                    Err(vk::Result::ERROR_DEVICE_LOST) | Err(vk::Result::TIMEOUT) => {
                        return Err(self.device_lost(ctx, slot))
                    }
                    Err(e) => {
                        return Err(Error::Vk {
                            call: "vkWaitSemaphores",
                            result: e,
                        })
                    }
                }
            }
        }
        let s = &mut self.slots[slot];
        s.pending = false;
        let n = s.names.len();
        let data = s.query_results(ctx);
        let mut ticks: Vec<Option<(u64, u64)>> = vec![None; n];
        let (period, bits) = (ctx.info.timestamp_period, ctx.universal.timestamp_bits);
        let mut span = None;
        if let Some(data) = data {
            let (b, e) = (data[0], data[1]);
            if s.span_timed && b[1] != 0 && e[1] != 0 {
                span = Some(span_ms(b[0], e[0], period, bits));
            }
            let node = &data[FRAME_QUERIES as usize..];
            for i in (0..n).filter(|&i| s.timed[i] && 2 * i + 1 < node.len()) {
                let (b, e) = (node[2 * i], node[2 * i + 1]);
                if b[1] != 0 && e[1] != 0 {
                    ticks[i] = Some((b[0], e[0]));
                }
            }
        }
        let times = node_times(&s.names, &ticks, period, bits);
        let mut readbacks = HashMap::new();
        for (name, buf) in &s.readbacks {
            if let Some(bytes) = s.transients.mapped(*buf) {
                readbacks.insert(name.clone(), bytes.to_vec());
            }
        }
        let (frame, anchor) = (s.frame, s.anchor_ns);
        report_gpu(&mut self.scopes, &times, anchor, frame);
        Ok(Some(FrameOutput {
            frame,
            times,
            span_ms: span,
            readbacks,
        }))
    }

    fn device_lost(&self, ctx: &Context, slot: usize) -> Error {
        let s = &self.slots[slot];
        let n = s.names.len();
        let mut began = vec![false; n];
        let mut ended = vec![false; n];
        // Only per-node frames can name the node: in frame mode no node reports having begun.
        if let Some(data) = s.query_results(ctx) {
            let node = &data[FRAME_QUERIES as usize..];
            // A submit that failed leaves the previous frame's `timed`: stay inside the pool.
            let timed = |i: usize| s.timed.get(i) == Some(&true) && 2 * i + 1 < node.len();
            for i in (0..n).filter(|&i| timed(i)) {
                began[i] = node[2 * i][1] != 0;
                ended[i] = node[2 * i + 1][1] != 0;
            }
        }
        let (node, last_completed) = crash_marker(&s.names, &began, &ended);
        Error::DeviceLost {
            node,
            frame: s.frame,
            last_completed,
        }
    }

    /// Wait until the frame slot the next `execute` will use is free, so per-frame host
    /// resources (staging, constants) indexed by the returned slot can be rewritten. Returns
    /// the slot and the output of the frame that used it last, if not yet collected.
    pub fn begin_frame(&mut self, ctx: &Context) -> Result<(usize, Option<FrameOutput>)> {
        let slot = (self.frame % self.slots.len() as u64) as usize;
        Ok((slot, self.retire(ctx, slot)?))
    }

    /// Frames that may be in flight at once (the number of slots).
    pub fn frames_in_flight(&self) -> usize {
        self.slots.len()
    }

    /// Record and submit a frame. Returns the output of the frame that previously used this
    /// slot (frames in flight ago), if any (None if `begin_frame` already collected it).
    pub fn execute(
        &mut self,
        ctx: &Context,
        g: CompiledGraph,
        sync: FrameSync,
    ) -> Result<Option<FrameOutput>> {
        puffin::profile_function!();
        let started = std::time::Instant::now();
        let slot = (self.frame % self.slots.len() as u64) as usize;
        // 1. Retire the slot's previous frame: its pools, queries and transients are reused.
        let retired = self.retire(ctx, slot)?;
        let frame = self.frame;
        self.frame += 1;
        // 2. Reset the slot's command pools and timestamp queries (the frame's pair, and two
        //    per node when timing nodes).
        let per_node = self.timing == TimingMode::PerNode;
        let queries = FRAME_QUERIES
            + if per_node {
                2 * g.nodes.len() as u32
            } else {
                0
            };
        self.reset_slot(ctx, slot, queries)?;
        self.slots[slot].queries_used = queries;
        // 3. Realize the transients: objects for the plan's resources, aliased as planned.
        let raw = self.slots[slot].transients.realize(ctx, &g)?;
        let mut f = Recording::new(ctx, g, raw, sync, slot, frame, per_node);
        // Pipelines the nodes will bind, built together up front (a first frame needs dozens).
        let shaders = f.compute_shaders();
        self.join_background(false);
        if !shaders.is_empty() {
            let t = std::time::Instant::now();
            let before = self.pipelines.len();
            self.pipelines.prebuild_compute(ctx, &shaders)?;
            let built = self.pipelines.len() - before;
            if built > 0 {
                log::info!(
                    "built {built} compute pipelines in {:.2} s",
                    t.elapsed().as_secs_f64()
                );
            }
        }
        let mut lap = std::time::Instant::now();
        let mut times = ExecuteTimes {
            setup_ms: (lap - started).as_secs_f64() * 1e3,
            ..ExecuteTimes::default()
        };
        let since = |lap: &mut std::time::Instant| {
            let now = std::time::Instant::now();
            let ms = (now - *lap).as_secs_f64() * 1e3;
            *lap = now;
            ms
        };
        for batch in 0..f.g.batches.len() {
            // 4. Record the batch's nodes; 5. submit it at once, so that the batches it
            //    waits for (always earlier ones) already have their timeline values.
            let cmd = self.record_batch(ctx, &mut f, batch)?;
            times.record_ms += since(&mut lap);
            self.submit_batch(ctx, &mut f, batch, cmd)?;
            times.submit_ms += since(&mut lap);
        }
        self.last_times = times;
        // 6. Imported resources start the next frame in the state this one leaves them in.
        f.carry_states();
        // 7. Keep what `retire` needs to wait for this frame and collect its results.
        self.park(f);
        Ok(retired)
    }

    /// Execute and wait: the headless path (tests, render, bench).
    pub fn run(&mut self, ctx: &Context, g: CompiledGraph) -> Result<FrameOutput> {
        self.execute(ctx, g, FrameSync::default())?;
        let slot = ((self.frame - 1) % self.slots.len() as u64) as usize;
        Ok(self.retire(ctx, slot)?.unwrap_or_default())
    }

    /// Wait for every frame in flight; returns their outputs (oldest first).
    pub fn drain(&mut self, ctx: &Context) -> Result<Vec<FrameOutput>> {
        let mut out = Vec::new();
        let n = self.slots.len() as u64;
        for k in 0..n {
            let slot = ((self.frame + k) % n) as usize;
            if let Some(o) = self.retire(ctx, slot)? {
                out.push(o);
            }
        }
        out.sort_by_key(|o| o.frame);
        Ok(out)
    }

    fn command_buffer(
        &mut self,
        ctx: &Context,
        slot: usize,
        family: u32,
    ) -> Result<vk::CommandBuffer> {
        let s = &mut self.slots[slot];
        let pool = s
            .pools
            .iter_mut()
            .find(|p| p.family == family)
            .ok_or(Error::Vk {
                call: "command pool",
                result: vk::Result::ERROR_UNKNOWN,
            })?;
        if pool.next == pool.buffers.len() {
            let info = vk::CommandBufferAllocateInfo::default()
                .command_pool(pool.raw)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let b = unsafe { ctx.device.allocate_command_buffers(&info) }
                .vk("vkAllocateCommandBuffers")?[0];
            pool.buffers.push(b);
        }
        pool.next += 1;
        Ok(pool.buffers[pool.next - 1])
    }

    fn label_begin(&self, ctx: &Context, cmd: vk::CommandBuffer, name: &str) {
        if let Some(du) = &ctx.debug_utils {
            let c = CString::new(name).unwrap_or_default();
            let label = vk::DebugUtilsLabelEXT::default()
                .label_name(&c)
                .color(family_color(name));
            unsafe { du.cmd_begin_debug_utils_label(cmd, &label) };
        }
    }

    fn label_end(&self, ctx: &Context, cmd: vk::CommandBuffer) {
        if let Some(du) = &ctx.debug_utils {
            unsafe { du.cmd_end_debug_utils_label(cmd) };
        }
    }

    /// Wait for all work and free everything the executor owns.
    pub fn destroy(&mut self, ctx: &Context) {
        self.join_background(true);
        let _ = self.drain(ctx);
        ctx.wait_idle();
        for s in &mut self.slots {
            s.transients.destroy(ctx);
            for p in s.pools.drain(..) {
                unsafe { ctx.device.destroy_command_pool(p.raw, None) };
            }
            if s.queries != vk::QueryPool::null() {
                unsafe { ctx.device.destroy_query_pool(s.queries, None) };
                s.queries = vk::QueryPool::null();
            }
        }
        for (_, s, _) in self.timelines.drain(..) {
            unsafe { ctx.device.destroy_semaphore(s, None) };
        }
        self.pipelines.destroy(ctx);
    }
}
