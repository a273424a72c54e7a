#version 460
// shade.terrain: shade hit records — materials from altitude, slope and the climate's wetness
// field (common/material.glsl, common/climate.glsl); the ocean's waves, sky reflection, glint
// and depth-tinted water (common/ocean.glsl); lit by the sun through the air and by the sky's irradiance, seen
// through aerial perspective; the physical sky where there is no terrain; exposure and
// tonemap. Debug views by push constant.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/surface.glsl"
#include "common/hit.glsl"
#define ATMOS_TRANSMITTANCE
#define ATMOS_MULTISCATTER
#define ATMOS_SEALEVEL
#include "common/atmosphere.glsl"
#include "common/climate.glsl"
#include "common/material.glsl"
#include "common/ocean.glsl"
#include "common/exposure.glsl"

// Reflectance at normal incidence of the ground's specular lobe (dielectrics, 4 %).
#define GROUND_F0 0.04

layout(set = 0, binding = 0, rgba32ui) uniform readonly uimage2D hits;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D color;
layout(std430, set = 0, binding = 23) readonly buffer Skyview { vec4 s[]; } skyview;
layout(std430, set = 0, binding = 24) readonly buffer Aerial { vec4 a[]; } aerial;
// view: 0 shaded, 1 level colours, 2 slot ids, 3 normals, 4 lat/lon, 5 water.
// sealevel_ready: 0 while atmos.sealevel is not made yet (a frame that deferred it).
// skip: SKIP_* bits, parts left out to time what they cost (engine::shade::Skips; 0 always but
// for `--skip`): the image is wrong by design while any is set.
// skyview_ready: 0 where atmos.skyview does not hold this frame's sky (not made where every ray
// of the frustum meets the ground, engine::atmosphere::sky_may_show).
layout(push_constant) uniform Push { uint view; uint sealevel_ready; uint skip; uint skyview_ready; } pc;

#define SKIP_AERIAL 1u
#define SKIP_FOOTPRINT 2u
#define SKIP_CLIMATE 4u
#define SKIP_EXPOSURE_SUM 8u
#define SKIP_LIGHT 16u
#define SKIP_WAVES 32u
bool skipped(uint part) { return (pc.skip & part) != 0u; }

#define VIEW_SHADED 0u
#define VIEW_LEVEL 1u
#define VIEW_SLOT 2u
#define VIEW_NORMAL 3u
#define VIEW_LATLON 4u
#define VIEW_WATER 5u

vec3 hue(float h) {
    vec3 k = mod(vec3(5.0, 3.0, 1.0) + h * 6.0, 6.0);
    return 1.0 - clamp(min(k, 4.0 - k), 0.0, 1.0);
}

// Luminance of the sky along `d` (no terrain there): the sky-view LUT inside the
// atmosphere, a march from above it (the LUT's parameterisation needs a horizon below the
// eye) or where this frame has no sky view (a ray through a hole in a frustum that sees only
// ground), and the sun's disk where the ray leaves the planet.
vec3 sky(vec3 d) {
    vec3 eye = atmos_eye();
    float r = length(eye);
    vec3 up = eye / r;
    vec3 sun = frame.sun_dir;
    bool hits_ground = atmos_ray_sphere(eye, d, atmos.bottom_radius) >= 0.0;
    vec3 lum = vec3(0.0);
    vec3 to_space = vec3(1.0);
    float t0, t1;
    bool in_air = atmos_span(eye, d, t0, t1);
    if (r < atmos.top_radius && pc.skyview_ready != 0u) {
        vec3 dh = d - up * dot(d, up);
        vec3 sh = sun - up * dot(sun, up);
        float cos_az = length(dh) > 1e-6 && length(sh) > 1e-6 ? dot(normalize(dh), normalize(sh)) : 1.0;
        Bilerp s = lut_bilerp(atmos.skyview_size, skyview_unit(r, dot(d, up), cos_az, hits_ground));
        lum = LUT_BILERP(skyview.s, s).rgb;
        to_space = atmos_transmittance(r, dot(d, up));
    } else if (in_air) {
        lum = atmos_integrate(eye, d, sun, t0, t1, atmos.sky_steps, to_space) * atmos.sun_illuminance;
    }
    if (!hits_ground) lum += atmos_sun_disk(d, sun) * atmos.sun_illuminance * to_space;
    return lum;
}

// Aerial perspective at `dist_km` along the ray `d` through screen point `uv` (0–1): the
// luminance the air adds (rgb) and its transmittance, trilinear in the `atmos.aerial` volume
// whose slices follow the square law over the ray's span in the air (atmos/aerial.comp).
void aerial_perspective(vec2 uv, vec3 d, float dist_km, out vec3 add, out vec3 trans) {
    add = vec3(0.0);
    trans = vec3(1.0);
    float t0, t1;
    if (!atmos_span(atmos_eye(), d, t0, t1)) return;
    uint n = atmos.aerial_size;
    float s = clamp((dist_km - t0) / (t1 - t0), 0.0, 1.0);
    // Slice k holds the value at sqrt(s) = (k + 1)/n; before slice 0 the air adds nothing.
    float z = sqrt(s) * float(n) - 1.0;
    vec2 xy = clamp(uv * float(n) - 0.5, vec2(0.0), vec2(float(n - 1u)));
    uvec2 a = min(uvec2(xy), uvec2(n - 1u));
    uvec2 b = min(a + 1u, uvec2(n - 1u));
    vec2 f = xy - vec2(a);
    int k0 = int(floor(z));
    float fz = z - float(k0);
    for (int dz = 0; dz < 2; dz++) {
        int k = k0 + dz;
        float wz = dz == 0 ? 1.0 - fz : fz;
        if (wz <= 0.0) continue;
        if (k < 0) continue; // slice −1: no air yet (adds nothing, transmittance 1)
        uint kk = uint(min(k, int(n) - 1));
        vec3 l = vec3(0.0), t = vec3(0.0);
        for (int j = 0; j < 4; j++) {
            uvec2 c = uvec2((j & 1) == 0 ? a.x : b.x, (j & 2) == 0 ? a.y : b.y);
            float w = ((j & 1) == 0 ? 1.0 - f.x : f.x) * ((j & 2) == 0 ? 1.0 - f.y : f.y);
            uint idx = 2u * ((kk * n + c.y) * n + c.x);
            l += w * aerial.a[idx].rgb;
            t += w * aerial.a[idx + 1u].rgb;
        }
        add += wz * l;
        trans += wz * (t - vec3(1.0));
    }
}

// Snow's share of a footprint under the snow line `line`: `snow_ground` averaged over its taps.
// Where the selected tile's heights all lie below the blend around the line, or all above it
// (a metre to spare: the atlas keeps covers in the heights' two low mantissa bits), every tap's
// share is 0, or every one 1, and the taps are not read: most ground is far from the line.
float snow_share(Footprint f, float line) {
    SlotRecord r = slots.s[f.slot];
    float b = snow_blend_m() + 1.0;
    if (r.max_h < line - b) return 0.0;
    if (r.min_h > line + b) return 1.0;
    vec4 th = footprint_heights(f);
    return 0.25 * (snow_ground(th.x, line) + snow_ground(th.y, line)
                 + snow_ground(th.z, line) + snow_ground(th.w, line));
}

// The luminance this invocation's pixel was tonemapped from (the exposure's measurement).
float g_luminance = 0.0;

// Exposure (exposure.adapt's value), then the ACES filmic curve as fitted by Narkowicz 2015
// (docs/atmosphere.md), then the sRGB transfer function: the target is UNORM and its bytes
// are shown as sRGB.
vec3 tonemap(vec3 lum) {
    g_luminance = dot(lum, vec3(0.2126, 0.7152, 0.0722));
    vec3 x = lum * exposure.value;
    vec3 y = clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
    return mix(12.92 * y, 1.055 * pow(y, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, y));
}

// The sky's luminance along `d` from the surface point `p` (km), without the sun's disk (the
// glint is the sun's reflection): the sky over the point itself from the sea-level LUT, so
// that water seen from orbit reflects the sky above it, not the black of space around the
// camera. Before that LUT is made, a uniform sky with the same irradiance on level ground
// `sky_e` (luminance E/π).
vec3 reflected_sky(vec3 p, vec3 d, vec3 sky_e) {
    if (pc.sealevel_ready == 0u) return sky_e / PI;
    return atmos_sealevel_sky(p, d, frame.sun_dir);
}

// Light leaving the ocean's surface toward the eye along −d: the sky's reflection (Fresnel),
// the sun's glint and the light from the water below. `sun_t` is the sun's light at the
// point, `sky_e` the sky's irradiance on level ground.
vec3 shade_ocean(SlotRecord r, vec2 st, vec3 d, vec3 up, vec3 pos, float dist, float depth, vec3 sun_t, vec3 sky_e) {
    vec3 v = -d;
    // Footprint of the pixel on the water, m: stretched by the grazing angle, so that the
    // waves fold into slope variance before they alias along the view.
    float footprint = dist * frame.pixel_angle / max(dot(v, up), 0.05);
    vec2 slope;
    float mss;
    if (skipped(SKIP_WAVES)) {
        slope = vec2(0.0);
        mss = OCEAN_BASE_MSS + float(OCEAN_OCTAVES) * 0.5 * OCEAN_STEEPNESS * OCEAN_STEEPNESS;
    } else {
        ocean_waves(r, st, footprint, frame.time_s, slope, mss);
    }
    vec3 tu = normalize(r.e1.xyz - up * dot(up, r.e1.xyz));
    vec3 tv = normalize(r.e2.xyz - up * dot(up, r.e2.xyz));
    vec3 n = normalize(up - slope.x * tu - slope.y * tv);
    // A wave facing away from the eye: the eye sees its neighbour, not its back.
    if (dot(n, v) < 0.0) n = up;
    vec3 refl = reflect(d, n);
    refl = normalize(refl - 2.0 * min(dot(refl, up), 0.0) * up);
    float f = fresnel_schlick(WATER_F0, dot(v, n));
    vec3 l = frame.sun_dir;
    vec3 e = sun_t * max(dot(up, l), 0.0) + sky_e;
    return f * reflected_sky(pos, refl, sky_e)
        + sun_t * ocean_glint(n, v, l, mss)
        + (1.0 - f) * ocean_body(depth) / PI * e;
}

void shade_pixel(uvec2 px) {
    vec3 d = pixel_ray(vec2(px) + 0.5);
    uvec4 h = imageLoad(hits, ivec2(px));
    float dist = hit_dist(h);
    if (dist <= 0.0) {
        imageStore(color, ivec2(px), vec4(pc.view == VIEW_SHADED ? tonemap(sky(d)) : vec3(0.0), 1.0));
        return;
    }
    uint slot = hit_slot(h);
    SlotRecord r = slots.s[slot];
    vec2 st = hit_st(h);
    vec3 n = hit_normal(h);
    // The radial direction at the hit, from its position (no chart inverse): float error at
    // planet scale is 1e-7 rad, far below what latitude and slope need.
    vec3 up = normalize(d * dist - frame.planet_center);
    float height = tile_height(r, st);
    float lat = degrees(asin(clamp(up.z, -1.0, 1.0)));
    vec3 c;
    if (pc.view == VIEW_LEVEL) c = hue(float(hit_level(h)) / 19.0) * (0.6 + 0.4 * max(dot(n, frame.sun_dir), 0.0));
    else if (pc.view == VIEW_SLOT) c = hue(fract(float(slot) * 0.61803));
    else if (pc.view == VIEW_NORMAL) c = n * 0.5 + 0.5;
    else if (pc.view == VIEW_LATLON) c = vec3(lat / 180.0 + 0.5, degrees(atan(up.y, up.x)) / 360.0 + 0.5, 0.0);
    else if (pc.view == VIEW_WATER) c = hit_water(h) ? vec3(0.1, 0.3, 0.9) : vec3(0.5, 0.4, 0.2);
    else {
        float slope = 1.0 - dot(n, up);
        // The surface in atmosphere space (km), lifted to 10 m above the datum at least so
        // that the planet's-shadow test does not catch the ocean (at the datum) itself.
        vec3 pos = atmos_eye() + d * (dist * 1e-3);
        float rs = max(length(pos), atmos.bottom_radius + 0.01);
        pos = normalize(pos) * rs;
        vec3 sun_t = atmos.sun_illuminance, sky_e = 0.2 * atmos.sun_illuminance;
        if (!skipped(SKIP_LIGHT)) {
            sun_t = atmos_sun_transmittance(pos, frame.sun_dir) * atmos.sun_illuminance;
            sky_e = atmos_sky_irradiance(rs, dot(pos, frame.sun_dir) / rs) * atmos.sun_illuminance;
        }
        // Water's share of the pixel's footprint (the covers of the levels the pixel's
        // distance selects, as `hit_water` reads them): a lake or a shore under a
        // pixel shades as a mix of both surfaces, not as a pixel of one. The footprint is the
        // pixel's width across the ray (its stretch along a grazing view left out: a box that
        // long would blur shores near the horizon into the sea).
        float cover = 1.0;
        Footprint fpt = Footprint(slot, st, 1.0, 0.0);
        if (!hit_ocean(h)) {
            if (skipped(SKIP_FOOTPRINT)) {
                cover = hit_water(h) ? 1.0 : 0.0;
            } else {
                fpt = footprint_at(slot, st, dist, dist * frame.pixel_angle);
                cover = clamp(water_share(fpt), 0.0, 1.0);
            }
        }
        vec3 lit = vec3(0.0);
        if (cover > 0.0) {
            // A lake's samples hold its surface (GSHHG has no lake depths): a nominal depth.
            float depth = lake_weight(r, st) > 0.5 ? LAKE_DEPTH_M : max(-height, 0.0);
            lit = cover * shade_ocean(r, st, d, up, pos, dist, depth, sun_t, sky_e);
        }
        if (cover < 1.0) {
            // Lambertian: the sun's irradiance on the facet, and the sky's on level ground,
            // less where the facet tilts away from the upper hemisphere; plus a faint
            // specular lobe (snow's sheen, wet rock).
            // Snow's share of the footprint likewise, from the heights at the same taps.
            vec2 clim = skipped(SKIP_CLIMATE) ? vec2(0.5, 0.0) : climate_at(up);
            float wet = clim.x, region_h = clim.y;
            float line = snow_line_height(up.z * up.z, material_aridity(wet), region_h);
            float snow = skipped(SKIP_FOOTPRINT) ? snow_ground(height, line) : snow_share(fpt, line);
            Material m = terrain_material(height, slope, lat, wet, region_h, snow);
            lit += (1.0 - cover) * (m.albedo / PI * (sun_t * max(dot(n, frame.sun_dir), 0.0) + sky_e * (0.5 + 0.5 * dot(n, up)))
                + sun_t * ggx_specular(n, -d, frame.sun_dir, m.roughness, GROUND_F0));
        }
        vec3 add = vec3(0.0), trans = vec3(1.0);
        if (!skipped(SKIP_AERIAL)) {
            aerial_perspective((vec2(px) + 0.5) * frame.inv_viewport, d, dist * 1e-3, add, trans);
        }
        c = tonemap(lit * trans + add);
    }
    imageStore(color, ivec2(px), vec4(c, 1.0));
}

// Per workgroup: the sum of the counted pixels' log2 luminance (fixed point) and their number,
// added to the exposure's state by one thread: each subgroup sums its lanes, one barrier, and
// the first thread adds the subgroups' sums (integers: the same totals in any order).
shared int s_log[64];
shared uint s_count[64];

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x < uint(frame.viewport.x) && px.y < uint(frame.viewport.y)) shade_pixel(px);
    // A push constant: the whole workgroup returns, or none does, before the barrier.
    if (skipped(SKIP_EXPOSURE_SUM)) return;
    bool counted = g_luminance > EXPOSURE_MIN_LUMINANCE;
    int v = counted ? int(round(clamp(log2(g_luminance), EXPOSURE_LOG2_MIN, EXPOSURE_LOG2_MAX) * EXPOSURE_LOG_SCALE)) : 0;
    int sub_log = subgroupAdd(v);
    uint sub_count = subgroupAdd(counted ? 1u : 0u);
    if (subgroupElect()) {
        s_log[gl_SubgroupID] = sub_log;
        s_count[gl_SubgroupID] = sub_count;
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        int l = 0;
        uint n = 0u;
        for (uint k = 0u; k < gl_NumSubgroups; ++k) {
            l += s_log[k];
            n += s_count[k];
        }
        if (n > 0u) {
            atomicAdd(exposure.log_sum, int64_t(l));
            atomicAdd(exposure.count, n);
        }
    }
}
