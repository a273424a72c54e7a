#version 460
// Locate probes: where `locate` (common/surface.glsl) finds camera-relative points given a
// fixed-point hint, for the test that a point past its hint's face is read on the face that
// owns it (engine/src/surface.rs `locate` is the reference).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#include "common/surface.glsl"

// Per probe: the point (camera-relative, m; w unused), then the hint (face, X, Y, unused).
layout(std430, set = 0, binding = 0) readonly buffer Probes { vec4 p[]; } probes_in;
layout(std430, set = 0, binding = 1) readonly buffer Hints { uvec4 h[]; } hints_in;
// Per probe: the slot found, its texel coordinates (s, t) and the point's height there (m).
layout(std430, set = 0, binding = 2) writeonly buffer Results { vec4 r[]; } results_out;
layout(push_constant) uniform Push { uint count; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uvec4 hint = hints_in.h[i];
    uint fs;
    vec2 st;
    float h;
    locate(probes_in.p[i].xyz, hint.x, ivec2(hint.yz), fs, st, h);
    results_out.r[i] = vec4(float(fs), st, h);
}
