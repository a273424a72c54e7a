#version 460
// bench.grid: the fragment work of raster.hardware (64-bit atomicMin of depth | id into a
// visibility buffer after the early depth test), without the mesh.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

layout(push_constant) uniform Push {
    uint cols;
    uint rows;
    uint width;
    uint height;
} pc;

layout(early_fragment_tests) in;
layout(std430, set = 0, binding = 0) buffer Vis { uint64_t v[]; } vis;
layout(location = 0) flat in uint v_tri;

void main() {
    float depth = 1.0 / max(gl_FragCoord.z, 1e-30);
    uint px = uint(gl_FragCoord.y) * pc.width + uint(gl_FragCoord.x);
    atomicMin(vis.v[px], (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(v_tri));
}
