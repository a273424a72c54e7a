//! The amplified levels L10–L18 made on the GPU (`shaders/tiles/amplify.comp`), the mirror of
//! `earth::amplify::amplify_tile` in f64. The GPU holds no L9 tiles, but a stored L9 sample is
//! exactly the derivation's sample (folded, corner-averaged), so three passes:
//! `tiles.amplify.patch` derives, per job, the L9 samples of the tile's own face its stencils
//! read (the range `amplify_tile` copies into its `Patch`) into a transient buffer;
//! `tiles.amplify` makes every sample that reads only the patch and lists the rest (apron
//! samples owned by another face or beyond a cube corner, any read outside the patch);
//! `tiles.amplify.fallback`, dispatched indirectly over that list, makes them with their L9
//! samples derived on the spot. [`super::gpu::GpuTiles::declare`] records the three for a
//! batch's amplified jobs.

use crate::planet::Body;
use framegraph::{BufferDesc, BufferRef, Graph};

/// Edge of one job's patch, L9 samples: the widest span, at L10 (520 samples over 260 L9
/// cells plus the stencil's reach, `patch_is_the_widest_span`). `common/amplify.glsl` PATCH_W.
pub const PATCH_W: u32 = 264;
/// Most amplified jobs in one batch: the patch buffer is 279 KB a job (71 MB at 256).
pub const MAX_AMPLIFY_JOBS: usize = 256;
/// Fallback entries per job: the apron samples of two face edges and a cube corner (a tile of
/// L ≥ 10 touches at most two edges: 2·4·520 + 16 = 4,176), with room for reads outside the
/// patch (none measured). A full list writes NaN heights, never stale ones.
pub const FALLBACK_PER_JOB: u64 = 8192;
/// Samples per workgroup edge (patch and amplify, local size 8×8).
const GROUP: u32 = 8;

/// The buffers both passes read: the ETOPO grids and the amplified jobs' list.
pub(super) struct Grids {
    pub etopo: BufferRef,
    pub relief: BufferRef,
    pub list: BufferRef,
}

/// `tiles.amplify` push constants.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct AmplifyPush {
    /// Body::radius, metres.
    radius: f64,
}

/// Records `tiles.amplify.fallback.reset`, `tiles.amplify.patch`, `tiles.amplify` and
/// `tiles.amplify.fallback` for the `jobs` amplified jobs of the list in `grids` into `out`.
pub(super) fn record(g: &mut Graph<'_>, grids: Grids, jobs: u32, body: Body, out: &mut BufferRef) {
    let push = AmplifyPush {
        radius: body.radius,
    };
    // The fallback list: an indirect dispatch (x, y, z), the entry count, the entries.
    let entries = FALLBACK_PER_JOB * jobs as u64;
    let mut fallback = g.create_buffer("tiles.amplify.fallback", BufferDesc::gpu(16 + 4 * entries));
    let reset: [u32; 4] = [0, 1, 1, 0];
    g.transfer("tiles.amplify.fallback.reset").update(
        &mut fallback,
        0,
        bytemuck::cast_slice(&reset),
    );
    let floats = (PATCH_W * PATCH_W) as u64 * jobs as u64;
    let mut patch = g.create_buffer("tiles.amplify.patch", BufferDesc::gpu(4 * floats));
    let pg = PATCH_W.div_ceil(GROUP);
    g.compute("tiles.amplify.patch", &shaders::TILES_AMPLIFY_PATCH)
        .read("etopo", grids.etopo)
        .read("relief", grids.relief)
        .read("batch", grids.list)
        .write("l9patch", &mut patch)
        .dispatch([pg, pg, jobs]);
    let groups = crate::params::TILE_STRIDE.div_ceil(GROUP);
    g.compute("tiles.amplify", &shaders::TILES_AMPLIFY)
        .read("batch", grids.list)
        .read("l9patch", patch)
        .write("heights", out)
        .write("fallback", &mut fallback)
        .push(&push)
        .dispatch([groups, groups, jobs]);
    g.compute("tiles.amplify.fallback", &shaders::TILES_AMPLIFY_FALLBACK)
        .read("etopo", grids.etopo)
        .read("relief", grids.relief)
        .read("batch", grids.list)
        .read("l9patch", patch)
        .read("fallback", fallback)
        .write("heights", out)
        .push(&push)
        .dispatch_indirect(fallback, 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::earth::amplify::l9_position;
    use crate::params::{TILE_APRON, TILE_SAMPLES, TILE_STRIDE};

    /// amplify_tile's span along one axis for tile coordinate x (its `span` closure).
    fn span(level: u8, x: i64) -> (i64, i64) {
        let (a, s, n) = (TILE_APRON as i64, TILE_STRIDE as i64, TILE_SAMPLES as i64);
        let (first, last) = (n * x - a, n * x + s - a - 1);
        (
            l9_position(level, first).floor() as i64 - 1,
            l9_position(level, last).floor() as i64 + 3,
        )
    }

    /// The patch holds every level's span, and L10's fills it.
    #[test]
    fn patch_is_the_widest_span() {
        let mut widest = 0;
        for level in 10..=18u8 {
            for x in [0, 1, (1i64 << level) - 1] {
                let (lo, hi) = span(level, x);
                widest = widest.max(hi - lo);
            }
        }
        assert_eq!(widest, PATCH_W as i64);
    }

    #[test]
    fn push_matches_the_shader() {
        assert_eq!(std::mem::size_of::<AmplifyPush>(), 8);
    }
}
