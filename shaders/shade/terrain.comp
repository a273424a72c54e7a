#version 460
// shade.terrain: shade hit records — materials from altitude, slope and latitude, sun +
// sky ambient, a distance haze; flat sky where there is no terrain. Debug views by push constant.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#include "common/tiles.glsl"
#include "common/hit.glsl"

layout(set = 0, binding = 0, rgba32ui) uniform readonly uimage2D hits;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D color;
// view: 0 shaded, 1 level colours, 2 slot ids, 3 normals, 4 lat/lon, 5 water.
layout(push_constant) uniform Push { uint view; } pc;

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

vec3 sky(vec3 d) {
    vec3 up = normalize(-frame.planet_center);
    float e = dot(d, up);
    vec3 day = mix(vec3(0.62, 0.74, 0.90), vec3(0.22, 0.40, 0.78), clamp(e * 3.0 + 0.3, 0.0, 1.0));
    // A stand-in for a scattering sky: it darkens to space with altitude (scale height ~8 km,
    // black above ~100 km), brightest toward the horizon.
    float air = exp(-max(frame.eye_altitude, 0.0) / 25000.0);
    return mix(vec3(0.004, 0.005, 0.012), day, clamp(air * (1.5 - e), 0.0, 1.0));
}

vec3 material(float h, float slope, float lat, bool water) {
    if (water) return mix(vec3(0.08, 0.24, 0.38), vec3(0.03, 0.10, 0.24), clamp(-h / 4000.0, 0.0, 1.0));
    float alat = abs(lat);
    // Permanent snow: ~5,600 m in the tropics falling to sea level near the poles.
    float snowline = mix(5600.0, 0.0, clamp((alat - 25.0) / 50.0, 0.0, 1.0));
    vec3 rock = vec3(0.36, 0.33, 0.30);
    vec3 grass = vec3(0.30, 0.42, 0.18);
    vec3 forest = vec3(0.13, 0.26, 0.11);
    vec3 desert = vec3(0.76, 0.64, 0.44);
    vec3 sand = vec3(0.80, 0.74, 0.56);
    vec3 snow = vec3(0.92, 0.94, 0.97);
    // Vegetation by latitude band: tropics forest, subtropics desert, temperate grass/forest.
    // Bands blend over several degrees of latitude: no hard material lines.
    vec3 tropics = forest;
    vec3 subtropics = mix(desert, grass, clamp((h - 800.0) / 1500.0, 0.0, 1.0));
    vec3 temperate = mix(forest, grass, clamp(h / 1200.0, 0.0, 1.0));
    vec3 low = mix(tropics, subtropics, smoothstep(8.0, 16.0, alat));
    low = mix(low, temperate, smoothstep(28.0, 38.0, alat));
    low = mix(low, grass, smoothstep(55.0, 65.0, alat));
    // Above the tree line: sparse alpine ground, brown-grey.
    vec3 alpine = vec3(0.46, 0.40, 0.33);
    low = mix(low, alpine, smoothstep(2600.0, 3800.0, h));
    vec3 c = h < 15.0 && slope < 0.15 ? sand : low;
    c = mix(c, rock, smoothstep(0.35, 0.6, slope));
    c = mix(c, snow, smoothstep(snowline - 150.0, snowline + 250.0, h) * (1.0 - smoothstep(0.25, 0.5, slope)));
    return c;
}

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= uint(frame.viewport.x) || px.y >= uint(frame.viewport.y)) return;
    vec3 d = pixel_ray(vec2(px) + 0.5);
    uvec4 h = imageLoad(hits, ivec2(px));
    float dist = hit_dist(h);
    if (dist <= 0.0) {
        imageStore(color, ivec2(px), vec4(pc.view == VIEW_SHADED ? sky(d) : vec3(0.0), 1.0));
        return;
    }
    uint slot = hit_slot(h);
    SlotRecord r = slots.s[slot];
    vec2 st = hit_st(h);
    vec3 n = hit_normal(h);
    vec3 up = normalize(r.n.xyz + chart_inverse(r, st).x * r.e1.xyz + chart_inverse(r, st).y * r.e2.xyz);
    float height = tile_height(r, st);
    float lat = degrees(asin(clamp(up.z, -1.0, 1.0)));
    bool water = hit_water(h);
    vec3 c;
    if (pc.view == VIEW_LEVEL) c = hue(float(hit_level(h)) / 19.0) * (0.6 + 0.4 * max(dot(n, frame.sun_dir), 0.0));
    else if (pc.view == VIEW_SLOT) c = hue(fract(float(slot) * 0.61803));
    else if (pc.view == VIEW_NORMAL) c = n * 0.5 + 0.5;
    else if (pc.view == VIEW_LATLON) c = vec3(lat / 180.0 + 0.5, degrees(atan(up.y, up.x)) / 360.0 + 0.5, 0.0);
    else if (pc.view == VIEW_WATER) c = water ? vec3(0.1, 0.3, 0.9) : vec3(0.5, 0.4, 0.2);
    else {
        float slope = 1.0 - dot(n, up);
        vec3 albedo = material(height, slope, lat, water);
        float sun = max(dot(n, frame.sun_dir), 0.0);
        // Sky light from the upper hemisphere, less where the surface faces down-slope.
        float ambient = 0.25 * (0.6 + 0.4 * dot(n, up));
        vec3 lit = albedo * (vec3(1.0, 0.95, 0.86) * sun * 1.25 + sky(up) * ambient);
        // A stand-in for aerial perspective: haze thicker low, thinner from orbit.
        float haze = 1.0 - exp(-dist / (80000.0 + 4.0 * max(frame.eye_altitude, 0.0)));
        // The haze is lit air: pale blue even where the sky above is space.
        c = mix(lit, vec3(0.62, 0.72, 0.88), haze * 0.8);
        // Filmic-ish shoulder so snow in full sun keeps detail.
        c = c / (1.0 + 0.35 * c);
        c = pow(c * 1.2, vec3(1.0 / 1.1));
    }
    imageStore(color, ivec2(px), vec4(c, 1.0));
}
