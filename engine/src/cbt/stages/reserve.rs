//! `cbt.reserve`: split candidates become splits with a pool index for the odd child, or are
//! refused when the pool cannot cover them.
//!
//! Allocation is by rank, with no contended counter: a candidate's rank is the number of
//! candidates below it in the pool (a prefix count through the request sum tree, built by
//! `cbt.reserve.reduce` just before), and rank r takes the r-th free entry (a select through the
//! free sum tree), so free entries are handed out lowest index first and the result does not
//! depend on thread order. A diamond (the candidate and its twin) splits only if *both* ranks
//! are below the free count — the whole worst case of the split is covered before anything is
//! touched, and a refused pair leaves the mesh exactly as it was (exhaustion delays refinement,
//! it never half-splits a diamond). Both members evaluate the same condition.
//!
//! Reads: own fate, neighbours[2]; request bits + tree; free bits + tree; control.free_count.
//! Writes: own fate (SPLIT or KEEP), child. Atomics: control.alloc_high (max), stats.splits,
//! stats.saturated.

use super::super::bisector::{FATE_CANDIDATE, FATE_KEEP, FATE_SPLIT, INVALID};
use super::super::pool::Pool;

pub struct ReserveOut {
    pub fate: u32,
    pub child: u32,
    pub saturated: bool,
}

/// Only for entries with `fate == FATE_CANDIDATE`.
pub fn reserve_kernel(pool: &Pool, i: u32) -> ReserveOut {
    let b = &pool.entries[i as usize];
    debug_assert_eq!(b.fate, FATE_CANDIDATE);
    let budget = pool.control.free_count;
    let rank = pool.request_tree.prefix(&pool.request_bits, i);
    let t = b.neighbours[2];
    let twin_rank = if t == INVALID {
        rank
    } else {
        pool.request_tree.prefix(&pool.request_bits, t)
    };
    let refused = ReserveOut {
        fate: FATE_KEEP,
        child: INVALID,
        saturated: true,
    };
    if rank.max(twin_rank) >= budget {
        return refused;
    }
    match pool.free_tree.select(&pool.free_bits, rank) {
        Some(child) => ReserveOut {
            fate: FATE_SPLIT,
            child,
            saturated: false,
        },
        None => refused, // unreachable while free_count == free tree total
    }
}
