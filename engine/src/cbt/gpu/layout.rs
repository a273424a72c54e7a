//! GPU-only data of the CBT update, mirrored by `shaders/common/cbt_buffers.glsl`: the dispatch
//! arguments of every indirect sweep ([`Sweeps`]) and the push constants of every `cbt.*` node
//! ([`CbtPush`]). The pool, control block and side arrays are the model's (`bisector.rs`).

use crate::cbt::bisector::DispatchArgs;
use crate::cbt::params::CbtParams;
use bytemuck::{Pod, Zeroable};
use std::mem::offset_of;

/// Tree levels one 64-wide workgroup reduces in shared memory.
pub const REDUCE_SPAN: u32 = 6;

/// Indirect arguments of the sweeps that `cbt.frame.args` and the end of each iteration (the
/// last workgroup of `cbt.reduce`) write. A sweep never reads its arguments from a buffer it
/// writes, so the per-entry kernels, which update the control block's counters, dispatch from
/// here, and the COMMIT range's arguments are a buffer of their own ([`CommitSweeps`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Sweeps {
    /// Per-entry sweeps over [0, high_water) (= `Control::entry_sweep`).
    pub entry: DispatchArgs,
    /// `cbt.reserve.reduce`: one group per 64 bit words of [0, high_water).
    pub request: DispatchArgs,
    /// `cbt.finish` and `cbt.finish.compact` over [0, high_water).
    pub finish: DispatchArgs,
    /// `cbt.finish.reduce`: one group per 64 bit words of [0, high_water) at the end of the
    /// frame.
    pub draw: DispatchArgs,
}

/// Indirect arguments of the COMMIT range, written by `cbt.reserve.args` (zero when the
/// iteration does not run).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct CommitSweeps {
    /// `cbt.commit` over [0, max(high_water, alloc_high)) (= `Control::commit_sweep` while the
    /// iteration runs).
    pub commit: DispatchArgs,
    /// `cbt.reduce`: one group per 64 bit words of the commit range.
    pub free: DispatchArgs,
    /// `cbt.neighbours`: the entry sweep where the iteration splits or merges, nothing where it
    /// does neither (every next state would equal the current one; `cbt.commit` then only
    /// clears the iteration's scratch).
    pub neighbours: DispatchArgs,
}

impl Sweeps {
    /// Byte offsets of the arguments, for `dispatch_indirect`.
    pub const ENTRY: u64 = offset_of!(Sweeps, entry) as u64;
    pub const REQUEST: u64 = offset_of!(Sweeps, request) as u64;
    pub const FINISH: u64 = offset_of!(Sweeps, finish) as u64;
    pub const DRAW: u64 = offset_of!(Sweeps, draw) as u64;
}

impl CommitSweeps {
    pub const COMMIT: u64 = offset_of!(CommitSweeps, commit) as u64;
    pub const FREE: u64 = offset_of!(CommitSweeps, free) as u64;
    pub const NEIGHBOURS: u64 = offset_of!(CommitSweeps, neighbours) as u64;
}

/// Push constants of every `cbt.*` node: the criterion parameters as f32 and where in the
/// frame the node runs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CbtPush {
    pub residual_px: f32,
    pub edge_px_near: f32,
    pub edge_px_far: f32,
    pub edge_grow_start_m: f32,
    pub edge_grow_end_m: f32,
    pub merge_hysteresis: f32,
    pub grazing_tighten: f32,
    pub grazing_blend_start_m: f32,
    pub grazing_blend_end_m: f32,
    pub grazing_cos_start: f32,
    pub grazing_cos_full: f32,
    pub depth_cap_texel_fraction: f32,
    pub frustum_inflate: f32,
    pub horizon_cull: u32,
    pub fine_detail_level: u32,
    pub fine_detail_gain: f32,
    /// Iteration of this node (indexes `Control::stats`).
    pub iteration: u32,
    /// Iterations recorded this frame.
    pub iterations: u32,
    /// Leaves of every sum tree (a power of two ≥ capacity / 64).
    pub tree_leaves: u32,
    /// log2(tree_leaves).
    pub tree_levels: u32,
    pub capacity: u32,
    pub morph_updates: u32,
    pub split_min_px: f32,
    pub silhouette_cos: f32,
    pub outline_tighten: f32,
    pub outline_cos_full: f32,
    /// The surface clock of this frame's slot records ([`crate::atlas::SurfaceClock`]) …
    pub memo_now: u32,
    /// … and the clock before which a kept memo is stale (u32::MAX: the memo is off).
    pub memo_since: u32,
    /// The last frame's occlusion stamp with the kind bits ([`super::buffers::HIDDEN_STAMP`],
    /// [`super::buffers::UNSEEN_STAMP`]) whose leaves keep their level: a leaf stamped that
    /// frame with one of those kinds does not split (`cbt.decide`; 0: every leaf may).
    pub hidden_stamp: u32,
}

impl CbtPush {
    pub fn new(p: &CbtParams, capacity: u32, iterations: u32) -> CbtPush {
        let leaves = crate::cbt::bisector::tree_leaves(crate::cbt::bisector::bit_words(capacity));
        CbtPush {
            residual_px: p.residual_px as f32,
            edge_px_near: p.edge_px_near as f32,
            edge_px_far: p.edge_px_far as f32,
            edge_grow_start_m: p.edge_grow_start_m as f32,
            edge_grow_end_m: p.edge_grow_end_m as f32,
            merge_hysteresis: p.merge_hysteresis as f32,
            grazing_tighten: p.grazing_tighten as f32,
            grazing_blend_start_m: p.grazing_blend_start_m as f32,
            grazing_blend_end_m: p.grazing_blend_end_m as f32,
            grazing_cos_start: p.grazing_cos_start as f32,
            grazing_cos_full: p.grazing_cos_full as f32,
            depth_cap_texel_fraction: p.depth_cap_texel_fraction as f32,
            frustum_inflate: p.frustum_inflate as f32,
            horizon_cull: p.horizon_cull as u32,
            fine_detail_level: p.fine_detail_level as u32,
            fine_detail_gain: p.fine_detail_gain as f32,
            iteration: 0,
            iterations,
            tree_leaves: leaves as u32,
            tree_levels: leaves.trailing_zeros(),
            capacity,
            morph_updates: p.morph_updates,
            split_min_px: p.split_min_px as f32,
            silhouette_cos: p.silhouette_cos as f32,
            outline_tighten: p.outline_tighten as f32,
            outline_cos_full: p.outline_cos_full as f32,
            memo_now: 0,
            memo_since: if p.surface_memo { 0 } else { u32::MAX },
            hidden_stamp: 0,
        }
    }

    /// The same push constants with the surface clock of the frame's slot records (the memo
    /// stays off where the parameters said so).
    pub fn with_clock(self, clock: crate::atlas::SurfaceClock) -> CbtPush {
        CbtPush {
            memo_now: clock.now,
            memo_since: self.memo_since.max(clock.since),
            ..self
        }
    }

    /// The same push constants with the stamp of a leaf hidden in the last frame (0: none).
    pub fn with_hidden_stamp(self, hidden_stamp: u32) -> CbtPush {
        CbtPush {
            hidden_stamp,
            ..self
        }
    }

    /// The same push constants for a node of iteration `iteration`.
    pub fn at(self, iteration: u32) -> CbtPush {
        CbtPush { iteration, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn sizes_match_the_glsl_mirror() {
        assert_eq!((size_of::<Sweeps>(), size_of::<CommitSweeps>()), (48, 36));
        let src = include_str!("../../../../shaders/common/cbt_buffers.glsl");
        for (strukt, field, off) in [
            ("CbtSweeps", "entry", Sweeps::ENTRY),
            ("CbtSweeps", "request", Sweeps::REQUEST),
            ("CbtSweeps", "finish", Sweeps::FINISH),
            ("CbtSweeps", "draw", Sweeps::DRAW),
            ("CbtCommitSweeps", "commit", CommitSweeps::COMMIT),
            ("CbtCommitSweeps", "free", CommitSweeps::FREE),
            ("CbtCommitSweeps", "neighbours", CommitSweeps::NEIGHBOURS),
        ] {
            let body = src
                .split(&format!("struct {strukt} {{"))
                .nth(1)
                .and_then(|r| r.split("};").next())
                .unwrap_or_else(|| panic!("struct {strukt} missing"));
            let line = body
                .lines()
                .find(|l| l.contains(&format!(" {field}[3];")))
                .unwrap_or_else(|| panic!("{strukt}.{field} missing"));
            assert!(
                line.contains(&format!("// offset {off} ")),
                "{strukt}.{field}: {line}"
            );
        }
        // The push block as the shaders declare it (reflection of one kernel).
        let r = shaders::CBT_EVAL.reflect().expect("reflects");
        assert_eq!(r.push_constant_size as usize, size_of::<CbtPush>());
    }

    #[test]
    fn tree_shape() {
        let p = CbtPush::new(&CbtParams::default(), 1 << 22, 4);
        assert_eq!((p.tree_leaves, p.tree_levels), (1 << 16, 16));
        let p = CbtPush::new(&CbtParams::default(), 64, 4);
        assert_eq!((p.tree_leaves, p.tree_levels), (1, 0));
        let p = CbtPush::new(&CbtParams::default(), 4096, 4);
        assert_eq!((p.tree_leaves, p.tree_levels), (64, 6));
    }
}
