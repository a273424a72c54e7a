// The atmosphere after Hillaire 2020 ("A Scalable and Production Ready Sky and Atmosphere
// Rendering Technique"): the parameters (mirror of engine/src/atmosphere.rs `AtmosphereGpu`,
// std430; a test reads this block's members back from the SPIR-V), the medium, the phase
// functions and each LUT's parameterisation, shared by the `atmos.*` nodes and the shading.
//
// Lengths are kilometres and coefficients per kilometre, with the planet's centre at the
// origin: f32 keeps ~0.5 m at 6,371 km, ample for light in air. Bindings 20–24 are reserved
// for the parameters and the LUTs in every shader that includes this file; a shader defines
// ATMOS_TRANSMITTANCE / ATMOS_MULTISCATTER before including it to read those LUTs (and get
// their lookups and the sky integration), and declares what it writes itself.
#ifndef ATMOSPHERE_GLSL
#define ATMOSPHERE_GLSL

#include "common/frame.glsl"

#ifndef PI
#define PI 3.14159265358979
#endif

layout(std430, set = 0, binding = 20) readonly buffer AtmosphereBlock {
    vec3 rayleigh_scattering;   // per km, at the ground
    float bottom_radius;        // km (the body's datum radius)
    vec3 mie_scattering;        // per km, at the ground
    float top_radius;           // km
    vec3 mie_absorption;        // per km, at the ground
    float rayleigh_scale_height; // km
    vec3 ozone_absorption;      // per km, at the ozone peak
    float mie_scale_height;     // km
    vec3 ground_albedo;         // diffuse, for light bounced into the air
    float mie_g;                // Cornette-Shanks asymmetry
    vec3 sun_illuminance;       // relative units (exposure scales them to display)
    float sun_angular_radius;   // radians
    float ozone_center;         // km above the ground
    float ozone_half_width;     // km: the tent falls to zero this far from the centre
    float exposure;             // display value per unit of luminance, before the tonemap
    uint aerial_size;           // froxels per side of the aerial-perspective volume
    uvec2 transmittance_size;   // texels (μ, r)
    uvec2 multiscatter_size;    // texels (μ_sun, r)
    uvec2 skyview_size;         // texels (azimuth to the sun, zenith angle)
    uint aerial_steps;          // march steps per aerial slice
    uint sky_steps;             // march steps per sky ray
    uvec3 sealevel_size;        // texels (view zenith, azimuth to the sun, sun zenith)
} atmos;

// ---------------------------------------------------------------------------------------
// Geometry

// Both distances (near, far) along unit `d` from `p` to the sphere of radius `r` about the
// origin; false where the line misses it.
bool atmos_ray_sphere2(vec3 p, vec3 d, float r, out float t0, out float t1) {
    float b = dot(p, d);
    float pr = length(p);
    // (|p| − r)(|p| + r): |p|² − r² without cancelling two 4·10⁷ km² squares in f32.
    float c = (pr - r) * (pr + r);
    float disc = b * b - c;
    float s = sqrt(max(disc, 0.0));
    t0 = -b - s;
    t1 = -b + s;
    return disc >= 0.0;
}

// Distance along unit `d` from `p` to the sphere of radius `r` about the origin: the nearest
// non-negative one, or −1 where the ray misses it (or it lies behind).
float atmos_ray_sphere(vec3 p, vec3 d, float r) {
    float t0, t1;
    if (!atmos_ray_sphere2(p, d, r, t0, t1)) return -1.0;
    return t0 >= 0.0 ? t0 : (t1 >= 0.0 ? t1 : -1.0);
}

// The camera in atmosphere space (km, planet centre at the origin), from the f64-derived
// altitude: kept a metre above the ground so that the LUT parameterisations stay defined.
vec3 atmos_eye() {
    vec3 up = normalize(-frame.planet_center);
    return up * (atmos.bottom_radius + max(frame.eye_altitude * 1e-3, 1e-3));
}

// ---------------------------------------------------------------------------------------
// The medium

struct Medium {
    vec3 rayleigh;    // scattering, per km
    vec3 mie;         // scattering, per km
    vec3 extinction;  // per km
};

// The medium at `h` km above the ground: exponential Rayleigh and Mie, a tent of ozone.
Medium atmos_medium(float h) {
    h = max(h, 0.0);
    float dr = exp(-h / atmos.rayleigh_scale_height);
    float dm = exp(-h / atmos.mie_scale_height);
    float doz = max(0.0, 1.0 - abs(h - atmos.ozone_center) / atmos.ozone_half_width);
    Medium m;
    m.rayleigh = dr * atmos.rayleigh_scattering;
    m.mie = dm * atmos.mie_scattering;
    m.extinction = m.rayleigh + m.mie + dm * atmos.mie_absorption + doz * atmos.ozone_absorption;
    return m;
}

float rayleigh_phase(float c) {
    return 3.0 / (16.0 * PI) * (1.0 + c * c);
}

// Cornette-Shanks: Henyey-Greenstein with the (1 + cos²) term Rayleigh also has. `c` is the
// cosine between the view direction and the direction to the sun (peak looking at the sun).
float mie_phase(float g, float c) {
    float k = 3.0 / (8.0 * PI) * (1.0 - g * g) / (2.0 + g * g);
    return k * (1.0 + c * c) / pow(max(1.0 + g * g - 2.0 * g * c, 1e-6), 1.5);
}

// ---------------------------------------------------------------------------------------
// LUT coordinates. Unit coordinates put texel i at i/(n − 1), so the LUTs hold their
// parameter ranges' end points exactly (zenith from the ground is texel (0, 0)).

// Texel centre `i` of an axis of `n` texels → unit coordinate.
float lut_unit(uint i, uint n) {
    return float(i) / float(n - 1u);
}

// Bilinear taps of a row-major LUT of `size` texels at unit coordinates `u`.
struct Bilerp {
    uint i00, i10, i01, i11;
    vec2 f;
};

Bilerp lut_bilerp(uvec2 size, vec2 u) {
    vec2 x = clamp(u, 0.0, 1.0) * vec2(size - 1u);
    uvec2 a = min(uvec2(x), size - 1u);
    uvec2 b = min(a + 1u, size - 1u);
    Bilerp s;
    s.i00 = a.y * size.x + a.x;
    s.i10 = a.y * size.x + b.x;
    s.i01 = b.y * size.x + a.x;
    s.i11 = b.y * size.x + b.x;
    s.f = x - vec2(a);
    return s;
}
#define LUT_BILERP(arr, s) \
    mix(mix(arr[s.i00], arr[s.i10], s.f.x), mix(arr[s.i01], arr[s.i11], s.f.x), s.f.y)

// Transmittance (Bruneton 2017): u = where the distance to the top lies between its least and
// greatest over all directions from radius r, v = the distance to the horizon over its greatest.
vec2 transmittance_unit(float r, float mu) {
    float b = atmos.bottom_radius, t = atmos.top_radius;
    float H = sqrt((t - b) * (t + b));
    float rho = sqrt(max((r - b) * (r + b), 0.0));
    float disc = r * r * (mu * mu - 1.0) + t * t;
    float d = max(-r * mu + sqrt(max(disc, 0.0)), 0.0);
    float dmin = t - r, dmax = rho + H;
    return vec2((d - dmin) / max(dmax - dmin, 1e-6), rho / H);
}

// (r, μ) of transmittance unit coordinates `u`.
vec2 transmittance_params(vec2 u) {
    float b = atmos.bottom_radius, t = atmos.top_radius;
    float H = sqrt((t - b) * (t + b));
    float rho = H * u.y;
    float r = sqrt(rho * rho + b * b);
    float dmin = t - r, dmax = rho + H;
    float d = dmin + u.x * (dmax - dmin);
    float mu = d == 0.0 ? 1.0 : (H * H - rho * rho - d * d) / (2.0 * r * d);
    return vec2(r, clamp(mu, -1.0, 1.0));
}

// Multiple scattering: u = (μ_sun + 1)/2, v = height over the atmosphere's thickness.
vec2 multiscatter_unit(float r, float mu_s) {
    return vec2(mu_s * 0.5 + 0.5, (r - atmos.bottom_radius) / (atmos.top_radius - atmos.bottom_radius));
}

// Sky view, horizon-weighted (Hillaire §5.3): v packs the zenith angle with the horizon at
// v = 0.5 and a square law that puts half of each side's rows within 25 % of its angle to
// the horizon; u is the square root of the angle to the sun's azimuth over π, denser toward
// the sun.
vec2 skyview_unit(float r, float mu, float cos_az, bool hits_ground) {
    float b = atmos.bottom_radius;
    float beta = acos(clamp(sqrt(max((r - b) * (r + b), 0.0)) / r, -1.0, 1.0)); // horizon below level
    float zh = PI - beta; // zenith angle of the horizon
    float theta = acos(clamp(mu, -1.0, 1.0));
    float v = hits_ground
        ? 0.5 + 0.5 * sqrt(clamp((theta - zh) / max(beta, 1e-6), 0.0, 1.0))
        : 0.5 - 0.5 * sqrt(clamp(1.0 - theta / zh, 0.0, 1.0));
    float u = sqrt(acos(clamp(cos_az, -1.0, 1.0)) / PI);
    return vec2(u, v);
}

// (μ, cos azimuth to the sun) of sky-view unit coordinates `u` at radius `r`.
vec2 skyview_params(float r, vec2 u) {
    float b = atmos.bottom_radius;
    float beta = acos(clamp(sqrt(max((r - b) * (r + b), 0.0)) / r, -1.0, 1.0));
    float zh = PI - beta;
    float theta;
    if (u.y < 0.5) {
        float k = 1.0 - 2.0 * u.y; // 1 at the zenith, 0 at the horizon
        theta = zh * (1.0 - k * k);
    } else {
        float k = 2.0 * u.y - 1.0;
        theta = zh + beta * k * k;
    }
    return vec2(cos(theta), cos(u.x * u.x * PI));
}

// The sky seen from the sea (atmos.sealevel), from 10 m above the datum: the height the
// shading lifts the water to, so that the planet's-shadow test does not catch the water itself.
#define SEALEVEL_HEIGHT_KM 0.01
// The sun's elevation axis spans 90° (zenith) to −20° (below astronomical twilight's −18°
// the sky is dark), with a square law about the horizon on each side, where the sky changes
// fastest with the sun; the horizon sits at SEALEVEL_SUN_Z0 so both sides have the same
// density per square-root degree.
#define SEALEVEL_SUN_UP (0.5 * PI)
#define SEALEVEL_SUN_DOWN (PI * 20.0 / 180.0)
#define SEALEVEL_SUN_Z0 0.679623   // sqrt(90) / (sqrt(90) + sqrt(20))

// Unit coordinates of the sea-level sky: x packs the view's zenith angle θ ∈ [0, π/2] as
// 1 − sqrt(1 − θ/(π/2)), denser toward the horizon, where the sky changes fastest; y is the
// square root of the angle to the sun's azimuth over π, denser toward the sun (the Mie peak);
// z is the sun's elevation on the square law above.
vec3 sealevel_unit(float mu, float cos_az, float mu_s) {
    float theta = acos(clamp(mu, 0.0, 1.0));
    float x = 1.0 - sqrt(max(1.0 - theta / (0.5 * PI), 0.0));
    float y = sqrt(acos(clamp(cos_az, -1.0, 1.0)) / PI);
    float el = asin(clamp(mu_s, -1.0, 1.0));
    float z = el >= 0.0
        ? SEALEVEL_SUN_Z0 * (1.0 - sqrt(el / SEALEVEL_SUN_UP))
        : SEALEVEL_SUN_Z0 + (1.0 - SEALEVEL_SUN_Z0) * sqrt(min(-el / SEALEVEL_SUN_DOWN, 1.0));
    return vec3(x, y, z);
}

// (μ, cos azimuth to the sun, μ_sun) of sea-level unit coordinates `u`.
vec3 sealevel_params(vec3 u) {
    float k = 1.0 - u.x;
    float theta = 0.5 * PI * (1.0 - k * k);
    float a = 1.0 - u.z / SEALEVEL_SUN_Z0;
    float b = (u.z - SEALEVEL_SUN_Z0) / (1.0 - SEALEVEL_SUN_Z0);
    float el = u.z <= SEALEVEL_SUN_Z0 ? SEALEVEL_SUN_UP * a * a : -SEALEVEL_SUN_DOWN * b * b;
    return vec3(cos(theta), cos(u.y * u.y * PI), sin(el));
}

// ---------------------------------------------------------------------------------------
// Lookups (for shaders that bind the LUTs)

#ifdef ATMOS_TRANSMITTANCE
layout(std430, set = 0, binding = 21) readonly buffer Transmittance { vec4 t[]; } transmittance;

// Transmittance from radius `r` along zenith cosine `mu` to the top of the atmosphere (the
// ground is not an occluder here: callers test the planet's shadow).
vec3 atmos_transmittance(float r, float mu) {
    Bilerp s = lut_bilerp(atmos.transmittance_size, transmittance_unit(r, mu));
    return LUT_BILERP(transmittance.t, s).rgb;
}

// Light of the sun arriving at `p` (km), per unit illuminance: zero in the planet's shadow.
vec3 atmos_sun_transmittance(vec3 p, vec3 sun) {
    float r = length(p);
    if (atmos_ray_sphere(p, sun, atmos.bottom_radius) > 0.0) return vec3(0.0);
    return atmos_transmittance(r, dot(p, sun) / r);
}
#endif

#if defined(ATMOS_TRANSMITTANCE) && defined(ATMOS_MULTISCATTER)
layout(std430, set = 0, binding = 22) readonly buffer Multiscatter { vec4 m[]; } multiscatter;

// Isotropic multiple-scattering transfer Ψ_ms at radius `r` for sun zenith cosine `mu_s`.
vec3 atmos_multiscatter(float r, float mu_s) {
    Bilerp s = lut_bilerp(atmos.multiscatter_size, multiscatter_unit(r, mu_s));
    return LUT_BILERP(multiscatter.m, s).rgb;
}

// Sky irradiance on a level surface at radius `r` for sun zenith cosine `mu_s`, per unit sun
// illuminance (the second half of the multiple-scattering buffer).
vec3 atmos_sky_irradiance(float r, float mu_s) {
    Bilerp s = lut_bilerp(atmos.multiscatter_size, multiscatter_unit(r, mu_s));
    uint n = atmos.multiscatter_size.x * atmos.multiscatter_size.y;
    s.i00 += n; s.i10 += n; s.i01 += n; s.i11 += n;
    return LUT_BILERP(multiscatter.m, s).rgb;
}

// Luminance scattered toward `p` along unit `d` over [t0, t1] km (single scattering with the
// planet's shadow, plus multiple scattering from Ψ_ms), per unit sun illuminance, and the
// transmittance over the same span. `steps` samples, denser near t0 (square law).
vec3 atmos_integrate(vec3 p, vec3 d, vec3 sun, float t0, float t1, uint steps, out vec3 trans) {
    float c = dot(d, sun);
    float pr = rayleigh_phase(c);
    float pm = mie_phase(atmos.mie_g, c);
    vec3 lum = vec3(0.0);
    vec3 T = vec3(1.0);
    float prev = t0;
    for (uint i = 0u; i < steps; i++) {
        float x = (float(i) + 1.0) / float(steps);
        float tn = t0 + (t1 - t0) * x * x;
        float dt = tn - prev;
        vec3 q = p + d * (0.5 * (prev + tn));
        prev = tn;
        float r = length(q);
        Medium m = atmos_medium(r - atmos.bottom_radius);
        float mu_s = dot(q, sun) / r;
        vec3 sun_t = atmos_sun_transmittance(q, sun);
        vec3 scat = sun_t * (m.rayleigh * pr + m.mie * pm)
            + atmos_multiscatter(r, mu_s) * (m.rayleigh + m.mie);
        // Analytic integration over the step (Hillaire §5.1, after Hillaire 2015): stable for
        // optically thick steps.
        vec3 st = exp(-m.extinction * dt);
        lum += T * (scat - scat * st) / max(m.extinction, vec3(1e-9));
        T *= st;
    }
    trans = T;
    return lum;
}

#ifdef ATMOS_SEALEVEL
layout(std430, set = 0, binding = 25) readonly buffer Sealevel { vec4 s[]; } sealevel;

// The sky's luminance along unit `d` seen from the sea surface at `p` (km), for the sun's
// illuminance (as atmos.skyview holds it): trilinear in atmos.sealevel, in the frame of the
// point's own zenith.
vec3 atmos_sealevel_sky(vec3 p, vec3 d, vec3 sun) {
    vec3 up = normalize(p);
    float mu = dot(d, up), mu_s = dot(sun, up);
    vec3 dh = d - up * mu;
    vec3 sh = sun - up * mu_s;
    float cos_az = length(dh) > 1e-6 && length(sh) > 1e-6 ? dot(normalize(dh), normalize(sh)) : 1.0;
    uvec3 size = atmos.sealevel_size;
    vec3 x = sealevel_unit(mu, cos_az, mu_s) * vec3(size - 1u);
    uvec3 a = min(uvec3(x), size - 1u);
    uvec3 b = min(a + 1u, size - 1u);
    vec3 f = x - vec3(a);
    vec3 lum = vec3(0.0);
    for (uint j = 0u; j < 8u; j++) {
        uvec3 c = uvec3((j & 1u) == 0u ? a.x : b.x, (j & 2u) == 0u ? a.y : b.y, (j & 4u) == 0u ? a.z : b.z);
        vec3 w3 = vec3((j & 1u) == 0u ? 1.0 - f.x : f.x, (j & 2u) == 0u ? 1.0 - f.y : f.y, (j & 4u) == 0u ? 1.0 - f.z : f.z);
        lum += w3.x * w3.y * w3.z * sealevel.s[(c.z * size.y + c.y) * size.x + c.x].rgb;
    }
    return lum;
}
#endif

// The span [t0, t1] km of the ray from `p` along `d` inside the atmosphere, ending at the
// ground if it meets it; false where the ray misses the atmosphere.
bool atmos_span(vec3 p, vec3 d, out float t0, out float t1) {
    float a, b;
    // The far root is the exit: from a point on the top sphere the near root is that point.
    if (!atmos_ray_sphere2(p, d, atmos.top_radius, a, b) || b <= 0.0) {
        t0 = t1 = 0.0;
        return false;
    }
    t0 = max(a, 0.0);
    float tg = atmos_ray_sphere(p, d, atmos.bottom_radius);
    t1 = tg >= 0.0 ? tg : b;
    return t1 > t0;
}
#endif

// The sun's disk: luminance per unit illuminance (uniform over the disk would be 1/(πα²)), with
// limb darkening I(μ)/I(1) = 1 − u(1 − μ), u = 0.6 in the visible (Neckel & Labs 1994 give
// 0.5–0.8 across 400–700 nm); zero off the disk.
float atmos_sun_disk(vec3 d, vec3 sun) {
    float a = atmos.sun_angular_radius;
    float c = dot(d, sun);
    if (c < cos(a)) return 0.0;
    float x = acos(min(c, 1.0)) / a;
    float mu = sqrt(max(1.0 - x * x, 0.0));
    const float u = 0.6;
    // Normalised so that the disk integrates to the illuminance: ∫ (1 − u(1 − μ)) = 1 − u/3.
    return (1.0 - u * (1.0 - mu)) / ((1.0 - u / 3.0) * PI * a * a);
}

#endif
