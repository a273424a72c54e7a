#version 460
// raster.big.args: raster.compute.big's dispatch from the hand-over tally: one workgroup per
// tile, folded into rows of 65,535 groups (the least maxComputeWorkGroupCount[0] Vulkan
// promises); the tile count in w for the guard.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
#define RASTER_BIG_ACCESS readonly
#define RASTER_BIG_BINDING 0
#include "common/raster_big.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Dispatch { uint args[4]; } dispatch;

void main() {
    uint tiles = uint(big.tally);
    dispatch.args[0] = min(tiles, 65535u);
    dispatch.args[1] = (tiles + 65534u) / 65535u;
    dispatch.args[2] = 1u;
    dispatch.args[3] = tiles;
}
