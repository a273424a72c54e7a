//! GPU-only data of the CBT update, mirrored by `shaders/common/cbt_buffers.glsl`: the dispatch
//! arguments of every indirect sweep ([`Sweeps`]) and the push constants of every `cbt.*` node
//! ([`CbtPush`]). The pool, control block and side arrays are the model's (`bisector.rs`).

use crate::cbt::bisector::DispatchArgs;
use crate::cbt::params::CbtParams;
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

/// Sum-tree build passes recorded at most (each reduces 6 levels: 2²⁴ leaves).
pub const REDUCE_PASSES: usize = 4;
/// Tree levels one 64-wide workgroup reduces in shared memory.
pub const REDUCE_SPAN: u32 = 6;

/// Indirect arguments of every sweep, written only by the one-thread `cbt.*args` kernels
/// (a sweep never reads its arguments from a buffer it writes, so the per-entry kernels, which
/// update the control block's counters, dispatch from here).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Sweeps {
    /// Per-entry sweeps over [0, high_water) (= `Control::entry_sweep`).
    pub entry: DispatchArgs,
    /// `cbt.commit` over [0, max(high_water, alloc_high)) (= `Control::commit_sweep` while the
    /// iteration runs; zero otherwise).
    pub commit: DispatchArgs,
    /// `cbt.reserve.reduce` passes: bit words of [0, high_water).
    pub request: [DispatchArgs; REDUCE_PASSES],
    /// `cbt.reduce` passes: bit words of the commit range (pass 0 = `Control::word_sweep`).
    pub free: [DispatchArgs; REDUCE_PASSES],
    /// `cbt.finish.reduce` passes: bit words of [0, high_water) at the end of the frame.
    pub draw: [DispatchArgs; REDUCE_PASSES],
    /// `cbt.finish` and `cbt.finish.compact` over [0, high_water).
    pub finish: DispatchArgs,
    pub pad: [u32; 3],
}

impl Sweeps {
    /// Byte offsets of the arguments, for `dispatch_indirect`.
    pub const ENTRY: u64 = offset_of!(Sweeps, entry) as u64;
    pub const COMMIT: u64 = offset_of!(Sweeps, commit) as u64;
    pub const FINISH: u64 = offset_of!(Sweeps, finish) as u64;
    pub fn request(pass: usize) -> u64 {
        Self::pass(offset_of!(Sweeps, request), pass)
    }
    pub fn free(pass: usize) -> u64 {
        Self::pass(offset_of!(Sweeps, free), pass)
    }
    pub fn draw(pass: usize) -> u64 {
        Self::pass(offset_of!(Sweeps, draw), pass)
    }
    /// Pass `pass` of the per-pass arguments at byte `array`.
    fn pass(array: usize, pass: usize) -> u64 {
        assert!(
            pass < REDUCE_PASSES,
            "reduce pass {pass} of {REDUCE_PASSES}"
        );
        (array + pass * size_of::<DispatchArgs>()) as u64
    }
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
    /// Iteration of this node (indexes `Control::stats`).
    pub iteration: u32,
    /// Iterations recorded this frame.
    pub iterations: u32,
    /// Sum-tree build pass.
    pub pass: u32,
    /// Leaves of every sum tree (a power of two ≥ capacity / 64).
    pub tree_leaves: u32,
    /// log2(tree_leaves).
    pub tree_levels: u32,
    pub capacity: u32,
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
            iteration: 0,
            iterations,
            pass: 0,
            tree_leaves: leaves as u32,
            tree_levels: leaves.trailing_zeros(),
            capacity,
        }
    }

    /// Sum-tree build passes a tree of this pool needs (≥ 1).
    pub fn reduce_passes(&self) -> usize {
        (self.tree_levels.div_ceil(REDUCE_SPAN) as usize).max(1)
    }

    pub fn at(self, iteration: u32, pass: u32) -> CbtPush {
        CbtPush {
            iteration,
            pass,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_glsl_mirror() {
        assert_eq!(size_of::<Sweeps>(), 192);
        assert_eq!(Sweeps::request(1) - Sweeps::request(0), 12);
        let src = include_str!("../../../../shaders/common/cbt_buffers.glsl");
        for (field, off) in [
            ("commit", Sweeps::COMMIT),
            ("request", Sweeps::request(0)),
            ("free", Sweeps::free(0)),
            ("draw", Sweeps::draw(0)),
            ("finish", Sweeps::FINISH),
        ] {
            let line = src
                .lines()
                .find(|l| l.contains(&format!(" {field}[")) && l.contains("// offset"));
            let line = line.unwrap_or_else(|| panic!("CbtSweeps.{field} missing"));
            assert!(
                line.contains(&format!("// offset {off} ")),
                "CbtSweeps.{field}: {line}"
            );
        }
        // The push block as the shaders declare it (reflection of one kernel).
        let r = shaders::CBT_EVAL.reflect().expect("reflects");
        assert_eq!(r.push_constant_size as usize, size_of::<CbtPush>());
    }

    #[test]
    fn tree_shape_and_passes() {
        let p = CbtPush::new(&CbtParams::default(), 1 << 22, 4);
        assert_eq!(
            (p.tree_leaves, p.tree_levels, p.reduce_passes()),
            (1 << 16, 16, 3)
        );
        let p = CbtPush::new(&CbtParams::default(), 64, 4);
        assert_eq!((p.tree_leaves, p.tree_levels, p.reduce_passes()), (1, 0, 1));
        let p = CbtPush::new(&CbtParams::default(), 4096, 4);
        assert_eq!(
            (p.tree_leaves, p.tree_levels, p.reduce_passes()),
            (64, 6, 1)
        );
    }
}
