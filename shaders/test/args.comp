#version 460
// Test graph: turns a count (filled by a transfer node) into indirect dispatch and draw
// arguments — the "indirect over a GPU-written count" pattern every CBT sweep uses.
layout(local_size_x = 1) in;

layout(std430, binding = 0) readonly buffer Params { uint count; } params;
// dispatch: x, y, z, pad; draw: vertexCount, instanceCount, firstVertex, firstInstance.
layout(std430, binding = 1) writeonly buffer Args { uint dispatch_args[4]; uint draw_args[4]; } args;

void main() {
    uint n = params.count;
    // Round up; the swept kernel guards id < count.
    args.dispatch_args[0] = (n + 63u) / 64u;
    args.dispatch_args[1] = 1u;
    args.dispatch_args[2] = 1u;
    args.dispatch_args[3] = 0u;
    args.draw_args[0] = 3u * (n % 16u);
    args.draw_args[1] = 1u;
    args.draw_args[2] = 0u;
    args.draw_args[3] = 0u;
}
