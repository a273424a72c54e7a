#version 460
// Surface probes: evaluates the blended surface where the CPU reference does, for the
// GPU-vs-CPU agreement test (engine/src/surface.rs is the reference).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#include "common/surface.glsl"

// Per probe: face, X, Y, t bits (t = ray distance in metres, or 0 for the two-pass vertex path).
layout(std430, set = 0, binding = 0) readonly buffer Probes { uvec4 probes[]; } probes_in;
// Per probe: height (fixed t), level, the vertex path's level and lod; its position xyz and
// height; where locate() finds that position (s, t, slot) and its height there minus the vertex's.
layout(std430, set = 0, binding = 1) writeonly buffer Results { vec4 results[]; } results_out;
layout(push_constant) uniform Push { uint count; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uvec4 p = probes_in.probes[i];
    uint face = p.x;
    uvec2 X = p.yz;
    float t = uintBitsToFloat(p.w);
    uint f2 = face;
    uvec2 X2 = X;
    canonical_vertex(f2, X2);
    uint fs = finest_slot(f2, X2, frame.max_level);
    uint level;
    float h = height_at(fs, fixed_to_st(fs, X2), t, level);
    SurfacePoint sp = surface_at_fixed(face, X);
    // locate() from the vertex position must find the vertex's own tile and texel coordinates
    // (on the face that owns the point: probes may lie past their face's edge).
    uint fs2;
    vec2 st2;
    float hc;
    locate(sp.pos, f2, ivec2(X2), fs2, st2, hc);
    results_out.results[3u * i] = vec4(h, float(level), float(sp.level), sp.lod);
    results_out.results[3u * i + 1u] = vec4(sp.pos, sp.height);
    results_out.results[3u * i + 2u] = vec4(st2, float(fs2), hc - sp.height);
}
