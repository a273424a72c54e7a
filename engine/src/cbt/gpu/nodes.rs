//! The nodes of one CBT frame, in order (the host file reads like the pass list, docs/cbt.md §6):
//!
//! `cbt.frame.args`, then for each recorded iteration (1 to 4, [`super::mesh::GpuMesh`]
//! chooses) `cbt.eval` → `cbt.decide` → `cbt.resolve` → `cbt.reserve.reduce` → `cbt.reserve` →
//! `cbt.reserve.args` → `cbt.neighbours` → `cbt.commit` → `cbt.reduce`, then `cbt.finish` →
//! `cbt.finish.reduce` → `cbt.finish.compact`.
//!
//! Every sweep is an indirect dispatch whose arguments were written on the GPU from the control
//! block (whole 64-wide groups over the high-water mark; kernels guard their index). Each sum
//! tree is one dispatch whose last workgroup builds the top levels (`common/cbt_reduce.glsl`);
//! the last workgroup of `cbt.reduce` also ends the iteration (the next iteration's arguments,
//! all zero once an iteration neither splits nor merges, so a recorded iteration after a quiet
//! one dispatches nothing), and that of `cbt.finish.reduce` writes the indirect draw.

use super::buffers::CbtBuffers;
use super::layout::{CbtPush, CommitSweeps, Sweeps};
use crate::atlas::SurfaceBindings;
use crate::cbt::bisector::Control;
use framegraph::{BufferRef, Graph};
use std::mem::offset_of;

/// This frame's handles of the pool buffers (newest versions after the nodes declared so far).
pub type CbtHandles = CbtBuffers<BufferRef>;

impl CbtHandles {
    /// `VkDrawIndirectCommand` of the drawn leaves: `control` at this offset (3 vertices per
    /// leaf; the vertex shader reads `draw_list` and the pool's positions).
    pub const DRAW_ARGS_OFFSET: u64 = offset_of!(Control, draw) as u64;
}

/// The whole update of one frame: `iterations` (1..=4) recorded iterations and FINISH.
pub fn declare_update(g: &mut Graph<'_>, h: &mut CbtHandles, t: &SurfaceBindings, push: CbtPush) {
    frame_args(g, h, push);
    for it in 0..push.iterations {
        let p = push.at(it);
        eval(g, h, t, p);
        decide(g, h, t, p);
        topology(g, h, p);
    }
    finish(g, h, t, push.at(push.iterations.saturating_sub(1)));
}

/// `cbt.frame.args`.
pub fn frame_args(g: &mut Graph<'_>, h: &mut CbtHandles, p: CbtPush) {
    g.compute("cbt.frame.args", &shaders::CBT_FRAME_ARGS)
        .write("control", &mut h.control)
        .write("sweeps", &mut h.sweeps)
        .push(&p)
        .dispatch([1, 1, 1]);
}

/// `cbt.eval` over the live entries (all at iteration 0, dirty ones after).
pub fn eval(g: &mut Graph<'_>, h: &mut CbtHandles, t: &SurfaceBindings, p: CbtPush) {
    surface(g.compute("cbt.eval", &shaders::CBT_EVAL), t)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .write("memo_corners", &mut h.memo_corners)
        .write("memo_mids", &mut h.memo_mids)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::ENTRY);
}

/// `cbt.decide`.
pub fn decide(g: &mut Graph<'_>, h: &mut CbtHandles, t: &SurfaceBindings, p: CbtPush) {
    g.compute("cbt.decide", &shaders::CBT_DECIDE)
        .read("frame", t.frame)
        .read("seen", h.seen)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::ENTRY);
}

/// Everything after the wishes: RESOLVE → RESERVE (with the request tree) → NEIGHBOURS →
/// COMMIT → REDUCE (free tree, then the next iteration's arguments). Public so tests can drive the
/// topology with their own wishes, as the model's `run_topology`.
pub fn topology(g: &mut Graph<'_>, h: &mut CbtHandles, p: CbtPush) {
    reserve(g, h, p);
    commit(g, h, p);
}

/// RESOLVE → the request tree → RESERVE → `cbt.reserve.args` (the commit range's arguments).
pub fn reserve(g: &mut Graph<'_>, h: &mut CbtHandles, p: CbtPush) {
    g.compute("cbt.resolve", &shaders::CBT_RESOLVE)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .write("request_bits", &mut h.request_bits)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::ENTRY);
    g.compute("cbt.reserve.reduce", &shaders::CBT_RESERVE_REDUCE)
        .read("control", h.control)
        .read("bits", h.request_bits)
        .write("tree", &mut h.request_tree)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::REQUEST);
    g.compute("cbt.reserve", &shaders::CBT_RESERVE)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .read("request_bits", h.request_bits)
        .read("request_tree", h.request_tree)
        .read("free_bits", h.free_bits)
        .read("free_tree", h.free_tree)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::ENTRY);
    g.compute("cbt.reserve.args", &shaders::CBT_RESERVE_ARGS)
        .write("control", &mut h.control)
        .write("commit_sweeps", &mut h.commit_sweeps)
        .push(&p)
        .dispatch([1, 1, 1]);
}

/// NEIGHBOURS → COMMIT → the free tree, whose last workgroup writes the next iteration's
/// arguments.
pub fn commit(g: &mut Graph<'_>, h: &mut CbtHandles, p: CbtPush) {
    g.compute("cbt.neighbours", &shaders::CBT_NEIGHBOURS)
        .write("pool", &mut h.pool)
        .read("control", h.control)
        .push(&p)
        .dispatch_indirect(h.commit_sweeps, CommitSweeps::NEIGHBOURS);
    g.compute("cbt.commit", &shaders::CBT_COMMIT)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .write("free_bits", &mut h.free_bits)
        .write("request_bits", &mut h.request_bits)
        .write("draw_bits", &mut h.draw_bits)
        .write("seen", &mut h.seen)
        .push(&p)
        .dispatch_indirect(h.commit_sweeps, CommitSweeps::COMMIT);
    g.compute("cbt.reduce", &shaders::CBT_REDUCE)
        .write("control", &mut h.control)
        .write("sweeps", &mut h.sweeps)
        .read("bits", h.free_bits)
        .write("tree", &mut h.free_tree)
        .push(&p)
        .dispatch_indirect(h.commit_sweeps, CommitSweeps::FREE);
}

/// FINISH: evaluate what the last iteration changed, build the draw tree (its last workgroup
/// writes the indirect draw), then compact the drawn leaves into the draw list.
pub fn finish(g: &mut Graph<'_>, h: &mut CbtHandles, t: &SurfaceBindings, p: CbtPush) {
    surface(g.compute("cbt.finish", &shaders::CBT_FINISH), t)
        .write("pool", &mut h.pool)
        .write("control", &mut h.control)
        .write("memo_corners", &mut h.memo_corners)
        .write("memo_mids", &mut h.memo_mids)
        .write("draw_bits", &mut h.draw_bits)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::FINISH);
    g.compute("cbt.finish.reduce", &shaders::CBT_FINISH_REDUCE)
        .write("control", &mut h.control)
        .read("bits", h.draw_bits)
        .write("tree", &mut h.draw_tree)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::DRAW);
    g.compute("cbt.finish.compact", &shaders::CBT_FINISH_COMPACT)
        .read("draw_bits", h.draw_bits)
        .read("draw_tree", h.draw_tree)
        .write("draw_list", &mut h.draw_list)
        .push(&p)
        .dispatch_indirect(h.sweeps, Sweeps::FINISH);
}

/// Binds the surface (frame constants and tiles, bindings 16–19) to a node.
fn surface<'g, 'a>(
    n: framegraph::graph::ComputeNode<'g, 'a>,
    t: &SurfaceBindings,
) -> framegraph::graph::ComputeNode<'g, 'a> {
    n.read("frame", t.frame)
        .read("slots", t.slots)
        .read("tile_lookup", t.lookup)
        .read("tile_heights", t.heights)
}
