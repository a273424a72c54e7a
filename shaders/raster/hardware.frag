#version 460
// raster.hardware: no shading — depth + leaf id into the 64-bit visibility buffer with atomicMin
// (a compute rasteriser can write the same buffer the same way). Key: view depth (positive f32,
// bits order like the value) in the high word, leaf index in the low word.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#include "common/frame.glsl"

layout(early_fragment_tests) in;
layout(std430, set = 0, binding = 2) buffer Vis { uint64_t v[]; } vis;
layout(location = 0) flat in uint v_leaf;

void main() {
    // Reverse-Z infinite projection: z_ndc = near / view depth.
    float depth = 1.0 / max(gl_FragCoord.z, 1e-30);
    uint px = uint(gl_FragCoord.y) * uint(frame.viewport.x) + uint(gl_FragCoord.x);
    atomicMin(vis.v[px], (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(v_leaf));
}
