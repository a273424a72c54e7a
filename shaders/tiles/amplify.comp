#version 460
// tiles.amplify: a batch of amplified tiles (L10–L18, 520×520 samples, aprons included), one
// invocation per sample, one z slice per job: engine/src/earth/amplify.rs `amplify_tile`, in
// f64 operation for operation (common/amplify_detail.glsl). This pass makes every sample owned
// by the tile's own face whose L9 reads all fall in the job's patch (tiles.amplify.patch): all
// but the apron samples across a face edge or cube corner. Those, and any sample reading outside
// the patch, go to a list that tiles.amplify.fallback makes with the L9 samples derived on the
// spot. Not here: llvmpipe runs both sides of a branch under a lane mask, so a derivation
// behind a rarely taken `if` cost every sample a full derivation per read (7 s per L10 tile,
// 15× the patch-only path, measured on lavapipe).
// Output as tiles.derive: f32 heights at heights[out_index·520² + row·520 + col], below 0 = water.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/amplify.glsl"

layout(std430, set = 0, binding = 3) writeonly buffer Heights { float v[]; } heights;
layout(std430, set = 0, binding = 4) readonly buffer L9Patch { float v[]; } l9patch;
// VkDispatchIndirectCommand for tiles.amplify.fallback, the entry count, then the entries
// (job·520² + row·520 + col). The host sets (0, 1, 1, 0) before this pass.
layout(std430, set = 0, binding = 5) buffer Fallback {
    uint groups_x;
    uint groups_y;
    uint groups_z;
    uint count;
    uint entries[];
} fallback;
layout(push_constant) uniform Push { double radius; } pc; // Body::radius, metres

// Set when a read fell outside the patch: the sample goes to the fallback list instead.
bool g_miss = false;

double l9(uint face, int i, int j) {
    ivec2 q = ivec2(i, j) - p_origin;
    if (face != p_face || any(lessThan(q, ivec2(0))) || any(greaterThanEqual(q, p_size))) {
        g_miss = true;
        return 0.0lf;
    }
    return double(l9patch.v[p_base + uint(q.y * p_size.x + q.x)]);
}

#include "common/amplify_detail.glsl"

void main() {
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= uint(TILE_STRIDE) || id.y >= uint(TILE_STRIDE) || id.z >= batch.job_count) {
        return;
    }
    DeriveJob job = batch.jobs[id.z];
    select_job(id.z, job);
    int i = int(TILE_SAMPLES * job.x) + int(id.x) - TILE_APRON;
    int j = int(TILE_SAMPLES * job.y) + int(id.y) - TILE_APRON;
    uint stride = uint(TILE_STRIDE);
    uint at = job.out_index * stride * stride + id.y * stride + id.x;
    ivec3 t[3];
    int count = canonical_sample(job.level, job.face, i, j, t);
    if (count == 1 && uint(t[0].x) == job.face) {
        double h = amplified(job.level, job.face, i, j);
        if (!g_miss) {
            heights.v[at] = float(h);
            return;
        }
    }
    uint k = atomicAdd(fallback.count, 1u);
    if (k < uint(fallback.entries.length())) {
        fallback.entries[k] = id.z * stride * stride + id.y * stride + id.x;
        atomicMax(fallback.groups_x, k / FALLBACK_GROUP + 1u);
    } else {
        // The list is full (sized for the apron samples of two face edges per job): a NaN
        // shows it rather than a stale height.
        heights.v[at] = uintBitsToFloat(0x7fc00000u);
    }
}
