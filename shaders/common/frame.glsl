// Per-frame constants: the camera, the planet and level selection, built once per frame by
// engine/src/frame_constants.rs (`FrameConstants`, std430; a test reads this block's member
// names and offsets back from the compiled SPIR-V). Binding 16 is reserved for it in every
// shader that includes this file.
#ifndef FRAME_GLSL
#define FRAME_GLSL

layout(std430, set = 0, binding = 16) readonly buffer FrameBlock {
    mat4 view_proj;       // camera-relative world → clip (reverse-Z, infinite far)
    vec3 cam_forward;     // unit view direction
    float tan_half_vfov;
    vec3 cam_right;       // unit screen right
    float aspect;         // width / height
    vec3 cam_up;          // unit screen up
    float pixel_angle;    // angle of the centre pixel, radians
    vec3 planet_center;   // planet centre relative to the camera, m (culls only)
    float planet_radius;  // datum radius, m
    vec3 sun_dir;         // unit direction to the sun
    float eye_altitude;   // camera height above the datum, m (from f64: no cancellation)
    vec2 viewport;        // width, height, px
    vec2 inv_viewport;    // 1/width, 1/height
    float texel0;         // texel size at L0, m
    uint max_level;       // finest level the level selection may choose
    uint lookup_mask;     // tile lookup table size − 1 (power of two)
    float lod_bias;       // added to the continuous lod
    float time_s;         // the renderer's clock, s (wave motion)
} frame;

// Ray through pixel centre `px` (in pixels, y down), camera-relative, scaled to a unit forward
// component: the point at view depth w is w times it.
vec3 pixel_depth_ray(vec2 px) {
    vec2 ndc = (px * frame.inv_viewport) * 2.0 - 1.0;
    float t = frame.tan_half_vfov;
    return frame.cam_forward + ndc.x * t * frame.aspect * frame.cam_right - ndc.y * t * frame.cam_up;
}

// Ray through pixel centre `px` (in pixels, y down), camera-relative, unit length.
vec3 pixel_ray(vec2 px) { return normalize(pixel_depth_ray(px)); }

#endif
