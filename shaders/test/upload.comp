#version 460
// Test graph: consumes data that arrived through the (async) transfer path.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; } uploaded;
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; } result;
layout(push_constant) uniform Push { uint count; } pc;

void main() {
    uint id = gl_GlobalInvocationID.x;
    if (id >= pc.count) return;
    result.dst[id] = uploaded.src[id] * 2u + 1u;
}
