#version 460
// cbt.finish.args (one thread): the indirect draw of the compacted leaves (3 vertices each,
// counted by cbt.finish); the frame is done.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

#define CBT_WRITES_CONTROL
#include "common/cbt_buffers.glsl"

void main() {
    control.c.draw_args[1] = 1u;
    control.c.draw_args[2] = 0u;
    control.c.draw_args[3] = 0u;
    control.c.frame += 1u;
}
