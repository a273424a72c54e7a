#version 460
// test.cbt_forced_wish: DECIDE with wishes chosen by a hash of the path and a round number
// instead of the criterion (split pushes down the twin chain included), so the topology stages
// can be compared with the model's (tests/tests/cbt_gpu_topology.rs) under any wish mix.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#include "common/cbt_buffers.glsl"
#include "common/cbt_pool.glsl"

layout(std430, set = 0, binding = 12) readonly buffer Forced { uint round; uint split_pct; uint merge_pct; } forced;

uint64_t mix64(uint64_t x) {
    uint64_t z = x * 0x9e3779b97f4a7c15ul;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
    return z ^ (z >> 31);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    uint x = uint(mix64(pool.b[i].path ^ (uint64_t(forced.round) << 58) ^ 0x5eedul) % 100ul);
    uint w = x < forced.split_pct ? CBT_WISH_SPLIT : (x < forced.split_pct + forced.merge_pct ? CBT_WISH_MERGE : CBT_WISH_KEEP);
    pool.b[i].wish = w;
    if (w == CBT_WISH_SPLIT) push_twin_chain(i);
}
