#version 460
// raster.cbt_debug: flat colour by LEB depth (a hue cycle of 12 levels over a brightness ramp
// toward the deepest leaves); mode 1 darkens a one-pixel band along every edge (wireframe);
// mode 2 draws only that band, over the shaded image (depth-tested against raster.hardware).

layout(location = 0) in vec3 bary;
layout(location = 1) flat in uint leb_depth;
layout(location = 0) out vec4 color;

layout(push_constant) uniform DebugPush { uint mode; } dbg;

vec3 hue(float h) {
    vec3 k = clamp(abs(fract(h + vec3(0.0, 2.0, 1.0) / 3.0) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
    return k;
}

void main() {
    float d = float(leb_depth) - 5.0; // 0 at the roots
    vec3 c = hue(d / 12.0) * (0.45 + 0.55 * clamp(d / 60.0, 0.0, 1.0));
    if (dbg.mode >= 1u) {
        vec3 w = fwidth(bary);
        vec3 edge = smoothstep(vec3(0.0), w * 1.5, bary);
        float e = min(min(edge.x, edge.y), edge.z);
        if (dbg.mode == 2u) {
            if (e > 0.5) discard;
            c = mix(vec3(0.02), c, 0.35);
        } else {
            c *= 0.25 + 0.75 * e;
        }
    }
    color = vec4(c, 1.0);
}
