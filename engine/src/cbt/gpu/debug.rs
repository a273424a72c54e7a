//! `raster.cbt_debug`: the drawn leaves as they are (chords between the evaluated corners),
//! flat-coloured by LEB depth, optionally with their edges darkened (wireframe). Reads the draw
//! list and the indirect draw that `cbt.finish` wrote; depth-tested (reverse-Z).

use super::nodes::CbtHandles;
use crate::atlas::SurfaceBindings;
use ash::vk;
use framegraph::{Graph, ImageDesc, ImageRef, LoadOp, RasterState};

/// How `raster.cbt_debug` draws the mesh (its push constant; `shaders/raster/cbt_debug.frag`).
/// The renderer's debug views (`crate::debug_view::DebugView`) pick one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeshStyle {
    /// Flat colour by depth.
    #[default]
    Flat = 0,
    /// Flat colour by depth with dark edges.
    FlatEdged = 1,
    /// Edges only, over an image already drawn (see [`declare_debug_edges`]).
    Edges = 2,
}

/// Background of the debug image (sky and space): dark blue-grey.
pub const BACKGROUND: [f32; 4] = [0.03, 0.04, 0.07, 1.0];

/// Draw the mesh into `target` (cleared to [`BACKGROUND`]), `extent` px.
pub fn declare_debug_raster(
    g: &mut Graph<'_>,
    h: &CbtHandles,
    s: &SurfaceBindings,
    target: &mut ImageRef,
    extent: [u32; 2],
    mode: MeshStyle,
) {
    let mut depth = g.create_image(
        "raster.cbt_debug.depth",
        ImageDesc::d2(extent[0], extent[1], vk::Format::D32_SFLOAT),
    );
    let state = RasterState {
        depth_test: true,
        depth_write: true,
        ..RasterState::default()
    };
    g.raster(
        "raster.cbt_debug",
        &shaders::RASTER_CBT_DEBUG_VERT,
        &shaders::RASTER_CBT_DEBUG_FRAG,
    )
    .read("pool", h.pool)
    .read("draw_list", h.draw_list)
    .read("frame", s.frame)
    .push(&(mode as u32))
    .state(state)
    .color(target, LoadOp::Clear(BACKGROUND))
    .depth(&mut depth, LoadOp::Clear([0.0; 4]))
    .draw_indirect(h.control, CbtHandles::DRAW_ARGS_OFFSET, 1, 16);
}

/// `raster.cbt_debug` in edges-only mode over `target` (kept), depth-tested against the
/// publish pass's depth (`depth`, kept), so only visible edges show: wireframe over shading.
pub fn declare_debug_edges(
    g: &mut Graph<'_>,
    h: &CbtHandles,
    s: &SurfaceBindings,
    target: &mut ImageRef,
    depth: &mut ImageRef,
) {
    let state = RasterState {
        depth_test: true,
        depth_write: false,
        depth_compare: vk::CompareOp::GREATER_OR_EQUAL,
        ..RasterState::default()
    };
    g.raster(
        "raster.cbt_debug",
        &shaders::RASTER_CBT_DEBUG_VERT,
        &shaders::RASTER_CBT_DEBUG_FRAG,
    )
    .read("pool", h.pool)
    .read("draw_list", h.draw_list)
    .read("frame", s.frame)
    .push(&(MeshStyle::Edges as u32))
    .state(state)
    .color(target, LoadOp::Load)
    .depth(depth, LoadOp::Load)
    .draw_indirect(h.control, CbtHandles::DRAW_ARGS_OFFSET, 1, 16);
}
