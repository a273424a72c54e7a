#version 460
// publish.depth: the raster depth (reverse-Z z_ndc) from the visibility buffer, for overlays
// that are depth-tested against the terrain (raster.cbt_debug's edges) when the publish drew
// in compute only. The key holds 1 / z_ndc; its inverse is pulled 1e-5 toward the far side so
// that an edge drawn again over its own leaf passes GREATER_OR_EQUAL despite the round trip
// and the hardware's own interpolation (1 cm at 1 km).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "common/frame.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Vis { uint64_t v[]; } vis;

void main() {
    uint px = uint(gl_FragCoord.y) * uint(frame.viewport.x) + uint(gl_FragCoord.x);
    uint bits = uint(vis.v[px] >> 32);
    if (bits == 0xffffffffu) discard; // nothing drawn: the cleared depth (0, infinity) stays
    gl_FragDepth = (1.0 - 1e-5) / uintBitsToFloat(bits);
}
