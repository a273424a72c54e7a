//! The pool: entries plus the side arrays, as the GPU holds them (one buffer each).

use super::base::{root_corners, root_neighbours, root_path};
use super::bisector::{bit_words, Bisector, Control, DispatchArgs, FLAG_DIRTY};
use super::leb::{self, ROOT_COUNT};
use super::sumtree::{get_bit, set_bit, SumTree};
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum CbtError {
    #[error("CBT pool capacity {0} must be a multiple of 64 (whole free-bit words)")]
    CapacityNotWordMultiple(u32),
    #[error("CBT pool capacity {0} is below the minimum of 64 entries (12 roots + refinement)")]
    CapacityTooSmall(u32),
    #[error(
        "CBT pool capacity {0} exceeds 2^31 entries (indices are u32 with 0xffffffff reserved)"
    )]
    CapacityTooLarge(u32),
}

/// Default capacity (TERRAIN.md §3: 2²² entries = 640 MiB of bisectors).
pub const DEFAULT_CAPACITY: u32 = 1 << 22;

#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    pub entries: Vec<Bisector>,
    /// Bit i = 1 ⇔ entry i is free.
    pub free_bits: Vec<u64>,
    pub free_tree: SumTree,
    /// Bit i = 1 ⇔ entry i is a split candidate this iteration (RESOLVE sets, COMMIT clears).
    pub request_bits: Vec<u64>,
    pub request_tree: SumTree,
    /// Bit i = 1 ⇔ entry i is drawn this frame (FINISH sets/clears, COMMIT clears freed).
    pub draw_bits: Vec<u64>,
    pub draw_tree: SumTree,
    /// Pool indices of the drawn leaves, ascending; the first `control.draw.vertex_count / 3`
    /// are valid.
    pub draw_list: Vec<u32>,
    pub control: Control,
}

/// The 12 roots as they sit in entries 0..12 of a fresh pool (root r in entry r).
pub fn root_entries() -> [Bisector; ROOT_COUNT as usize] {
    let nbs = root_neighbours();
    std::array::from_fn(|r| {
        let path = root_path(r as u32);
        Bisector {
            path,
            depth: leb::depth(path),
            corners: leb::pack(root_corners(r as u32)),
            neighbours: nbs[r],
            flags: FLAG_DIRTY,
            ..Bisector::default()
        }
    })
}

/// Free bits and free sum tree of a fresh pool (everything free but the roots).
pub fn initial_free(capacity: u32) -> (Vec<u64>, SumTree) {
    let words = bit_words(capacity);
    let mut free_bits = vec![u64::MAX; words];
    for r in 0..ROOT_COUNT {
        set_bit(&mut free_bits, r, false);
    }
    let mut free_tree = SumTree::new(words);
    free_tree.build(&free_bits, words);
    (free_bits, free_tree)
}

/// The control block of a fresh pool.
pub fn initial_control(capacity: u32, free_count: u32) -> Control {
    Control {
        capacity,
        high_water: ROOT_COUNT,
        free_count,
        entry_sweep: DispatchArgs::covering(ROOT_COUNT),
        commit_sweep: DispatchArgs::covering(ROOT_COUNT),
        word_sweep: DispatchArgs::covering(1),
        ..Control::default()
    }
}

/// Checks a capacity: a multiple of 64 (whole bit words), at least 64, at most 2³¹.
pub fn check_capacity(capacity: u32) -> Result<(), CbtError> {
    if capacity & 63 != 0 {
        return Err(CbtError::CapacityNotWordMultiple(capacity));
    }
    if capacity < 64 {
        return Err(CbtError::CapacityTooSmall(capacity));
    }
    if capacity > 1 << 31 {
        return Err(CbtError::CapacityTooLarge(capacity));
    }
    Ok(())
}

impl Pool {
    /// A pool holding the 12 roots in entries 0..12 (root r in entry r, forever: the even
    /// child keeps its parent's slot, so a root's slot always holds its leftmost descendant).
    pub fn new(capacity: u32) -> Result<Pool, CbtError> {
        check_capacity(capacity)?;
        let words = bit_words(capacity);
        let mut entries = vec![Bisector::default(); capacity as usize];
        entries[..ROOT_COUNT as usize].copy_from_slice(&root_entries());
        let (free_bits, free_tree) = initial_free(capacity);
        let control = initial_control(capacity, free_tree.total());
        Ok(Pool {
            entries,
            free_bits,
            free_tree,
            request_bits: vec![0; words],
            request_tree: SumTree::new(words),
            draw_bits: vec![0; words],
            draw_tree: SumTree::new(words),
            draw_list: vec![0; capacity as usize],
            control,
        })
    }

    pub fn capacity(&self) -> u32 {
        self.control.capacity
    }

    pub fn is_live(&self, i: u32) -> bool {
        self.entries[i as usize].path != 0
    }

    pub fn is_free_bit(&self, i: u32) -> bool {
        get_bit(&self.free_bits, i)
    }

    /// Live entries (every live entry is a leaf), ascending.
    pub fn leaves(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.control.high_water).filter(|&i| self.is_live(i))
    }

    pub fn leaf_count(&self) -> usize {
        self.leaves().count()
    }

    /// The leaf set as sorted paths: two pools with the same mesh have the same set, whatever
    /// slots hold the leaves.
    pub fn leaf_paths(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .leaves()
            .map(|i| self.entries[i as usize].path)
            .collect();
        v.sort_unstable();
        v
    }

    /// The drawn leaves (`control.draw`), in draw order.
    pub fn drawn(&self) -> &[u32] {
        &self.draw_list[..(self.control.draw.vertex_count / 3) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_checked() {
        assert_eq!(
            Pool::new(100).err(),
            Some(CbtError::CapacityNotWordMultiple(100))
        );
        assert_eq!(Pool::new(0).err(), Some(CbtError::CapacityTooSmall(0)));
        let p = Pool::new(128).expect("valid capacity");
        assert_eq!(p.leaf_count(), 12);
        assert_eq!(p.control.free_count, 116);
        assert_eq!(p.free_tree.select(&p.free_bits, 0), Some(12));
    }
}
