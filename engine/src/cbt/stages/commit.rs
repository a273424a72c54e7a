//! `cbt.commit`: next becomes current; free, request and draw bits; the high-water mark.
//! Runs over [0, max(high_water, alloc_high)) so new children are included.
//!
//! Reads: own entry. Writes: own entry (current ← next, scratch cleared, `FLAG_DIRTY` when the
//! geometry changed, all-zero when freed). Atomics: own free bit (set/clear), own request bit
//! (clear), own draw bit (clear when freed), control.next_high_water (max).

use super::super::bisector::{Bisector, FLAG_DIRTY};
use super::super::leb;

pub struct CommitOut {
    pub entry: Bisector,
    pub live: bool,
}

/// None for a free entry nobody allocated (nothing to write).
pub fn commit_kernel(b: &Bisector) -> Option<CommitOut> {
    let live = b.next_path != 0;
    if !live {
        // Freed (odd child of a merge): all-zero, so a later allocation starts clean.
        return (b.path != 0).then(|| CommitOut {
            entry: Bisector::default(),
            live,
        });
    }
    let mut e = *b;
    let changed = e.path != e.next_path;
    e.path = e.next_path;
    e.corners = e.next_corners;
    e.neighbours = e.next_neighbours;
    e.depth = leb::depth(e.path);
    if changed {
        e.flags = FLAG_DIRTY;
    }
    e.next_path = 0;
    e.next_corners = [0; 6];
    e.next_neighbours = [0; 3];
    e.wish = 0;
    e.pushed = 0;
    e.fate = 0;
    e.child = 0;
    Some(CommitOut { entry: e, live })
}
