// publish.resolve: what the design assigns to the fragment stage, once per pixel in compute.
// Intersect the pixel's ray with the leaf that won the visibility buffer, find the point's tile
// and texel (re-addressed to the tile that holds it, past a face edge on the face that owns it),
// read the blended surface and make the published hit follow the surface, not the chord: where
// chord and surface disagree by more than 1 m, or by 0.01% of the distance when that is less
// (so near the camera every visible discrepancy is corrected), move the hit along
// the ray onto the R + h shell — a safeguarded root search (Newton start, secant, regula
// falsi, bisection where it creeps) within 10% of the distance, else keep the chord, or (off
// by default) first the ray's first crossing within that reach widened to the chord's sag
// (`first_crossing`) — then,
// where a neighbouring pixel drew something in front of the chord's plane (an outline: the ray
// passed just over it), search the ray from that depth for the first crossing
// (`march_outline`); on grazing rays (off by default) march back within the search's reach for
// detail the chord passed under (`march_back`); and write the packed hit record.
// Each surface evaluation is one parent-chain walk giving height, gradient and level together,
// and plane coordinates come from `locate` (no chart inverse): the chord point costs one walk,
// each search step one, and the normal reuses the accepted point's walk. Every point of a
// pixel's ray is located from one hint (the chord point's), so its slot is found once.
#ifndef RESOLVE_GLSL
#define RESOLVE_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/surface.glsl"
#include "common/bisector.glsl"
#include "common/hit.glsl"
#include "common/raster.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer Vis { uint64_t v[]; } vis;
layout(set = 0, binding = 2, rgba32ui) uniform writeonly uimage2D hits;
// Per pool entry, the last frame whose visibility buffer the leaf won a pixel of: the next
// frame's raster.compute.early draws those leaves first (occlusion culling).
layout(std430, set = 0, binding = 3) writeonly buffer Seen { uint frame[]; } seen;
// flags bit 0: no surface correction; bits 8–23: samples of the march back along a grazing ray
// (0: none); bit 25: the root search bisects where regula falsi creeps; bits 26–31: pieces of
// the first-crossing search at most (0: none); frame_stamp: this
// frame's stamp for `seen` (0: none); outline: samples of the outline search at most (0: none).
// shell: pieces of the search from the conservative shell at most (0: none).
layout(push_constant) uniform Push { uint flags; uint frame_stamp; uint outline; uint shell; } pc;
#ifdef RESOLVE_SEARCHES
// The nearest prism face per pixel (common/raster_shell.glsl): where the surface may first rise
// above the chords, keyed as the visibility buffer.
layout(std430, set = 0, binding = 4) readonly buffer Shell { uint64_t v[]; } shell;
#endif

// Surface walks (locate + the blended chain) this invocation took, published in the hit record
// (common/hit.glsl) for `shade.aov` and the bench: where the resolve's time goes.
uint g_walks = 0u;
uint walks_flag() { return min(g_walks, 255u) << HIT_WALKS_SHIFT; }

#define CORRECT_ABS_M 1.0
#define CORRECT_REL 1e-4
#define CORRECT_MAX_REL 0.1
// The first-crossing search's window at most, a share of the distance each side of the chord.
#define CROSSING_MAX_REL 0.5
// Halvings of the first-crossing search's grid at most (pieces of up to four texels).
#define CROSSING_COARSEN 3
// Doublings of its window toward the camera where the ray is under the ground at its start.
#define CROSSING_BACK_STEPS 3
// Steps of its refinement once the entry is bracketed.
#define CROSSING_REFINE_STEPS 10
// Steps of the root search once bracketed.
#define CORRECT_BRACKETED_STEPS 14
// Detail a leaf's chord may pass under: at most MARCH_EDGE_SHARE of its longest edge (what its
// edge-midpoint residuals cannot see is narrower than an edge, and no detail is taller than
// 0.9 of its half-width: rocks, and bands capped at 0.30 of their wavelength, TERRAIN.md §6),
// and never more than the tallest rock, m.
#define MARCH_HEIGHT_M 2.0
#define MARCH_EDGE_SHARE 0.5
// Sample spacing along the ground: under the narrowest rock's width (its short axis, 0.8 m), m.
#define MARCH_STEP_M 0.5

vec3 corner(Bisector b, uint k) { return vec3(b.positions[3u * k], b.positions[3u * k + 1u], b.positions[3u * k + 2u]); }

// The leaf's longest chord edge, m: what bounds the detail its chord may pass under.
float longest_edge(Bisector b) {
    vec3 c0 = corner(b, 0u), c1 = corner(b, 1u), c2 = corner(b, 2u);
    return sqrt(max(max(dot(c1 - c0, c1 - c0), dot(c2 - c1, c2 - c1)), dot(c0 - c2, c0 - c2)));
}

// Local up (unit radial direction) at a point with plane coords ab in slot r's frame.
vec3 local_up(SlotRecord r, vec2 ab) { return normalize(r.n.xyz + ab.x * r.e1.xyz + ab.y * r.e2.xyz); }

// Distance along `d` to the datum sphere (the ocean surface), or 1e30: the stable form of
// the ray–sphere root, from the camera's altitude (precise near the ground) rather than from
// planet-sized coordinates.
float ocean_distance(vec3 d) {
    float alt = frame.eye_altitude;
    float R = frame.planet_radius;
    if (alt <= 0.0) return 1e30;
    vec3 up = normalize(-frame.planet_center);
    float b = (R + alt) * dot(d, up);      // −(d·c), c = centre relative to the camera
    float c = alt * (2.0 * R + alt);       // |c|² − R²
    float disc = b * b - c;
    if (disc < 0.0 || b >= 0.0) return 1e30;
    return c / (-b + sqrt(disc));
}

// Publish the ocean surface at distance t_o if the blended terrain below it is the sea floor:
// below the datum, with an ocean sample around it. Land below the datum (the Qattara
// Depression, polders) and lakes (drawn at their own level by the mesh) have none.
bool try_ocean(vec3 d, float t_o, uint face, ivec2 X, uvec2 px) {
    uint fs;
    vec2 st;
    vec3 abh;
    locate_abh(d * t_o, face, X, fs, st, abh);
    g_walks++;
    uint level;
    float h_floor = height_grad_level_at(fs, st, t_o, level).x;
    if (h_floor >= 0.0 || ocean_weight(slots.s[fs], st) == 0.0) return false;
    vec3 up = local_up(slots.s[fs], abh.xy);
    imageStore(hits, ivec2(px), pack_hit(t_o, up, fs, level, HIT_WATER | HIT_OCEAN | walks_flag(), st));
    return true;
}

// Ray–plane of the leaf's chord triangle: the distance along `d`, and the barycentrics of the
// point clamped into the triangle (a pixel centre can sit just outside the triangle that
// covered it).
float chord_distance(Bisector b, vec3 d, out vec2 bary) {
    vec3 p0 = corner(b, 0u), p1 = corner(b, 1u), p2 = corner(b, 2u);
    vec3 e1 = p1 - p0, e2 = p2 - p0;
    vec3 nrm = cross(e1, e2);
    float denom = dot(nrm, d);
    float t = abs(denom) > 1e-30 ? dot(nrm, p0) / denom : length(p0);
    vec3 q = d * t - p0;
    float d11 = dot(e1, e1), d12 = dot(e1, e2), d22 = dot(e2, e2);
    float q1 = dot(q, e1), q2 = dot(q, e2);
    float inv = 1.0 / max(d11 * d22 - d12 * d12, 1e-30);
    float b1 = clamp((d22 * q1 - d12 * q2) * inv, 0.0, 1.0);
    float b2 = clamp((d11 * q2 - d12 * q1) * inv, 0.0, 1.0 - b1);
    bary = vec2(b1, b2);
    return t;
}

// Fixed-point hint for locating the chord point: the leaf's corners interpolated (differences
// are small for small triangles), on the leaf's face.
ivec2 fixed_hint(Bisector b, vec2 bary, out uint face) {
    uint root = uint(b.path >> (b.depth - 5u));
    face = (root - 16u) / 2u;
    ivec2 c0 = ivec2(b.corners[0], b.corners[1]);
    ivec2 c1 = ivec2(b.corners[2], b.corners[3]);
    ivec2 c2 = ivec2(b.corners[4], b.corners[5]);
    return c0 + ivec2(round(bary.x * vec2(c1 - c0) + bary.y * vec2(c2 - c0)));
}

// A point on the ray and the blended surface under it: where it lies (slot, texel, plane
// coordinates) and the surface's height, gradient and level there, from one walk.
struct RayPoint {
    float t;
    uint fs;
    vec2 st;
    vec2 ab;
    vec3 hg;
    uint level;
    float f;    // height of the ray point over the surface (m)
};

// `start`: the hint's slot (`hint_slot`), found once per pixel for every point of its ray.
RayPoint ray_point(vec3 d, float t, uint start) {
    RayPoint q;
    q.t = t;
    vec3 abh;
    locate_abh_from(d * t, start, q.fs, q.st, abh);
    g_walks++;
    q.ab = abh.xy;
    q.hg = height_grad_level_at(q.fs, q.st, t, q.level);
    q.f = abh.z - q.hg.x;
    return q;
}

// Root of f(t') = (height of the ray point) − (surface height there) along the ray, in the
// tile frame (no planet-sized subtraction), starting from the chord point p0. A Newton step on
// the ray's radial rate (exact over flat ground) starts it; then secant steps on measured f
// until the root is bracketed, and regula falsi (Illinois) inside the bracket, bisecting where a
// step did not halve it — on a slope seen at a grazing angle the surface's own gradient
// dominates f', and the radial rate alone overshoots by the ratio of the two. Every step stays
// within 10% of the chord distance. Replaces p with the best point only where the search got
// |f| below `trigger`, or converged (|f| or the bracket within the tolerance).
bool correct_along_ray(vec3 d, uint start, float trigger, bool bisect, inout RayPoint p) {
    float t = p.t;
    float lo = (1.0 - CORRECT_MAX_REL) * t, hi = (1.0 + CORRECT_MAX_REL) * t;
    float t_a = t, f_a = p.f;
    float t_b = t, f_b = f_a;
    bool bracketed = false;
    int side = 0;
    float width = 0.0;   // the bracket's width before the last step
    float rate = dot(d, local_up(slots.s[p.fs], p.ab));
    rate = abs(rate) < 1e-6 ? -1e-6 : rate;
    float tc = clamp(t - f_a / rate, lo, hi);
    RayPoint best = p;
    // Six steps; with `bisect`, up to CORRECT_BRACKETED_STEPS once the root is bracketed: at a
    // step edge (quantised or faceted detail) a root bracketed but not reached in six would
    // leave the chord, centimetres off there.
    for (int k = 0; k < (bisect && bracketed ? CORRECT_BRACKETED_STEPS : 6); ++k) {
        RayPoint c = ray_point(d, tc, start);
        float fc = c.f;
        if (abs(fc) < abs(best.f)) best = c;
        // Close enough at a quarter of the trigger: an error δ along the ray moves the surface
        // point by at most δ/(2·t·pixel angle) pixels, 0.05 px for the trigger at 1080p and
        // 60°, so a quarter is 0.013 px; and never finer than float distances resolve.
        if (abs(fc) < max(0.25 * trigger, 1e-3 * max(1.0, 1e-4 * tc))) break;
        if (!bracketed && fc * f_a > 0.0) {
            // Same side: secant through the last two points (Newton's rate if flat).
            float den = fc - f_a;
            float tn = abs(den) > 1e-9 ? tc - fc * (tc - t_a) / den : tc - fc / rate;
            t_a = tc;
            f_a = fc;
            tc = clamp(tn, lo, hi);
            if (tc == t_a) break;   // pinned at the 10% bound: no root in reach
            continue;
        }
        if (!bracketed) {
            t_b = tc; f_b = fc; bracketed = true;
            width = 2.0 * abs(t_b - t_a);
        } else if (fc * f_a > 0.0) {
            t_a = tc; f_a = fc;
            if (side == -1) f_b *= 0.5;
            side = -1;
        } else {
            t_b = tc; f_b = fc;
            if (side == 1) f_a *= 0.5;
            side = 1;
        }
        tc = (t_a * f_b - t_b * f_a) / (f_b - f_a);
        // Where a step did not halve the bracket, bisect: at a step edge (quantised or faceted
        // detail) f is nearly flat on one side and regula falsi creeps along it.
        float w = abs(t_b - t_a);
        if (bisect && w > 0.5 * width) tc = 0.5 * (t_a + t_b);
        width = w;
    }
    // Accepted below the threshold that asked for it, or converged (at 20,000 km the
    // threshold, 1 m, is below a float distance's resolution; the tolerance is not); or a
    // bracket as narrow as that tolerance along the ray, where f steps (a cliff's edge, a seam)
    // and no point meets the threshold. A wider bracket alone is not taken: its sign change
    // may be a seam of the blend rather than a root.
    float tol = 1e-3 * max(1.0, 1e-4 * best.t);
    if ((abs(best.f) < max(trigger, tol) || (bisect && bracketed && abs(t_b - t_a) < tol))
        && best.t > 0.0) {
        p = best;
        return true;
    }
    return false;
}

#ifdef RESOLVE_SEARCHES
// Height of ray point t over tile `slot` alone, read in that tile (no locate, no level walk);
// false outside the tile.
bool over_tile(vec3 d, float t, uint slot, out float f) {
    SlotRecord r = slots.s[slot];
    vec3 abh = point_to_plane(r, d * t);
    vec2 st = chart_forward(r, abh.xy);
    f = 0.0;
    if (any(lessThan(st, vec2(0.0))) || any(greaterThan(st, vec2(512.0)))) return false;
    f = abh.z - tile_height(r, st);
    return true;
}

// The ray's entry into the surface between a (over it) and b (under it): regula falsi
// (Illinois), the point of smallest |f| it met.
RayPoint entry_between(vec3 d, uint start, RayPoint a, RayPoint b) {
    float fa = a.f, fb = b.f;
    RayPoint best = -b.f < a.f ? b : a;
    int side = 0;
    for (int it = 0; it < 6; ++it) {
        float tc = (a.t * fb - b.t * fa) / (fb - fa);
        RayPoint c = ray_point(d, tc, start);
        if (abs(c.f) < abs(best.f)) best = c;
        if (abs(c.f) < 1e-3 * max(1.0, 1e-4 * tc)) break;
        if (c.f > 0.0) {
            a = c; fa = c.f;
            if (side == 1) fb *= 0.5;
            side = 1;
        } else {
            b = c; fb = c.f;
            if (side == -1) fa *= 0.5;
            side = -1;
        }
    }
    return best;
}

// The ray's entry into the surface between a (over it) and b (under it) within one piece of the
// first-crossing search: regula falsi (Illinois), bisecting where a step did not halve the
// bracket (at a crest's or a step's edge f is nearly flat on one side and regula falsi creeps
// along it), until |f| or the bracket is within the tolerance; the point of smallest |f| met,
// or the bracket's near end where the bracket closed first.
RayPoint entry_in_piece(vec3 d, uint start, RayPoint a, RayPoint b) {
    float fa = a.f, fb = b.f;
    RayPoint best = -b.f < a.f ? b : a;
    int side = 0;
    float width = 2.0 * (b.t - a.t);   // the bracket's width before the last step
    for (int it = 0; it < CROSSING_REFINE_STEPS; ++it) {
        float tc = (a.t * fb - b.t * fa) / (fb - fa);
        if (b.t - a.t > 0.5 * width) tc = 0.5 * (a.t + b.t);
        width = b.t - a.t;
        RayPoint c = ray_point(d, tc, start);
        if (abs(c.f) < abs(best.f)) best = c;
        float tol = 1e-3 * max(1.0, 1e-4 * tc);
        if (abs(c.f) < tol) return c;
        if (c.f > 0.0) {
            a = c; fa = c.f;
            if (side == 1) fb *= 0.5;
            side = 1;
        } else {
            b = c; fb = c.f;
            if (side == -1) fa *= 0.5;
            side = -1;
        }
        if (b.t - a.t < tol) return a;
    }
    return best;
}

// The ray's point at distance t on tile r's half-texel grid: its lines are the integers.
vec2 half_texel_grid(SlotRecord r, vec3 d, float t) { return 2.0 * chart_forward(r, point_to_plane(r, d * t).xy); }

// Pieces of a grid (lines at the integers) that the segment from g0 to g1 crosses.
float grid_pieces(vec2 g0, vec2 g1) {
    return abs(floor(g1.x) - floor(g0.x)) + abs(floor(g1.y) - floor(g0.y)) + 1.0;
}

// The first crossing of the ray with the surface in [t0, t1]: the search's window, widened
// where the chord may sag farther at the ray's slope. Near the camera at a walker's height the
// mesh's chords lie a decimetre or more off the finest bands, a tenth of the eye's height: a
// search that starts at the chord may find no root in its reach (the hit stays on the chord,
// under or over the ground) or, over a wider window, a later root behind a crest, and which
// one changes from frame to frame as the chords do (pops). Within a half texel of the
// selected level the surface is bilinear in one cell of that level and of each ancestor (their
// cell edges lie on its integer or half-integer s and t), so along the ray f is a quadratic
// per piece between the window's crossings of that half-texel grid: the ends and the middle of
// each piece give it (up to the chart's curvature over a texel). Pieces are taken from the
// camera's side; the first whose middle or end is under the surface, or whose parabola dips
// under it between them, brackets the entry, and `entry_in_piece` finds it. False where the
// ray is under the surface at t0 and still at t_min, where the window crosses more than
// `max_pieces` pieces of four texels (far, grazing rays: the search beside the chord serves
// them), or where the ray stays over the surface.
bool first_crossing(vec3 d, uint start, float t0, float t1, float t_min, uint max_pieces, inout RayPoint p) {
    uint level;
    float w;
    vec2 st = p.st;
    uint sl = selected_tile(p.fs, st, t0, level, w);
    SlotRecord r = slots.s[sl];
    vec2 g0 = half_texel_grid(r, d, t0);
    vec2 g1 = half_texel_grid(r, d, t1);
    // Where that grid gives more than `max_pieces`, pieces of two, four or eight half texels:
    // the parabola through a piece's three points then approximates it. The finest levels
    // resample a coarser one (L16–L18 resample L15, TERRAIN.md §6), so over a few of their
    // texels the surface is smooth and the parabola close.
    float scale = 1.0;
    for (int k = 0; k < CROSSING_COARSEN && grid_pieces(g0, g1) > float(max_pieces); ++k) {
        g0 *= 0.5;
        g1 *= 0.5;
        scale *= 0.5;
    }
    if (grid_pieces(g0, g1) > float(max_pieces)) return false;
    // The camera is over the ground, so the entry lies after some point of the ray that is.
    // Where the chord lies farther off the ground than its sag allows (a corner still
    // morphing, detail steeper than the bound), the window's start may be under it: the start
    // steps back toward the camera, doubling the window, rather than leave the hit on the
    // chord in this frame and not the next.
    // A wider window's pieces are counted before its start is walked: one with too many is
    // given up without the walk.
    RayPoint a = ray_point(d, t0, start);
    for (int k = 0; k < CROSSING_BACK_STEPS && a.f <= 0.0 && t0 > t_min; ++k) {
        float tb = max(t_min, t1 - 2.0 * (t1 - t0));
        vec2 gb = scale * half_texel_grid(r, d, tb);
        if (grid_pieces(gb, g1) > float(max_pieces)) return false;
        t0 = tb;
        g0 = gb;
        a = ray_point(d, t0, start);
    }
    if (a.f <= 0.0) return false;
    vec2 dg = g1 - g0;
    // u (0 at t0, 1 at t1) of the next grid line along each axis, and between lines.
    vec2 du = vec2(abs(dg.x) > 1e-6 ? 1.0 / abs(dg.x) : 2.0, abs(dg.y) > 1e-6 ? 1.0 / abs(dg.y) : 2.0);
    vec2 frac0 = vec2(dg.x > 0.0 ? ceil(g0.x) - g0.x : g0.x - floor(g0.x),
                      dg.y > 0.0 ? ceil(g0.y) - g0.y : g0.y - floor(g0.y));
    vec2 um = vec2(abs(dg.x) > 1e-6 ? frac0.x * du.x : 2.0, abs(dg.y) > 1e-6 ? frac0.y * du.y : 2.0);
    RayPoint prev = a;
    float u = 0.0;
    for (uint k = 0u; k <= max_pieces; ++k) {
        float un = min(min(um.x, um.y), 1.0);
        if (um.x <= um.y) um.x += du.x; else um.y += du.y;
        // A piece shorter than a thousandth of the window (a grid corner) joins the next.
        if (un < 1.0 && un - u < 1e-3) continue;
        float tb = mix(t0, t1, un);
        RayPoint m = ray_point(d, 0.5 * (prev.t + tb), start);
        if (m.f <= 0.0) { p = entry_in_piece(d, start, prev, m); return true; }
        RayPoint e = ray_point(d, tb, start);
        if (e.f <= 0.0) { p = entry_in_piece(d, start, m, e); return true; }
        // All three over the surface: the parabola through them may still dip under it.
        float h = 0.5 * (tb - prev.t);
        float c2 = (prev.f - 2.0 * m.f + e.f) / (2.0 * h * h);
        float c1 = (e.f - prev.f) / (2.0 * h);
        if (c2 > 0.0) {
            float tv = m.t - c1 / (2.0 * c2);
            if (tv > prev.t && tv < tb && m.f - c1 * c1 / (4.0 * c2) < 0.0) {
                RayPoint v = ray_point(d, tv, start);
                if (v.f <= 0.0) {
                    p = entry_in_piece(d, start, tv < m.t ? prev : m, v);
                    return true;
                }
            }
        }
        prev = e;
        u = un;
        if (un >= 1.0) break;
    }
    return false;
}

// The chord can pass under detail the mesh does not resolve (rocks, bands finer than its leaves).
// A grazing ray then passes over the near chords and hits one behind; the search above finds the
// root beside that chord, at the far side of the detail, while the surface rose above the ray
// earlier: the pixel sees the ground behind a rock. Where such detail (at most `hidden` metres
// over the chord) could lie on the ray within the search's reach before p, sample the ray from
// the camera's side of that window toward p, about every MARCH_STEP_M of ground; at the first
// sample below the surface the entry is bracketed, and regula falsi (Illinois) finds it.
bool march_back(vec3 d, uint start, uint max_samples, float hidden, bool exhaustive, inout RayPoint p) {
    float rate = abs(dot(d, local_up(slots.s[p.fs], p.ab)));
    float w = min(CORRECT_MAX_REL * p.t, hidden / max(rate, 1e-6));
    // Detail stands on the ground, so a ray passes over it unseen only by travelling across its
    // footprint: the samples are spaced along the ground, not along the ray. A steep ray crosses
    // the window's ground in centimetres and needs none (the search beside the chord found the
    // top under it); nor does the surface hold features narrower than its finest texel there.
    float across = w * sqrt(max(0.0, 1.0 - rate * rate));
    float spacing = max(MARCH_STEP_M, slots.s[p.fs].texel_m);
    uint samples = exhaustive ? max_samples : min(max_samples, uint(ceil(across / spacing)));
    if (samples < 2u) return false;
    float step = w / float(samples);
    RayPoint a = ray_point(d, p.t - w, start);
    if (a.f <= 0.0) return false;   // already below the surface: the entry is beyond reach
    // The cheap test: the window spans at most a tenth of the distance, so the level chosen
    // changes by at most log2(1.1) over it, and the blend there is (about) a mix of the level
    // chosen at p and its parent: a sample over both tiles is over the surface. Only where it
    // is not (or leaves the tiles) does the sample, and the one before it as the bracket's
    // other end, get the full walk.
    uint level;
    float wl;
    select_level(level_lod(p.t), slots.s[p.fs].level, level, wl);
    vec2 stl = p.st;
    uint sl = ancestor_at(p.fs, stl, level);
    uint sp = slots.s[sl].parent;
    for (uint k = 1u; k < samples; ++k) {
        float tk = p.t - w + step * float(k);
        float f1, f2;
        if (!exhaustive && over_tile(d, tk, sl, f1) && f1 > 0.0
            && (sp == NO_SLOT || (over_tile(d, tk, sp, f2) && f2 > 0.0))) {
            continue;
        }
        RayPoint b = ray_point(d, tk, start);
        if (b.f > 0.0) { a = b; continue; }
        if (a.t < tk - 1.5 * step) {
            RayPoint m = ray_point(d, tk - step, start);
            if (m.f > 0.0) a = m; else b = m;
        }
        p = entry_between(d, start, a, b);
        return true;
    }
    return false;
}

// Outlines. The chords sag under the surface by up to their residual, and at the depth cap
// (near the camera) by centimetres: a ray that passes just over a crest's chord meets the chord
// behind it, and the crest's outline is drawn a few pixels lower than the surface's (5 rows at
// 8 m in the Khumbu descent: 4.5 cm at 1080p). Which pixels can be such rays shows in the
// visibility buffer itself: a neighbour drew something in front of the plane of the chord this
// pixel hit, so the ray passed over a surface that rose before its hit, seen a few pixels away.
// Those rays are searched from that surface's depth for the first crossing; the others keep
// the chord's root. The neighbours read: OUTLINE_REACH px left, right and below (an outline's
// front is below it, or beside it), at offsets 1–8 along five directions.
#define OUTLINE_REACH 8
#define OUTLINE_W (8 + 2 * OUTLINE_REACH)
#define OUTLINE_H (8 + OUTLINE_REACH)
// A neighbour nearer than the pixel's chord plane along its ray by more than this share is
// something rising in front of it (a curving surface departs from its chord plane far less
// over 8 px); also the share beyond the surface search's reach.
#define OUTLINE_GAP CORRECT_MAX_REL
// Samples a texel apart from the neighbour's depth before their spacing doubles.
#define OUTLINE_UNIFORM 4u
// Steps of the search for a dip between the samples.
#define OUTLINE_MIN_STEPS 4

// Visibility keys (leaf, view depth bits) of the workgroup's 8×8 pixels and the neighbours
// their outline test reads.
shared uvec2 s_key[OUTLINE_W * OUTLINE_H];

void load_depths() {
    ivec2 base = ivec2(gl_WorkGroupID.xy) * 8 - ivec2(OUTLINE_REACH, 0);
    ivec2 vp = ivec2(frame.viewport);
    for (uint i = gl_LocalInvocationIndex; i < uint(OUTLINE_W * OUTLINE_H); i += 64u) {
        ivec2 q = base + ivec2(int(i) % OUTLINE_W, int(i) / OUTLINE_W);
        uint64_t k = 0xffffffffffffffffUL;
        if (all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, vp))) {
            k = vis.v[q.y * vp.x + q.x];
        }
        s_key[i] = uvec2(uint(k & 0xffffffffUL), uint(k >> 32));
    }
}

// The view depth of the neighbour nearest on screen (the nearer of those as near) drawn in
// front of the plane (normal nrm, through p0) of the chord this pixel hit, at depth w_p: the
// surface the ray most likely passed just over. 1e30 where there is none.
float outline_depth(uvec2 px, vec3 nrm, vec3 p0, float w_p) {
    ivec2 l = ivec2(gl_LocalInvocationID.xy) + ivec2(OUTLINE_REACH, 0);
    float plane = dot(nrm, p0);
    const ivec2 dirs[5] = ivec2[](ivec2(0, 1), ivec2(-1, 1), ivec2(1, 1), ivec2(-1, 0), ivec2(1, 0));
    const int steps[6] = int[](1, 2, 3, 4, 6, 8);
    for (int j = 0; j < 6; ++j) {
        float nearest = 1e30;
        for (int i = 0; i < 5; ++i) {
            ivec2 o = dirs[i] * steps[j];
            uvec2 k = s_key[(l.y + o.y) * OUTLINE_W + l.x + o.x];
            if (k.y == 0xffffffffu) continue;
            float w = NEAR * uintBitsToFloat(k.y);
            if (w >= (1.0 - OUTLINE_GAP) * min(w_p, nearest)) continue;
            // The plane along the neighbour's ray, at view depth plane / (nrm · r); not met in
            // front of the camera: anything nearer than the pixel is in front of it.
            float den = dot(nrm, pixel_depth_ray(vec2(px) + 0.5 + vec2(o)));
            float w_plane = den * plane > 0.0 ? plane / den : 1e30;
            if (w >= (1.0 - OUTLINE_GAP) * w_plane) continue;
            // The ray passes the neighbour's point about |o| pixels away: it can meet detail
            // there only as tall as its chord may sag (the march's bound: half the leaf's
            // longest edge, at most MARCH_HEIGHT_M).
            float sag = min(MARCH_HEIGHT_M, MARCH_EDGE_SHARE * longest_edge(pool.b[k.x]));
            if (length(vec2(o)) * frame.pixel_angle * w > sag) continue;
            nearest = w;
        }
        if (nearest < 1e30) return nearest;
    }
    return 1e30;
}

// The first crossing along the ray between t0 and p (whose ray point is on the surface), where
// the ray passed over a surface that rose before p, drawn beside the pixel at t0. Its crest
// lies just behind what was drawn, so the samples start there a texel of the finest level
// apart (OUTLINE_UNIFORM of them), then double their spacing toward p, at most `max_samples`:
// at the first below the surface the entry is bracketed.
bool march_outline(vec3 d, uint start, float t0, uint max_samples, inout RayPoint p) {
    float t1 = p.t;
    // A texel of ground along a ray that crosses it at incidence `rate` is texel / sin.
    float rate = abs(dot(d, local_up(slots.s[p.fs], p.ab)));
    float h = slots.s[p.fs].texel_m / max(sqrt(max(0.0, 1.0 - rate * rate)), 0.1);
    t0 -= h;
    if (!(t0 > 0.0 && t0 < t1)) return false;
    RayPoint a = ray_point(d, t0, start);
    if (a.f <= 0.0) return false;   // under the surface already: the entry is before the window
    RayPoint prev = a, low = a, before_low = a, after_low = a;
    bool need_after = false;
    float step = h;
    for (uint k = 0u; k < max_samples; ++k) {
        float tk = prev.t + step;
        if (k + 1u >= OUTLINE_UNIFORM) step *= 2.0;
        if (tk >= t1) break;
        RayPoint b = ray_point(d, tk, start);
        if (need_after) { after_low = b; need_after = false; }
        if (b.f <= 0.0) {
            p = entry_between(d, start, prev, b);
            return true;
        }
        if (b.f < low.f) {
            before_low = prev;
            low = b;
            need_after = true;
        }
        prev = b;
    }
    // The lowest sample at either end: the ray falls toward p or rises from t0, no dip seen.
    if (low.t == a.t || need_after) return false;
    // No sample is under the surface, but the ray may still dip under a crest between two:
    // a few steps of minimising the ray's height over the surface in the bracket around the
    // lowest sample (the vertex of the parabola through the three, kept off the ends and off
    // the middle point, else the wider side's golden point).
    RayPoint lo = before_low, hi = after_low;
    for (int it = 0; it < OUTLINE_MIN_STEPS; ++it) {
        float u = low.t - lo.t, v = low.t - hi.t;
        float fu = low.f - hi.f, fv = low.f - lo.f;
        float den = u * fu - v * fv;
        float tv = abs(den) > 1e-30 ? low.t - 0.5 * (u * u * fu - v * v * fv) / den : low.t;
        float width = hi.t - lo.t;
        if (!(tv > lo.t + 0.05 * width && tv < hi.t - 0.05 * width)
            || abs(tv - low.t) < 0.02 * width) {
            tv = low.t - lo.t > hi.t - low.t ? low.t - 0.382 * (low.t - lo.t)
                                             : low.t + 0.382 * (hi.t - low.t);
        }
        RayPoint c = ray_point(d, tv, start);
        if (c.f <= 0.0) {
            p = entry_between(d, start, tv < low.t ? lo : low, c);
            return true;
        }
        if (c.f < low.f) {
            if (tv < low.t) hi = low; else lo = low;
            low = c;
        } else if (tv < low.t) {
            lo = c;
        } else {
            hi = c;
        }
    }
    return false;
}

#endif // RESOLVE_SEARCHES

// Normal from the blended surface's gradient (per texel of the finest tile) carried into 3D
// through the chart's Jacobian, measured with two forward evaluations (no Newton steps):
// ∂p/∂a = (R+h)·(e1 − up·(up·e1))/S + (∂h/∂a)·up, likewise b.
vec3 surface_normal(RayPoint p) {
    SlotRecord r = slots.s[p.fs];
    vec2 ab = p.ab;
    const float eps = 1e-3;
    float da = eps * r.chart_inv_scale;
    vec2 js_a = (chart_forward(r, ab + vec2(da, 0.0)) - p.st) / da;   // ∂(s,t)/∂a
    vec2 js_b = (chart_forward(r, ab + vec2(0.0, da)) - p.st) / da;   // ∂(s,t)/∂b
    float dh_da = dot(p.hg.yz, js_a), dh_db = dot(p.hg.yz, js_b);
    vec3 up = local_up(r, ab);
    float S = sqrt(1.0 + dot(ab, ab));
    float Rh = frame.planet_radius + p.hg.x;
    vec3 tan_a = Rh * (r.e1.xyz - up * dot(up, r.e1.xyz)) / S + dh_da * up;
    vec3 tan_b = Rh * (r.e2.xyz - up * dot(up, r.e2.xyz)) / S + dh_db * up;
    vec3 n = normalize(cross(tan_a, tan_b));
    return dot(n, up) < 0.0 ? -n : n;
}

// Ray distance of view depth w along pixel px's ray.
float ray_distance(uvec2 px, float w) { return w * length(pixel_depth_ray(vec2(px) + 0.5)); }

// Publish the accepted point p: its normal, water, and the record.
void publish_hit(uvec2 px, RayPoint p, uint flags) {
    vec3 n = surface_normal(p);
    if (water_at_level(p.fs, p.st, p.t) > 0.5) flags |= HIT_WATER;
    imageStore(hits, ivec2(px), pack_hit(p.t, n, p.fs, p.level, flags | walks_flag(), p.st));
}

// No terrain on the ray: the ocean surface where it meets the datum over water (the sea floor
// beyond the datum horizon was culled — the ocean hides it), else sky.
void no_terrain(vec3 d, float t_ocean, uvec2 px) {
    uint face;
    ivec2 X;
    dir_to_face_fixed(normalize(d * t_ocean - frame.planet_center), face, X);
    if (t_ocean < 1e30 && try_ocean(d, t_ocean, face, X, px)) return;
    imageStore(hits, ivec2(px), uvec4(0u));
}

// The pixel's terrain (or the ocean in front of it) published; false where the ray meets no
// terrain.
bool resolve_terrain(uvec2 px, vec3 d, float t_ocean, uint64_t key, uint64_t skey) {
    // A ray that passes over every chord but enters a prism: its search from the prism's face
    // reaches 10 % of the distance past it, and where it finds no crossing the ray sees past
    // the terrain.
    bool shell_only = key == 0xffffffffffffffffUL && skey != 0xffffffffffffffffUL;
    if (key == 0xffffffffffffffffUL && !shell_only) return false;
    bool shelled = uint(skey >> 32) < uint(key >> 32);
    uint leaf = uint((shell_only ? skey : key) & 0xffffffffUL);
    if (pc.frame_stamp != 0u) seen.frame[leaf] = pc.frame_stamp;
    Bisector b = pool.b[leaf];
    vec2 bary;
    float t = chord_distance(b, d, bary);
    uint face;
    ivec2 X = fixed_hint(b, bary, face);
    // The prism's face, as a distance along the ray.
    float t_s = shelled ? ray_distance(px, NEAR * uintBitsToFloat(uint(skey >> 32))) : t;
    if (shell_only) t = (1.0 + CORRECT_MAX_REL) * t_s;

    // The ocean surface in front of the terrain hides it (water only). Located from its own
    // direction: the leaf's hint is at the sea floor's chord point, kilometres down the ray
    // at a grazing view, more tiles away than locating walks at the levels near the camera.
    if (t_ocean < min(t, t_s)) {
        uint face_o;
        ivec2 X_o;
        dir_to_face_fixed(normalize(d * t_ocean - frame.planet_center), face_o, X_o);
        if (try_ocean(d, t_ocean, face_o, X_o, px)) return true;
    }

    uint start = hint_slot(face, X);
    RayPoint p = ray_point(d, t, start);
    uint flags = 0u;
    float trigger = min(CORRECT_ABS_M, CORRECT_REL * t);
    bool correct = (pc.flags & 1u) == 0u;
    bool need_root = correct && abs(p.f) > trigger && !shell_only;
    // The first crossing, one search for either window: from the shell's face where a prism
    // is in front of the chord (the surface may rise above the ray between them; to the chord
    // point where that is under the ground, else 10 % past it); else, off by default, within
    // the search's reach widened to the chord's sag at this ray's slope (up to
    // CROSSING_MAX_REL of the distance). Where the window has too many pieces (far, grazing
    // rays) or holds no crossing, the search beside the chord.
    bool crossed = false;
#ifdef RESOLVE_SEARCHES
    uint pieces = 0u;
    float w0 = t, w1 = t, w_min = t;
    if (correct && shelled) {
        pieces = pc.shell;
        w0 = t_s;
        w1 = p.f < 0.0 ? t : (1.0 + CORRECT_MAX_REL) * t;
        w_min = (1.0 - CORRECT_MAX_REL) * t_s;
    } else if (need_root && (pc.flags >> 26u) > 0u) {
        pieces = pc.flags >> 26u;
        float rate = abs(dot(d, local_up(slots.s[p.fs], p.ab)));
        float sag = min(MARCH_HEIGHT_M, MARCH_EDGE_SHARE * longest_edge(b));
        float reach = clamp(sag / max(rate, 1e-6), CORRECT_MAX_REL * t, CROSSING_MAX_REL * t);
        // A chord point under the ground has the entry before it: the window ends there.
        w0 = t - reach;
        w1 = p.f < 0.0 ? t : t + reach;
        w_min = (1.0 - CROSSING_MAX_REL) * t;
    }
    crossed = pieces > 0u && w0 < w1 * (1.0 - 1e-4)
        && first_crossing(d, start, w0, w1, w_min, pieces, p);
    if (shell_only && !crossed) return false;
    bool bisect = (pc.flags & (1u << 25u)) != 0u;
#else
    const bool bisect = false;
#endif
    if (crossed || (need_root && correct_along_ray(d, start, trigger, bisect, p))) {
        flags |= HIT_CORRECTED;
    }
#ifdef RESOLVE_SEARCHES
    if (correct && pc.outline != 0u && !shell_only) {
        vec3 p0 = corner(b, 0u);
        vec3 nrm = cross(corner(b, 1u) - p0, corner(b, 2u) - p0);
        float w_p = NEAR * uintBitsToFloat(uint(key >> 32));
        float w_o = outline_depth(px, nrm, p0, w_p);
        if (w_o < 1e30 && march_outline(d, start, t * w_o / w_p, pc.outline, p)) {
            flags |= HIT_CORRECTED;
        }
    }
    uint march = (pc.flags >> 8u) & 0xffffu;
    if (correct && march > 0u && !shell_only) {
        float edge = longest_edge(b);
        // Bit 24 (a reference for comparisons): the tallest detail under every leaf, sampled
        // `march` times whatever the spacing.
        bool exhaustive = (pc.flags & (1u << 24u)) != 0u;
        float hidden = exhaustive ? MARCH_HEIGHT_M : min(MARCH_HEIGHT_M, MARCH_EDGE_SHARE * edge);
        // Hidden detail under a pixel tall changes nothing the image can show.
        if (hidden > p.t * frame.pixel_angle && march_back(d, start, march, hidden, exhaustive, p)) {
            flags |= HIT_CORRECTED;
        }
    }
#endif
    publish_hit(px, p, flags);
    return true;
}

void main() {
#ifdef RESOLVE_SEARCHES
    // Before any invocation returns: the whole workgroup loads the depths (a push constant
    // decides, so the barrier is reached by all or none).
    if (pc.outline != 0u) {
        load_depths();
        barrier();
    }
#endif
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= uint(frame.viewport.x) || px.y >= uint(frame.viewport.y)) return;
    uint idx = px.y * uint(frame.viewport.x) + px.x;
    uint64_t key = vis.v[idx];
#ifdef RESOLVE_SEARCHES
    uint64_t skey = pc.shell != 0u ? shell.v[idx] : 0xffffffffffffffffUL;
#else
    const uint64_t skey = 0xffffffffffffffffUL;
#endif
    vec3 d = pixel_ray(vec2(px) + 0.5);
    float t_ocean = ocean_distance(d);
    if (!resolve_terrain(px, d, t_ocean, key, skey)) no_terrain(d, t_ocean, px);
}

#endif
