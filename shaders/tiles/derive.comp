#version 460
// tiles.derive: a batch of whole tiles (520×520 samples, aprons included) of the Earth's derived
// levels, one invocation per sample, one z slice per job. Every sample is the CPU's
// `Source::sample` bit for bit (engine/src/earth/derive.rs): L2–L9 derived (common/earth.glsl),
// L0–L1 the 2×2 means of the finer level computed on the spot in derive's summation order,
// apron samples folded across face edges and, beyond a cube corner, the mean of the three
// faces' corner samples (planet/tile.rs canonical_sample). Output: the stored height (the
// dequantised code; below 0 = water) at heights[out_index·520² + row·520 + col].
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/earth.glsl"
#include "common/canonical.glsl"

layout(std430, set = 0, binding = 3) writeonly buffer Heights { float v[]; } heights;

// The stored value of on-face sample (I, J) at any level ≤ 9 (owned_sample): derived at
// L2–L9; at L1 the mean of its four L2 samples, ((a + b) + (c + d)) / 4, quantised; at L0 the
// same mean of four such L1 means. Written as loops around one call of `derived_sample` (and
// `sample_at` calls this once in a loop): inlined at every call site, the L0 recursion as
// plain code was ~120 copies of the derivation, which the driver's compiler did not finish.
float owned_sample(uint level, uint face, int i, int j) {
    bool reduce = level < FIRST_DERIVED_LEVEL;
    int n_outer = level == 0u ? 4 : 1;
    int n_inner = reduce ? 4 : 1;
    uint dlevel = reduce ? FIRST_DERIVED_LEVEL : level;
    precise double outer_v[4];
    for (int o = 0; o < n_outer; o++) {
        int oi = n_outer > 1 ? 2 * i + (o & 1) : i;
        int oj = n_outer > 1 ? 2 * j + (o >> 1) : j;
        precise double inner_v[4];
        for (int k = 0; k < n_inner; k++) {
            int di = n_inner > 1 ? 2 * oi + (k & 1) : oi;
            int dj = n_inner > 1 ? 2 * oj + (k >> 1) : oj;
            inner_v[k] = double(derived_sample(dlevel, face, di, dj));
        }
        if (n_inner > 1) {
            precise double s = (inner_v[0] + inner_v[1]) + (inner_v[2] + inner_v[3]);
            outer_v[o] = double(mean_sample(s, 4.0lf));
        } else {
            outer_v[o] = inner_v[0];
        }
    }
    if (n_outer > 1) {
        precise double s = (outer_v[0] + outer_v[1]) + (outer_v[2] + outer_v[3]);
        return mean_sample(s, 4.0lf);
    }
    return float(outer_v[0]);
}

// Source::sample: face-global (I, J), folded onto the owning face; beyond a cube corner the
// mean of the three faces' corner samples, summed in ascending face order.
float sample_at(uint level, uint face, int i, int j) {
    ivec3 t[3];
    int count = canonical_sample(level, face, i, j, t);
    precise double v[3];
    for (int k = 0; k < count; k++) {
        v[k] = double(owned_sample(level, uint(t[k].x), t[k].y, t[k].z));
    }
    if (count == 1) {
        return float(v[0]);
    }
    precise double sum = (v[0] + v[1]) + v[2];
    return mean_sample(sum, 3.0lf);
}

void main() {
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= uint(TILE_STRIDE) || id.y >= uint(TILE_STRIDE) || id.z >= batch.job_count) {
        return;
    }
    DeriveJob job = batch.jobs[id.z];
    int i = int(TILE_SAMPLES * job.x) + int(id.x) - TILE_APRON;
    int j = int(TILE_SAMPLES * job.y) + int(id.y) - TILE_APRON;
    float h = sample_at(job.level, job.face, i, j);
    uint stride = uint(TILE_STRIDE);
    heights.v[job.out_index * stride * stride + id.y * stride + id.x] = h;
}
