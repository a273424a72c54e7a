// The compute rasteriser's one definition of coverage, depth and key, shared by raster.compute
// (one thread per small leaf) and raster.compute.big (one workgroup per tile of a big or
// near-plane-crossing leaf), so leaves drawn by either meet without cracks.
//
// Coverage is inclusive: a pixel centre within RASTER_EPS_PX of an edge counts, so neighbouring
// leaves can overlap on a shared edge but never leave a crack; overlaps are resolved by depth
// like any other. The margin is a distance in pixels, not in barycentric units: a barycentric
// margin grows with the triangle (1e-4 of a 2,000 px near-plane crosser's height is 0.2 px of
// overdraw at its silhouette). Depth is z_ndc interpolated linearly in screen space,
// as the hardware interpolates it (for a plane, near / view depth is affine in screen space).
#ifndef RASTER_GLSL
#define RASTER_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// Near plane of the reverse-Z projection, m (engine/src/frame_constants.rs NEAR_M); z_clip is
// NEAR at every vertex, w_clip the view depth.
#define NEAR 0.05
// px: above the f32 error of the edge functions at the coordinates of a clipped 4K leaf
// (~1e5 px × 6e-8) and below the 0.004 px of an 8-bit sub-pixel grid.
#define RASTER_EPS_PX 1e-3
// Side of the screen tiles raster.compute.big gives one workgroup each, px.
#define RASTER_TILE 32u
// Side of raster.hiz's depth tiles, px.
#define RASTER_HIZ_TILE 8u
// Levels of raster.hiz above the tiles (engine/src/publish.rs HIZ_COARSE_LEVELS).
#define RASTER_HIZ_COARSE 4u

// Where raster.hiz keeps cell `c` of level `l` (cells of RASTER_HIZ_TILE / 2 << l px: level 0
// the quarters, 1 the tiles, 2… coarser) for a viewport of `tiles` tiles: the tiles first, then
// the quarters, then each coarser level row by row.
uint hiz_index(uint l, uvec2 c, uvec2 tiles) {
    if (l == 1u) return c.y * tiles.x + c.x;
    if (l == 0u) return tiles.x * tiles.y + c.y * 2u * tiles.x + c.x;
    uint base = 5u * tiles.x * tiles.y;
    for (uint k = 1u; k + 1u < l; ++k) {
        uvec2 d = (tiles + (1u << k) - 1u) >> k;
        base += d.x * d.y;
    }
    uvec2 d = (tiles + (1u << (l - 1u)) - 1u) >> (l - 1u);
    return base + c.y * d.x + c.x;
}

float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }

// Clip space → pixels (y down, pixel centres at +0.5).
vec2 raster_screen(vec4 c, vec2 vp) { return (c.xy / c.w * 0.5 + 0.5) * vp; }

// The pixel box [lo, hi] (inclusive, clamped to the viewport) whose centres the screen points
// can cover; false when it is empty (off screen).
bool raster_box(vec2 smin, vec2 smax, vec2 vp, out vec2 lo, out vec2 hi) {
    lo = max(floor(smin - 0.5), vec2(0.0));
    hi = min(ceil(smax - 0.5), vp - 1.0);
    return all(lessThanEqual(lo, hi));
}

// A triangle set up for coverage tests: screen corners, 1 / signed area, z_ndc per corner, and
// the coverage margin per barycentric (RASTER_EPS_PX over the height above the opposite edge).
struct RasterTri {
    vec2 s0, s1, s2;
    float inv;
    vec3 z;
    vec3 eps;
};

// False when the triangle is degenerate (covers no pixel centre).
bool raster_setup(vec2 s0, vec2 s1, vec2 s2, vec3 z, out RasterTri t) {
    float area = cross2(s1 - s0, s2 - s0);
    t = RasterTri(s0, s1, s2, 0.0, z, vec3(0.0));
    if (abs(area) < 1e-12) return false;
    t.inv = 1.0 / area;
    t.eps = RASTER_EPS_PX * abs(t.inv) * vec3(length(s2 - s1), length(s0 - s2), length(s1 - s0));
    return true;
}

// Whether pixel centre q is covered (inclusively); z: its z_ndc, > 0 when covered.
bool raster_covers(RasterTri t, vec2 q, out float z) {
    // Each weight from its own edge (not 1 − w0 − w1, whose rounding grows with the triangle).
    vec3 w = vec3(cross2(t.s1 - q, t.s2 - q), cross2(t.s2 - q, t.s0 - q), cross2(t.s0 - q, t.s1 - q)) * t.inv;
    z = dot(w, t.z);
    return all(greaterThanEqual(w, -t.eps)) && z > 0.0;
}

// The pixel columns [x0, x1] of row `y` (within [lo, hi]) whose centres can be covered: each
// edge's weight is affine along the row, so each bounds the span from one side; widened by a
// pixel against rounding, then every pixel in it is still tested with raster_covers, so the
// coverage is exactly the box loop's. False when the row is empty.
bool raster_row_span(RasterTri t, float y, float lo, float hi, out float x0, out float x1) {
    vec2 q = vec2(lo, y) + 0.5;
    vec3 w = vec3(cross2(t.s1 - q, t.s2 - q), cross2(t.s2 - q, t.s0 - q), cross2(t.s0 - q, t.s1 - q)) * t.inv;
    // d w / d q.x of each edge.
    vec3 slope = vec3(t.s1.y - t.s2.y, t.s2.y - t.s0.y, t.s0.y - t.s1.y) * t.inv;
    float a = 0.0, b = hi - lo;   // offsets from lo
    for (int i = 0; i < 3; ++i) {
        float need = -t.eps[i] - w[i];   // slope · dx ≥ need
        if (slope[i] > 0.0) a = max(a, floor(need / slope[i]) - 1.0);
        else if (slope[i] < 0.0) b = min(b, ceil(need / slope[i]) + 1.0);
        else if (need > 0.0) return false;
    }
    x0 = lo + max(a, 0.0);
    x1 = lo + min(b, hi - lo);
    return x0 <= x1;
}

// The visibility key raster.hardware writes too: view depth bits (1 / z_ndc, positive, so the
// bits order like the value) over the leaf.
uint64_t raster_key(float z, uint leaf) {
    return (uint64_t(floatBitsToUint(1.0 / z)) << 32) | uint64_t(leaf);
}

// Whether a corner is too close to the near plane for raster.compute's unclipped path (0.1 %
// margin: such leaves take the clipped path).
bool raster_near(vec4 c) { return c.w < NEAR * 1.001; }

// The triangle clipped against the near plane (w ≥ z_clip, i.e. view depth ≥ NEAR, the plane
// the hardware clips at) as a convex polygon of 0, 3 or 4 clip-space corners, in order
// (Sutherland–Hodgman against one plane). Returns the corner count.
uint raster_clip_near(vec4 c[3], out vec4 p[4]) {
    p[0] = p[1] = p[2] = p[3] = vec4(0.0);
    uint n = 0u;
    for (uint k = 0u; k < 3u; ++k) {
        vec4 a = c[k], b = c[(k + 1u) % 3u];
        float da = a.w - a.z, db = b.w - b.z;
        if (da >= 0.0) {
            p[n++] = a;
        }
        if ((da >= 0.0) != (db >= 0.0)) {
            vec4 x = mix(a, b, da / (da - db));
            x.w = x.z; // exactly on the plane
            p[n++] = x;
        }
    }
    return n;
}

// A leaf's corners clipped and projected: screen points and z_ndc of the polygon (fanned from
// corner 0 into n − 2 triangles), its pixel box; false when nothing of it is on screen.
struct RasterPoly {
    vec2 s[4];
    float z[4];
    uint n;
    vec2 lo, hi;
};

bool raster_poly(vec4 c[3], vec2 vp, out RasterPoly r) {
    vec4 p[4];
    r.n = raster_clip_near(c, p);
    vec2 smin = vec2(1e30), smax = vec2(-1e30);
    for (uint k = 0u; k < 4u; ++k) {
        r.s[k] = vec2(0.0);
        r.z[k] = 0.0;
        if (k < r.n) {
            r.s[k] = raster_screen(p[k], vp);
            r.z[k] = p[k].z / p[k].w;
            smin = min(smin, r.s[k]);
            smax = max(smax, r.s[k]);
        }
    }
    r.lo = r.hi = vec2(0.0);
    if (r.n < 3u) return false;
    return raster_box(smin, smax, vp, r.lo, r.hi);
}

// Tiles of RASTER_TILE² px over a pixel box (tiles start at the box's corner).
uvec2 raster_tiles(vec2 lo, vec2 hi) {
    uvec2 box = uvec2(hi - lo) + 1u;
    return (box + RASTER_TILE - 1u) / RASTER_TILE;
}

#endif
