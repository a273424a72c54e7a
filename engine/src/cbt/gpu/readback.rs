//! Inspection: the pool and its counters read back to the CPU, as the model's [`Pool`] (so the
//! validator and the model's tests run on what the GPU built) and [`FrameStats`].

use super::layout::Sweeps;
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
    /// Everything: the pool (160 bytes per entry), bits, trees, draw list.
    Pool,
}

/// Names of the readbacks in the frame's output (after a prefix, "" for the end of the frame).
pub const CONTROL: &str = "cbt.control";
pub const SWEEPS: &str = "cbt.sweeps";
const ARRAYS: [&str; 8] = [
    "cbt.pool",
    "cbt.free_bits",
    "cbt.free_tree",
    "cbt.request_bits",
    "cbt.request_tree",
    "cbt.draw_bits",
    "cbt.draw_tree",
    "cbt.draw_list",
];

/// Copy the pool (or only its counters) to host memory at the end of the frame.
pub fn declare_readback(g: &mut Graph<'_>, h: &CbtHandles, what: Readback) {
    declare_readback_as(g, h, what, "");
}

/// The same at this point of the frame (after the nodes declared so far), under names
/// starting with `prefix`; tests read the pool between stages this way.
pub fn declare_readback_as(g: &mut Graph<'_>, h: &CbtHandles, what: Readback, prefix: &str) {
    g.readback(&format!("{prefix}{CONTROL}"), h.control);
    g.readback(&format!("{prefix}{SWEEPS}"), h.sweeps);
    if what == Readback::Pool {
        let bufs = [
            h.pool,
            h.free_bits,
            h.free_tree,
            h.request_bits,
            h.request_tree,
            h.draw_bits,
            h.draw_tree,
            h.draw_list,
        ];
        for (name, b) in ARRAYS.iter().zip(bufs) {
            g.readback(&format!("{prefix}{name}"), b);
        }
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
    Ok(read::<Control>(out, &format!("{prefix}{CONTROL}"))?[0])
}

pub fn sweeps(out: &FrameOutput) -> framegraph::Result<Sweeps> {
    sweeps_as(out, "")
}

pub fn sweeps_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<Sweeps> {
    Ok(read::<Sweeps>(out, &format!("{prefix}{SWEEPS}"))?[0])
}

/// The whole pool as the model holds it (needs [`Readback::Pool`]).
pub fn pool(out: &FrameOutput) -> framegraph::Result<Pool> {
    pool_as(out, "")
}

pub fn pool_as(out: &FrameOutput, prefix: &str) -> framegraph::Result<Pool> {
    let name = |k: usize| format!("{prefix}{}", ARRAYS[k]);
    let tree = |k: usize| -> framegraph::Result<SumTree> {
        let nodes: Vec<u32> = read(out, &name(k))?;
        Ok(SumTree {
            leaves: nodes.len() / 2,
            nodes,
        })
    };
    Ok(Pool {
        entries: read::<Bisector>(out, &name(0))?,
        free_bits: read(out, &name(1))?,
        free_tree: tree(2)?,
        request_bits: read(out, &name(3))?,
        request_tree: tree(4)?,
        draw_bits: read(out, &name(5))?,
        draw_tree: tree(6)?,
        draw_list: read(out, &name(7))?,
        control: control_as(out, prefix)?,
    })
}

/// What the frame did, from its control block (as the model's `update_frame` reports it).
pub fn frame_stats(c: &Control) -> FrameStats {
    FrameStats::from_control(c)
}
