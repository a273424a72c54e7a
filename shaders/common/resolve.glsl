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
#if defined(RESOLVE_SKYLINE_PASS)
layout(local_size_x = 32) in;
#elif defined(RESOLVE_SHELL_PASS)
layout(local_size_x = 64) in;
#else
layout(local_size_x = 8, local_size_y = 8) in;
#endif

#include "common/surface.glsl"
#include "common/bisector.glsl"
#include "common/hit.glsl"
#include "common/raster.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer Vis { uint64_t v[]; } vis;
// Per pool entry, the last frame whose visibility buffer the leaf won a pixel of: the next
// frame's raster.compute.early draws those leaves first (occlusion culling).
layout(std430, set = 0, binding = 3) writeonly buffer Seen { uint frame[]; } seen;
#ifdef RESOLVE_SKYLINE_PASS
// Read at the pass's own pixels: an outline's hit is replaced only by a nearer crossing.
layout(set = 0, binding = 2, rgba32ui) uniform uimage2D hits;
#else
layout(set = 0, binding = 2, rgba32ui) uniform writeonly uimage2D hits;
#endif
// flags bit 0: no surface correction; bit 1: no skyline search (`skyline`); bit 2: outlines
// handed to the skyline search too (`skyline_outline_m` > 0); bits 8–23: samples
// of the march back along a grazing ray (0: none); bit 25: the root search bisects where regula
// falsi creeps; bits 26–31: pieces of the first-crossing search at most (0: none); frame_stamp:
// this frame's stamp for `seen` (0: none); outline: samples of the outline search at most (0: none).
// shell: pieces of the search from the conservative shell at most (0: none). late_after: from
// this root search step on (0: never), a point within late_scale times the trigger is close
// enough. rescue: steps in all a search still unaccepted after its ROOT_STEPS may take while
// its root is bracketed (≤ ROOT_STEPS: none), bisecting where a step does not halve the bracket.
// skyline_outline_m: outlines handed to the skyline search only where the nearer chord's view
// depth is within this, m (bit 2).
layout(push_constant) uniform Push { uint flags; uint frame_stamp; uint outline; uint shell; uint late_after; float late_scale; uint rescue; float skyline_outline_m; } pc;
#if defined(RESOLVE_SEARCHES) || defined(RESOLVE_SHELL_HANDOVER)
// The nearest prism face per pixel (common/raster_shell.glsl): where the surface may first rise
// above the chords, keyed as the visibility buffer.
layout(std430, set = 0, binding = 4) readonly buffer Shell { uint64_t v[]; } shell;
#endif
#if defined(RESOLVE_SHELL_HANDOVER) || defined(RESOLVE_SHELL_PASS)
// The pixels whose ray enters a prism in front of its chord (or a prism alone), handed by
// publish.resolve to publish.resolve.shell: a header that is the shell pass's dispatch (groups
// of 64, 1, 1) and the count, then one pixel (x | y << 16) each; room for every pixel. Those
// rays need the first-crossing search from the prism's face; the rest keep the lean resolve,
// without the searches' registers, and the searched rays run side by side in full warps rather
// than each holding up a warp of finished pixels. (At a walker's height nearly every near pixel
// is handed over: docs/bench.md, "The shell's rays handed over".)
#ifdef RESOLVE_SHELL_PASS
layout(std430, set = 0, binding = 6) readonly buffer Shelled { uint w[]; } shelled;
#else
layout(std430, set = 0, binding = 6) buffer Shelled { uint w[]; } shelled;
#endif
#endif
// The sky pixels beside terrain (and, with `skyline_outlines`, the pixels behind an outline),
// handed by every resolve pass to publish.resolve.skyline: a header that is its
// dispatch (one workgroup a pixel, at most 65,535 groups, 1, 1) and the count, then one pixel
// (x | y << 16) each; room for every pixel.
#ifdef RESOLVE_SKYLINE_PASS
layout(std430, set = 0, binding = 7) readonly buffer Skylined { uint w[]; } skylined;
#else
layout(std430, set = 0, binding = 7) buffer Skylined { uint w[]; } skylined;
#endif

// Surface walks (locate + the blended chain) this invocation took, published in the hit record
// (common/hit.glsl) for `shade.aov` and the bench: where the resolve's time goes.
uint g_walks = 0u;
uint walks_flag() { return min(g_walks, 255u) << HIT_WALKS_SHIFT; }

// Whether the ray enters a prism in front of the chord it hit, or a prism where it hit none.
bool shell_nearer(uint64_t key, uint64_t skey) { return uint(skey >> 32) < uint(key >> 32); }

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
bool try_ocean(vec3 d, float t_o, uvec2 px) {
    // Located from its own direction: a leaf's hint may be kilometres down the ray (the sea
    // floor's chord point at a grazing view), more tiles away than locating walks.
    uint face;
    ivec2 X;
    dir_to_face_fixed(normalize(d * t_o - frame.planet_center), face, X);
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
// covered it), and the triangle's (unnormalised) normal.
float chord_distance(Bisector b, vec3 d, out vec2 bary, out vec3 nrm) {
    vec3 p0 = corner(b, 0u), p1 = corner(b, 1u), p2 = corner(b, 2u);
    vec3 e1 = p1 - p0, e2 = p2 - p0;
    nrm = cross(e1, e2);
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

// Steps a search takes before it gives up and leaves the chord.
#define ROOT_STEPS 6

// Whether a search that has taken k steps is past its ROOT_STEPS with its root bracketed and
// not reached (at a step edge, quantised or faceted detail, regula falsi creeps along the flat
// side), and carries on (`pc.rescue`): the chord it would leave lies centimetres off the
// surface, and the next frame's search, started from another chord, reaches the root: a pop of
// the chord's sag. From there a step that does not halve the bracket bisects it. With
// `bisect`, every step.
bool root_rescuing(int k, bool bisect) {
    return bisect || (pc.rescue > uint(ROOT_STEPS) && k >= ROOT_STEPS);
}

// The trigger a search that has taken k steps stops within: the trigger itself, or from
// late_after steps on late_scale times it. The steps past the first few are regula falsi
// narrowing a bracket across the surface's kinks (texel edges, rocks' facets), a few pixels
// scattered over rough near ground, one in most warps, each warp waiting on it. Not where the
// search bisects (off by default): that mode is there to reach the roots at step edges.
float root_trigger(float trigger, int k, bool bisect) {
    return !bisect && pc.late_after > 0u && k >= int(pc.late_after) ? trigger * pc.late_scale : trigger;
}

// Root of f(t') = (height of the ray point) − (surface height there) along the ray, in the
// tile frame (no planet-sized subtraction), starting from the chord point p0. A Newton step
// starts it, on the rate f would have over ground parallel to the chord's plane (normal
// `chord_n`): the ray's height over such ground changes by (n·d)/(n·up) per metre of ray, the
// radial rate d·up where the chord is level. On a slope seen at a grazing angle the slope
// dominates f', and the radial rate alone overshoots by the ratio of the two (a second walk to
// come back). The chord's normal is the leaf's, already loaded; the surface's own would cost a
// walk's worth of chart evaluations and registers (measured slower). Then secant steps on
// measured f until the root is bracketed, and regula falsi (Illinois) inside the bracket,
// bisecting where a step did not halve it. Every step stays within 10% of the chord distance.
// Replaces p with the best point only where the search got |f| below `trigger`, or converged
// (|f| or the bracket within the tolerance). One loop over locals: the same search written as
// a state and its steps cost publish.resolve 11 % on lavapipe.
bool correct_along_ray(vec3 d, uint start, float trigger_first, bool bisect, vec3 chord_n, inout RayPoint p) {
    float t = p.t;
    float lo = (1.0 - CORRECT_MAX_REL) * t, hi = (1.0 + CORRECT_MAX_REL) * t;
    float t_a = t, f_a = p.f;   // the last two points (the bracket, once bracketed)
    float t_b = t, f_b = f_a;
    bool bracketed = false;
    int side = 0;
    float width = 0.0;          // the bracket's width before the last step
    vec3 up = local_up(slots.s[p.fs], p.ab);
    // The ratio is the same whichever way the normal points. A chord steeper than about 84° (a
    // cliff's face) gives no useful rate: the radial one then.
    float n_up = dot(chord_n, up);
    float n_len = length(chord_n);
    float rate = abs(n_up) > 0.1 * n_len ? dot(chord_n, d) / n_up : dot(d, up);
    rate = abs(rate) < 1e-6 ? -1e-6 : rate;
    float tc = clamp(t - f_a / rate, lo, hi);
    RayPoint best = p;
    // ROOT_STEPS; once bracketed, with `bisect` up to CORRECT_BRACKETED_STEPS, else up to the
    // rescue's steps.
    int bracketed_steps = bisect ? CORRECT_BRACKETED_STEPS : max(ROOT_STEPS, int(pc.rescue));
    int k = 0;
    while (k < (bracketed ? bracketed_steps : ROOT_STEPS)) {
        k++;
        RayPoint c = ray_point(d, tc, start);
        float fc = c.f;
        if (abs(fc) < abs(best.f)) best = c;
        // Close enough below the trigger itself, the bound every pixel left uncorrected keeps:
        // a point |f| over the surface at distance t moves the surface point the pixel shows
        // by at most |f|/(t·pixel angle) pixels whatever the slope (on a face turned to the
        // camera the error along the ray is smaller than f), 0.1 px for the trigger at 1080p
        // and 60°; and never finer than float distances resolve. (A quarter of it took about
        // half a walk more per pixel over rough ground, for 0.08 px less.) From late_after
        // steps on, within late_scale times it (root_trigger): 0.4 px by default.
        if (abs(fc) < max(root_trigger(trigger_first, k, bisect), 1e-3 * max(1.0, 1e-4 * tc))) break;
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
        if (root_rescuing(k, bisect) && w > 0.5 * width) tc = 0.5 * (t_a + t_b);
        width = w;
    }
    // Accepted below the threshold that asked for it, or converged (at 20,000 km the threshold,
    // 1 m, is below a float distance's resolution; the tolerance is not); or a bracket as
    // narrow as that tolerance along the ray, where f steps (a cliff's edge, a seam) and no
    // point meets the threshold. A wider bracket alone is not taken: its sign change may be a
    // seam of the blend rather than a root.
    float tol = 1e-3 * max(1.0, 1e-4 * best.t);
    if ((abs(best.f) < max(root_trigger(trigger_first, k, bisect), tol)
            || (root_rescuing(k, bisect) && bracketed && abs(t_b - t_a) < tol))
        && best.t > 0.0) {
        p = best;
        return true;
    }
    return false;
}

#include "common/resolve_entry.glsl"
#ifdef RESOLVE_SEARCHES
#include "common/resolve_search.glsl"
#endif

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

// Publish the accepted point p: its normal and the record (water is read from the record where
// it is wanted: `hit_water`).
void publish_hit(uvec2 px, RayPoint p, uint flags) {
    vec3 n = surface_normal(p);
    imageStore(hits, ivec2(px), pack_hit(p.t, n, p.fs, p.level, flags | walks_flag(), p.st));
}

// No terrain on the ray: the ocean surface where it meets the datum over water (the sea floor
// beyond the datum horizon was culled — the ocean hides it), else sky.
void no_terrain(vec3 d, float t_ocean, uvec2 px) {
    // (No datum crossing, no face: most such pixels are sky.)
    if (t_ocean < 1e30 && try_ocean(d, t_ocean, px)) return;
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
    bool shelled = shell_nearer(key, skey);
    uint leaf = uint((shell_only ? skey : key) & 0xffffffffUL);
    if (pc.frame_stamp != 0u) seen.frame[leaf] = pc.frame_stamp;
    Bisector b = pool.b[leaf];
    vec2 bary;
    vec3 chord_n;
    float t = chord_distance(b, d, bary, chord_n);
    uint face;
    ivec2 X = fixed_hint(b, bary, face);
    // The prism's face, as a distance along the ray.
    float t_s = shelled ? ray_distance(px, NEAR * uintBitsToFloat(uint(skey >> 32))) : t;
    if (shell_only) t = (1.0 + CORRECT_MAX_REL) * t_s;

    // The ocean surface in front of the terrain hides it (water only).
    if (t_ocean < min(t, t_s) && try_ocean(d, t_ocean, px)) return true;

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
    if (crossed || (need_root && correct_along_ray(d, start, trigger, bisect, chord_n, p))) {
        flags |= HIT_CORRECTED;
    }
#if defined(RESOLVE_SEARCHES) && !defined(RESOLVE_SHELL_PASS)
    if (correct && pc.outline != 0u && !shell_only) {
        float w_p = NEAR * uintBitsToFloat(uint(key >> 32));
        float w_o = outline_depth(px, chord_n, corner(b, 0u), w_p);
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

#include "common/resolve_skyline.glsl"

#ifndef RESOLVE_SKYLINE_PASS
// Pixel px resolved from its visibility and shell keys: the terrain or ocean its ray meets,
// else the ocean or sky; then, beside terrain or behind an outline, handed to the skyline
// search.
void resolve_pixel(uvec2 px, uint64_t key, uint64_t skey) {
    vec3 d = pixel_ray(vec2(px) + 0.5);
    float t_ocean = ocean_distance(d);
    if (resolve_terrain(px, d, t_ocean, key, skey)) {
        // (Not a shell's crossing where no chord was drawn: that is no outline.)
        if (key != NO_KEY) skyline_push(px, key);
        return;
    }
    no_terrain(d, t_ocean, px);
    skyline_push(px, NO_KEY);
}
#endif

#ifdef RESOLVE_SHELL_HANDOVER
// Hands pixel px to publish.resolve.shell (every pixel has room).
void shell_push(uvec2 px) {
    uint i = atomicAdd(shelled.w[3], 1u);
    // The thread that opens a group of 64 counts it: the groups are then ceil(count / 64).
    if (i % 64u == 0u) atomicAdd(shelled.w[0], 1u);
    shelled.w[4u + i] = px.x | (px.y << 16);
}
#endif

#if defined(RESOLVE_SKYLINE_PASS)
// publish.resolve.skyline's main: common/resolve_skyline.glsl.
#elif defined(RESOLVE_SHELL_PASS)
// publish.resolve.shell: the pixels publish.resolve handed over, resolved as
// publish.resolve.search resolves them (the same function, the same bits).
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= shelled.w[3]) return;
    uint xy = shelled.w[4u + i];
    uvec2 px = uvec2(xy & 0xffffu, xy >> 16);
    uint idx = px.y * uint(frame.viewport.x) + px.x;
    resolve_pixel(px, vis.v[idx], shell.v[idx]);
}
#else
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
#ifdef RESOLVE_SHELL_HANDOVER
    if (pc.shell != 0u && shell_nearer(key, shell.v[idx])) {
        shell_push(px);
        return;
    }
#endif
    resolve_pixel(px, key, skey);
}
#endif


#endif
