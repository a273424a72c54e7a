// Hit records (publish.resolve → resolve.*): 16 bytes per pixel, uvec4.
//   x: distance along the ray (f32 bits, metres); 0 = no terrain (sky/background)
//   y: normal, octahedral 2×16-bit unorm
//   z: slot (low 16 bits) | level (bits 16–20) | ocean water (bit 21) | corrected (bit 22) |
//      ocean surface (bit 23: the hit is the datum over water, not the sea floor) |
//      surface walks publish.resolve took for the pixel (bits 24–31, at most 255: a cost probe)
//   w: texel (s, t) in the slot, 2×16-bit fixed point (1/64 texel, range [−8, 1016))
#ifndef HIT_GLSL
#define HIT_GLSL

#include "common/surface.glsl"

#define HIT_WATER (1u << 21)
#define HIT_CORRECTED (1u << 22)
#define HIT_OCEAN (1u << 23)
#define HIT_WALKS_SHIFT 24u

vec2 oct_encode(vec3 n) {
    n /= abs(n.x) + abs(n.y) + abs(n.z);
    vec2 e = n.z >= 0.0 ? n.xy : (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    return e * 0.5 + 0.5;
}

vec3 oct_decode(vec2 e) {
    e = e * 2.0 - 1.0;
    vec3 n = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    float t = clamp(-n.z, 0.0, 1.0);
    n.xy += vec2(n.x >= 0.0 ? -t : t, n.y >= 0.0 ? -t : t);
    return normalize(n);
}

uvec4 pack_hit(float dist, vec3 normal, uint slot, uint level, uint flags, vec2 st) {
    uvec2 q = uvec2(clamp((st + 8.0) * 64.0, vec2(0.0), vec2(65535.0)));
    return uvec4(floatBitsToUint(dist), packUnorm2x16(oct_encode(normal)), (slot & 0xffffu) | (level << 16) | flags, q.x | (q.y << 16));
}

float hit_dist(uvec4 h) { return uintBitsToFloat(h.x); }
vec3 hit_normal(uvec4 h) { return oct_decode(unpackUnorm2x16(h.y)); }
uint hit_slot(uvec4 h) { return h.z & 0xffffu; }
uint hit_level(uvec4 h) { return (h.z >> 16) & 31u; }
bool hit_ocean(uvec4 h) { return (h.z & HIT_OCEAN) != 0u; }
uint hit_walks(uvec4 h) { return h.z >> HIT_WALKS_SHIFT; }
vec2 hit_st(uvec4 h) { return vec2(float(h.w & 0xffffu), float(h.w >> 16)) / 64.0 - 8.0; }

// Water at the hit. The ocean surface carries the flag; a terrain hit reads the covers of the
// level its distance selects (`water_at_level`), only in the consumers that ask (the water
// view, the AOV, shading without footprints): the resolve would spend a parent-chain walk on
// every pixel for a flag the shaded view's footprint taps supersede. From the record's 1/64
// texel st: within that of a cover's 0.5 contour the flag may differ from the exact point's.
bool hit_water(uvec4 h) {
    return (h.z & HIT_WATER) != 0u
        || water_at_level(hit_slot(h), hit_st(h), hit_dist(h)) > 0.5;
}

#endif
