#version 460
// atmos.sealevel: the sky's luminance seen from the sea surface, per (view zenith angle above
// the horizon, angle to the sun's azimuth, sun zenith angle) texel — the sky the ocean
// reflects, wherever on the planet the water is and wherever the sun stands over it, so the
// shading looks it up instead of marching a reflected ray per pixel. Single scattering with
// the planet's shadow plus multiple scattering, no sun disk (the glint is the sun's
// reflection). Depends on the air alone: run only when the atmosphere changes, after
// atmos.multiscatter.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

#define ATMOS_TRANSMITTANCE
#define ATMOS_MULTISCATTER
#include "common/atmosphere.glsl"

layout(std430, set = 0, binding = 25) writeonly buffer Sealevel { vec4 s[]; } sealevel;

void main() {
    uvec3 size = atmos.sealevel_size;
    uvec3 px = gl_GlobalInvocationID;
    if (any(greaterThanEqual(px, size))) return;
    vec3 m = sealevel_params(vec3(lut_unit(px.x, size.x), lut_unit(px.y, size.y), lut_unit(px.z, size.z)));
    float mu = m.x, cos_az = m.y, mu_s = m.z;
    float st = sqrt(max(1.0 - mu * mu, 0.0));
    float sa = sqrt(max(1.0 - cos_az * cos_az, 0.0));
    // Local frame: up is z, the sun lies in the x–z plane.
    vec3 d = vec3(st * cos_az, st * sa, mu);
    vec3 sun = vec3(sqrt(max(1.0 - mu_s * mu_s, 0.0)), 0.0, mu_s);
    vec3 p = vec3(0.0, 0.0, atmos.bottom_radius + SEALEVEL_HEIGHT_KM);
    float t0, t1;
    vec3 lum = vec3(0.0);
    vec3 trans;
    if (atmos_span(p, d, t0, t1)) lum = atmos_integrate(p, d, sun, t0, t1, atmos.sky_steps, trans);
    sealevel.s[(px.z * size.y + px.y) * size.x + px.x] = vec4(lum * atmos.sun_illuminance, 1.0);
}
