#version 460
// bench.copy_compute: the bandwidth floor's compute copy — what a compute sweep can move,
// next to vkCmdCopyBuffer (bench.copy). 16-byte loads and stores (the widest a thread
// issues), a grid-stride loop so a bounded grid covers any size, coalesced: consecutive
// threads touch consecutive 16-byte words.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { uvec4 v[]; } src;
layout(std430, binding = 1) writeonly buffer Dst { uvec4 v[]; } dst;

layout(push_constant) uniform Push {
    uint count; // uvec4 words to copy
} pc;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        dst.v[i] = src.v[i];
    }
}
