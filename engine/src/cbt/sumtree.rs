//! A sum tree over a bit array of 64-bit words: REDUCE builds it (popcount pass over words,
//! then one pass per level), RESERVE ranks and selects through it.
//!
//! Layout (`bisector::tree_nodes`): `nodes[leaves + w] = popcount(word w)`, `nodes[i] =
//! nodes[2i] + nodes[2i+1]`, root at 1. Each pass is a per-node kernel that reads only the
//! level below, so it is order-independent. Passes may be bounded to a prefix of the words:
//! words past the bound must not have changed since the last build, and then every node that
//! covers them is still correct (`build`), while prefix queries below the bound only read
//! left siblings, which lie inside it (`prefix`).

use super::bisector::{tree_leaves, tree_nodes};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumTree {
    /// Leaf count (power of two ≥ the word count).
    pub leaves: usize,
    pub nodes: Vec<u32>,
}

/// REDUCE pass 0, one word.
pub fn popcount_kernel(word: u64) -> u32 {
    word.count_ones()
}

/// REDUCE level pass, one node.
pub fn level_kernel(nodes: &[u32], i: usize) -> u32 {
    nodes[2 * i] + nodes[2 * i + 1]
}

/// The position of the `rank`-th set bit (0-based) of a word, by halving: the GLSL version
/// does the same with `bitCount` on the two 32-bit halves, then 16-, 8-, 4-, 2-, 1-bit halves.
pub fn select_in_word(word: u64, mut rank: u32) -> u32 {
    let mut base = 0u32;
    let mut width = 32u32;
    let mut w = word;
    while width > 0 {
        let low = w & ((1u64 << width) - 1);
        let n = low.count_ones();
        if rank >= n {
            rank -= n;
            base += width;
            w >>= width;
        } else {
            w = low;
        }
        width /= 2;
    }
    base
}

impl SumTree {
    /// An all-zero tree over `words` words.
    pub fn new(words: usize) -> SumTree {
        SumTree {
            leaves: tree_leaves(words),
            nodes: vec![0; tree_nodes(words)],
        }
    }

    /// Rebuilds the nodes covering words `[0, word_bound)` (REDUCE): popcount pass, then
    /// levels bottom-up, each over the node range that covers the bound.
    pub fn build(&mut self, words: &[u64], word_bound: usize) {
        let bound = word_bound.min(words.len());
        for (w, &word) in words.iter().enumerate().take(bound) {
            self.nodes[self.leaves + w] = popcount_kernel(word);
        }
        let (mut lo, mut hi) = (self.leaves, self.leaves + bound.max(1));
        while lo > 1 {
            lo /= 2;
            hi = hi.div_ceil(2);
            for i in lo..hi {
                self.nodes[i] = level_kernel(&self.nodes, i);
            }
        }
    }

    /// Set bits in the whole array (valid when every changed word was inside the last bound).
    pub fn total(&self) -> u32 {
        self.nodes[1]
    }

    /// Number of set bits below bit index `idx` (an exclusive prefix sum): one word popcount
    /// plus the left siblings on the way to the root.
    pub fn prefix(&self, words: &[u64], idx: u32) -> u32 {
        let (w, b) = ((idx / 64) as usize, idx % 64);
        let mut sum = (words[w] & ((1u64 << b) - 1)).count_ones();
        let mut i = self.leaves + w;
        while i > 1 {
            if i & 1 == 1 {
                sum += self.nodes[i - 1];
            }
            i /= 2;
        }
        sum
    }

    /// Index of the `rank`-th set bit (0-based, ascending), or None when rank ≥ total.
    pub fn select(&self, words: &[u64], mut rank: u32) -> Option<u32> {
        if rank >= self.total() {
            return None;
        }
        let mut i = 1;
        while i < self.leaves {
            let left = self.nodes[2 * i];
            if rank < left {
                i *= 2;
            } else {
                rank -= left;
                i = 2 * i + 1;
            }
        }
        let w = i - self.leaves;
        Some(w as u32 * 64 + select_in_word(words[w], rank))
    }
}

/// Sets or clears one bit (the GLSL atomicOr / atomicAnd on the word).
pub fn set_bit(words: &mut [u64], idx: u32, on: bool) {
    let (w, b) = ((idx / 64) as usize, idx % 64);
    if on {
        words[w] |= 1u64 << b;
    } else {
        words[w] &= !(1u64 << b);
    }
}

pub fn get_bit(words: &[u64], idx: u32) -> bool {
    words[(idx / 64) as usize] >> (idx % 64) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_words(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s & s.rotate_left(17) // sparser than uniform
            })
            .collect()
    }

    #[test]
    fn select_and_prefix_agree_with_a_scan() {
        for n in [1usize, 3, 5, 64] {
            let words = random_words(n, 0x1234 + n as u64);
            let mut t = SumTree::new(n);
            t.build(&words, n);
            let set: Vec<u32> = (0..n as u32 * 64).filter(|&i| get_bit(&words, i)).collect();
            assert_eq!(t.total() as usize, set.len());
            for (r, &i) in set.iter().enumerate() {
                assert_eq!(t.select(&words, r as u32), Some(i));
                assert_eq!(t.prefix(&words, i), r as u32);
            }
            assert_eq!(t.select(&words, set.len() as u32), None);
        }
    }

    #[test]
    fn bounded_rebuild_matches_full_rebuild() {
        let mut words = random_words(40, 99);
        let mut t = SumTree::new(40);
        t.build(&words, 40);
        // Change only words below 11, rebuild only that prefix.
        for w in words.iter_mut().take(11) {
            *w = w.rotate_left(5) ^ 0xff;
        }
        t.build(&words, 11);
        let mut full = SumTree::new(40);
        full.build(&words, 40);
        assert_eq!(t, full);
    }

    #[test]
    fn select_in_word_every_bit() {
        let w = 0x8000_0400_0100_0011u64;
        let bits: Vec<u32> = (0..64).filter(|b| w >> b & 1 == 1).collect();
        for (r, &b) in bits.iter().enumerate() {
            assert_eq!(select_in_word(w, r as u32), b);
        }
    }
}
