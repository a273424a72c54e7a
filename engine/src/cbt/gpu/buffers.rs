//! The pool's GPU buffers as one set, [`CbtBuffers`], declared once by the table at the end of
//! this file: one line per buffer, its name and its size for a capacity. The same set holds the
//! owned buffers (`CbtBuffers<GpuBuffer>` in [`super::CbtGpu`]), this frame's graph handles
//! (`CbtBuffers<BufferRef>` = [`super::CbtHandles`]), their sizes and their initial contents.
//!
//! A buffer's field name is the name every `cbt.*` node binds it under, which must equal the
//! shaders' instance name (`shaders/common/cbt_buffers.glsl`; the graph binds by reflected
//! name); [`label`] of it names the `VkBuffer` and its readback.

use super::layout::{CommitSweeps, Sweeps};
use crate::cbt::bisector::{bit_words, tree_nodes, Bisector, Control};
use std::mem::size_of;

/// The debug label and readback name of the buffer bound as `name`: `cbt.<name>`.
pub fn label(name: &str) -> String {
    format!("cbt.{name}")
}

/// Bytes of `n` values of `T`.
const fn bytes_of<T>(n: usize) -> u64 {
    (n * size_of::<T>()) as u64
}

/// Declares [`CbtBuffers`] from `name: |capacity| bytes` lines: the struct, its sizes and its
/// iteration, all in field (= binding) order.
macro_rules! buffer_set {
    ($($(#[$doc:meta])* $name:ident: |$c:pat_param| $bytes:expr,)+) => {
        /// One value per pool buffer (see the module doc) and the capacity they are sized for.
        #[derive(Clone, Copy, Debug)]
        pub struct CbtBuffers<T> {
            $($(#[$doc])* pub $name: T,)+
            /// Pool capacity (entries).
            pub capacity: u32,
        }

        impl CbtBuffers<u64> {
            /// Bytes of each buffer of a pool of `capacity` entries.
            pub fn sizes(capacity: u32) -> CbtBuffers<u64> {
                CbtBuffers {
                    $($name: {
                        let $c: u32 = capacity;
                        $bytes
                    },)+
                    capacity,
                }
            }
        }

        impl<T> CbtBuffers<T> {
            /// (binding name, value) of every buffer.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, &T)> {
                [$((stringify!($name), &self.$name)),+].into_iter()
            }

            /// (binding name, value) of every buffer, mutably.
            pub fn iter_mut(&mut self) -> impl Iterator<Item = (&'static str, &mut T)> {
                [$((stringify!($name), &mut self.$name)),+].into_iter()
            }

            /// The values, in binding order.
            pub fn into_values(self) -> impl Iterator<Item = T> {
                [$(self.$name),+].into_iter()
            }

            /// The same set with `f(binding name, value)` for each value.
            pub fn map<U>(&self, mut f: impl FnMut(&'static str, &T) -> U) -> CbtBuffers<U> {
                CbtBuffers {
                    $($name: f(stringify!($name), &self.$name),)+
                    capacity: self.capacity,
                }
            }

            /// [`Self::map`] for a fallible `f`: the first error.
            pub fn try_map<U, E>(
                &self,
                mut f: impl FnMut(&'static str, &T) -> Result<U, E>,
            ) -> Result<CbtBuffers<U>, E> {
                Ok(CbtBuffers {
                    $($name: f(stringify!($name), &self.$name)?,)+
                    capacity: self.capacity,
                })
            }
        }
    };
}

buffer_set! {
    /// The entries (binding 0).
    pool: |c| bytes_of::<Bisector>(c as usize),
    /// Counters, sweep sizes and the indirect draw (binding 1).
    control: |_| bytes_of::<Control>(1),
    /// Dispatch arguments of the per-entry sweeps and the reductions (binding 2) …
    sweeps: |_| bytes_of::<Sweeps>(1),
    /// … and of the COMMIT range (binding 3).
    commit_sweeps: |_| bytes_of::<CommitSweeps>(1),
    /// Free entries, one bit each in u64 words (binding 4), and their sum tree (5).
    free_bits: |c| bytes_of::<u64>(bit_words(c)),
    free_tree: |c| bytes_of::<u32>(tree_nodes(bit_words(c))),
    /// Entries requesting a child slot (RESOLVE) and their sum tree (bindings 6, 7).
    request_bits: |c| bytes_of::<u64>(bit_words(c)),
    request_tree: |c| bytes_of::<u32>(tree_nodes(bit_words(c))),
    /// Drawn leaves (FINISH) and their sum tree (bindings 8, 9).
    draw_bits: |c| bytes_of::<u64>(bit_words(c)),
    draw_tree: |c| bytes_of::<u32>(tree_nodes(bit_words(c))),
    /// Indices of the drawn leaves, compacted (binding 10).
    draw_list: |c| bytes_of::<u32>(c as usize),
    /// `cbt.eval`'s surface memo, word-major (`common/cbt_eval.glsl`): the corners' three
    /// points and the entry's clock (binding 11), the midpoints' three points (12). Two
    /// buffers, each under a bisector's 160 bytes an entry, so both fit where the pool does.
    memo_corners: |c| bytes_of::<u32>(MEMO_CORNER_WORDS * c as usize),
    memo_mids: |c| bytes_of::<u32>(MEMO_MID_WORDS * c as usize),
    /// Occlusion culling's stamp per entry (binding 13): the last frame whose resolve saw the
    /// leaf win a pixel, or that frame with [`HIDDEN_STAMP`] where `raster.compute.late` culled
    /// it as hidden, or with [`UNSEEN_STAMP`] where a raster phase drew it on screen and it won
    /// no pixel (`shaders/common/raster_small.glsl`); `cbt.decide` keeps such a leaf of the
    /// last frame from splitting (`CbtParams::hidden_leaves`). Zeroed by `cbt.init`.
    seen: |c| bytes_of::<u32>(c as usize),
}

/// The bit a stamp of [`CbtBuffers::seen`] carries where the leaf was culled as hidden …
pub const HIDDEN_STAMP: u32 = 1 << 31;
/// … where it was drawn on screen and won no pixel …
pub const UNSEEN_STAMP: u32 = 1 << 30;
/// … and the frame's bits.
pub const STAMP_FRAME: u32 = UNSEEN_STAMP - 1;

/// Words per entry of the memo buffers: seven per point, and the clock with the corners.
pub const MEMO_CORNER_WORDS: usize = 3 * 7 + 1;
pub const MEMO_MID_WORDS: usize = 3 * 7;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_model_arrays() {
        let s = CbtBuffers::sizes(4096);
        assert_eq!(s.pool, 4096 * 160);
        assert_eq!((s.free_bits, s.free_tree), (64 * 8, 128 * 4));
        assert_eq!(
            (s.control, s.sweeps, s.commit_sweeps),
            (size_of::<Control>() as u64, 48, 36)
        );
        assert_eq!(s.draw_list, 4096 * 4);
        let names: Vec<&str> = s.iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 14);
        assert_eq!((names[13], s.seen), ("seen", 4096 * 4));
        assert_eq!(names[10], "draw_list");
        assert_eq!((s.memo_corners, s.memo_mids), (4096 * 88, 4096 * 84));
        assert_eq!(label("pool"), "cbt.pool");
    }

    #[test]
    fn names_are_the_shaders_binding_names() {
        let src = include_str!("../../../../shaders/common/cbt_buffers.glsl");
        for (i, (name, _)) in CbtBuffers::sizes(64).iter().enumerate() {
            // The first declaration: writable where a kernel writes it, else readonly.
            let decl = format!("binding = {i}) ");
            let line = src
                .lines()
                .find(|l| l.contains(&decl) && l.contains(" buffer "))
                .unwrap_or_else(|| panic!("binding {i} missing"));
            assert!(line.ends_with(&format!("}} {name};")), "{name}: {line}");
        }
    }
}
