#version 460
// HUD overlay: one quad (6 vertices) per record, pulled from the HUD buffer. A record is a
// glyph of the 5×7 font (tools/src/view/font.rs) or, with code 0xFF, a filled panel.
layout(std430, binding = 0) readonly buffer Hud {
    uvec4 header;       // screen width px, height px, scale (px per font pixel), record count
    uint font[128];     // 64 glyphs × 2 words: bit (row·5 + col)
    uvec4 records[];    // x px, y px, glyph | cols << 8 | rows << 16, colour RGBA8
} hud;

layout(location = 0) out vec2 v_local;        // position inside the record, font pixels
layout(location = 1) flat out uint v_glyph;
layout(location = 2) flat out vec4 v_color;

void main() {
    uint rec = uint(gl_VertexIndex) / 6u;
    uint corner = uint(gl_VertexIndex) % 6u;
    // Two triangles: (0,0) (1,0) (0,1) / (1,0) (1,1) (0,1).
    const vec2 corners[6] = vec2[6](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));
    uvec4 r = hud.records[rec];
    float scale = float(hud.header.z);
    uint glyph = r.z & 0xFFu;
    // A glyph cell is 6×9 font pixels (5×7 ink + spacing); a panel spans cols × rows cells.
    vec2 cells = glyph == 0xFFu ? vec2(float((r.z >> 8) & 0xFFu), float((r.z >> 16) & 0xFFu)) : vec2(1.0);
    vec2 size = cells * vec2(6.0, 9.0);
    vec2 local = corners[corner] * size;
    vec2 px = vec2(float(r.x), float(r.y)) + local * scale;
    vec2 screen = vec2(float(hud.header.x), float(hud.header.y));
    gl_Position = vec4(px / screen * 2.0 - 1.0, 0.0, 1.0);
    v_local = local;
    v_glyph = glyph;
    v_color = unpackUnorm4x8(r.w);
}
