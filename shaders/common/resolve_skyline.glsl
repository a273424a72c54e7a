// The skyline search: every resolve pass but the tail hands it its sky pixels beside terrain
// (`skyline_push`), and publish.resolve.skyline searches them (included by common/resolve.glsl
// after `resolve_terrain`; it uses `publish_hit` and `ray_point`).
//
// A ray that passes just over a ridge's chord meets no leaf, but the ridge's crest stands over
// its chord by up to the leaf's residual (at the residual target, a third of a pixel), so such
// rays may still cross the surface: the outline is drawn up to a pixel inside the surface's
// (khumbu-2m-p0's see-through: ridges 130–720 m out, docs/bench.md). Such a ray skims rocky
// ground for tens of metres a few decimetres over it and dips under a rock's top for 0.2–1.6 m
// (the CPU reference's profiles of the pixels a one-thread search missed): a search for its
// lowest point meets one of many dips, not the one under the surface. So each pixel gets a
// workgroup whose lanes sample its ray side by side, evenly and finely, near each terrain
// neighbour's chord plane (nearest first: the crest it misses may be a farther ridge's, seen
// beside a nearer one), and the first sample under the surface brackets the entry. Any such
// point is a true crossing: the ray is under the blended surface there, as the reference would
// find it. The pass writes only its pixels' hits and reads only the visibility buffer, so what
// it publishes does not depend on the order its workgroups run in.
#ifndef RESOLVE_SKYLINE_GLSL
#define RESOLVE_SKYLINE_GLSL

// The window about a neighbour's chord plane, a share of the distance each side; rounds of a
// whole window's samples, one per lane a round (the spacing is 2 · SKYLINE_SPAN /
// (SKYLINE_ROUNDS · lanes) of the distance: 0.03 % with 32 lanes, 0.09–0.11 m at 290–365 m,
// under half the narrowest dip above); rounds of the entry's refinement.
#define SKYLINE_SPAN 0.03
#define SKYLINE_ROUNDS 6u
#define SKYLINE_REFINE_ROUNDS 2
// The spacing at least, m: near the eye the window is short and its samples need be no closer
// than what a crest's dip can be along a ray (the finest detail, L18's 15 cm texels, seen at a
// grazing angle; the descent's crests at 8 m: 0.25 m), so a near window takes a round or two.
#define SKYLINE_STEP_MIN_M 0.02
#define SKYLINE_MAX_GROUPS 65535u
// Rows a walk up a crest climbs at most (`skyline_walk`).
#define SKYLINE_WALK_ROWS 64u
// An outline: a 4-neighbour's chord nearer than the pixel's own by more than this share of the
// view depth (twice the window's span, so the neighbour's window lies in front of the chord).
#define SKYLINE_OUTLINE_GAP 0.06
#define NO_KEY 0xffffffffffffffffUL

// View depth of a visibility key.
float key_depth(uint64_t k) { return NEAR * uintBitsToFloat(uint(k >> 32)); }

// Whether a neighbour with visibility key k gets a window for a pixel whose own key is `own`
// (NO_KEY: a sky pixel, beside any terrain; else an outline's pixel, only nearer chords, and
// only within `skyline_outline_m` of view depth).
bool skyline_neighbour(uint64_t k, uint64_t own) {
    if (k == NO_KEY) return false;
    if (own == NO_KEY) return true;
    float z = key_depth(k);
    return z < (1.0 - SKYLINE_OUTLINE_GAP) * key_depth(own) && z <= pc.skyline_outline_m;
}

// The visibility key of px's i-th 4-neighbour (below, above, right, left); NO_KEY off the frame.
// The load is not behind the test, so a caller's loads of several neighbours are all in flight
// at once rather than one after the other.
uint64_t neighbour_key(uvec2 px, int i) {
    const ivec2 nb[4] = ivec2[](ivec2(0, 1), ivec2(0, -1), ivec2(1, 0), ivec2(-1, 0));
    ivec2 vp = ivec2(frame.viewport), q = ivec2(px) + nb[i];
    ivec2 c = clamp(q, ivec2(0), vp - 1);
    uint64_t k = vis.v[c.y * vp.x + c.x];
    return c == q ? k : NO_KEY;
}

// With the outlines, publish.resolve.skyline.walk walks up the crests it meets
// (`skyline_walk`), and the pixels handed over are marked in a bit mask after the list (one
// bit a pixel, row-major): a walk stops at them, their own workgroup's.
bool skyline_outlines() { return (pc.flags & 4u) != 0u; }
uint skyline_mask_word(uint at) { return 4u + uint(frame.viewport.x * frame.viewport.y) + (at >> 5); }

#ifndef RESOLVE_SKYLINE_PASS
// Hands pixel px to publish.resolve.skyline where a 4-neighbour gets a window: a sky pixel
// (key NO_KEY) beside terrain, and with `skyline_outlines` a terrain pixel behind an outline.
void skyline_push(uvec2 px, uint64_t key) {
    if ((pc.flags & 3u) != 0u) return;   // no correction, or no skyline search
    if (key != NO_KEY && !skyline_outlines()) return;
    // All four loaded before any is tested: the test of one does not wait on the next's load.
    uint64_t k[4];
    for (int i = 0; i < 4; ++i) k[i] = neighbour_key(px, i);
    bool beside = false;
    for (int i = 0; i < 4; ++i) beside = beside || skyline_neighbour(k[i], key);
    if (!beside) return;
    if (skyline_outlines()) {
        uint at = px.y * uint(frame.viewport.x) + px.x;
        atomicOr(skylined.w[skyline_mask_word(at)], 1u << (at & 31u));
    }
    uint i = atomicAdd(skylined.w[3], 1u);
    // One workgroup a pixel; past the dispatch's limit a workgroup takes every groups-th.
    if (i < SKYLINE_MAX_GROUPS) atomicAdd(skylined.w[0], 1u);
    skylined.w[4u + i] = px.x | (px.y << 16);
}
#else
// The first sample under the surface in this round (its index in the window), else ~0u.
shared uint s_under;
#ifdef RESOLVE_SKYLINE_WALK
// The entry a window published (0: none, what was in front stays) and its slot.
shared float s_found_t;
shared uint s_found_slot;
#endif

// Searches the window about distance t, from `from` on where that is later (the part an
// earlier window did not cover), for the ray's entry under the surface; publishes it where it
// is nearer than t_limit (the ocean's, or the outline pixel's hit) and answers true where it
// finds one (uniform over the workgroup).
bool skyline_window(uvec2 px, vec3 d, float t, float from, uint start, float t_limit) {
    uint lanes = gl_WorkGroupSize.x, lane = gl_LocalInvocationID.x;
    float dt = max(2.0 * SKYLINE_SPAN * t / float(SKYLINE_ROUNDS * lanes), SKYLINE_STEP_MIN_M);
    float t0 = max((1.0 - SKYLINE_SPAN) * t, from);
    uint samples = uint(max(ceil(((1.0 + SKYLINE_SPAN) * t - t0) / dt), 0.0));
    for (uint r = 0u; r * lanes < samples; ++r) {
        if (lane == 0u) s_under = ~0u;
        barrier();
        uint k = r * lanes + lane;
        RayPoint q;
        q.f = 1.0;
        if (k < samples) q = ray_point(d, t0 + float(k) * dt, start);
        if (q.f <= 0.0) atomicMin(s_under, k);
        barrier();
        uint first = s_under;
        barrier();
        if (first == ~0u) continue;
        // Under the surface at the window's start: the entry lies before the window, which is
        // not this case.
        if (first == 0u) return false;
        // The entry lies between samples first − 1 and first. Rounds of the lanes side by side
        // narrow it to 1 / lanes of the bracket each (a sequential search would wait on a walk
        // a step), and the lane holding the first point under the surface publishes it: past
        // the entry by under dt / lanes² (0.1 mm at 300 m).
        uint owner = first - r * lanes;
        float lo = t0 + float(first - 1u) * dt, step = dt;
        for (int j = 0; j < SKYLINE_REFINE_ROUNDS; ++j) {
            step /= float(lanes);
            if (lane == 0u) s_under = ~0u;
            barrier();
            RayPoint c = ray_point(d, lo + float(lane + 1u) * step, start);
            if (c.f <= 0.0) atomicMin(s_under, lane);
            barrier();
            uint f = s_under;
            barrier();
            // None under (the far end rounded to a point over the surface): keep the last.
            if (f == ~0u) break;
            owner = f;
            if (lane == f) q = c;
            lo += float(f) * step;
        }
        // What is in front (the ocean surface, the outline pixel's ground) stays.
        if (lane == owner && q.t < t_limit) publish_hit(px, q, HIT_CORRECTED);
#ifdef RESOLVE_SKYLINE_WALK
        if (lane == owner) {
            s_found_t = q.t < t_limit ? q.t : 0.0;
            s_found_slot = q.fs;
        }
        barrier();
#endif
        return true;
    }
    return false;
}

#ifdef RESOLVE_SKYLINE_WALK
// From pixel px, whose ray entered the surface at t (slot `slot`) near the chord of its
// neighbour below: the pixels above it, while their rays enter there too. A crest that rises
// over its chord by several pixels (near the eye, where the chords are at the depth cap and
// the surface carries finer detail than they follow) shows only its lowest row beside the
// chord; each row above is searched about the entry of the row below, until a ray passes over
// it, or meets what is already in front, or reaches a pixel handed over (its own workgroup
// searches it: every pixel is written by one workgroup).
void skyline_walk(uvec2 px, float t, uint slot) {
    uint w = uint(frame.viewport.x);
    for (uint k = 1u; k <= SKYLINE_WALK_ROWS && k <= px.y; ++k) {
        uvec2 q = uvec2(px.x, px.y - k);
        uint at = q.y * w + q.x;
        if ((skylined.w[skyline_mask_word(at)] & (1u << (at & 31u))) != 0u) return;
        uvec4 h = imageLoad(hits, ivec2(q));
        float t_limit = hit_dist(h) > 0.0 ? hit_dist(h) : 1e30;
        if (t_limit <= (1.0 - SKYLINE_SPAN) * t) return;
        if (!skyline_window(q, pixel_ray(vec2(q) + 0.5), t, 0.0, slot, t_limit)) return;
        if (s_found_t == 0.0) return;
        t = s_found_t;
        slot = s_found_slot;
    }
}
#endif

// publish.resolve.skyline: each handed-over pixel's windows, nearest neighbour first, until one
// holds an entry; in publish.resolve.skyline.walk, from an entry near the chord below, the
// walk up the crest.
void main() {
    uint count = skylined.w[3];
    for (uint i = gl_WorkGroupID.x; i < count; i += gl_NumWorkGroups.x) {
        uint xy = skylined.w[4u + i];
        uvec2 px = uvec2(xy & 0xffffu, xy >> 16);
        vec3 d = pixel_ray(vec2(px) + 0.5);
        uint64_t own = vis.v[px.y * uint(frame.viewport.x) + px.x];
        // A sky or ocean pixel may have a key (its chord's search found no crossing): any
        // neighbour's chord gets a window all the same. An entry replaces only what is
        // farther: the sky, or the ocean's or the ground's hit.
        uvec4 h = imageLoad(hits, ivec2(px));
        if (hit_dist(h) == 0.0 || hit_ocean(h)) own = NO_KEY;
        float t_limit = hit_dist(h) > 0.0 ? hit_dist(h) : 1e30;
        uint64_t keys[4];
        int sides[4];
        int n = 0;
        for (int j = 0; j < 4; ++j) {
            uint64_t k = neighbour_key(px, j);
            if (!skyline_neighbour(k, own)) continue;
            // Insertion by depth bits over the leaf, smaller nearer.
            int m = n++;
            for (; m > 0 && keys[m - 1] > k; --m) {
                keys[m] = keys[m - 1];
                sides[m] = sides[m - 1];
            }
            keys[m] = k;
            sides[m] = j;
        }
        float covered = 0.0;   // the far end of the windows searched so far
        for (int j = 0; j < n; ++j) {
            Bisector b = pool.b[uint(keys[j] & 0xffffffffUL)];
            vec2 bary;
            vec3 chord_n;
            float t = chord_distance(b, d, bary, chord_n);
            // The neighbour's own distance where this ray meets its chord's plane far off (or
            // behind).
            float t_n = ray_distance(px, key_depth(keys[j]));
            if (!(t > 0.8 * t_n && t < 1.25 * t_n)) t = t_n;
            if ((1.0 + SKYLINE_SPAN) * t <= covered) continue;
            uint face;
            ivec2 X = fixed_hint(b, bary, face);
            if (skyline_window(px, d, t, covered, hint_slot(face, X), t_limit)) {
#ifdef RESOLVE_SKYLINE_WALK
                // (Neighbour 0 is the one below.)
                if (sides[j] == 0 && s_found_t > 0.0) skyline_walk(px, s_found_t, s_found_slot);
#endif
                break;
            }
            covered = (1.0 + SKYLINE_SPAN) * t;
        }
    }
}
#endif

#endif
