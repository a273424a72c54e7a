#version 460
// Copies the viewer's target (display-ready RGBA8) into the swapchain image, one texel per
// pixel, or a smaller target (the viewer's first frame, a preview) scaled up, nearest texel.
// A raster node, not vkCmdBlitImage: swapchains only promise COLOR_ATTACHMENT usage
// (lavapipe's offers little else) and their format (BGRA) differs from the target's.
layout(binding = 0) uniform sampler2D src;
// width, height: the swapchain image's, px.
layout(push_constant) uniform Push { uint decode_srgb; uint width; uint height; } pc;
layout(location = 0) out vec4 o_color;

void main() {
    ivec2 size = textureSize(src, 0);
    // Integer arithmetic: the same size maps each pixel to its own texel exactly.
    ivec2 px = ivec2(gl_FragCoord.xy) * size / ivec2(pc.width, pc.height);
    vec4 c = texelFetch(src, min(px, size - 1), 0);
    if (pc.decode_srgb != 0u) {
        // An sRGB swapchain encodes on write: hand it linear values so the bytes stay ours.
        vec3 lo = c.rgb / 12.92;
        vec3 hi = pow((c.rgb + 0.055) / 1.055, vec3(2.4));
        c.rgb = mix(hi, lo, lessThanEqual(c.rgb, vec3(0.04045)));
    }
    o_color = vec4(c.rgb, 1.0);
}
