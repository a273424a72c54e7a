//! Device probes the benchmarks share (`planetfall bench`'s floors, `examples/cbt_bench.rs`):
//! the compute copy (`shaders/bench/copy_compute.comp`) that measures what a compute sweep
//! moves, next to `vkCmdCopyBuffer`, which on the H200 measured about a tenth of it.

use framegraph::{BufferRef, Graph};

/// Workgroups of the compute copy at most (256 threads each): 2^14 × 256 = 4 M threads, about 15
/// waves of an H200 (132 SMs × 2,048 resident threads); the grid-stride loop covers the rest.
const COPY_GROUPS: u64 = 1 << 14;

/// Bytes the compute copy moves of `bytes`: within what one storage-buffer binding may span,
/// in whole 16-byte words.
pub fn compute_copy_bytes(bytes: u64, max_storage_range: u64) -> u64 {
    bytes.min(max_storage_range).min(16 * u32::MAX as u64) / 16 * 16
}

/// Declare node `name`, a compute copy of `bytes` (from [`compute_copy_bytes`]) from `src` to
/// `dst`.
pub fn declare_compute_copy(
    g: &mut Graph<'_>,
    name: &str,
    src: BufferRef,
    dst: &mut BufferRef,
    bytes: u64,
) {
    let words = (bytes / 16) as u32;
    let groups = (words as u64).div_ceil(256).clamp(1, COPY_GROUPS) as u32;
    g.compute(name, &shaders::BENCH_COPY_COMPUTE)
        .read("src", src)
        .write("dst", dst)
        .push(&words)
        .dispatch([groups, 1, 1]);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_compute_copy_fits_one_binding_in_whole_words() {
        assert_eq!(super::compute_copy_bytes(1 << 30, u32::MAX as u64), 1 << 30);
        // lavapipe's 2^27 range, and a range that is not a multiple of 16.
        assert_eq!(super::compute_copy_bytes(1 << 30, 1 << 27), 1 << 27);
        assert_eq!(super::compute_copy_bytes(1 << 30, 1000), 992);
        // Past what the shader's u32 word count reaches.
        assert_eq!(
            super::compute_copy_bytes(1 << 40, u64::MAX),
            16 * u32::MAX as u64
        );
    }
}
