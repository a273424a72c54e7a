//! Inspection: the pool and its counters read back to the CPU, as the model's [`Pool`] (so the
//! validator and the model's tests run on what the GPU built) and [`FrameStats`].

use super::buffers::label;
use super::layout::{CommitSweeps, Sweeps};
use super::nodes::CbtHandles;
use crate::cbt::bisector::{Bisector, Control};
use crate::cbt::pool::Pool;
use crate::cbt::sumtree::SumTree;
use crate::cbt::update::FrameStats;
use framegraph::{FrameOutput, Graph};

/// What to read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readback {
    /// Control block and sweep arguments (a few hundred bytes): stats.
    Counters,
    /// Everything: the pool (one bisector per entry), bits, trees, draw list.
    Pool,
}

/// The buffers [`Readback::Counters`] reads back (binding names).
const COUNTERS: [&str; 3] = ["control", "sweeps", "commit_sweeps"];
/// Buffers no readback copies: `cbt.eval`'s memo (a cache, as large as the pool; a test that
/// inspects it reads it by name).
const NOT_READ: [&str; 2] = ["memo_corners", "memo_mids"];

/// Copy the pool (or only its counters) to host memory at the end of the frame.
pub fn declare_readback(g: &mut Graph<'_>, h: &CbtHandles, what: Readback) {
    declare_readback_as(g, h, what, "");
}

/// The same at this point of the frame (after the nodes declared so far), each buffer under
/// its label after `prefix`; tests read the pool between stages this way.
pub fn declare_readback_as(g: &mut Graph<'_>, h: &CbtHandles, what: Readback, prefix: &str) {
    let counters = h.iter().filter(|(name, _)| COUNTERS.contains(name));
    let arrays = h.iter().filter(|(name, _)| {
        what == Readback::Pool && !COUNTERS.contains(name) && !NOT_READ.contains(name)
    });
    for (name, &b) in counters.chain(arrays) {
        g.readback(&format!("{prefix}{}", label(name)), b);
    }
}

fn read<T: bytemuck::Pod>(out: &FrameOutput, name: &str) -> framegraph::Result<Vec<T>> {
    let bytes = out.readback(name)?;
    let size = std::mem::size_of::<T>();
    let mut v = vec![T::zeroed(); bytes.len() / size];
    let n = v.len() * size;
    bytemuck::cast_slice_mut::<T, u8>(&mut v).copy_from_slice(&bytes[..n]);
    Ok(v)
}

pub fn control(out: &FrameOutput) -> framegraph::Result<Control> {
    control_as(out, "")
}

pub fn control_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<Control> {
    Ok(read::<Control>(out, &format!("{prefix}{}", label("control")))?[0])
}

pub fn sweeps(out: &FrameOutput) -> framegraph::Result<Sweeps> {
    sweeps_as(out, "")
}

pub fn sweeps_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<Sweeps> {
    Ok(read::<Sweeps>(out, &format!("{prefix}{}", label("sweeps")))?[0])
}

pub fn commit_sweeps(out: &FrameOutput) -> framegraph::Result<CommitSweeps> {
    commit_sweeps_as(out, "")
}

pub fn commit_sweeps_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<CommitSweeps> {
    Ok(read::<CommitSweeps>(out, &format!("{prefix}{}", label("commit_sweeps")))?[0])
}

/// The whole pool as the model holds it (needs [`Readback::Pool`]).
pub fn pool(out: &FrameOutput) -> framegraph::Result<Pool> {
    pool_as(out, "")
}

pub fn pool_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<Pool> {
    let name = |buffer: &str| format!("{prefix}{}", label(buffer));
    let tree = |buffer: &str| -> framegraph::Result<SumTree> {
        let nodes: Vec<u32> = read(out, &name(buffer))?;
        Ok(SumTree {
            leaves: nodes.len() / 2,
            nodes,
        })
    };
    Ok(Pool {
        entries: read::<Bisector>(out, &name("pool"))?,
        free_bits: read(out, &name("free_bits"))?,
        free_tree: tree("free_tree")?,
        request_bits: read(out, &name("request_bits"))?,
        request_tree: tree("request_tree")?,
        draw_bits: read(out, &name("draw_bits"))?,
        draw_tree: tree("draw_tree")?,
        draw_list: read(out, &name("draw_list"))?,
        control: control_as(out, prefix)?,
    })
}

/// What the frame did, from its control block (as the model's `update_frame` reports it).
pub fn frame_stats(c: &Control) -> FrameStats {
    FrameStats::from_control(c)
}
