// What the amplified passes share (engine/src/earth/amplify.rs): the L9 lattice position of
// an amplified sample, the range of L9 samples a tile's stencils read (amplify_tile's `Patch`)
// and the canonical L9 sample made from the derivation (`L9Tiles::l9`: the GPU has no L9
// tiles, but a stored L9 sample is exactly `derived_sample`, folded and corner-averaged).
#ifndef AMPLIFY_GLSL
#define AMPLIFY_GLSL

#include "common/earth.glsl"
#include "common/canonical.glsl"

const uint LAST_STORED_LEVEL = 9u;
// Patch edge, L9 samples: the widest span, at L10 (520 samples → 260 L9 cells, + 4 of stencil
// reach). engine::earth::gpu_amplify::PATCH_W, checked there against amplify.rs's span.
const int PATCH_W = 264;

// amplify.rs l9_position: continuous L9 index of face-global sample `a` of `level` ≥ 9 (exact).
double l9_position(uint level, int a) {
    precise double p = (double(2 * a + 1) / double(1 << (level - LAST_STORED_LEVEL)) - 1.0lf) * 0.5lf;
    return p;
}

// amplify_tile's `span` along one axis for tile coordinate x: [first, end) L9 indices.
ivec2 patch_span(uint level, uint x) {
    int g0 = int(TILE_SAMPLES * x) - TILE_APRON;
    int g1 = int(TILE_SAMPLES * x) + TILE_STRIDE - TILE_APRON - 1;
    return ivec2(int(floor(l9_position(level, g0))) - 1, int(floor(l9_position(level, g1))) + 3);
}

// L9Tiles::l9: the stored L9 sample (I, J) of `face`, wherever its owner is. One call site of
// derived_sample in a loop: the driver inlines every call.
double l9_direct(uint face, int i, int j) {
    ivec3 t[3];
    int count = canonical_sample(LAST_STORED_LEVEL, face, i, j, t);
    precise double v[3];
    for (int k = 0; k < count; k++) {
        v[k] = double(derived_sample(LAST_STORED_LEVEL, uint(t[k].x), t[k].y, t[k].z));
    }
    if (count == 1) {
        return v[0];
    }
    precise double s = (v[0] + v[1]) + v[2];
    return double(mean_sample(s, 3.0lf));
}

// The job an invocation works for: its face, the first L9 index and extent of its patch, and
// where the patch starts in l9patch (set by select_job; read by each shader's l9()).
uint p_face;
ivec2 p_origin;
ivec2 p_size;
uint p_base;

void select_job(uint z, DeriveJob job) {
    ivec2 si = patch_span(job.level, job.x);
    ivec2 sj = patch_span(job.level, job.y);
    p_face = job.face;
    p_origin = ivec2(si.x, sj.x);
    p_size = ivec2(si.y - si.x, sj.y - sj.x);
    p_base = z * uint(PATCH_W * PATCH_W);
}

// Invocations per tiles.amplify.fallback workgroup (its local_size_x): the host dispatches it
// indirectly, from the group count tiles.amplify writes.
const uint FALLBACK_GROUP = 64u;

#endif
