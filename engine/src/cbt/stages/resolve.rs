//! `cbt.resolve`: which wishes can execute this iteration.
//!
//! A split is a candidate when the twin is at the same depth and also wants to split (or is
//! absent). A merge executes when the four leaves around the shared vertex are two sibling pairs
//! that all wish to merge and none is needed by a split (pushed).
//!
//! Reads: own wish, pushed, depth, path, neighbours; the twin's depth, wish, pushed; for merges
//! the sibling's and the facing pair's path, depth, wish, pushed, neighbours.
//! Writes: own fate. Atomics: request bit (candidates); stats.candidates, stats.merges.

use super::super::bisector::{
    Bisector, FATE_CANDIDATE, FATE_KEEP, FATE_MERGE_FREE, FATE_MERGE_KEEP, INVALID, WISH_MERGE,
    WISH_SPLIT,
};
use super::super::leb::{self, MAX_DEPTH};
use super::super::pool::Pool;
use super::decide::leaf_sibling;

fn wants_split(b: &Bisector) -> bool {
    b.wish == WISH_SPLIT || b.pushed != 0
}

fn wants_merge(b: &Bisector) -> bool {
    b.wish == WISH_MERGE && b.pushed == 0
}

/// The four-leaf rule, evaluated identically from each of the four.
pub fn merge_ok(pool: &Pool, b: &Bisector) -> bool {
    let Some(s) = leaf_sibling(pool, b) else {
        return false;
    };
    let sb = &pool.entries[s as usize];
    if !wants_merge(b) || !wants_merge(sb) {
        return false;
    }
    let (even, odd) = if leb::is_even(b.path) {
        (b, sb)
    } else {
        (sb, b)
    };
    // The facing pair: across the even child's edge m→v0 lies the other parent's odd child,
    // across the odd child's edge v2→m its even child.
    let (a, c) = (even.neighbours[1], odd.neighbours[0]);
    if a == INVALID && c == INVALID {
        return true; // boundary parent (never on the closed cube)
    }
    if a == INVALID || c == INVALID {
        return false;
    }
    let (ab, cb) = (&pool.entries[a as usize], &pool.entries[c as usize]);
    ab.path == cb.path ^ 1
        && leb::is_even(cb.path)
        && ab.depth == b.depth
        && wants_merge(ab)
        && wants_merge(cb)
}

pub struct ResolveOut {
    pub fate: u32,
    /// Set this entry's request bit.
    pub request: bool,
}

pub fn resolve_kernel(pool: &Pool, i: u32) -> ResolveOut {
    let b = &pool.entries[i as usize];
    if wants_split(b) {
        let t = b.neighbours[2];
        let twin_agrees = t == INVALID || {
            let tb = &pool.entries[t as usize];
            tb.depth == b.depth && wants_split(tb)
        };
        // Same depth on both sides, so the depth limit is symmetric too.
        let fate = if twin_agrees && b.depth < MAX_DEPTH {
            FATE_CANDIDATE
        } else {
            FATE_KEEP
        };
        return ResolveOut {
            fate,
            request: fate == FATE_CANDIDATE,
        };
    }
    let fate = if merge_ok(pool, b) {
        if leb::is_even(b.path) {
            FATE_MERGE_KEEP
        } else {
            FATE_MERGE_FREE
        }
    } else {
        FATE_KEEP
    };
    ResolveOut {
        fate,
        request: false,
    }
}
