//! The foundation's test scene: a GPU-written count drives an indirect dispatch that writes a
//! vertex buffer, drawn with an indirect draw. It exercises every access pattern the planet
//! frame uses, so the viewer and the frame graph can be checked without terrain
//! (`view::scene::TestScene`).

use ash::vk;
use framegraph::{BufferDesc, Graph, ImageRef, LoadOp, RasterState};

pub const COUNT: u32 = 200;

/// Declare the scene into `g`, clearing and drawing into `color`; `blue` is the triangles'
/// blue channel (0–1).
pub fn declare(g: &mut Graph<'_>, color: &mut ImageRef, blue: f32) {
    let mut params = g.create_buffer("test.params", BufferDesc::gpu(16));
    let mut args = g.create_buffer("test.args", BufferDesc::indirect(2));
    let mut values = g.create_buffer("test.values", BufferDesc::gpu(4 * 256));
    let mut verts = g.create_buffer("test.verts", BufferDesc::gpu(16 * 3 * 16));
    g.transfer("test.fill")
        .fill(&mut params, 0, vk::WHOLE_SIZE, COUNT);
    g.compute("test.args", &shaders::TEST_ARGS)
        .read("params", params)
        .write("args", &mut args)
        .dispatch([1, 1, 1]);
    g.compute("test.sweep", &shaders::TEST_SWEEP)
        .read("params", params)
        .write("out_values", &mut values)
        .write("out_verts", &mut verts)
        .dispatch_indirect(args, 0);
    g.raster(
        "raster.test",
        &shaders::TEST_TRI_VERT,
        &shaders::TEST_TRI_FRAG,
    )
    .read("in_verts", verts)
    .push(&[0.0f32, 0.0, blue, 0.0])
    .state(RasterState::default())
    .color(color, LoadOp::Clear([0.02, 0.02, 0.05, 1.0]))
    .draw_indirect(args, 16, 1, 16);
}
