#version 460
// atmos.multiscatter: per (μ_sun, r) texel, Hillaire's isotropic multiple-scattering transfer
// Ψ_ms = L₂ / (1 − f_ms) (§5.5: second-order light from 64 directions, the ground bounce
// included, summed as a geometric series over orders), and in the buffer's second half the
// sky's irradiance on level ground. Per unit sun illuminance. Run only when the atmosphere
// changes, after atmos.transmittance.
layout(local_size_x = 8, local_size_y = 8) in;

#define ATMOS_TRANSMITTANCE
#include "common/atmosphere.glsl"

layout(std430, set = 0, binding = 22) writeonly buffer Multiscatter { vec4 m[]; } multiscatter;

// 8 × 8 directions, uniform in solid angle (Hillaire: 64); 20 steps per direction.
const uint DIRS = 8u;
const uint STEPS = 20u;

void main() {
    uvec2 size = atmos.multiscatter_size;
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= size.x || px.y >= size.y) return;
    float mu_s = lut_unit(px.x, size.x) * 2.0 - 1.0;
    float r = mix(atmos.bottom_radius, atmos.top_radius, lut_unit(px.y, size.y));
    // A metre inside the shell at both ends, so that every ray has a span.
    r = clamp(r, atmos.bottom_radius + 1e-3, atmos.top_radius - 1e-3);
    vec3 p = vec3(0.0, 0.0, r);
    vec3 sun = vec3(sqrt(max(1.0 - mu_s * mu_s, 0.0)), 0.0, mu_s);
    const float iso = 1.0 / (4.0 * PI);
    vec3 l2 = vec3(0.0);       // mean second-order luminance over the sphere
    vec3 fms = vec3(0.0);      // mean fraction of light scattered once more
    vec3 sky_e = vec3(0.0);    // irradiance on a level surface from the upper hemisphere
    float sky_w = 4.0 * PI / float(DIRS * DIRS);
    for (uint i = 0u; i < DIRS; i++) {
        for (uint j = 0u; j < DIRS; j++) {
            // Uniform on the sphere: cos θ uniform in [−1, 1], φ uniform.
            float ct = 1.0 - 2.0 * (float(i) + 0.5) / float(DIRS);
            float phi = 2.0 * PI * (float(j) + 0.5) / float(DIRS);
            float st = sqrt(max(1.0 - ct * ct, 0.0));
            vec3 d = vec3(st * cos(phi), st * sin(phi), ct);
            float tg = atmos_ray_sphere(p, d, atmos.bottom_radius);
            float t1 = tg >= 0.0 ? tg : atmos_ray_sphere(p, d, atmos.top_radius);
            float dt = max(t1, 0.0) / float(STEPS);
            vec3 T = vec3(1.0);
            vec3 lum = vec3(0.0);
            vec3 f = vec3(0.0);
            for (uint k = 0u; k < STEPS; k++) {
                vec3 q = p + d * ((float(k) + 0.5) * dt);
                Medium m = atmos_medium(length(q) - atmos.bottom_radius);
                vec3 s = m.rayleigh + m.mie;
                vec3 stp = exp(-m.extinction * dt);
                vec3 integ = (vec3(1.0) - stp) / max(m.extinction, vec3(1e-9));
                lum += T * s * atmos_sun_transmittance(q, sun) * iso * integ;
                f += T * s * integ;
                T *= stp;
            }
            if (tg >= 0.0) {
                // Light the ground returns toward p (Lambertian).
                vec3 g = p + d * tg;
                vec3 n = normalize(g);
                lum += T * atmos_sun_transmittance(g, sun) * max(dot(n, sun), 0.0)
                    * atmos.ground_albedo / PI;
            }
            l2 += lum / float(DIRS * DIRS);
            fms += f / float(DIRS * DIRS);
            if (ct > 0.0) sky_e += lum * ct * sky_w;
        }
    }
    vec3 series = 1.0 / max(vec3(1.0) - fms, vec3(1e-3));
    uint idx = px.y * size.x + px.x;
    multiscatter.m[idx] = vec4(l2 * series, 1.0);
    // Single-scattered sky with the isotropic phase, raised by the same series for the higher
    // orders (an approximation: docs/atmosphere.md).
    multiscatter.m[idx + size.x * size.y] = vec4(sky_e * series, 1.0);
}
