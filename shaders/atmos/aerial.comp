#version 460
// atmos.aerial: aerial perspective in froxels over the frustum (Hillaire §5.4). A thread per
// screen column of the volume marches its ray and stores, at the end of each depth slice,
// the luminance scattered toward the camera and the transmittance so far. Slices are spaced
// by a square law over the ray's span inside the atmosphere (entry to ground or exit), so one
// volume serves a camera at 2 m and one in orbit; `shade.terrain` finds its slice the same way
// (`aerial_slice`). Per frame.
layout(local_size_x = 8, local_size_y = 8) in;

#define ATMOS_TRANSMITTANCE
#define ATMOS_MULTISCATTER
#include "common/atmosphere.glsl"

layout(std430, set = 0, binding = 24) writeonly buffer Aerial { vec4 a[]; } aerial;

void main() {
    uint n = atmos.aerial_size;
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= n || px.y >= n) return;
    // The ray through the froxel column's centre (y down, as pixel_ray).
    vec3 d = pixel_ray((vec2(px) + 0.5) / float(n) * frame.viewport);
    vec3 eye = atmos_eye();
    float t0, t1;
    bool inside = atmos_span(eye, d, t0, t1);
    vec3 lum = vec3(0.0);
    vec3 T = vec3(1.0);
    float prev = t0;
    for (uint k = 0u; k < n; k++) {
        if (inside) {
            float x = float(k + 1u) / float(n);
            float tk = t0 + (t1 - t0) * x * x;
            vec3 tr;
            vec3 l = atmos_integrate(eye + d * prev, d, frame.sun_dir, 0.0, tk - prev, atmos.aerial_steps, tr);
            lum += T * l * atmos.sun_illuminance;
            T *= tr;
            prev = tk;
        }
        uint idx = 2u * ((k * n + px.y) * n + px.x);
        aerial.a[idx] = vec4(lum, 1.0);
        aerial.a[idx + 1u] = vec4(T, 1.0);
    }
}
