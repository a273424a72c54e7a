// LEB paths, corners and bit words (mirror of engine/src/cbt/leb.rs and sumtree.rs helpers).
// Orientation: docs/conventions.md "CBT triangles".
#ifndef CBT_LEB_GLSL
#define CBT_LEB_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "common/bisector.glsl"

// Bit length of a path (0 for the free marker 0).
uint leb_depth(uint64_t path) {
    uint hi = uint(path >> 32), lo = uint(path);
    return hi != 0u ? 33u + uint(findMSB(hi)) : uint(findMSB(lo) + 1);
}

// Cube face of an entry (root r = path >> (depth - 5) - 16 lies on face r / 2).
uint leb_face(uint64_t path) {
    uint d = leb_depth(path);
    return uint((path >> (d - CBT_BASE_DEPTH)) - 16ul) / 2u;
}

bool leb_is_even(uint64_t path) { return (uint(path) & 1u) == 0u; }

// [v0, v1, v2] from the packed X0 Y0 X1 Y1 X2 Y2.
uvec2 corner(uint c[6], uint k) { return uvec2(c[2u * k], c[2u * k + 1u]); }

// Midpoint rounded down: the exact midpoint when both sums are even (every split down to
// depth 65), the model's midpoint_floor otherwise. Corners are <= 2^30, so sums fit in 32 bits.
uvec2 midpoint_floor(uvec2 a, uvec2 b) { return (a + b) >> 1; }

bool midpoint_exact(uvec2 a, uvec2 b) { return ((a.x + b.x) & 1u) == 0u && ((a.y + b.y) & 1u) == 0u; }

// The edge vertex v was born on (leb.rs birth_edge: the 4-8 rule); false for a face corner.
uint trailing_zeros(uint x) { return x == 0u ? 32u : uint(findLSB(x)); }
bool birth_edge(uvec2 v, out uvec2 a, out uvec2 b) {
    uint tx = trailing_zeros(v.x), ty = trailing_zeros(v.y);
    uint k = min(tx, ty);
    a = v;
    b = v;
    if (k >= 30u) return false;
    uint s = 1u << k;
    if (tx != ty) {
        uvec2 d = tx == k ? uvec2(s, 0u) : uvec2(0u, s);
        a = v - d;
        b = v + d;
    } else if ((((v.x >> (k + 1u)) + (v.y >> (k + 1u))) & 1u) == 0u) {
        a = v - uvec2(s);
        b = v + uvec2(s);
    } else {
        a = uvec2(v.x - s, v.y + s);
        b = uvec2(v.x + s, v.y - s);
    }
    return true;
}

// 64-bit bit words stored as uint pairs (see cbt_buffers.glsl): popcount of the bits of
// word (lo, hi) strictly below bit b.
uint popcount_below(uint lo, uint hi, uint b) {
    if (b < 32u) return bitCount(lo & ((1u << b) - 1u));
    return bitCount(lo) + bitCount(hi & ((1u << (b - 32u)) - 1u));
}

// Position (0..63) of the rank-th set bit of word (lo, hi); rank < popcount.
uint select_in_word(uint lo, uint hi, uint rank) {
    uint base = 0u;
    uint w = lo;
    uint n = uint(bitCount(lo));
    if (rank >= n) {
        rank -= n;
        base = 32u;
        w = hi;
    }
    for (uint width = 16u; width > 0u; width >>= 1) {
        uint low = w & ((1u << width) - 1u);
        uint m = uint(bitCount(low));
        if (rank >= m) {
            rank -= m;
            base += width;
            w >>= width;
        } else {
            w = low;
        }
    }
    return base;
}

#endif
