#version 460
// raster.args: from the CBT's drawn-leaf count, the compute rasteriser's dispatch (groups of
// 64 triangles, count in w for the guard) and an empty hand-over list for the big triangles:
// an empty indirect draw (raster.hardware) and a zero tally (raster.compute.big).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
#include "common/bisector.glsl"
#define RASTER_BIG_BINDING 2
#define RASTER_BIG_ACCESS writeonly
#include "common/raster_big.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Control { CbtControl c; } control;
layout(std430, set = 0, binding = 1) writeonly buffer Dispatch { uint args[4]; } dispatch;

void main() {
    uint n = control.c.draw_args[0] / 3u;
    dispatch.args[0] = (n + 63u) / 64u;
    dispatch.args[1] = 1u;
    dispatch.args[2] = 1u;
    dispatch.args[3] = n;
    big.draw_args[0] = 0u;
    big.draw_args[1] = 1u;
    big.draw_args[2] = 0u;
    big.draw_args[3] = 0u;
    big.tally = 0ul;
    big.early = 0u;
    big.occluded = 0u;
}
