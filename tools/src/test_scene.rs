//! The foundation's test scene: a GPU-written count drives an indirect dispatch that writes a
//! vertex buffer, drawn with an indirect draw. It exercises every access pattern the planet
//! frame uses and stands in for it until the planet lands.

use ash::vk;
use framegraph::{BufferDesc, Graph, ImageDesc, LoadOp, RasterState};

pub const COUNT: u32 = 200;

/// Declare the scene into `g`; the image is read back as "color".
pub fn build(g: &mut Graph<'_>, width: u32, height: u32) {
    let mut params = g.create_buffer("test.params", BufferDesc::gpu(16));
    let mut args = g.create_buffer("test.args", BufferDesc::indirect(2));
    let mut values = g.create_buffer("test.values", BufferDesc::gpu(4 * 256));
    let mut verts = g.create_buffer("test.verts", BufferDesc::gpu(16 * 3 * 16));
    let mut color = g.create_image("test.color", ImageDesc::d2(width, height, vk::Format::R8G8B8A8_UNORM));
    g.transfer("test.fill").fill(&mut params, 0, vk::WHOLE_SIZE, COUNT);
    g.compute("test.args", &shaders::TEST_ARGS).read("params", params).write("args", &mut args).dispatch([1, 1, 1]);
    g.compute("test.sweep", &shaders::TEST_SWEEP)
        .read("params", params)
        .write("out_values", &mut values)
        .write("out_verts", &mut verts)
        .dispatch_indirect(args, 0);
    g.raster("raster.test", &shaders::TEST_TRI_VERT, &shaders::TEST_TRI_FRAG)
        .read("in_verts", verts)
        .push(&[0.0f32, 0.0, 0.5, 0.0])
        .state(RasterState::default())
        .color(&mut color, LoadOp::Clear([0.02, 0.02, 0.05, 1.0]))
        .draw_indirect(args, 16, 1, 16);
    g.readback("values", values);
    g.readback_image("color", color);
}
