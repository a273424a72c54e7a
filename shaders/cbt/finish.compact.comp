#version 460
// cbt.finish.compact: each drawn leaf writes its index at its rank (through the draw sum tree),
// so the draw list is in ascending pool order whatever the thread order. Indirect over
// sweeps.finish. Kernel: engine/src/cbt/update.rs run_finish.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_DRAW_LIST
#define CBT_READS_DRAW_BITS
#define CBT_READS_DRAW_TREE
#include "common/cbt_buffers.glsl"
#include "common/cbt_tree.glsl"

CBT_DEFINE_PREFIX(draw_prefix, draw_bits, draw_tree)

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || (draw_bits.w[i >> 5] & (1u << (i & 31u))) == 0u) return;
    draw_list.i[draw_prefix(i)] = i;
}
