#version 460
// tiles.amplify.patch: per amplified job, the L9 samples of the tile's own face that its
// stencils read (amplify_tile's `Patch` range), one invocation per sample, one z slice per job,
// into l9patch[job·PATCH_W² + b·w + a] (w = the job's span width). tiles.amplify reads them.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/amplify.glsl"

layout(std430, set = 0, binding = 4) writeonly buffer L9Patch { float v[]; } l9patch;

void main() {
    uvec3 id = gl_GlobalInvocationID;
    if (id.z >= batch.job_count) {
        return;
    }
    DeriveJob job = batch.jobs[id.z];
    ivec2 si = patch_span(job.level, job.x);
    ivec2 sj = patch_span(job.level, job.y);
    int w = si.y - si.x;
    if (int(id.x) >= w || int(id.y) >= sj.y - sj.x) {
        return;
    }
    double h = l9_direct(job.face, si.x + int(id.x), sj.x + int(id.y));
    l9patch.v[id.z * uint(PATCH_W * PATCH_W) + id.y * uint(w) + id.x] = float(h);
}
