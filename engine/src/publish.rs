//! The publish (TERRAIN.md §4): the CBT's leaves into a 64-bit visibility buffer (depth | leaf,
//! by atomicMin), then one hit record per pixel. `publish.clear` → `raster.args` (splits the
//! draw list) → `raster.compute` (compute rasteriser: small leaves) → `raster.hardware` (the
//! hardware raster of the leaves `raster.compute` hands over: near-plane crossers, big
//! footprints; same buffer, same key) → `publish.resolve` (surface-following hit, or the ocean
//! surface at the datum). The shading that reads the hits is `crate::shade`.

use crate::atlas::SurfaceBindings;
use ash::vk;
use framegraph::{BufferDesc, BufferRef, Graph, ImageDesc, ImageRef, LoadOp, RasterState};

/// What the publish needs from the mesh.
#[derive(Clone, Copy, Debug)]
pub struct MeshBindings {
    /// The bisector pool (camera-relative corner positions).
    pub pool: BufferRef,
    /// Pool indices of the drawn leaves.
    pub draw_list: BufferRef,
    /// The CBT control block: a `VkDrawIndirectCommand` of the drawn leaves at
    /// `draw_args_offset` (`shaders/common/bisector.glsl` `CbtControl`).
    pub draw_args: BufferRef,
    pub draw_args_offset: u64,
    /// Pool capacity (bounds the draw list).
    pub capacity: u32,
}

/// Publish options.
#[derive(Clone, Copy, Debug, Default)]
pub struct PublishOptions {
    /// Keep the chord (no surface-following correction) — for comparisons.
    pub no_correction: bool,
}

/// What the publish leaves for later passes.
#[derive(Clone, Copy, Debug)]
pub struct Published {
    /// Hit records (`shaders/common/hit.glsl`).
    pub hits: ImageRef,
    /// The raster's depth (reverse-Z, chords), for overlays that must be depth-tested.
    pub depth: ImageRef,
}

/// Declare the publish, `publish.clear` … `publish.resolve`.
pub fn declare_publish(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    mesh: MeshBindings,
    surface: SurfaceBindings,
    opts: PublishOptions,
) -> Published {
    let [w, h] = extent;
    let mut vis = g.create_buffer("publish.vis", BufferDesc::gpu(8 * w as u64 * h as u64));
    let mut depth = g.create_image("publish.depth", ImageDesc::d2(w, h, vk::Format::D32_SFLOAT));
    let mut hits = g.create_image(
        "publish.hits",
        ImageDesc::d2(w, h, vk::Format::R32G32B32A32_UINT),
    );
    g.transfer("publish.clear")
        .fill(&mut vis, 0, vk::WHOLE_SIZE, u32::MAX);
    // Compute rasteriser first; what it cannot take (near-plane crossers, big footprints) goes
    // to the hardware raster through `raster.big`'s indirect draw.
    let mut dispatch = g.create_buffer("raster.dispatch", BufferDesc::indirect(1));
    let mut big = g.create_buffer("raster.big", BufferDesc::gpu(16 + 4 * mesh.capacity as u64));
    g.compute("raster.args", &shaders::RASTER_ARGS)
        .read("control", mesh.draw_args)
        .write("dispatch", &mut dispatch)
        .write("big", &mut big)
        .dispatch([1, 1, 1]);
    g.compute("raster.compute", &shaders::RASTER_COMPUTE)
        .read("frame", surface.frame)
        .read("pool", mesh.pool)
        .read("draw_list", mesh.draw_list)
        .read("dispatch", dispatch)
        .write("big", &mut big)
        .write("vis", &mut vis)
        .dispatch_indirect(dispatch, 0);
    let state = RasterState {
        depth_test: true,
        depth_write: true,
        depth_compare: vk::CompareOp::GREATER,
        ..Default::default()
    };
    g.raster(
        "raster.hardware",
        &shaders::RASTER_HARDWARE_VERT,
        &shaders::RASTER_HARDWARE_FRAG,
    )
    .read("frame", surface.frame)
    .read("pool", mesh.pool)
    .read("big", big)
    .write("vis", &mut vis)
    .state(state)
    .depth(&mut depth, LoadOp::Clear([0.0; 4]))
    .draw_indirect(big, 0, 1, 16);
    g.compute("publish.resolve", &shaders::PUBLISH_RESOLVE)
        .read("frame", surface.frame)
        .read("slots", surface.slots)
        .read("tile_lookup", surface.lookup)
        .read("tile_heights", surface.heights)
        .read("pool", mesh.pool)
        .read("vis", vis)
        .write("hits", &mut hits)
        .push(&(opts.no_correction as u32))
        .dispatch_threads([w, h, 1]);
    Published { hits, depth }
}
