// Per-frame constants (camera, planet, level selection). Mirror of engine/src/gpu/frame.rs
// (`FrameConstants`, std430); offsets are checked by a test through reflection.
// Binding 16 is reserved for it in every shader that includes this file.
#ifndef FRAME_GLSL
#define FRAME_GLSL

layout(std430, set = 0, binding = 16) readonly buffer FrameBlock {
    mat4 view_proj;      // camera-relative world → clip (reverse-Z, infinite far)
    vec4 cam_forward;    // xyz forward, w = tan(vfov/2)
    vec4 cam_right;      // xyz right, w = aspect (width/height)
    vec4 cam_up;         // xyz up, w = pixel angle (radians)
    vec4 planet_center;  // xyz planet centre relative to the camera (culls only), w = radius
    vec4 viewport;       // width, height, 1/width, 1/height (px)
    vec4 sun;            // xyz direction to the sun, w = camera altitude above the datum (m)
    float texel0;        // metres at L0
    float time;          // seconds
    uint frame_index;
    uint max_level;      // finest level the level selection may choose
    uint debug_view;
    uint lookup_mask;    // tile lookup table size − 1 (power of two)
    float lod_bias;      // added to the continuous lod
    float eye_radius;    // |eye| from the planet centre (m)
} frame;

// Ray through pixel centre `px` (in pixels, y down), camera-relative, unit length.
vec3 pixel_ray(vec2 px) {
    vec2 ndc = (px * frame.viewport.zw) * 2.0 - 1.0;
    float t = frame.cam_forward.w;
    return normalize(frame.cam_forward.xyz + ndc.x * t * frame.cam_right.w * frame.cam_right.xyz - ndc.y * t * frame.cam_up.xyz);
}

#endif
