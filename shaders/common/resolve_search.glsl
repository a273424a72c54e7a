// The resolve's searches for crossings the chord's root misses (publish.resolve.search only;
// included by common/resolve.glsl after the root search): the first crossing within a window
// (`first_crossing`), the march back along grazing rays (`march_back`) and the outline search
// (`march_outline`). They share one entry search, `entry_between` (common/resolve_entry.glsl),
// and read the surface only through `ray_point` and `over_tile`.
#ifndef RESOLVE_SEARCH_GLSL
#define RESOLVE_SEARCH_GLSL
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

// Steps of the entry's search after the march back's or the outline search's bracket.
#define ENTRY_STEPS 6

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
// under it between them, brackets the entry, and `entry_between` finds it. False where the
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
        if (m.f <= 0.0) { p = entry_between(d, start, prev, m, CROSSING_REFINE_STEPS, true); return true; }
        RayPoint e = ray_point(d, tb, start);
        if (e.f <= 0.0) { p = entry_between(d, start, m, e, CROSSING_REFINE_STEPS, true); return true; }
        // All three over the surface: the parabola through them may still dip under it.
        float h = 0.5 * (tb - prev.t);
        float c2 = (prev.f - 2.0 * m.f + e.f) / (2.0 * h * h);
        float c1 = (e.f - prev.f) / (2.0 * h);
        if (c2 > 0.0) {
            float tv = m.t - c1 / (2.0 * c2);
            if (tv > prev.t && tv < tb && m.f - c1 * c1 / (4.0 * c2) < 0.0) {
                RayPoint v = ray_point(d, tv, start);
                if (v.f <= 0.0) {
                    p = entry_between(d, start, tv < m.t ? prev : m, v, CROSSING_REFINE_STEPS, true);
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

// The march back and the outline search are not in publish.resolve.shell, which runs neither.
#ifndef RESOLVE_SHELL_PASS
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
        p = entry_between(d, start, a, b, ENTRY_STEPS, false);
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
            p = entry_between(d, start, prev, b, ENTRY_STEPS, false);
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
            p = entry_between(d, start, tv < low.t ? lo : low, c, ENTRY_STEPS, false);
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
#endif  // RESOLVE_SHELL_PASS

#endif
