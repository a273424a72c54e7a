#version 460
// atmos.skyview: the sky's luminance around the camera, per (azimuth to the sun, zenith
// angle) texel, horizon-weighted (common/atmosphere.glsl `skyview_unit`), with the planet's
// shadow and multiple scattering; no sun disk. Per frame.
layout(local_size_x = 8, local_size_y = 8) in;

#define ATMOS_TRANSMITTANCE
#define ATMOS_MULTISCATTER
#include "common/atmosphere.glsl"

layout(std430, set = 0, binding = 23) writeonly buffer Skyview { vec4 s[]; } skyview;

void main() {
    uvec2 size = atmos.skyview_size;
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= size.x || px.y >= size.y) return;
    vec3 eye = atmos_eye();
    // Within the shell: above it the shading marches the sky itself and never reads this.
    float r = clamp(length(eye), atmos.bottom_radius + 1e-3, atmos.top_radius - 1e-3);
    vec3 up = eye / length(eye);
    float mu_s = dot(frame.sun_dir, up);
    vec2 mc = skyview_params(r, vec2(lut_unit(px.x, size.x), lut_unit(px.y, size.y)));
    float st = sqrt(max(1.0 - mc.x * mc.x, 0.0));
    float sa = sqrt(max(1.0 - mc.y * mc.y, 0.0));
    // Local frame: up is z, the sun lies in the x–z plane.
    vec3 d = vec3(st * mc.y, st * sa, mc.x);
    vec3 sun = vec3(sqrt(max(1.0 - mu_s * mu_s, 0.0)), 0.0, mu_s);
    vec3 p = vec3(0.0, 0.0, r);
    float t0, t1;
    vec3 lum = vec3(0.0);
    vec3 trans;
    if (atmos_span(p, d, t0, t1)) lum = atmos_integrate(p, d, sun, t0, t1, atmos.sky_steps, trans);
    skyview.s[px.y * size.x + px.x] = vec4(lum * atmos.sun_illuminance, 1.0);
}
