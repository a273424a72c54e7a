//! `cbt.neighbours`: every survivor computes its next path, corners and neighbours from the
//! old state and the published fates (read old, write next; nothing is patched in place).
//!
//! Reads: own fate, child, path, corners, neighbours, births; each neighbour's fate, child and
//! neighbours; for a merge the sibling's corners, neighbours and births; the update count.
//! Writes: own next_path, next_corners, next_neighbours, births; a splitting entry also writes
//! those of its odd child's slot (owned through RESERVE). Births are written in place: the
//! only entry that reads another's is a merge's even child, and its sibling (being freed)
//! writes none.

use super::super::bisector::{
    birth_of, birth_stamp, Bisector, FATE_CANDIDATE, FATE_KEEP, FATE_MERGE_FREE, FATE_MERGE_KEEP,
    FATE_SPLIT, INVALID,
};
use super::super::leb;
use super::super::pool::Pool;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Next {
    pub path: u64,
    pub corners: [u32; 6],
    pub neighbours: [u32; 3],
    /// Birth stamps of the corners (`Bisector::births`).
    pub births: u32,
}

/// A `births` word of the three stamps.
fn births3(b: [u32; 3]) -> u32 {
    b[0] | (b[1] << 10) | (b[2] << 20)
}

pub struct NeighboursOut {
    pub own: Next,
    /// (slot, state) of the odd child of a split.
    pub child: Option<(u32, Next)>,
}

/// Who lies, after this iteration, across the edge of `from` that old neighbour `n` shares.
/// `from`'s edge is whole on both sides (the mesh conforms), and `from` keeps that edge (it is
/// not a leg of a merging pair, and when `from` splits its edge is a leg or handled as a twin).
fn across(pool: &Pool, n: u32, from: u32) -> u32 {
    if n == INVALID {
        return INVALID;
    }
    let nb = &pool.entries[n as usize];
    match nb.fate {
        // The shared edge is one of n's legs (a split needs a splitting twin, so `from` is not
        // n's twin): leg v0v1 goes to the even child (n's slot), leg v1v2 to the odd child.
        FATE_SPLIT => {
            if nb.neighbours[0] == from {
                n
            } else {
                debug_assert_eq!(
                    nb.neighbours[1], from,
                    "split neighbour shares its hypotenuse with a non-splitting leaf"
                );
                nb.child
            }
        }
        // The shared edge is n's hypotenuse, which becomes a leg of the parent in the even
        // child's slot: n itself, or (odd) its sibling across v1v2.
        FATE_MERGE_KEEP => n,
        FATE_MERGE_FREE => nb.neighbours[1],
        _ => n,
    }
}

fn keep(b: &Bisector) -> Next {
    Next {
        path: b.path,
        corners: b.corners,
        neighbours: b.neighbours,
        births: b.births,
    }
}

pub fn neighbours_kernel(pool: &Pool, i: u32) -> NeighboursOut {
    let b = &pool.entries[i as usize];
    let nb = b.neighbours;
    match b.fate {
        FATE_SPLIT => {
            let c = leb::unpack(b.corners);
            let Some((even, odd)) = leb::split(c) else {
                // RESOLVE never makes a candidate past MAX_DEPTH; keep the entry unchanged.
                return NeighboursOut {
                    own: keep(b),
                    child: None,
                };
            };
            let t = nb[2];
            // The twin splits too: its odd child faces our even child's edge m→v0, its even child
            // (its own slot) faces our odd child's edge v2→m.
            let (twin_odd, twin_even) = if t == INVALID {
                (INVALID, INVALID)
            } else {
                (pool.entries[t as usize].child, t)
            };
            // The midpoint is born now (the twin's split gives it the same stamp); the other
            // corners keep theirs: even [v1, m, v0], odd [v2, m, v1].
            let (bb, now) = (|k| birth_of(b.births, k), birth_stamp(pool.control.frame));
            let own = Next {
                path: leb::children(b.path)[0],
                corners: leb::pack(even),
                neighbours: [b.child, twin_odd, across(pool, nb[0], i)],
                births: births3([bb(1), now, bb(0)]),
            };
            let child = Next {
                path: leb::children(b.path)[1],
                corners: leb::pack(odd),
                neighbours: [twin_even, i, across(pool, nb[1], i)],
                births: births3([bb(2), now, bb(1)]),
            };
            NeighboursOut {
                own,
                child: Some((b.child, child)),
            }
        }
        FATE_MERGE_KEEP => {
            let s = nb[0];
            let sb = &pool.entries[s as usize];
            let parent = leb::merge(leb::unpack(b.corners), leb::unpack(sb.corners)[0]);
            // Parent legs: ours is our hypotenuse (v0v1), the sibling's is its hypotenuse (v1v2);
            // the parent's twin re-forms in the facing even child's slot (sibling's slot 0).
            let own = Next {
                path: leb::parent(b.path),
                corners: leb::pack(parent),
                neighbours: [
                    across(pool, nb[2], i),
                    across(pool, sb.neighbours[2], s),
                    sb.neighbours[0],
                ],
                births: births3([
                    birth_of(b.births, 2),
                    birth_of(b.births, 0),
                    birth_of(sb.births, 0),
                ]),
            };
            NeighboursOut { own, child: None }
        }
        FATE_MERGE_FREE => NeighboursOut {
            own: Next::default(),
            child: None,
        },
        _ => {
            debug_assert!(b.fate == FATE_KEEP || b.fate == FATE_CANDIDATE);
            let mut own = keep(b);
            own.neighbours = [
                across(pool, nb[0], i),
                across(pool, nb[1], i),
                across(pool, nb[2], i),
            ];
            NeighboursOut { own, child: None }
        }
    }
}
