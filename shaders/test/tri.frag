#version 460
// Test graph: flat colour per triangle, checked by the CPU.
layout(location = 0) flat in uint v_tri;
layout(location = 0) out vec4 o_color;
layout(push_constant) uniform Push { vec4 tint; } pc;

void main() {
    o_color = vec4(float(v_tri * 16u) / 255.0, float(255u - v_tri * 16u) / 255.0, pc.tint.b, 1.0);
}
