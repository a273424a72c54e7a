#version 460
// tiles.amplify.fallback: the samples tiles.amplify listed (apron samples owned by another
// face or beyond a cube corner, samples reading outside their patch), one invocation each,
// dispatched indirectly: amplify.rs `sample` (the owner's height; beyond a cube corner the
// mean of the three owners' f32 heights in f64, rounded once), with the L9 samples from the
// patch where it holds them and derived on the spot (L9Tiles::l9) where it does not.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "common/amplify.glsl"

layout(local_size_x = FALLBACK_GROUP) in;

layout(std430, set = 0, binding = 3) writeonly buffer Heights { float v[]; } heights;
layout(std430, set = 0, binding = 4) readonly buffer L9Patch { float v[]; } l9patch;
layout(std430, set = 0, binding = 5) readonly buffer Fallback {
    uint groups_x;
    uint groups_y;
    uint groups_z;
    uint count;
    uint entries[];
} fallback;
layout(push_constant) uniform Push { double radius; } pc; // Body::radius, metres

double l9(uint face, int i, int j) {
    ivec2 q = ivec2(i, j) - p_origin;
    if (face == p_face && all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, p_size))) {
        return double(l9patch.v[p_base + uint(q.y * p_size.x + q.x)]);
    }
    return l9_direct(face, i, j);
}

#include "common/amplify_detail.glsl"

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= fallback.count || k >= uint(fallback.entries.length())) {
        return;
    }
    uint stride = uint(TILE_STRIDE);
    uint e = fallback.entries[k];
    uint z = e / (stride * stride);
    uint row = (e / stride) % stride;
    uint col = e % stride;
    DeriveJob job = batch.jobs[z];
    select_job(z, job);
    int i = int(TILE_SAMPLES * job.x) + int(col) - TILE_APRON;
    int j = int(TILE_SAMPLES * job.y) + int(row) - TILE_APRON;
    ivec3 t[3];
    int count = canonical_sample(job.level, job.face, i, j, t);
    precise double v[3];
    for (int m = 0; m < count; m++) {
        v[m] = double(float(amplified(job.level, uint(t[m].x), t[m].y, t[m].z)));
    }
    float h = float(v[0]);
    if (count == 3) {
        precise double mean = ((v[0] + v[1]) + v[2]) / 3.0lf;
        h = float(mean);
    }
    heights.v[job.out_index * stride * stride + row * stride + col] = h;
}
