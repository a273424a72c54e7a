//! `cbt.decide`: each leaf's wish, and the push of a split wish down the twin chain.
//!
//! Reads: own positions, r_hyp, r_leg, flags, depth, path, neighbours, births; the sibling's path,
//! positions, r_hyp (to measure the would-be parent); twins' depth and neighbours[2] along the
//! chain. Writes: own wish. Atomics: `pushed |= 1` on each coarser twin along the chain and on
//! the same-depth twin that ends it; stats.split_wishes / merge_wishes.

use super::super::bisector::{
    Bisector, FLAG_CAPPED, FLAG_CULLED, FLAG_OFFSCREEN, INVALID, WISH_KEEP, WISH_MERGE, WISH_SPLIT,
};
use super::super::criterion::{
    horizon_culled, offscreen, residual_px, under_merge_targets, wants_split, View,
};
use super::super::leb::{self, BASE_DEPTH};
use super::super::pool::Pool;
use super::positions;

/// Whether the parent of the pair (even, odd) should exist instead of them: it is hidden
/// (culled or offscreen, judged on its own corners) or measures under the hysteresis targets.
/// Computed from the children's stored values exactly as the parent would compute it.
pub fn parent_wants_merge(even: &Bisector, odd: &Bisector, view: &View) -> bool {
    let (pe, po) = (positions(even), positions(odd));
    // Parent [v0, v1, v2] = [even.v2, even.v0, odd.v0]; its hypotenuse midpoint is the apex.
    let p = [pe[2], pe[0], po[0]];
    let r_hyp = residual_px(pe[1], p[0], p[2], view);
    let r_leg = (even.r_hyp as f64).max(odd.r_hyp as f64);
    let hidden = (view.params.horizon_cull && horizon_culled(&p, view)) || offscreen(&p, view);
    hidden || under_merge_targets(&p, r_hyp, r_leg, view)
}

/// The sibling's pool index when it is a leaf (the even child's sibling lies across its edge
/// v0v1 → slot 0; the odd child's across v1v2 → slot 1).
pub fn leaf_sibling(pool: &Pool, b: &Bisector) -> Option<u32> {
    if b.depth <= BASE_DEPTH {
        return None;
    }
    let s = if leb::is_even(b.path) {
        b.neighbours[0]
    } else {
        b.neighbours[1]
    };
    (s != INVALID && pool.entries[s as usize].path == b.path ^ 1).then_some(s)
}

pub struct DecideOut {
    pub wish: u32,
}

/// The entries a split of `b` needs split first (or with it): a split needs the twin across
/// the hypotenuse at the same depth and splitting too; a coarser twin must split first, and so
/// on down its own twin chain, ending at a same-depth twin (bounded by depth − 5).
pub fn twin_chain(pool: &Pool, b: &Bisector, pushes: &mut Vec<u32>) {
    let mut depth = b.depth;
    let mut t = b.neighbours[2];
    while t != INVALID {
        let tb = &pool.entries[t as usize];
        if tb.depth > depth {
            break; // not in a conforming mesh: a twin is never finer
        }
        pushes.push(t);
        if tb.depth == depth {
            break;
        }
        depth = tb.depth;
        t = tb.neighbours[2];
    }
}

/// `pushes` receives the entries to atomicOr (cleared by the caller).
pub fn decide_kernel(pool: &Pool, i: u32, view: &View, pushes: &mut Vec<u32>) -> DecideOut {
    let b = &pool.entries[i as usize];
    let p = positions(b);
    let can_split = b.flags & (FLAG_CULLED | FLAG_OFFSCREEN | FLAG_CAPPED) == 0;
    if can_split && wants_split(&p, b.r_hyp as f64, b.r_leg as f64, view) {
        twin_chain(pool, b, pushes);
        return DecideOut { wish: WISH_SPLIT };
    }
    if let Some(s) = leaf_sibling(pool, b) {
        let sb = &pool.entries[s as usize];
        let (even, odd) = if leb::is_even(b.path) {
            (b, sb)
        } else {
            (sb, b)
        };
        // A leaf with a corner still morphing does not merge: its stored positions are not yet
        // the surface the parent's measure, assembled from them, assumes (a parent judged
        // hidden on them may be visible on the surface, and split again at once).
        if b.births == 0 && parent_wants_merge(even, odd, view) {
            return DecideOut { wish: WISH_MERGE };
        }
    }
    DecideOut { wish: WISH_KEEP }
}
