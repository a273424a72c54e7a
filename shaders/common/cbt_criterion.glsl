// The refinement criterion and the culling tests in f32 (mirror of engine/src/cbt/criterion.rs,
// which is the f64 reference): pure functions of a triangle's three stored camera-relative
// corner positions and its stored residuals, so a merging pair measures its parent exactly as
// the parent will measure itself. The view comes from the frame constants (common/frame.glsl),
// the parameters from the push constants (common/cbt_buffers.glsl).
#ifndef CBT_CRITERION_GLSL
#define CBT_CRITERION_GLSL

#include "common/frame.glsl"
#include "common/cbt_buffers.glsl"

// Angle between two directions from the eye, radians. |a × (b − a)| = |a × b|, but b − a of two
// nearby stored positions is exact, so the cross product does not lose the small angle.
float cbt_angle(vec3 a, vec3 b) {
    return atan(length(cross(a, b - a)), dot(a, b));
}

// Screen distance, px (angle over the centre pixel's angle, frame.pixel_angle).
float px_between(vec3 a, vec3 b) { return cbt_angle(a, b) / frame.pixel_angle; }

// Screen distance between the surface at an edge's midpoint and the chord midpoint, px.
float residual_px(vec3 surface_mid, vec3 a, vec3 b) { return px_between(surface_mid, (a + b) * 0.5); }

float edge_px(vec3 p[3]) {
    return max(max(px_between(p[0], p[1]), px_between(p[1], p[2])), px_between(p[2], p[0]));
}

float nearest_distance(vec3 p[3]) { return min(min(length(p[0]), length(p[1])), length(p[2])); }

// Split targets, px: x = residual, y = longest edge. Edge cap 24 → 48 px over 5 → 20 km;
// both up to 25 % tighter for grazing triangles, blended in over 2 → 5 km; the residual a
// further outline_tighten tighter for triangles the view grazes within 5° → outline_cos_full
// (CbtParams: an outline's chord sags inside it, and sky shows through).
vec2 split_targets(vec3 p[3]) {
    float d = nearest_distance(p);
    float grow = clamp((d - pc.edge_grow_start_m) / (pc.edge_grow_end_m - pc.edge_grow_start_m), 0.0, 1.0);
    float edge = pc.edge_px_near + (pc.edge_px_far - pc.edge_px_near) * grow;
    float cos_i = incidence_cos(p);
    float graze = clamp((pc.grazing_cos_start - cos_i) / (pc.grazing_cos_start - pc.grazing_cos_full), 0.0, 1.0);
    float far = smoothstep(pc.grazing_blend_start_m, pc.grazing_blend_end_m, d);
    float outline = clamp((pc.grazing_cos_full - cos_i) / (pc.grazing_cos_full - pc.outline_cos_full), 0.0, 1.0);
    float f = 1.0 - pc.grazing_tighten * graze * far;
    float fr = f * (1.0 - pc.outline_tighten * outline * far);
    return vec2(pc.residual_px * fr, edge * f);
}

// The residual splits only triangles over pc.split_min_px; the merge side keeps the hysteresis
// on both (criterion.rs).
bool wants_split(vec3 p[3], float r_hyp, float r_leg) {
    vec2 t = split_targets(p);
    float e = edge_px(p);
    return (max(r_hyp, r_leg) > t.x && e > pc.split_min_px) || e > t.y;
}

bool under_merge_targets(vec3 p[3], float r_hyp, float r_leg) {
    vec2 t = split_targets(p);
    float h = pc.merge_hysteresis;
    float e = edge_px(p);
    return (max(r_hyp, r_leg) < h * t.x || e < h * pc.split_min_px) && e < h * t.y;
}

// Outside the frustum: the corners' bounding sphere (inflated) behind a side plane.
bool offscreen(vec3 p[3]) {
    vec3 g = (p[0] + p[1] + p[2]) / 3.0;
    float r = max(max(length(p[0] - g), length(p[1] - g)), length(p[2] - g)) * pc.frustum_inflate;
    float tan_v = frame.tan_half_vfov, tan_h = tan_v * frame.aspect;
    vec3 f = frame.cam_forward, rt = frame.cam_right, up = frame.cam_up;
    vec3 planes[4] = vec3[4](normalize(tan_h * f + rt), normalize(tan_h * f - rt), normalize(tan_v * f + up), normalize(tan_v * f - up));
    for (int k = 0; k < 4; ++k) {
        if (dot(planes[k], g) < -r) return true;
    }
    return false;
}

// The segment from the eye (the origin) to p dips below the datum sphere (centre c, radius R):
// min over t in [0, 1] of |t·p − c|² − R² = k + t·(t·|p|² − 2 c·p) < 0, where k = H² − R² =
// a·(2R + a) comes from the eye's altitude a (frame.eye_altitude), so the planet-sized H² − R² is never
// formed in f32 (TERRAIN.md §3; docs/cbt.md §6).
bool line_of_sight_below(vec3 c, vec3 p, float k) {
    float cp = dot(c, p), pp = dot(p, p);
    if (cp <= 0.0) return k < 0.0;                 // t = 0: the eye itself
    if (cp >= pp) return k + pp - 2.0 * cp < 0.0;  // t = 1: p itself is the lowest point
    return k - cp * (cp / pp) < 0.0;
}

// Least squared chord from e to the great-circle arc a → b (unit vectors; n the unit normal of
// the arc's plane, oriented a → b). Chords instead of cosines: the visible cap is a few 1e-4 rad
// wide at walking height, below f32's resolution of a cosine near 1.
float arc_min_chord2(vec3 a, vec3 b, vec3 n, vec3 e) {
    float ends = min(dot(a - e, a - e), dot(b - e, b - e));
    float s = dot(e, n);
    vec3 q = e - n * s;
    if (dot(q, q) < 1e-12) return ends;
    q = normalize(q);
    if (dot(cross(a, q), n) >= 0.0 && dot(cross(q, b), n) >= 0.0) {
        // Closest point of the great circle: chord² = 2(1 − cos φ), sin φ = s.
        return 2.0 * s * s / (1.0 + sqrt(max(1.0 - s * s, 0.0)));
    }
    return ends;
}

// Horizon cull (TERRAIN.md §3): all three corners' lines of sight pass below the datum sphere,
// and (our guard, criterion.rs) the triangle's patch projected onto the datum misses the cap
// the eye sees. A camera at or below the datum culls nothing.
bool horizon_culled(vec3 p[3]) {
    float a = frame.eye_altitude;
    float R = frame.planet_radius;
    if (a <= 0.0) return false;
    vec3 c = frame.planet_center;
    float k = a * (2.0 * R + a);
    for (int i = 0; i < 3; ++i) {
        if (!line_of_sight_below(c, p[i], k)) return false;
    }
    // The visible cap {x : x·e >= R/(R+a)} is {x : |x − e|² <= 2a/(R+a)}.
    float cap2 = 2.0 * a / (R + a);
    vec3 e = normalize(-c);
    vec3 d[3] = vec3[3](normalize(p[0] - c), normalize(p[1] - c), normalize(p[2] - c));
    bool arcs_clear = true, eye_inside = true;
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3;
        // ∝ d_i × d_j, from the exact short difference of camera-relative positions.
        vec3 n = normalize(cross(p[i] - c, p[j] - p[i]));
        arcs_clear = arcs_clear && arc_min_chord2(d[i], d[j], n, e) > cap2;
        eye_inside = eye_inside && dot(n, e) >= 0.0;
    }
    return arcs_clear && !eye_inside;
}

#endif
