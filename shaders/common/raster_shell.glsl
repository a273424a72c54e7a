// The conservative shell: where the surface may rise above a leaf's chord. The mesh's chords
// pass under detail their edge midpoints do not see (at the depth cap near the camera a crest
// of L15+ bands stands centimetres over them), and a ray that passes over every chord but under
// such a crest meets the ground behind it: in one frame the crest is missing, in the next a
// split puts a chord under it and it appears (the descent's worst pops, docs/bench.md "The
// searches at 1080p"). So each leaf whose chord may lie a pixel or more under the surface is
// also drawn as a prism: its chord raised along the local up by SHELL_K times its largest
// edge-midpoint residual (a quadratic surface over the triangle rises at most 4/3 of its
// largest midpoint residual over the chord; finer detail is what the factor's margin covers),
// its top and the side walls that face the camera. The nearest prism face per pixel is kept
// in `publish.shell` (the visibility key's form: view depth bits over the leaf), and
// publish.resolve searches the ray from there for the first crossing: a ray can meet the
// surface inside a prism only after entering it, and the walls close the gap between two
// neighbours raised by different heights, so the search starts before every crossing the
// residuals bound. Shared by raster.compute (prisms whose box one thread takes) and
// raster.compute.big (one workgroup per tile of the others).
#ifndef RASTER_SHELL_GLSL
#define RASTER_SHELL_GLSL

#include "common/frame.glsl"
#include "common/raster.glsl"

// Leaves whose raise is under this many pixels at their nearest corner get no prism: the
// resolve's root search beside the chord reaches that far.
#define SHELL_MIN_PX 1.0
// Marks a hand-over entry (big.leaves[].x) as a leaf's prism rather than its chord.
#define SHELL_ENTRY 0x80000000u

// A leaf's prism in clip space: corners 0–2 the chord's, 3–5 raised. False where the leaf needs
// none (its raise is under SHELL_MIN_PX) or a corner is near the near plane (the chord alone is
// drawn there: a leaf that close is under the camera, its detail a pixel's worth of the
// search's reach).
bool shell_prism(vec3 p[3], float r_px, float k, out vec4 c[6]) {
    float dmin = min(min(length(p[0]), length(p[1])), length(p[2]));
    float dmax = max(max(length(p[0]), length(p[1])), length(p[2]));
    // The residuals are screen angles at the midpoints: as metres, at the farthest corner's
    // distance (an over-estimate, the safe side).
    float raise = k * r_px * frame.pixel_angle * dmax;
    for (uint i = 0u; i < 6u; ++i) c[i] = vec4(0.0);
    if (k <= 0.0 || raise < SHELL_MIN_PX * frame.pixel_angle * dmin) return false;
    vec3 up = normalize((p[0] + p[1] + p[2]) / 3.0 - frame.planet_center) * raise;
    for (uint i = 0u; i < 3u; ++i) {
        c[i] = frame.view_proj * vec4(p[i], 1.0);
        c[i + 3u] = frame.view_proj * vec4(p[i] + up, 1.0);
    }
    for (uint i = 0u; i < 6u; ++i) {
        if (raster_near(c[i])) return false;
    }
    return true;
}

// The pixel box of a prism's corners; false when off screen.
bool shell_box(vec4 c[6], vec2 vp, out vec2 lo, out vec2 hi) {
    vec2 smin = vec2(1e30), smax = vec2(-1e30);
    for (uint i = 0u; i < 6u; ++i) {
        vec2 s = raster_screen(c[i], vp);
        smin = min(smin, s);
        smax = max(smax, s);
    }
    return raster_box(smin, smax, vp, lo, hi);
}

// The prism's faces that face the camera (camera-relative positions: the eye is the origin),
// as up to 7 triangles over the prism's screen corners: the top, and two per wall. A face
// facing away is never where a ray enters. Kept as corner indices (4 bits each), not as set-up
// triangles: a compute shader with barriers is a coroutine on lavapipe, whose frame holds
// every live value.
struct ShellFaces {
    vec2 s[6];
    float z[6];
    uint tri[7];
    uint n;
};

void shell_add(uint a, uint b, uint d, inout ShellFaces f) { f.tri[f.n++] = a | b << 4u | d << 8u; }

ShellFaces shell_faces(vec3 p[3], vec4 c[6], vec2 vp) {
    ShellFaces f;
    f.n = 0u;
    for (uint i = 0u; i < 6u; ++i) {
        f.s[i] = raster_screen(c[i], vp);
        f.z[i] = c[i].z / c[i].w;
    }
    for (uint i = 0u; i < 7u; ++i) f.tri[i] = 0u;
    vec3 g = (p[0] + p[1] + p[2]) / 3.0;
    vec3 up = normalize(g - frame.planet_center);
    // The top faces the camera where the eye is above its plane.
    if (dot(up, p[0]) < 0.0) shell_add(3u, 4u, 5u, f);
    for (uint e = 0u; e < 3u; ++e) {
        uint a = e, b = (e + 1u) % 3u;
        // The wall's outward normal: across the edge and the up, away from the centroid.
        vec3 n = cross(p[b] - p[a], up);
        if (dot(n, p[a] - g) < 0.0) n = -n;
        if (dot(n, p[a]) >= 0.0) continue;   // faces away
        shell_add(a, b, b + 3u, f);
        shell_add(a, b + 3u, a + 3u, f);
    }
    return f;
}

// Face i of f set up for coverage, and its pixel box within [lo, hi] (the prism's box, or a
// tile of it); false where it covers no pixel there. The faces are drawn one at a time, each set
// up once: the camera-facing faces of a convex prism do not overlap on screen, so walking them
// in turn costs about one coverage test and one atomic per covered pixel, where testing every
// face at every pixel of the prism's box set each face up again at each pixel. Where two faces
// share an edge pixel both keep their depth in `publish.shell`'s atomicMin, which leaves the
// nearer, as taking the nearest face per pixel did.
bool shell_face(ShellFaces f, uint i, vec2 lo, vec2 hi, out RasterTri t, out vec2 flo, out vec2 fhi) {
    uint a = f.tri[i] & 15u, b = (f.tri[i] >> 4u) & 15u, d = f.tri[i] >> 8u;
    vec2 blo, bhi;
    bool on_screen = raster_box(min(min(f.s[a], f.s[b]), f.s[d]), max(max(f.s[a], f.s[b]), f.s[d]),
                                frame.viewport, blo, bhi);
    flo = max(lo, blo);
    fhi = min(hi, bhi);
    if (!on_screen || !raster_setup(f.s[a], f.s[b], f.s[d], vec3(f.z[a], f.z[b], f.z[d]), t)) return false;
    return all(lessThanEqual(flo, fhi));
}

#endif
