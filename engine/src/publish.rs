//! Raster publish and the resolves that read its hit records (TERRAIN.md §4):
//! `raster.publish` draws the CBT's leaves into a 64-bit visibility buffer (depth | leaf, by
//! atomicMin — a compute rasteriser can write the same buffer), `publish.resolve` turns each
//! pixel into a surface-following hit record, `resolve.terrain` shades, `resolve.aov` writes
//! exact per-pixel values (lat/lon, distance, level, water) for tests and tools.

use crate::gpu::tiles::TileBindings;
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

/// Debug views of `resolve.terrain` (`shaders/resolve/terrain.comp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Shaded = 0,
    Level = 1,
    Slot = 2,
    Normal = 3,
    LatLon = 4,
    Water = 5,
    /// The CBT mesh itself: leaves flat-coloured by depth (`raster.cbt_debug`), no shading.
    Cbt = 6,
    /// Shading with the mesh's visible edges drawn over it.
    Wireframe = 7,
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

/// Declare `raster.publish` + `publish.resolve`.
pub fn declare_publish(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    mesh: MeshBindings,
    tiles: TileBindings,
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
        .read("frame", tiles.frame)
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
        "raster.publish",
        &shaders::RASTER_PUBLISH_VERT,
        &shaders::RASTER_PUBLISH_FRAG,
    )
    .read("frame", tiles.frame)
    .read("pool", mesh.pool)
    .read("big", big)
    .write("vis", &mut vis)
    .state(state)
    .depth(&mut depth, LoadOp::Clear([0.0; 4]))
    .draw_indirect(big, 0, 1, 16);
    g.compute("publish.resolve", &shaders::PUBLISH_RESOLVE)
        .read("frame", tiles.frame)
        .read("slots", tiles.slots)
        .read("tile_lookup", tiles.lookup)
        .read("tile_heights", tiles.heights)
        .read("pool", mesh.pool)
        .read("vis", vis)
        .write("hits", &mut hits)
        .push(&(opts.no_correction as u32))
        .dispatch_threads([w, h, 1]);
    Published { hits, depth }
}

/// Declare `resolve.terrain`, shading `hits` into `target` (RGBA8, storage).
pub fn declare_terrain(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    hits: ImageRef,
    tiles: TileBindings,
    target: &mut ImageRef,
    view: View,
) {
    g.compute("resolve.terrain", &shaders::RESOLVE_TERRAIN)
        .read("frame", tiles.frame)
        .read("slots", tiles.slots)
        .read("tile_heights", tiles.heights)
        .read("hits", hits)
        .write("color", target)
        .push(
            &(match view {
                View::Cbt | View::Wireframe => View::Shaded,
                v => v,
            } as u32),
        )
        .dispatch_threads([extent[0], extent[1], 1]);
}

/// One pixel of `resolve.aov` (two vec4, `shaders/resolve/aov.comp`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AovPixel {
    /// Unit direction of the hit from the planet centre.
    pub dir: [f32; 3],
    /// Distance along the ray, metres (0: no terrain).
    pub dist: f32,
    /// Level chosen for the hit (−1: no terrain).
    pub level: f32,
    /// 1 where the hit is water.
    pub water: f32,
    pub slot: f32,
    /// 1 where the surface-following correction moved the hit.
    pub corrected: f32,
}

impl AovPixel {
    pub fn is_terrain(&self) -> bool {
        self.level >= 0.0
    }
    pub fn is_water(&self) -> bool {
        self.water > 0.5
    }
    /// Latitude, longitude in degrees (f64 from the f32 direction).
    pub fn latlon(&self) -> (f64, f64) {
        let d = glam::DVec3::new(self.dir[0] as f64, self.dir[1] as f64, self.dir[2] as f64);
        crate::planet::dir_to_latlon(d)
    }
}

/// Declare `resolve.aov` (per pixel: an [`AovPixel`]).
pub fn declare_aov(
    g: &mut Graph<'_>,
    extent: [u32; 2],
    hits: ImageRef,
    tiles: TileBindings,
) -> BufferRef {
    let mut aov = g.create_buffer(
        "resolve.aov",
        BufferDesc::gpu(32 * extent[0] as u64 * extent[1] as u64),
    );
    g.compute("resolve.aov", &shaders::RESOLVE_AOV)
        .read("frame", tiles.frame)
        .read("slots", tiles.slots)
        .read("hits", hits)
        .write("aov", &mut aov)
        .dispatch_threads([extent[0], extent[1], 1]);
    aov
}
