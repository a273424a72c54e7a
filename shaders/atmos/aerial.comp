#version 460
// atmos.aerial: aerial perspective in froxels over the frustum (Hillaire §5.4): per froxel the
// luminance scattered toward the camera and the transmittance from the camera to the end of
// its depth slice. Slices are spaced by a square law over the ray's span inside the atmosphere
// (entry to ground or exit), so one volume serves a camera at 2 m and one in orbit;
// `shade.terrain` finds its slice the same way. A workgroup per screen column of the volume
// and a thread per slice: each thread integrates its own slice, then the workgroup composes
// the slices front to back with a scan, (L, T) ∘ (L', T') = (L + T·L', T·T') — a column's
// march is 32 threads wide instead of one thread 64 steps long. Per frame.
layout(local_size_x = 32) in;   // = atmos.aerial_size (engine/src/atmosphere.rs AERIAL_SIZE)

#define ATMOS_TRANSMITTANCE
#define ATMOS_MULTISCATTER
#include "common/atmosphere.glsl"

layout(std430, set = 0, binding = 24) writeonly buffer Aerial { vec4 a[]; } aerial;

shared vec3 s_lum[32];
shared vec3 s_trans[32];

void main() {
    uint n = atmos.aerial_size;
    uint k = gl_LocalInvocationID.x;
    uvec2 px = gl_WorkGroupID.yz;
    // The ray through the froxel column's centre (y down, as pixel_ray).
    vec3 d = pixel_ray((vec2(px) + 0.5) / float(n) * frame.viewport);
    vec3 eye = atmos_eye();
    float t0, t1;
    vec3 lum = vec3(0.0);
    vec3 T = vec3(1.0);
    if (atmos_span(eye, d, t0, t1)) {
        float xa = float(k) / float(n), xb = float(k + 1u) / float(n);
        float ta = t0 + (t1 - t0) * xa * xa;
        float tb = t0 + (t1 - t0) * xb * xb;
        lum = atmos_integrate(eye + d * ta, d, frame.sun_dir, 0.0, tb - ta, atmos.aerial_steps, T)
            * atmos.sun_illuminance;
    }
    // Inclusive scan over the slices (Hillis–Steele): after it, slice k holds the light and
    // transmittance from the camera to its far end.
    s_lum[k] = lum;
    s_trans[k] = T;
    barrier();
    for (uint step = 1u; step < 32u; step <<= 1) {
        vec3 l = lum, t = T;
        if (k >= step) {
            vec3 lp = s_lum[k - step], tp = s_trans[k - step];
            l = lp + tp * lum;
            t = tp * T;
        }
        barrier();
        lum = l;
        T = t;
        s_lum[k] = lum;
        s_trans[k] = T;
        barrier();
    }
    uint idx = 2u * ((k * n + px.y) * n + px.x);
    aerial.a[idx] = vec4(lum, 1.0);
    aerial.a[idx + 1u] = vec4(T, 1.0);
}
