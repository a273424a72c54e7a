#version 460
// Test graph: dispatched indirectly; writes one value per id < count and, for the first
// count % 16 ids, one triangle per 16×16 cell of a 64×64 target.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Params { uint count; } params;
layout(std430, binding = 1) writeonly buffer Values { uint values[]; } out_values;
layout(std430, binding = 2) writeonly buffer Verts { vec4 verts[]; } out_verts;

void main() {
    uint id = gl_GlobalInvocationID.x;
    if (id >= params.count) return;
    out_values.values[id] = id * id * 3u + 7u;
    if (id < params.count % 16u) {
        // Corners at +1.3 / +14.8 px so no pixel centre lies on an edge.
        vec2 o = vec2(float(id % 4u), float(id / 4u)) * 16.0;
        vec2 p[3] = vec2[3](o + vec2(1.3, 1.3), o + vec2(14.8, 1.3), o + vec2(1.3, 14.8));
        for (int k = 0; k < 3; ++k) {
            vec2 ndc = p[k] / 32.0 - 1.0;
            out_verts.verts[id * 3u + uint(k)] = vec4(ndc, 0.0, 1.0);
        }
    }
}
