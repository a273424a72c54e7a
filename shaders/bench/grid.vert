#version 460
// bench.grid: the raster floor of raster.hardware — `triangles` triangles of a regular grid
// covering the viewport (cols × rows cells, two triangles each), positions computed from
// gl_VertexIndex (no vertex fetch). Same depth test and per-fragment work as raster.hardware.

layout(push_constant) uniform Push {
    uint cols;
    uint rows;
    uint width;
    uint height;
} pc;

layout(location = 0) flat out uint v_tri;

void main() {
    uint tri = uint(gl_VertexIndex) / 3u;
    uint corner = uint(gl_VertexIndex) % 3u;
    uint cell = tri / 2u;
    uvec2 c = uvec2(cell % pc.cols, cell / pc.cols);
    // Lower-left and upper-right triangles of the cell, both counter-clockwise in NDC.
    uvec2 offs[6] = uvec2[6](uvec2(0, 0), uvec2(1, 0), uvec2(0, 1), uvec2(1, 0), uvec2(1, 1), uvec2(0, 1));
    uvec2 g = c + offs[(tri & 1u) * 3u + corner];
    vec2 ndc = vec2(g) / vec2(pc.cols, pc.rows) * 2.0 - 1.0;
    // Reverse-Z like the planet: a depth in (0, 1], varying per triangle so the test does work.
    float z = 0.5 + 0.25 * float(tri & 255u) / 255.0;
    gl_Position = vec4(ndc, z, 1.0);
    v_tri = tri;
}
