#version 460
// cbt.reserve: split candidates become splits with a pool index for the odd child, or are
// refused when the pool cannot cover the whole diamond. Allocation by rank: rank r (candidates
// below this entry, through the request sum tree) takes the r-th free entry (a select down the
// free sum tree), so free entries go out lowest index first whatever the thread order.
// Indirect over sweeps.entry. Kernel: engine/src/cbt/stages/reserve.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_READS_REQUEST_BITS
#define CBT_READS_REQUEST_TREE
#define CBT_READS_FREE_BITS
#define CBT_READS_FREE_TREE
#include "common/cbt_buffers.glsl"
#include "common/cbt_tree.glsl"

CBT_DEFINE_PREFIX(request_prefix, request_bits, request_tree)
CBT_DEFINE_SELECT(free_select, free_bits, free_tree)

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].fate != CBT_FATE_CANDIDATE) return;
    uint budget = control.c.free_count;
    uint rank = request_prefix(i);
    uint t = pool.b[i].neighbours[2];
    uint twin_rank = t == CBT_INVALID ? rank : request_prefix(t);
    uint child = max(rank, twin_rank) >= budget ? CBT_INVALID : free_select(rank);
    if (child == CBT_INVALID) {
        pool.b[i].fate = CBT_FATE_KEEP;
        pool.b[i].child = CBT_INVALID;
        atomicAdd(control.c.stats[stat_index(CBT_STAT_SATURATED)], 1u);
        return;
    }
    pool.b[i].fate = CBT_FATE_SPLIT;
    pool.b[i].child = child;
    atomicAdd(control.c.stats[stat_index(CBT_STAT_SPLITS)], 1u);
    atomicMax(control.c.alloc_high, child + 1u);
}
