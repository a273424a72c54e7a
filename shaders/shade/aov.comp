#version 460
// shade.aov: exact per-pixel values for tests and tools, three vec4 per pixel:
//   [0] unit direction of the hit from the planet centre (xyz), distance along the ray (m)
//   [1] level, water (0/1), finest slot, surface-corrected (0/1); level −1 where no terrain
//   [2] the published shading normal (xyz, unit, planet axes; its 2×16-bit octahedral
//       encoding), the surface walks publish.resolve took for the pixel.
// Directions, not angles: GPU asin/atan are only good to ~1e-4 rad; the host converts in f64.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/hit.glsl"

layout(set = 0, binding = 0, rgba32ui) uniform readonly uimage2D hits;
layout(std430, set = 0, binding = 1) writeonly buffer Aov { vec4 v[]; } aov;

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= uint(frame.viewport.x) || px.y >= uint(frame.viewport.y)) return;
    uint i = px.y * uint(frame.viewport.x) + px.x;
    uvec4 h = imageLoad(hits, ivec2(px));
    float dist = hit_dist(h);
    if (dist <= 0.0) {
        aov.v[3u * i] = vec4(0.0);
        aov.v[3u * i + 1u] = vec4(-1.0, 0.0, 0.0, 0.0);
        aov.v[3u * i + 2u] = vec4(0.0);
        return;
    }
    uint slot = hit_slot(h);
    SlotRecord r = slots.s[slot];
    vec2 ab = chart_inverse(r, hit_st(h));
    vec3 dir = normalize(r.n.xyz + ab.x * r.e1.xyz + ab.y * r.e2.xyz);
    aov.v[3u * i] = vec4(dir, dist);
    aov.v[3u * i + 1u] = vec4(float(hit_level(h)), hit_water(h) ? 1.0 : 0.0, float(slot), (h.z & HIT_CORRECTED) != 0u ? 1.0 : 0.0);
    aov.v[3u * i + 2u] = vec4(hit_normal(h), float(hit_walks(h)));
}
