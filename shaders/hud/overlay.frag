#version 460
// HUD overlay: font bits from the HUD buffer, alpha-blended over the viewer's target.
layout(std430, binding = 0) readonly buffer Hud {
    uvec4 header;
    uint font[128];
    uvec4 records[];
} hud;

layout(location = 0) in vec2 v_local;
layout(location = 1) flat in uint v_glyph;
layout(location = 2) flat in vec4 v_color;
layout(location = 0) out vec4 o_color;

void main() {
    if (v_glyph != 0xFFu) {
        ivec2 p = ivec2(floor(v_local));
        if (p.x >= 5 || p.y >= 7) discard;
        uint bit = uint(p.y * 5 + p.x);
        uint word = hud.font[v_glyph * 2u + bit / 32u];
        if (((word >> (bit % 32u)) & 1u) == 0u) discard;
    }
    o_color = v_color;
}
