#version 460
// Test graph: pulls vertices from a GPU-written storage buffer.
layout(std430, binding = 0) readonly buffer Verts { vec4 verts[]; } in_verts;
layout(location = 0) flat out uint v_tri;

void main() {
    gl_Position = in_verts.verts[gl_VertexIndex];
    v_tri = uint(gl_VertexIndex) / 3u;
}
