// The skyline search of every resolve pass but the tail (included by common/resolve.glsl after
// `resolve_terrain`; it uses `no_terrain`, `publish_hit` and `entry_between`).
#ifndef RESOLVE_SKYLINE_GLSL
#define RESOLVE_SKYLINE_GLSL

// The skyline search (`skyline` below): its window, a share of the distance each side of the
// neighbour's chord plane; steps of its search for the ray's lowest point over the surface; steps
// of the entry's refinement.
#define SKYLINE_SPAN 0.03
#define SKYLINE_MIN_STEPS 8
#define SKYLINE_ENTRY_STEPS 8

// The entry between a (over the surface) and b (under it), published as terrain unless the
// ocean surface is nearer.
void publish_skyline(uvec2 px, vec3 d, uint start, RayPoint a, RayPoint b, float t_ocean) {
    RayPoint p = entry_between(d, start, a, b, SKYLINE_ENTRY_STEPS, false);
    if (t_ocean < p.t) {
        no_terrain(d, t_ocean, px);
        return;
    }
    publish_hit(px, p, HIT_CORRECTED);
}

// The skyline. A ray that passes just over a ridge's chord meets no leaf, but the ridge's crest
// stands over its chord by up to the leaf's residual (at the residual target, a third of a
// pixel), so such rays may still cross the surface: the outline is drawn up to a pixel inside
// the surface's (khumbu-2m-p0's see-through: ridges 130–720 m out, docs/bench.md). A sky
// pixel next to a terrain pixel searches its own ray near that neighbour's chord plane: the
// lowest point of its height over the surface within SKYLINE_SPAN of the distance each side
// (golden-section steps; a crest seen edge-on is one dip), and where that is under the surface
// the entry between the window's start and it. Any such point is a true crossing: the ray is
// under the blended surface there, as the reference would find it.
bool skyline(uvec2 px, vec3 d, float t_ocean) {
    if ((pc.flags & 3u) != 0u) return false;   // no correction, or no skyline search
    ivec2 vp = ivec2(frame.viewport);
    uint64_t best = 0xffffffffffffffffUL;
    const ivec2 nb[4] = ivec2[](ivec2(0, 1), ivec2(0, -1), ivec2(1, 0), ivec2(-1, 0));
    for (int i = 0; i < 4; ++i) {
        ivec2 q = ivec2(px) + nb[i];
        if (any(lessThan(q, ivec2(0))) || any(greaterThanEqual(q, vp))) continue;
        uint64_t k = vis.v[q.y * vp.x + q.x];
        // The nearest neighbour: depth bits over the leaf, smaller nearer.
        if (k < best) best = k;
    }
    if (best == 0xffffffffffffffffUL) return false;
    Bisector b = pool.b[uint(best & 0xffffffffUL)];
    vec2 bary;
    vec3 chord_n;
    float t = chord_distance(b, d, bary, chord_n);
    // The neighbour's own distance where this ray meets its chord's plane far off (or behind).
    float t_n = ray_distance(px, NEAR * uintBitsToFloat(uint(best >> 32)));
    if (!(t > 0.8 * t_n && t < 1.25 * t_n)) t = t_n;
    uint face;
    ivec2 X = fixed_hint(b, bary, face);
    uint start = hint_slot(face, X);
    RayPoint a = ray_point(d, (1.0 - SKYLINE_SPAN) * t, start);
    if (a.f <= 0.0) return false;   // under the surface at the window's start: not this case
    RayPoint c = ray_point(d, (1.0 + SKYLINE_SPAN) * t, start);
    if (c.f <= 0.0) {
        publish_skyline(px, d, start, a, c, t_ocean);
        return true;
    }
    // Golden-section search for the lowest point between a and c.
    const float g = 0.381966;
    RayPoint lo = a, hi = c;
    RayPoint m1 = ray_point(d, mix(lo.t, hi.t, g), start);
    for (int k = 0; k < SKYLINE_MIN_STEPS; ++k) {
        if (m1.f <= 0.0) {
            publish_skyline(px, d, start, lo, m1, t_ocean);
            return true;
        }
        // Probe the larger side.
        bool right = hi.t - m1.t > m1.t - lo.t;
        RayPoint m2 = ray_point(d, right ? m1.t + g * (hi.t - m1.t) : m1.t - g * (m1.t - lo.t), start);
        if (m2.f <= 0.0) {
            publish_skyline(px, d, start, right ? m1 : lo, m2, t_ocean);
            return true;
        }
        if (m2.f < m1.f) {
            // The lowest point lies on m2's side of m1.
            if (right) lo = m1; else hi = m1;
            m1 = m2;
        } else if (right) {
            hi = m2;
        } else {
            lo = m2;
        }
    }
    return false;
}

#endif
